"""Table rows for fill_constant, fill_any_like, assign, assign_value, range, linspace, eye,
tril_triu and diag_v2."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(13)


def r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


def tri_ref(X, diagonal, lower, **_):
    out = np.array(X, copy=True)
    rows, cols = X.shape[-2:]
    for i in range(rows):
        for j in range(cols):
            keep = (j - i <= diagonal) if lower else (j - i >= diagonal)
            if not keep:
                out[..., i, j] = 0
    return out


def diag_ref(X, offset, padding_value=0.0, **_):
    if X.ndim == 1:
        n = X.size + abs(offset)
        out = np.full((n, n), padding_value, dtype=X.dtype)
        for k, v in enumerate(X):
            i, j = (k, k + offset) if offset >= 0 else (k - offset, k)
            out[i, j] = v
        return out
    vals = [X[i, j] for i in range(X.shape[0]) for j in range(X.shape[1]) if j - i == offset]
    return np.array(vals, dtype=X.dtype)


# values real Paddle 3.3.1 gives (paddle.arange(0, 1, 0.1), paddle.linspace(0, 1, 7)); Paddle
# accumulates the arange step in float32 and builds linspace from both ends
PADDLE_ARANGE_0_1_01 = np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.70000005, 0.8000001, 0.9000001],
                                dtype=np.float32)
PADDLE_LINSPACE_0_1_7 = np.array([0.0, 0.1666666716337204, 0.3333333432674408, 0.5, 0.6666666269302368,
                                  0.8333333134651184, 1.0], dtype=np.float32)

CASES = [
    OpCase("fill_constant", {}, lambda **_: np.full((2, 3), 1.5, dtype=np.float32),
           attrs={"shape": [2, 3], "value": 1.5}),
    OpCase("fill_constant", {}, lambda **_: np.array([2 ** 40 + 1] * 2, dtype=np.int64),
           attrs={"shape": [2], "dtype": 3, "value": float(2 ** 40 + 1), "str_value": str(2 ** 40 + 1)},
           name="str_value_int64"),
    OpCase("fill_constant", {}, lambda **_: np.array(-7, dtype=np.int32),
           attrs={"shape": [], "dtype": 2, "value": -7.0}, name="0d_int32"),
    OpCase("fill_constant", {}, lambda **_: np.ones((1, 2), dtype=bool),
           attrs={"shape": [1, 2], "dtype": 0, "value": 1.0, "str_value": "1.0"}, name="bool"),
    OpCase("fill_constant", {}, lambda **_: np.full(2, np.inf, dtype=np.float64),
           attrs={"shape": [2], "dtype": 6, "str_value": "inf"}, name="str_inf"),
    OpCase("fill_constant", {"ShapeTensor": np.array([2, 1])}, lambda **_: np.full((2, 1), 3.0, np.float32),
           attrs={"value": 3.0}, name="shape_tensor"),
    OpCase("fill_constant", {"ShapeTensorList": [np.array([3]), np.array([2], dtype=np.int32)]},
           lambda **_: np.zeros((3, 2), np.float32), attrs={"shape": [-1, 2]}, name="shape_tensor_list"),
    OpCase("fill_constant", {"ValueTensor": np.array([4.0])}, lambda **_: np.full((2,), 4, np.int64),
           attrs={"shape": [2], "dtype": 3, "value": 1.0}, name="value_tensor"),
    OpCase("fill_any_like", {"X": r(2, 3)}, lambda X, **_: np.full((2, 3), 2.5), attrs={"value": 2.5}),
    OpCase("fill_any_like", {"X": np.zeros((2,), np.float32)}, lambda X, **_: np.array([2, 2], np.int64),
           attrs={"value": 2.7, "dtype": 3}, name="to_int64_truncates"),
    OpCase("assign", {"X": r(2, 3)}, lambda X, **_: X),
    OpCase("assign", {"X": np.array([1, 2], dtype=np.int32)}, lambda X, **_: X, name="int32"),
    OpCase("assign_value", {}, lambda **_: np.array([[1.5, 2.0], [3.0, -1.0]], np.float32),
           attrs={"shape": [2, 2], "dtype": 5, "values": [1.5, 2.0, 3.0, -1.0]}),
    OpCase("assign_value", {}, lambda **_: np.array([2 ** 40, -3], np.int64),
           attrs={"shape": [2], "dtype": 3, "values": [2 ** 40, -3]}, name="int64"),
    OpCase("assign_value", {}, lambda **_: np.array([True, False]),
           attrs={"shape": [2], "dtype": 0, "values": [True, False]}, name="bool"),
    OpCase("range", {"Start": np.array([1]), "End": np.array([10]), "Step": np.array([3])},
           lambda **_: np.array([1, 4, 7])),
    OpCase("range", {"Start": np.array(5), "End": np.array(0), "Step": np.array(-2)},
           lambda **_: np.array([5, 3, 1]), name="negative_step"),
    OpCase("range", {"Start": np.float32(0), "End": np.float32(1), "Step": np.float32(0.1)},
           lambda **_: PADDLE_ARANGE_0_1_01, rtol=0, atol=0, name="float32_like_paddle"),
    OpCase("range", {"Start": np.array([2.0]), "End": np.array([2.0]), "Step": np.array([1.0])},
           lambda **_: np.zeros((0,)), name="empty"),
    OpCase("linspace", {"Start": np.array([0.0], np.float32), "Stop": np.array([1.0], np.float32),
                        "Num": np.array([7], np.int32)},
           lambda **_: PADDLE_LINSPACE_0_1_7, rtol=0, atol=0, attrs={"dtype": 5}),
    OpCase("linspace", {"Start": np.array(-1.0), "Stop": np.array(2.0), "Num": np.array(4, np.int32)},
           lambda **_: np.array([-1.0, 0.0, 1.0, 2.0]), attrs={"dtype": 6}, name="float64"),
    OpCase("linspace", {"Start": np.array(0.5), "Stop": np.array(10.0), "Num": np.array(5, np.int32)},
           lambda **_: np.array([0, 2, 5, 7, 10], np.int32), attrs={"dtype": 2}, name="int32_truncates"),
    OpCase("linspace", {"Start": np.array(3.0), "Stop": np.array(9.0), "Num": np.array(1, np.int32)},
           lambda **_: np.array([3.0], np.float32), attrs={"dtype": 5}, name="one"),
    OpCase("eye", {}, lambda **_: np.array([[1, 0, 0], [0, 1, 0]], np.float32),
           attrs={"num_rows": 2, "num_columns": 3}),
    OpCase("eye", {}, lambda **_: np.array([[1, 0], [0, 1]], np.int64), attrs={"num_rows": 2, "dtype": 3},
           name="square_int64"),
    OpCase("tril_triu", {"X": r(3, 4)}, tri_ref, attrs={"diagonal": 0, "lower": True}, name="tril"),
    OpCase("tril_triu", {"X": r(2, 3, 3)}, tri_ref, attrs={"diagonal": 1, "lower": False}, name="triu_batched"),
    OpCase("tril_triu", {"X": r(3, 2)}, tri_ref, attrs={"diagonal": -1, "lower": True}, name="tril_neg"),
    OpCase("diag_v2", {"X": r(3)}, diag_ref, attrs={"offset": 0}, name="vector"),
    OpCase("diag_v2", {"X": r(2)}, diag_ref, attrs={"offset": 1, "padding_value": 9.0}, name="vector_offset_pad"),
    OpCase("diag_v2", {"X": r(3, 4)}, diag_ref, attrs={"offset": 1}, name="matrix"),
    OpCase("diag_v2", {"X": r(3, 2)}, diag_ref, attrs={"offset": -1}, name="matrix_neg"),
]
