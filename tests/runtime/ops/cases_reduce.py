"""Table rows for the reductions (reduce_sum/mean/max/min/prod/all/any, mean)."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(11)


def r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


def distinct(*shape):
    """Values with no ties (max/min have kinks at ties)."""
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.37 - 1.3).reshape(shape).astype(np.float64)


def prod_ref(X, axes, keep):
    out = np.ones([1 if i in axes else d for i, d in enumerate(X.shape)] if keep else
                  [d for i, d in enumerate(X.shape) if i not in axes])
    it = np.nditer(X, flags=["multi_index"])
    for v in it:
        idx = it.multi_index
        pos = tuple(0 if i in axes else j for i, j in enumerate(idx)) if keep else \
            tuple(j for i, j in enumerate(idx) if i not in axes)
        out[pos] *= float(v)
    return out


CASES = [
    # reduce_sum
    OpCase("reduce_sum", {"X": r(3, 4)}, lambda X, **_: X.sum(axis=1), attrs={"dim": [1]}, name="dim1"),
    OpCase("reduce_sum", {"X": r(2, 3, 4)}, lambda X, **_: X.sum(axis=(0, 2), keepdims=True),
           attrs={"dim": [0, -1], "keep_dim": True}, name="keepdim_neg"),
    OpCase("reduce_sum", {"X": r(2, 3)}, lambda X, **_: np.array(X.sum()), attrs={"dim": [], "reduce_all": True},
           name="all"),
    OpCase("reduce_sum", {"X": r(2, 3)}, lambda X, **_: np.array(X.sum()), attrs={"dim": []}, name="empty_dim"),
    OpCase("reduce_sum", {"X": np.array(2.5)}, lambda X, **_: X, attrs={"dim": [0]}, name="0d"),
    OpCase("reduce_sum", {"X": np.array([[True, False, True], [True, True, True]])},
           lambda X, **_: np.array([2, 3], dtype=np.int64), attrs={"dim": [1]}, name="bool_int64"),
    OpCase("reduce_sum", {"X": np.array([[1, 2], [3, 4]], dtype=np.int32)},
           lambda X, **_: np.array([4, 6], dtype=np.int64), attrs={"dim": [0]}, name="int32_int64"),
    OpCase("reduce_sum", {"X": np.array([1, 2], dtype=np.int8)}, lambda X, **_: np.array(3, dtype=np.int8),
           attrs={"dim": [], "reduce_all": True}, name="int8_keeps"),
    OpCase("reduce_sum", {"X": r(2, 3).astype(np.float32)}, lambda X, **_: X.astype(np.float64).sum(axis=0),
           attrs={"dim": [0], "in_dtype": 5, "out_dtype": 6}, name="out_dtype", check_grad=False),
    # reduce_mean
    OpCase("reduce_mean", {"X": r(2, 3, 4)}, lambda X, **_: X.mean(axis=(0, 2)), attrs={"dim": [0, 2]}),
    OpCase("reduce_mean", {"X": r(3, 2)}, lambda X, **_: X.mean(keepdims=True),
           attrs={"dim": [], "reduce_all": True, "keep_dim": True}, name="all_keep"),
    OpCase("reduce_mean", {"X": np.array([[1, 2], [-1, -2]])}, lambda X, **_: np.array([1, -1]),
           attrs={"dim": [1]}, name="int_truncates"),
    # reduce_max / reduce_min
    OpCase("reduce_max", {"X": distinct(3, 4)}, lambda X, **_: X.max(axis=1), attrs={"dim": [1]}),
    OpCase("reduce_max", {"X": distinct(2, 3, 2)}, lambda X, **_: X.max(axis=(0, 1), keepdims=True),
           attrs={"dim": [0, 1], "keep_dim": True}, name="keep"),
    OpCase("reduce_max", {"X": distinct(2, 3)}, lambda X, **_: np.array(X.max()),
           attrs={"dim": [], "reduce_all": True}, name="all"),
    OpCase("reduce_max", {"X": np.array([[3, 9, 1], [4, 4, 2]])}, lambda X, **_: np.array([9, 4]),
           attrs={"dim": [-1]}, name="int"),
    OpCase("reduce_min", {"X": distinct(3, 4)}, lambda X, **_: X.min(axis=0), attrs={"dim": [0]}),
    OpCase("reduce_min", {"X": distinct(4)}, lambda X, **_: np.array(X.min()), attrs={"reduce_all": True},
           name="all"),
    # reduce_prod (zeros included: the gradient must stay finite and exact)
    OpCase("reduce_prod", {"X": r(3, 4)}, lambda X, **_: prod_ref(X, {1}, False), attrs={"dim": [1]}),
    OpCase("reduce_prod", {"X": np.array([[0.5, 0.0, 2.0], [0.0, 0.0, 3.0], [1.5, -2.0, 0.7]])},
           lambda X, **_: prod_ref(X, {1}, True), attrs={"dim": [1], "keep_dim": True}, name="zeros"),
    OpCase("reduce_prod", {"X": r(2, 3, 2)}, lambda X, **_: prod_ref(X, {0, 2}, False), attrs={"dim": [0, 2]},
           name="two_axes"),
    OpCase("reduce_prod", {"X": r(2, 2)}, lambda X, **_: np.array(prod_ref(X, {0, 1}, False)),
           attrs={"dim": [], "reduce_all": True}, name="all"),
    OpCase("reduce_prod", {"X": np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)},
           lambda X, **_: np.array([4, 10, 18], dtype=np.int32), attrs={"dim": [0]}, name="int32"),
    # reduce_all / reduce_any
    OpCase("reduce_all", {"X": np.array([[True, False], [True, True]])}, lambda X, **_: np.array([False, True]),
           attrs={"dim": [1]}),
    OpCase("reduce_all", {"X": np.array([[1.0, 2.0], [3.0, 0.0]])}, lambda X, **_: np.array(False),
           attrs={"dim": [], "reduce_all": True}, name="float"),
    OpCase("reduce_all", {"X": np.array([[True, False], [True, True]]), "AxisTensor": np.array([0])},
           lambda X, AxisTensor, **_: np.array([True, False]), name="axis_tensor"),
    OpCase("reduce_any", {"X": np.array([[True, False], [False, False]])},
           lambda X, **_: np.array([[True], [False]]), attrs={"dim": [1], "keep_dim": True}),
    OpCase("reduce_any", {"X": np.array([0, 0, 3])}, lambda X, **_: np.array(True), attrs={"reduce_all": True},
           name="int"),
    # mean (all elements, 0-D)
    OpCase("mean", {"X": r(3, 4)}, lambda X, **_: np.array(X.sum() / 12)),
    OpCase("mean", {"X": np.array(1.5)}, lambda X, **_: X, name="0d"),
]
