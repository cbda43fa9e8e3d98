"""Table rows for the math ops (unary functions, scale, pow, clip, matmul, cumsum, norms, sum)."""
import math

import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(3)
_erf = np.vectorize(math.erf)


def r(*shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape)


def pos(*shape, lo=0.5, hi=2.0):
    return rng.uniform(lo, hi, shape)


def nonint(*shape):
    """Values at least 0.1 away from every integer and half-integer (floor/round kinks)."""
    return rng.integers(-3, 3, shape) + rng.choice([0.2, 0.3, 0.7, 0.8], shape)


def mm_ref(X, Y, trans_x=False, trans_y=False):
    if trans_x and X.ndim > 1:
        X = np.swapaxes(X, -1, -2)
    if trans_y and Y.ndim > 1:
        Y = np.swapaxes(Y, -1, -2)
    return X @ Y


def cumsum_ref(X, axis=-1, flatten=False, exclusive=False, reverse=False):
    a = X.reshape(-1) if flatten else X
    ax = 0 if flatten else axis
    n = a.shape[ax]
    out = np.zeros_like(a)
    for i in range(n):
        idx = [j for j in range(n) if (j > i if reverse else j < i) or (j == i and not exclusive)]
        sel = np.take(a, idx, axis=ax).sum(axis=ax) if idx else 0
        np.moveaxis(out, ax, 0)[i] = sel
    return out


def cumprod_ref(X, dim=-1, exclusive=False, reverse=False):
    n = X.shape[dim]
    out = np.ones_like(X)
    for i in range(n):
        for j in range(n):
            if (j > i if reverse else j < i) or (j == i and not exclusive):
                np.moveaxis(out, dim, 0)[i] *= np.moveaxis(X, dim, 0)[j]
    return out


def lse_ref(X, axis=None, keepdim=False):
    return np.log(np.exp(X).sum(axis=axis, keepdims=keepdim))


def pnorm_ref(X, porder=2.0, axis=-1, keepdim=False, asvector=False, **_):
    a = X.reshape(-1) if asvector else X
    ax = 0 if asvector else axis
    if porder == np.inf:
        out = np.abs(a).max(axis=ax)
    elif porder == -np.inf:
        out = np.abs(a).min(axis=ax)
    elif porder == 0:
        out = (a != 0).sum(axis=ax).astype(X.dtype)
    else:
        out = (np.abs(a) ** porder).sum(axis=ax) ** (1 / porder)
    if keepdim:
        out = np.ones((1,) * X.ndim) * out if asvector else np.expand_dims(out, ax)
    return out


def away_from(a, kinks, gap=0.05):
    """``a`` with values within ``gap`` of a kink pushed 2*gap away from it."""
    a = a.copy()
    for k in kinks:
        near = np.abs(a - k) < gap
        a[near] = k + np.where(a[near] >= k, 2 * gap, -2 * gap)
    return a


X_TIES = np.array([[0.5, -1.5, 0.2], [1.1, 0.3, -0.9]])

