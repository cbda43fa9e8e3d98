"""Table rows for the indexing ops (runtime/ops/indexing.py)."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(11)


def r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


X34 = r(3, 4)
X234 = r(2, 3, 4)


def _set_ref(Input, idx, value):
    out = Input.copy()
    out[idx] = value
    return out


def _take_along_add(X, I, V, axis):
    out = X.copy()
    for pos in np.ndindex(*I.shape):
        tgt = list(pos)
        tgt[axis] = I[pos]
        out[tuple(tgt)] += V[pos]
    return out


CASES = [
    OpCase("gather", {"X": X34, "Index": np.array([2, 0, 2])}, lambda X, Index, **_: X[[2, 0, 2]]),
    OpCase("gather", {"X": X234, "Index": np.array([3, -1])}, lambda X, Index, **_: X[:, :, [3, 3]],
           attrs={"axis": 2}, name="axis_neg_index"),
    OpCase("gather", {"X": X234, "Index": np.array(1, dtype=np.int32)}, lambda X, Index, **_: X[:, 1],
           attrs={"axis": 1}, name="0d_index"),
    OpCase("gather", {"X": X34, "Index": np.array([[1], [1]]), "Axis": np.array([1])},
           lambda X, Index, **_: X[:, [1, 1]], name="axis_tensor_n1_index"),

    OpCase("gather_nd", {"X": X234, "Index": np.array([[1, 2], [0, 0], [1, 2]])},
           lambda X, Index: np.stack([X[1, 2], X[0, 0], X[1, 2]])),
    OpCase("gather_nd", {"X": X234, "Index": np.array([[[1, 2, 3]], [[0, 1, 0]]])},
           lambda X, Index: np.array([[X[1, 2, 3]], [X[0, 1, 0]]]), name="full_depth"),

    OpCase("index_select", {"X": X34, "Index": np.array([3, 0, 0])}, lambda X, Index, **_: X[:, [3, 0, 0]],
           attrs={"dim": -1}),
    OpCase("index_select", {"X": X34, "Index": np.array([1], dtype=np.int32)}, lambda X, Index, **_: X[[1]],
           name="int32"),

    OpCase("where", {"Condition": X34 > 0, "X": r(3, 4), "Y": r(3, 4)},
           lambda Condition, X, Y: np.array([[X[i, j] if Condition[i, j] else Y[i, j] for j in range(4)]
                                             for i in range(3)])),
    OpCase("where", {"Condition": np.array([True, False, True]), "X": r(2, 3), "Y": r(2, 1)},
           lambda Condition, X, Y: np.stack([[X[i, 0], Y[i, 0], X[i, 2]] for i in range(2)]), name="broadcast"),

    OpCase("masked_select", {"X": X34, "Mask": X34 > 0}, lambda X, Mask: X.ravel()[Mask.ravel()]),
    OpCase("masked_select", {"X": X34, "Mask": np.array([True, False, False, True])},
           lambda X, Mask: X[:, [0, 3]].ravel(), name="broadcast_mask"),

    OpCase("set_value", {"Input": X34}, lambda Input, **_: _set_ref(Input, (slice(1, 3), 2), 5.0),
           attrs={"axes": [0, 1], "starts": [1, 2], "ends": [3, 3], "steps": [1, 1], "decrease_axes": [1],
                  "values": [5.0], "shape": [1], "dtype": 6}, name="scalar"),
    OpCase("set_value", {"Input": X234, "ValueTensor": r(4)},
           lambda Input, ValueTensor, **_: _set_ref(Input, (slice(None), slice(2, None, -2)), ValueTensor),
           attrs={"axes": [1], "starts": [2], "ends": [-2 ** 31], "steps": [-2]}, name="tensor_broadcast_step"),
    OpCase("set_value", {"Input": X34, "ValueTensor": r(1, 4)},
           lambda Input, ValueTensor, **_: _set_ref(Input, 1, ValueTensor[0]),
           attrs={"axes": [0], "starts": [1], "ends": [2], "steps": [1], "decrease_axes": [0],
                  "none_axes": [0]}, name="none_axes"),
    OpCase("set_value", {"Input": X34, "ValueTensor": r(2, 1), "StartsTensorList": [np.array([1])],
                         "EndsTensorList": [np.array([3])]},
           lambda Input, ValueTensor, **_: _set_ref(Input, slice(1, 3), ValueTensor),
           attrs={"axes": [0], "starts": [0], "ends": [0], "steps": [1]}, name="tensor_lists"),
    OpCase("set_value", {"Input": np.arange(6).reshape(2, 3)}, lambda Input, **_: np.array([[7, 8, 2], [7, 8, 5]]),
           attrs={"axes": [1], "starts": [0], "ends": [2], "values": [7, 8], "shape": [2], "dtype": 3,
                  "decrease_axes": [], "steps": [1]}, name="int_values"),

    OpCase("scatter", {"X": X34, "Ids": np.array([2, 0]), "Updates": r(2, 4)},
           lambda X, Ids, Updates, **_: np.stack([Updates[1], X[1], Updates[0]])),
    OpCase("scatter", {"X": X34, "Ids": np.array([1, 1, 0]), "Updates": r(3, 4)},
           lambda X, Ids, Updates, **_: np.stack([Updates[2], Updates[0] + Updates[1], X[2]]),
           attrs={"overwrite": False}, name="accumulate"),
    OpCase("scatter", {"X": X34, "Ids": np.array([1, 2, 1]), "Updates": r(3, 4)},
           lambda X, Ids, Updates, **_: np.stack([X[0], Updates[2], Updates[1]]), name="duplicates_last_wins"),
    OpCase("scatter_nd_add", {"X": X34, "Index": np.array([[1, 2], [0, 0], [1, 2]]), "Updates": r(3)},
           lambda X, Index, Updates: X + np.array(
               [[Updates[1], 0, 0, 0], [0, 0, Updates[0] + Updates[2], 0], [0, 0, 0, 0]])),
    OpCase("scatter_nd_add", {"X": X34, "Index": np.array([[2], [2]]), "Updates": r(2, 4)},
           lambda X, Index, Updates: X + np.array([np.zeros(4), np.zeros(4), Updates[0] + Updates[1]]),
           name="rows"),

    OpCase("index_sample", {"X": X34, "Index": np.array([[0, 3], [1, 1], [2, 0]])},
           lambda X, Index: np.array([[X[0, 0], X[0, 3]], [X[1, 1], X[1, 1]], [X[2, 2], X[2, 0]]])),
    OpCase("take_along_axis", {"Input": X34, "Index": np.array([[2, 0, 1, 1]])},
           lambda Input, Index, **_: np.array([[Input[2, 0], Input[0, 1], Input[1, 2], Input[1, 3]]]),
           attrs={"Axis": 0}),
    OpCase("put_along_axis", {"Input": X34, "Index": np.array([[3], [0], [1]]), "Value": r(3, 1)},
           lambda Input, Index, Value, **_: _take_along_add(Input * np.array(
               [[1, 1, 1, 0], [0, 1, 1, 1], [1, 0, 1, 1]]), Index, Value, 1), attrs={"Axis": 1}, name="assign"),
    OpCase("put_along_axis", {"Input": X34, "Index": np.array([[1, 1, 0, 2], [1, 1, 1, 1]]), "Value": r(2, 4)},
           lambda Input, Index, Value, **_: _take_along_add(Input, Index, Value, 0),
           attrs={"Axis": 0, "Reduce": "add"}, name="add"),
]
