"""Table rows for the fused ops the graph passes create (runtime/ops/fused.py); none has a gradient."""
import json
import math

import numpy as np

from runtime.ops.fused import encode_constant

from .op_harness import OpCase

rng = np.random.default_rng(7)


def r(*shape, dtype=np.float32):
    return rng.uniform(-1.0, 1.0, shape).astype(dtype)


def _erf(a):
    return np.vectorize(math.erf)(a.astype(np.float64))


def _gelu(a):
    return (0.5 * a * (1.0 + _erf(a / math.sqrt(2.0)))).astype(a.dtype)


def _steps(*steps):
    return json.dumps([list(s) for s in steps])


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


X8, W8, B8 = r(4, 8), r(8, 3), r(3)
A, B, C = r(2, 3), r(2, 3), r(3)

CASES = [
    OpCase("fused_gemm_epilogue", {"X": X8, "Y": W8, "Bias": B8}, lambda X, Y, Bias: X @ Y + Bias,
           check_grad=False),
    OpCase("fused_gemm_epilogue", {"X": X8, "Y": W8, "Bias": B8},
           lambda X, Y, Bias, activation: np.maximum(X @ Y + Bias, 0), attrs={"activation": "relu"},
           name="relu", check_grad=False),
    OpCase("fused_gemm_epilogue", {"X": X8, "Y": W8, "Bias": B8},
           lambda X, Y, Bias, activation: _gelu(X @ Y + Bias), attrs={"activation": "gelu"},
           name="gelu", check_grad=False, rtol=1e-5, atol=1e-6),
    OpCase("fused_gemm_epilogue", {"X": r(8, 4), "Y": r(3, 8), "Bias": r(3)},
           lambda X, Y, Bias, trans_x, trans_y: X.T @ Y.T + Bias, attrs={"trans_x": True, "trans_y": True},
           name="trans", check_grad=False),
    OpCase("fused_gemm_epilogue", {"X": r(2, 4, 8), "Y": W8, "Bias": r(4, 3, dtype=np.float64)},
           lambda X, Y, Bias: X @ Y + Bias, name="batched_bias_promotes", check_grad=False),
    # add -> relu -> scale(2, bias 1) -> tanh, with C broadcast
    OpCase("fused_elementwise_chain", {"X": [A, C]},
           lambda X, steps, **_: np.tanh(np.maximum(X[0] + X[1], 0) * 2.0 + 1.0),
           attrs={"steps": _steps(["elementwise_add", {"axis": -1}, [0, 1]], ["relu", {}, [-1]],
                                  ["scale", {"scale": 2.0, "bias": 1.0, "bias_after_scale": True}, [-1]],
                                  ["tanh", {}, [-1]]), "inplace": -1},
           check_grad=False),
    # (rows never set ``inplace``: it lets the kernel write into an input, which the table's callers
    # reuse; tests/runtime/static/passes/test_inplace.py checks the in-place paths)
    OpCase("fused_elementwise_chain", {"X": [A, B, C]},
           lambda X, steps, **_: _sigmoid(X[0] * X[1]) - X[2],
           attrs={"steps": _steps(["elementwise_mul", {"axis": -1}, [0, 1]], ["sigmoid", {}, [-1]],
                                  ["elementwise_sub", {"axis": -1}, [-1, 2]])},
           name="sub", check_grad=False),
    OpCase("fused_elementwise_chain", {"X": [C, A]},
           lambda X, steps, **_: np.maximum(X[0], X[1]) / X[1].size,
           attrs={"steps": _steps(["elementwise_max", {"axis": -1}, [0, 1]],
                                  ["scale", {"scale": 1.0 / 6, "bias": 0.0, "bias_after_scale": True}, [-1]]),
                  }, name="broadcast", check_grad=False),
    OpCase("fused_elementwise_chain", {"X": [A, B.astype(np.float64)]},
           lambda X, steps, **_: np.maximum(X[0] + X[1], 0),
           attrs={"steps": _steps(["elementwise_add", {"axis": -1}, [0, 1]], ["relu", {}, [-1]])},
           name="promotes", check_grad=False),
    OpCase("fused_elementwise_chain", {"X": [r(2, 3, 4), r(3)]},
           lambda X, steps, **_: np.exp(X[0] + X[1].reshape(3, 1)),
           attrs={"steps": _steps(["elementwise_add", {"axis": 1}, [0, 1]], ["exp", {}, [-1]])},
           name="legacy_axis", check_grad=False),
    OpCase("fused_elementwise_chain", {"X": [np.array([3, -4, 5]), np.array([1, 1, -9])]},
           lambda X, steps, **_: np.maximum(X[0] * X[1], 0),
           attrs={"steps": _steps(["elementwise_mul", {"axis": -1}, [0, 1]], ["relu", {}, [-1]]), "inplace": -1},
           name="int64", check_grad=False),
    OpCase("folded_constant", {}, lambda **_: np.arange(6, dtype=np.int64).reshape(2, 3),
           attrs=encode_constant(np.arange(6, dtype=np.int64).reshape(2, 3)), check_grad=False),
    OpCase("folded_constant", {}, lambda **_: np.float32(2.5), attrs=encode_constant(np.float32(2.5)),
           name="0d", check_grad=False),
]