CASES = [
    # unary functions
    OpCase("exp", {"X": r(3, 4)}, lambda X: np.exp(X)),
    OpCase("exp", {"X": np.array([0, 1, 2], np.int32)}, lambda X: np.exp(X).astype(np.float32), name="int_autocast"),
    OpCase("log", {"X": pos(3, 4)}, lambda X: np.log(X)),
    OpCase("sqrt", {"X": pos(3, 4)}, lambda X: np.sqrt(X)),
    OpCase("sqrt", {"X": np.array([1, 4, 9], np.int64)}, lambda X: np.array([1, 2, 3], np.float32),
           name="int_autocast"),
    OpCase("rsqrt", {"X": pos(3, 4)}, lambda X: 1 / np.sqrt(X)),
    OpCase("square", {"X": r(3, 4)}, lambda X: X * X),
    OpCase("square", {"X": np.array([-3, 2], np.int32)}, lambda X: np.array([9, 4], np.int32), name="int32"),
    OpCase("abs", {"X": nonint(3, 4)}, lambda X: np.abs(X)),
    OpCase("abs", {"X": np.array([-3, 2], np.int64)}, lambda X: np.array([3, 2]), name="int64"),
    OpCase("floor", {"X": nonint(3, 4)}, lambda X: np.floor(X)),
    OpCase("floor", {"X": np.array([-3, 2], np.int32)}, lambda X: X, name="int32"),
    OpCase("ceil", {"X": nonint(3, 4)}, lambda X: np.ceil(X)),
    OpCase("round", {"X": nonint(3, 4)}, lambda X: np.sign(X) * np.floor(np.abs(X) + 0.5)),
    OpCase("round", {"X": np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49])},
           lambda X: np.array([0.0, 2.0, 2.0, -0.0, -2.0, 0.0]), name="half_even", check_grad=False),
    OpCase("round", {"X": np.array([1.234, -5.678, 0.125])}, lambda X, decimals: np.array([1.23, -5.68, 0.12]),
           attrs={"decimals": 2}, name="decimals", check_grad=False),
    OpCase("round", {"X": np.array([1.2344, -5.6781])}, lambda X, decimals: np.array([1.23, -5.68]),
           attrs={"decimals": 2}, name="decimals_grad"),
    OpCase("trunc", {"X": nonint(3, 4)}, lambda X: np.sign(X) * np.floor(np.abs(X))),
    OpCase("sign", {"X": nonint(3, 4)}, lambda X: np.where(X > 0, 1.0, -1.0)),
    OpCase("sign", {"X": np.array([-4, 0, 7], np.int32)}, lambda X: np.array([-1, 0, 1], np.int32), name="int32"),
    OpCase("sin", {"X": r(3, 4)}, lambda X: np.sin(X)),
    OpCase("cos", {"X": r(3, 4)}, lambda X: np.cos(X)),
    OpCase("tan", {"X": r(3, 4, lo=-1.2, hi=1.2)}, lambda X: np.sin(X) / np.cos(X)),
    OpCase("asin", {"X": r(3, 4, lo=-0.9, hi=0.9)}, lambda X: np.arcsin(X)),
    OpCase("acos", {"X": r(3, 4, lo=-0.9, hi=0.9)}, lambda X: np.arccos(X)),
    OpCase("atan", {"X": r(3, 4)}, lambda X: np.arctan(X)),
    OpCase("sinh", {"X": r(3, 4)}, lambda X: (np.exp(X) - np.exp(-X)) / 2),
    OpCase("cosh", {"X": r(3, 4)}, lambda X: (np.exp(X) + np.exp(-X)) / 2),
    OpCase("asinh", {"X": r(3, 4)}, lambda X: np.log(X + np.sqrt(X * X + 1))),
    OpCase("acosh", {"X": pos(3, 4, lo=1.2, hi=3)}, lambda X: np.log(X + np.sqrt(X * X - 1))),
    OpCase("atanh", {"X": r(3, 4, lo=-0.9, hi=0.9)}, lambda X: 0.5 * np.log((1 + X) / (1 - X))),
    OpCase("reciprocal", {"X": pos(3, 4)}, lambda X: 1 / X),
    OpCase("log1p", {"X": pos(3, 4, lo=-0.5, hi=2)}, lambda X: np.log(1 + X)),
    OpCase("expm1", {"X": r(3, 4)}, lambda X: np.exp(X) - 1),
    OpCase("log2", {"X": pos(3, 4)}, lambda X: np.log(X) / np.log(2)),
    OpCase("log10", {"X": pos(3, 4)}, lambda X: np.log(X) / np.log(10)),
    OpCase("erf", {"X": r(3, 4, lo=-3, hi=3)}, lambda X: _erf(X)),
    OpCase("erf", {"X": np.array([0.5, -1.0], np.float32)}, lambda X: _erf(X).astype(np.float32), name="float32",
           check_grad=False),

    # scale
    OpCase("scale", {"X": r(3, 4)}, lambda X, scale, bias: X * scale + bias, attrs={"scale": 2.5, "bias": 0.5}),
    OpCase("scale", {"X": r(3, 4)}, lambda X, scale, bias, bias_after_scale: (X + bias) * scale,
           attrs={"scale": -1.5, "bias": 2.0, "bias_after_scale": False}, name="bias_before"),
    OpCase("scale", {"X": r(2, 3), "ScaleTensor": np.array([3.0]), "BiasTensor": np.array([-1.0])},
           lambda X, ScaleTensor, BiasTensor, scale: X * 3.0 - 1.0, attrs={"scale": 7.0}, name="tensors",
           grad=("X",)),
    OpCase("scale", {"X": np.array([1, -2, 3])}, lambda X, scale, bias: np.array([3, -3, 7]),
           attrs={"scale": 2.5, "bias": 1.0}, name="int_truncates"),
    OpCase("scale", {"X": r(2, 3).astype(np.float32)}, lambda X, scale: (X * -1).astype(np.float32),
           attrs={"scale": -1.0}, name="neg_float32", check_grad=False),

    # pow
    OpCase("pow", {"X": pos(3, 4)}, lambda X, factor: X ** factor, attrs={"factor": 2.5}),
    OpCase("pow", {"X": r(3, 4)}, lambda X, factor: X ** 3, attrs={"factor": 3.0}, name="cube"),
    OpCase("pow", {"X": pos(2, 3), "FactorTensor": np.array([0.5])}, lambda X, FactorTensor: np.sqrt(X),
           name="factor_tensor", grad=("X",)),
    OpCase("pow", {"X": np.array([1, -2, 3])}, lambda X, factor: np.array([1, 4, 9]), attrs={"factor": 2.0},
           name="int"),

    # clip
    OpCase("clip", {"X": away_from(r(3, 4), (-0.5, 0.8))}, lambda X, min, max: np.minimum(np.maximum(X, min), max),
           attrs={"min": -0.5, "max": 0.8}),
    OpCase("clip", {"X": away_from(r(3, 4), (-1.0, 0.25)), "Min": np.array([-1.0]), "Max": np.array([0.25])},
           lambda X, Min, Max, min, max: np.minimum(np.maximum(X, -1.0), 0.25), attrs={"min": -9.0, "max": 9.0},
           name="tensor_bounds", grad=("X",)),
    OpCase("clip", {"X": away_from(r(3, 4), (0.0,)), "Min": np.array(0.0)},
           lambda X, Min, max: np.minimum(np.maximum(X, 0.0), 1.5), attrs={"max": 1.5}, name="tensor_min_only",
           grad=("X",)),
    OpCase("clip", {"X": np.array([1, -2, 3, 7])}, lambda X, min, max: np.array([1, 0, 3, 5]),
           attrs={"min": 0.0, "max": 5.0}, name="int"),
    # matmul_v2
    OpCase("matmul_v2", {"X": r(3, 4), "Y": r(4, 5)}, mm_ref),
    OpCase("matmul_v2", {"X": r(4, 3), "Y": r(4, 5)}, mm_ref, attrs={"trans_x": True}, name="trans_x"),
    OpCase("matmul_v2", {"X": r(3, 4), "Y": r(5, 4)}, mm_ref, attrs={"trans_y": True}, name="trans_y"),
    OpCase("matmul_v2", {"X": r(2, 4, 3), "Y": r(2, 5, 4)}, mm_ref, attrs={"trans_x": True, "trans_y": True},
           name="trans_both_batched"),
    OpCase("matmul_v2", {"X": r(2, 1, 3, 4), "Y": r(3, 4, 2)}, mm_ref, name="broadcast_batch"),
    OpCase("matmul_v2", {"X": r(2, 3, 4), "Y": r(4, 2)}, mm_ref, name="batched_x_2d_y"),
    OpCase("matmul_v2", {"X": r(4), "Y": r(4)}, mm_ref, name="vec_vec"),
    OpCase("matmul_v2", {"X": r(4), "Y": r(2, 4, 3)}, mm_ref, name="vec_batched"),
    OpCase("matmul_v2", {"X": r(2, 3, 4), "Y": r(4)}, mm_ref, name="batched_vec"),
    OpCase("matmul_v2", {"X": r(4), "Y": r(3, 4)}, mm_ref, attrs={"trans_x": True, "trans_y": True},
           name="vec_trans_y"),
    OpCase("matmul_v2", {"X": np.arange(6).reshape(2, 3), "Y": np.arange(3)},
           lambda X, Y: X @ Y, name="int64"),
    OpCase("matmul_v2", {"X": r(2, 3).astype(np.float32), "Y": r(3, 2).astype(np.float32)},
           lambda X, Y: X @ Y, name="float32", check_grad=False),
    # mul
    OpCase("mul", {"X": r(3, 4), "Y": r(4, 2)}, lambda X, Y: X @ Y),
    OpCase("mul", {"X": r(2, 3, 4), "Y": r(3, 4, 5)},
           lambda X, Y, x_num_col_dims, y_num_col_dims: (X.reshape(2, 12) @ Y.reshape(12, 5)).reshape(2, 5),
           attrs={"x_num_col_dims": 1, "y_num_col_dims": 2}, name="flatten"),
    OpCase("mul", {"X": r(2, 3, 4), "Y": r(4, 5)},
           lambda X, Y, x_num_col_dims: (X.reshape(6, 4) @ Y).reshape(2, 3, 5),
           attrs={"x_num_col_dims": 2}, name="x_cols2"),
    # dot, cross
    OpCase("dot", {"X": r(5), "Y": r(5)}, lambda X, Y: np.array(sum(a * b for a, b in zip(X, Y)))),
    OpCase("dot", {"X": r(3, 4), "Y": r(3, 4)}, lambda X, Y: (X * Y).sum(axis=1), name="rows"),
    OpCase("cross", {"X": r(4, 3), "Y": r(4, 3)},
           lambda X, Y: np.stack([X[:, 1] * Y[:, 2] - X[:, 2] * Y[:, 1], X[:, 2] * Y[:, 0] - X[:, 0] * Y[:, 2],
                                  X[:, 0] * Y[:, 1] - X[:, 1] * Y[:, 0]], axis=1)),
    OpCase("cross", {"X": r(3, 2), "Y": r(3, 2)},
           lambda X, Y, dim: np.stack([X[1] * Y[2] - X[2] * Y[1], X[2] * Y[0] - X[0] * Y[2],
                                       X[0] * Y[1] - X[1] * Y[0]], axis=0),
           attrs={"dim": 0}, name="dim0"),
    # cumsum
    OpCase("cumsum", {"X": r(3, 4)}, cumsum_ref),
    OpCase("cumsum", {"X": r(3, 4)}, cumsum_ref, attrs={"axis": 0}, name="axis0"),
    OpCase("cumsum", {"X": r(2, 3)}, cumsum_ref, attrs={"flatten": True}, name="flatten"),
    OpCase("cumsum", {"X": r(3, 4)}, cumsum_ref, attrs={"exclusive": True}, name="exclusive"),
    OpCase("cumsum", {"X": r(3, 4)}, cumsum_ref, attrs={"reverse": True, "axis": 0}, name="reverse"),
    OpCase("cumsum", {"X": r(2, 3, 2)}, cumsum_ref, attrs={"reverse": True, "exclusive": True, "axis": 1},
           name="reverse_exclusive"),
    OpCase("cumsum", {"X": np.array([[1, 2], [3, 4]], np.int32)}, lambda X: np.array([[1, 3], [3, 7]], np.int32),
           name="int32"),
    # cumprod (a zero inside checks the gradient does not divide by x)
    OpCase("cumprod", {"X": r(3, 4)}, cumprod_ref),
    OpCase("cumprod", {"X": np.array([[0.5, 0.0, -1.5], [1.2, -0.7, 2.0]])}, cumprod_ref, attrs={"dim": 1},
           name="zero"),
    OpCase("cumprod", {"X": r(3, 2)}, cumprod_ref, attrs={"dim": 0, "exclusive": True}, name="exclusive"),
    OpCase("cumprod", {"X": r(2, 3, 2)}, cumprod_ref, attrs={"dim": 1, "reverse": True}, name="reverse"),
    OpCase("cumprod", {"X": r(2, 4)}, cumprod_ref, attrs={"dim": -1, "reverse": True, "exclusive": True},
           name="reverse_exclusive"),
    # einsum (references written with explicit loops / matmul, not np.einsum)
    OpCase("einsum", {"Operands": [r(2, 3), r(3, 4)]}, lambda Operands, **_: Operands[0] @ Operands[1],
           attrs={"equation": "bi,ij->bj"}),
    OpCase("einsum", {"Operands": [r(2, 3, 4)]}, lambda Operands, **_: Operands[0].sum(axis=1).T,
           attrs={"equation": "bij->jb"}, name="sum_transpose"),
    OpCase("einsum", {"Operands": [r(2, 1, 3), r(3, 2)]}, lambda Operands, **_: Operands[0] @ Operands[1],
           attrs={"equation": "...ij,jk->...ik"}, name="ellipsis"),
    OpCase("einsum", {"Operands": [r(3), r(2)]}, lambda Operands, **_: Operands[0][:, None] * Operands[1][None, :],
           attrs={"equation": "i,j->ij"}, name="outer"),
    OpCase("einsum", {"Operands": [r(2, 3), r(3, 4), r(4)]},
           lambda Operands, **_: (Operands[0] @ Operands[1] @ Operands[2]).sum(keepdims=False),
           attrs={"equation": "ij,jk,k->"}, name="three"),
    # logsumexp
    OpCase("logsumexp", {"X": r(3, 4)}, lambda X: lse_ref(X), name="all"),
    OpCase("logsumexp", {"X": r(3, 4)}, lambda X, axis: lse_ref(X, 1), attrs={"axis": [1]}, name="axis1"),
    OpCase("logsumexp", {"X": r(2, 3, 4)}, lambda X, axis, keepdim: lse_ref(X, (0, 2), True),
           attrs={"axis": [0, -1], "keepdim": True}, name="keepdim"),
    OpCase("logsumexp", {"X": r(2, 3)}, lambda X, axis, reduce_all: lse_ref(X),
           attrs={"axis": [0], "reduce_all": True}, name="reduce_all"),
    OpCase("logsumexp", {"X": np.array([1000.0, 1000.0, -np.inf])}, lambda X: np.array(1000.0 + math.log(2)),
           name="stable", check_grad=False),
    # p_norm
    OpCase("p_norm", {"X": r(3, 4)}, pnorm_ref, name="p2"),
    OpCase("p_norm", {"X": X_TIES}, pnorm_ref, attrs={"porder": 1.0, "axis": 0}, name="p1"),
    OpCase("p_norm", {"X": X_TIES}, pnorm_ref, attrs={"porder": np.inf, "keepdim": True}, name="inf"),
    OpCase("p_norm", {"X": X_TIES}, pnorm_ref, attrs={"porder": -np.inf}, name="neg_inf"),
    OpCase("p_norm", {"X": r(2, 3, 4)}, pnorm_ref, attrs={"porder": 3.0, "axis": 1}, name="p3"),
    OpCase("p_norm", {"X": pos(2, 3)}, pnorm_ref, attrs={"porder": 0.5, "axis": 1}, name="p_half"),
    OpCase("p_norm", {"X": r(2, 3)}, pnorm_ref, attrs={"asvector": True}, name="asvector"),
    OpCase("p_norm", {"X": r(2, 3)}, pnorm_ref, attrs={"asvector": True, "keepdim": True},
           name="asvector_keepdim"),
    OpCase("p_norm", {"X": np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]])}, pnorm_ref, attrs={"porder": 0.0},
           name="p0"),
    # frobenius_norm, dist
    OpCase("frobenius_norm", {"X": r(2, 3, 4)}, lambda X, dim: np.sqrt((X ** 2).sum(axis=(1, 2))),
           attrs={"dim": [1, 2]}),
    OpCase("frobenius_norm", {"X": r(2, 3)}, lambda X, dim, reduce_all, keep_dim: np.sqrt((X ** 2).sum()).reshape(1, 1),
           attrs={"dim": [0], "reduce_all": True, "keep_dim": True}, name="all_keepdim"),
    OpCase("dist", {"X": r(2, 3), "Y": r(3)}, lambda X, Y: np.sqrt(((X - Y) ** 2).sum())),
    OpCase("dist", {"X": X_TIES, "Y": np.zeros((2, 3))}, lambda X, Y, p: np.abs(X).max(), attrs={"p": np.inf},
           name="inf"),
    OpCase("dist", {"X": r(2, 3), "Y": r(2, 3)}, lambda X, Y, p: (np.abs(X - Y) ** 3).sum() ** (1 / 3),
           attrs={"p": 3.0}, name="p3"),
    # sum (add_n)
    OpCase("sum", {"X": [r(2, 3), r(2, 3), r(2, 3)]}, lambda X: X[0] + X[1] + X[2]),
    OpCase("sum", {"X": [r(4)]}, lambda X: X[0], name="single"),
    OpCase("sum", {"X": [np.arange(3), np.arange(3)]}, lambda X: 2 * np.arange(3), name="int64"),
]
