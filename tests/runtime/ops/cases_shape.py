"""Table rows for the shape and layout ops (runtime/ops/shape.py).

split and unstack give a list of outputs; their references return tuples, which the
harness reads as that list."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(7)


def r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


def i32(*v):
    return np.array(v, dtype=np.int32)


X234 = r(2, 3, 4)
X34 = r(3, 4)

CASES = [
    # cast: float64 -> float32 loses precision, so finite differences need a wide step
    OpCase("cast", {"X": r(2, 3)}, lambda X, **_: X.astype(np.float32), attrs={"in_dtype": 6, "out_dtype": 5},
           eps=1e-2, grad_rtol=1e-3, grad_atol=1e-4, rtol=1e-6),
    OpCase("cast", {"X": np.array([1.7, -1.7, 0.2])}, lambda X, **_: np.array([1, -1, 0], dtype=np.int32),
           attrs={"in_dtype": 6, "out_dtype": 2}, name="to_int32", check_grad=False),
    OpCase("cast", {"X": np.array([0, 2, -1])}, lambda X, **_: np.array([False, True, True]),
           attrs={"in_dtype": 3, "out_dtype": 0}, name="to_bool"),

    OpCase("reshape2", {"X": X234}, lambda X, **_: X.reshape(6, 4), attrs={"shape": [6, 4]}),
    OpCase("reshape2", {"X": X234}, lambda X, **_: X.reshape(2, 12), attrs={"shape": [0, -1]}, name="copy_infer"),
    OpCase("reshape2", {"X": X234, "Shape": i32(4, 6)}, lambda X, **_: X.reshape(4, 6), name="shape_tensor"),
    OpCase("reshape2", {"X": X234, "ShapeTensor": [i32(3), np.array([8])]}, lambda X, **_: X.reshape(3, 8),
           name="shape_tensor_list"),
    OpCase("reshape2", {"X": r(1)}, lambda X, **_: X.reshape(()), attrs={"shape": []}, name="to_0d"),

    OpCase("transpose2", {"X": X234}, lambda X, **_: np.einsum("abc->cab", X), attrs={"axis": [2, 0, 1]}),
    OpCase("transpose2", {"X": X34}, lambda X, **_: X.T, attrs={"axis": [-1, 0]}, name="neg_axis"),

    OpCase("flatten_contiguous_range", {"X": X234}, lambda X, **_: X.reshape(2, 12),
           attrs={"start_axis": 1, "stop_axis": -1}),
    OpCase("flatten_contiguous_range", {"X": X234}, lambda X, **_: X.reshape(24),
           attrs={"start_axis": 0, "stop_axis": 2}, name="all"),
    OpCase("flatten_contiguous_range", {"X": np.array(1.5)}, lambda X, **_: np.array([1.5]),
           attrs={"start_axis": 0, "stop_axis": -1}, name="0d"),

    OpCase("squeeze2", {"X": r(1, 3, 1, 2)}, lambda X, **_: X[0, :, 0, :], attrs={"axes": []}, name="all"),
    OpCase("squeeze2", {"X": r(1, 3, 1, 2)}, lambda X, **_: X[:, :, 0, :], attrs={"axes": [-2, 1]},
           name="named_non1_ignored"),

    OpCase("unsqueeze2", {"X": X34}, lambda X, **_: X[None, :, :, None], attrs={"axes": [0, -1]}),
    OpCase("unsqueeze2", {"X": X34}, lambda X, **_: X[None, :, :, None], attrs={"axes": [2, 0]},
           name="sequential"),
    OpCase("unsqueeze2", {"X": X34, "AxesTensor": np.array([1])}, lambda X, **_: X[:, None], name="axes_tensor"),

    OpCase("concat", {"X": [r(2, 3), r(2, 1), r(2, 2)]}, lambda X, **_: np.hstack(X), attrs={"axis": 1}),
    OpCase("concat", {"X": [r(1, 3), r(2, 3)]}, lambda X, **_: np.vstack(X), attrs={"axis": -2}, name="neg_axis"),
    OpCase("concat", {"X": [r(2, 2), r(2, 2)], "AxisTensor": np.array([1])}, lambda X, **_: np.hstack(X),
           name="axis_tensor"),

    OpCase("split", {"X": r(2, 6)}, lambda X, **_: (X[:, :2], X[:, 2:4], X[:, 4:]), attrs={"num": 3, "axis": 1}),
    OpCase("split", {"X": r(5, 2)}, lambda X, **_: (X[:1], X[1:4], X[4:]), attrs={"sections": [1, -1, 1]},
           name="sections_infer"),
    OpCase("split", {"X": r(2, 4)}, lambda X, **_: (X[:, :1], X[:, 1:]), attrs={"sections": [1, 3], "axis": -1},
           name="neg_axis"),
    OpCase("split", {"X": r(4, 2), "AxisTensor": np.array([0]), "SectionsTensorList": [np.array([3]), i32(1)]},
           lambda X, **_: (X[:3], X[3:]), name="tensors"),

    OpCase("stack", {"X": [r(2, 3), r(2, 3), r(2, 3)]}, lambda X, **_: np.array(X).transpose(1, 0, 2),
           attrs={"axis": 1}),
    OpCase("stack", {"X": [r(2), r(2)]}, lambda X, **_: np.array(X).T, attrs={"axis": -1}, name="neg_axis"),
    OpCase("unstack", {"X": X234}, lambda X, **_: (X[:, 0], X[:, 1], X[:, 2]), attrs={"axis": 1}),
    OpCase("unstack", {"X": X34}, lambda X, **_: tuple(X[:, j] for j in range(4)), attrs={"axis": -1, "num": 4},
           name="neg_axis"),

    OpCase("slice", {"Input": X234}, lambda Input, **_: Input[:, 1:3, -3:-1],
           attrs={"axes": [1, 2], "starts": [1, -3], "ends": [3, -1]}),
    OpCase("slice", {"Input": X234}, lambda Input, **_: Input[1, :, 2],
           attrs={"axes": [0, 2], "starts": [1, 2], "ends": [2, 3], "decrease_axis": [0, 2]}, name="decrease"),
    OpCase("slice", {"Input": X34}, lambda Input, **_: np.array(Input[2, 3]),
           attrs={"axes": [0, 1], "starts": [-1, 3], "ends": [2 ** 31 - 1, 4], "decrease_axis": [0, 1]},
           name="to_0d"),
    OpCase("slice", {"Input": X34}, lambda Input, **_: Input[1:100, 5:],
           attrs={"axes": [0, 1], "starts": [1, 5], "ends": [100, 10]}, name="clamp_empty"),
    OpCase("slice", {"Input": X34, "StartsTensor": np.array([1]), "EndsTensorList": [i32(3)]},
           lambda Input, **_: Input[:, 1:3], attrs={"axes": [1], "starts": [0], "ends": [1]}, name="tensors"),

    OpCase("strided_slice", {"Input": X234}, lambda Input, **_: Input[::-1, 0:3:2, 3:0:-2],
           attrs={"axes": [0, 1, 2], "starts": [2 ** 31 - 1, 0, 3], "ends": [-2 ** 31, 3, 0],
                  "strides": [-1, 2, -2]}),
    OpCase("strided_slice", {"Input": X234}, lambda Input, **_: Input[:, 1, ::3],
           attrs={"axes": [1, 2], "starts": [1, 0], "ends": [2, 4], "strides": [1, 3], "decrease_axis": [1]},
           name="decrease"),
    OpCase("strided_slice", {"Input": X34, "StridesTensor": np.array([-1]), "StartsTensorList": [np.array([-1])]},
           lambda Input, **_: Input[:, ::-1], attrs={"axes": [1], "starts": [0], "ends": [-100], "strides": [1]},
           name="tensors"),

    OpCase("tile", {"X": X34}, lambda X, **_: np.concatenate([np.concatenate([X] * 3, 1)] * 2, 0),
           attrs={"repeat_times": [2, 3]}),
    OpCase("tile", {"X": r(3)}, lambda X, **_: np.stack([np.concatenate([X, X])] * 2)[None],
           attrs={"repeat_times": [1, 2, 2]}, name="more_reps"),
    OpCase("tile", {"X": r(2, 3), "RepeatTimes": np.array([2])}, lambda X, **_: np.hstack([X, X]),
           name="fewer_reps_tensor"),

    OpCase("expand_v2", {"X": r(3, 1)}, lambda X, **_: X * np.ones((2, 3, 4)), attrs={"shape": [2, -1, 4]}),
    OpCase("expand_v2", {"X": r(1, 2), "Shape": np.array([3, 2])}, lambda X, **_: np.vstack([X] * 3),
           name="shape_tensor"),
    OpCase("expand_as_v2", {"X": r(1, 3), "Y": r(2, 3)}, lambda X, Y, **_: np.vstack([X, X])),
    OpCase("expand_as_v2", {"X": r(3)}, lambda X, **_: np.stack([X] * 2), attrs={"target_shape": [2, 3]},
           name="target_shape"),

    OpCase("flip", {"X": X234}, lambda X, **_: X[::-1, :, ::-1], attrs={"axis": [0, -1]}),
    OpCase("roll", {"X": X34}, lambda X, **_: np.concatenate([X[-1:], X[:-1]])[:, [2, 3, 0, 1]],
           attrs={"shifts": [1, -2], "axis": [0, 1]}),
    OpCase("roll", {"X": X34}, lambda X, **_: np.concatenate([X.ravel()[-5:], X.ravel()[:-5]]).reshape(3, 4),
           attrs={"shifts": [5]}, name="flat"),
    OpCase("roll", {"X": X34, "ShiftsTensor": np.array([1])}, lambda X, **_: X[:, [3, 0, 1, 2]],
           attrs={"axis": [1]}, name="shifts_tensor"),

    OpCase("shape", {"Input": X234}, lambda Input: np.array([2, 3, 4], dtype=np.int32)),
    OpCase("shape", {"Input": np.array(1.0)}, lambda Input: np.zeros((0,), dtype=np.int32), name="0d"),
    OpCase("size", {"Input": X234}, lambda Input: np.array(24, dtype=np.int64)),
]
