"""Math ops: unary functions (exp, log, sqrt, sin ...), scale, pow, clip, matmul_v2, mul, dot,
cross, cumsum, logsumexp, p_norm, frobenius_norm, dist and sum (add_n), with their grads.

Float-only functions compute integer inputs in float32 (Paddle's autocast); abs, square,
sign, floor, ceil, round and trunc keep integer dtypes. floor/ceil/round/trunc/sign have
a zero gradient, as in Paddle (``x.grad`` is zeros, not None).
"""
from __future__ import annotations

import math

import numpy as np

from .activation import as_float, erf, float_meta
from .elementwise import unbroadcast
from .meta import broadcast_shapes, normalize_axis, reduce_shape, same_as_x
from .registry import Meta, register, grad_op

_F32_MIN = -3.4028234663852886e38
_F32_MAX = 3.4028234663852886e38
_EPS = 9.999999960041972e-13
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def _out_meta(out, dout, **_):
    return Meta(tuple(out.shape), out.dtype)


def _dout_meta(dout, **_):
    return Meta(tuple(dout.shape), dout.dtype)


def _zero_grad(dout, **_):
    return np.zeros_like(dout)


def _unary(type, kernel, grad_kernel=None, uses="X", meta=float_meta, attrs=None):
    """Register a one-input op; ``uses`` names the forward value its grad kernel reads."""
    register(type, ["X"], ["Out"], attrs or {}, kernel=kernel, infer_meta=meta)
    if grad_kernel is _zero_grad:
        grad_op(type, ["Out@GRAD"], ["X@GRAD"], _zero_grad, infer_meta=_dout_meta)
    elif grad_kernel is not None:
        grad_op(type, [uses, "Out@GRAD"], ["X@GRAD"], grad_kernel,
                infer_meta=_out_meta if uses == "Out" else None)


def _float_fn(fn):
    """A kernel applying the numpy ufunc ``fn`` in float (integers promoted to float32)."""
    def kernel(x, **_):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return fn(as_float(x))
    kernel.__name__ = "_" + fn.__name__
    return kernel


def _int_identity(fn):
    """floor/ceil/trunc: identity (a copy) on integers, ``fn`` on floats."""
    def kernel(x, **_):
        return x.copy() if x.dtype.kind in "iub" else fn(x)
    kernel.__name__ = "_" + fn.__name__
    return kernel


def _rsqrt(x):
    out = np.asarray(np.sqrt(x))   # asarray: 0-D inputs give numpy scalars
    return np.reciprocal(out, out=out)


def _reciprocal(x):
    return np.reciprocal(x)


def _erf(x):
    return erf(x)


def _sign(x, **_):
    return np.sign(x)


def _round(x, decimals=0, **_):
    # numpy rounds half to even, as Paddle does (0.5 -> 0, 2.5 -> 2)
    if x.dtype.kind in "iub":
        return np.round(x, decimals) if decimals < 0 else x.copy()
    return np.round(x, decimals)


def _g(f, holomorphic=True):
    """Wrap a grad formula so 1/0 at the edge of a domain gives inf/nan like Paddle, silently.

    For complex inputs Paddle's gradient (dL/dRe + i dL/dIm) of a holomorphic function is
    dout * conj(f'(x)); every formula is linear in dout, so that is conj(formula(x, conj(dout))).
    abs, which is not holomorphic, gives its complex gradient directly and opts out."""
    def kernel(v, dout, **_):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if holomorphic and v.dtype.kind == "c":
                return np.conj(f(v, np.conj(dout)))
            return f(v, dout)
    return kernel


def _abs_meta(x, *_, **__):
    d = np.dtype(x.dtype)
    return Meta(tuple(x.shape), np.dtype(np.float32 if d == np.complex64 else np.float64) if d.kind == "c" else d)


# (type, forward kernel, grad kernel, which forward value the grad reads, infer_meta)
_UNARY = [
    ("exp", _float_fn(np.exp), _g(lambda out, d: d * out), "Out", float_meta),
    ("log", _float_fn(np.log), _g(lambda x, d: d / x), "X", float_meta),
    ("sqrt", _float_fn(np.sqrt), _g(lambda out, d: d * 0.5 / out), "Out", float_meta),
    ("rsqrt", _float_fn(_rsqrt), _g(lambda out, d: d * (-0.5) * out * out * out), "Out", float_meta),
    ("square", lambda x, **_: np.square(x), _g(lambda x, d: d * 2 * x), "X", same_as_x),
    # complex abs is real; its grad d * x/|x| (numpy's complex sign) is complex, as Paddle's
    ("abs", lambda x, **_: np.abs(x), _g(lambda x, d: d * np.sign(x), holomorphic=False), "X", _abs_meta),
    ("sin", _float_fn(np.sin), _g(lambda x, d: d * np.cos(x)), "X", float_meta),
    ("cos", _float_fn(np.cos), _g(lambda x, d: -d * np.sin(x)), "X", float_meta),
    ("tan", _float_fn(np.tan), _g(lambda out, d: d * (1 + out * out)), "Out", float_meta),
    ("asin", _float_fn(np.arcsin), _g(lambda x, d: d / np.sqrt(1 - x * x)), "X", float_meta),
    ("acos", _float_fn(np.arccos), _g(lambda x, d: -d / np.sqrt(1 - x * x)), "X", float_meta),
    ("atan", _float_fn(np.arctan), _g(lambda x, d: d / (1 + x * x)), "X", float_meta),
    ("sinh", _float_fn(np.sinh), _g(lambda x, d: d * np.cosh(x)), "X", float_meta),
    ("cosh", _float_fn(np.cosh), _g(lambda x, d: d * np.sinh(x)), "X", float_meta),
    ("asinh", _float_fn(np.arcsinh), _g(lambda x, d: d / np.sqrt(x * x + 1)), "X", float_meta),
    ("acosh", _float_fn(np.arccosh), _g(lambda x, d: d / np.sqrt(x * x - 1)), "X", float_meta),
    ("atanh", _float_fn(np.arctanh), _g(lambda x, d: d / (1 - x * x)), "X", float_meta),
    ("reciprocal", _float_fn(_reciprocal), _g(lambda out, d: -d * out * out), "Out", float_meta),
    ("log1p", _float_fn(np.log1p), _g(lambda x, d: d / (1 + x)), "X", float_meta),
    ("expm1", _float_fn(np.expm1), _g(lambda out, d: d * (out + 1)), "Out", float_meta),
    ("log2", _float_fn(np.log2), _g(lambda x, d: d / (x * _LN2)), "X", float_meta),
    ("log10", _float_fn(np.log10), _g(lambda x, d: d / (x * _LN10)), "X", float_meta),
    ("erf", _float_fn(_erf), _g(lambda x, d: d * (2 / math.sqrt(math.pi)) * np.exp(-x * x)), "X", float_meta),
    ("floor", _int_identity(np.floor), _zero_grad, "X", same_as_x),
    ("ceil", _int_identity(np.ceil), _zero_grad, "X", same_as_x),
    ("trunc", _int_identity(np.trunc), _zero_grad, "X", same_as_x),
    ("sign", _sign, _zero_grad, "X", same_as_x),
]
for _t, _k, _gk, _uses, _meta in _UNARY:
    _unary(_t, _k, _gk, _uses, _meta)
_unary("round", _round, _zero_grad, meta=same_as_x, attrs={"decimals": ("INT", 0)})


# -- scale ------------------------------------------------------------------------------------
def _scalar(arr):
    return arr.reshape(-1)[0].item()


def _scale(x, scale_tensor=None, bias_tensor=None, scale=1.0, bias=0.0, bias_after_scale=True, **_):
    s = scale if scale_tensor is None else _scalar(scale_tensor)
    b = bias if bias_tensor is None else _scalar(bias_tensor)
    if x.dtype.kind in "iu":
        s, b = int(s), int(b)   # Paddle truncates the factors for integer tensors
    elif x.dtype.kind == "b":
        out = _scale(x.astype(np.float32), None, None, s, b, bias_after_scale)
        return out.astype(np.bool_)
    if bias_after_scale:
        out = x * s
        if b:
            out += b
        return out
    out = x + b
    out *= s
    return out


def _make_scale(scale=1.0, bias=0.0, bias_after_scale=True, **_):
    """Compiled-program scale: float tensors with attribute factors (every ``x * 2.0``, ``x - 1.0``)
    skip the general kernel's argument handling; the arithmetic is the general kernel's."""
    mul = np.multiply

    def kernel(x, scale_tensor=None, bias_tensor=None):
        if scale_tensor is not None or bias_tensor is not None or x.dtype.kind not in "fc" or not bias_after_scale:
            return _scale(x, scale_tensor, bias_tensor, scale, bias, bias_after_scale)
        out = mul(x, scale)
        if bias:
            out += bias      # in place for arrays; a 0-D input gives a numpy scalar, as the kernel's
        return out
    return kernel


def _scale_grad(ctx, dout):
    from ..dispatch import run_op
    s = ctx.attrs.get("scale", 1.0)
    return [run_op("scale", dout, ctx.inputs[1], None, scale=s, bias=0.0, bias_after_scale=True), None, None]


register("scale", ["X", "ScaleTensor?", "BiasTensor?"], ["Out"],
         {"scale": ("FLOAT", 1.0), "bias": ("FLOAT", 0.0), "bias_after_scale": ("BOOLEAN", True)},
         kernel=_scale, make_kernel=_make_scale, infer_meta=same_as_x, grad=_scale_grad, differentiable=("X",))


# -- pow --------------------------------------------------------------------------------------
def _pow(x, factor_tensor=None, factor=1.0, **_):
    f = factor if factor_tensor is None else float(_scalar(factor_tensor))
    if x.dtype.kind in "iu":
        # Paddle truncates the exponent for integer tensors (x ** 2.5 -> x ** 2)
        if int(f) < 0:
            raise ValueError(f"pow: integer tensors cannot be raised to a negative power ({f}); cast to float first")
        return np.power(x, int(f))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.power(x, f)


def _pow_grad(x, factor_tensor, dout, factor=1.0, **_):
    f = factor if factor_tensor is None else float(_scalar(factor_tensor))
    with np.errstate(divide="ignore", invalid="ignore"):
        return dout * f * np.power(x, f - 1)


register("pow", ["X", "FactorTensor?"], ["Out"], {"factor": ("FLOAT", 1.0)},
         kernel=_pow, infer_meta=same_as_x, differentiable=("X",))
grad_op("pow", ["X", "FactorTensor?", "Out@GRAD"], ["X@GRAD"], _pow_grad)


# -- clip -------------------------------------------------------------------------------------
def _bounds(x, lo_t, hi_t, lo, hi):
    """The (lo, hi) bounds to apply; None for a side left at its float32-range default (unbounded,
    so float64 values beyond float32's range are kept, as Paddle's API does)."""
    lo = (None if lo <= _F32_MIN else lo) if lo_t is None else (_scalar(lo_t) if lo_t.size == 1 else lo_t)
    hi = (None if hi >= _F32_MAX else hi) if hi_t is None else (_scalar(hi_t) if hi_t.size == 1 else hi_t)
    if x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        if lo is not None and not isinstance(lo, np.ndarray):
            lo = int(min(max(lo, info.min), info.max))
        if hi is not None and not isinstance(hi, np.ndarray):
            hi = int(min(max(hi, info.min), info.max))
    return lo, hi


def _clip(x, min_t=None, max_t=None, min=_F32_MIN, max=_F32_MAX, **_):
    lo, hi = _bounds(x, min_t, max_t, min, max)
    out = np.array(x) if lo is None else np.asarray(np.maximum(x, lo))
    if lo is None and hi is None:
        return out
    if hi is not None:
        np.minimum(out, hi, out=out)
    return out.astype(x.dtype, copy=False)


def _clip_grad(x, min_t, max_t, dout, min=_F32_MIN, max=_F32_MAX, **_):
    lo, hi = _bounds(x, min_t, max_t, min, max)
    # the bounds themselves pass the gradient, as in Paddle
    if lo is None and hi is None:
        return dout.copy()
    mask = np.ones(x.shape, dtype=bool) if lo is None else (x >= lo)
    if hi is not None:
        mask &= x <= hi
    return dout * mask


register("clip", ["X", "Min?", "Max?"], ["Out"], {"min": ("FLOAT", _F32_MIN), "max": ("FLOAT", _F32_MAX)},
         kernel=_clip, infer_meta=same_as_x, differentiable=("X",))
grad_op("clip", ["X", "Min?", "Max?", "Out@GRAD"], ["X@GRAD"], _clip_grad)


# -- matmul_v2, mul, dot, cross ---------------------------------------------------------------
def _swap(a):
    return np.swapaxes(a, -1, -2)


def _check_matmul(xs, ys, trans_x, trans_y):
    """Raise a clear error for operands matmul cannot multiply (shapes may hold -1)."""
    if len(xs) == 0 or len(ys) == 0:
        raise ValueError(f"matmul: both operands need at least 1 dimension, got shapes {list(xs)} and {list(ys)}")
    kx = xs[-1] if len(xs) == 1 or not trans_x else xs[-2]
    ky = ys[0] if len(ys) == 1 else (ys[-1] if trans_y else ys[-2])
    if kx != ky and kx != -1 and ky != -1:
        raise ValueError(f"matmul: the contracted dimensions differ: x has shape {list(xs)}"
                         f"{' (transposed)' if trans_x and len(xs) > 1 else ''} and y has shape {list(ys)}"
                         f"{' (transposed)' if trans_y and len(ys) > 1 else ''}; {kx} != {ky}")


def _matmul(x, y, trans_x=False, trans_y=False, **_):
    if x.ndim == 2 and y.ndim == 2 and not (trans_x or trans_y) and x.shape[1] == y.shape[0]:
        # the common 2-D case: np.dot skips matmul's gufunc set-up (about half the time of a
        # batch-1 MLP layer); both call the same BLAS gemm
        return np.dot(x, y)
    if x.ndim > 2 and y.ndim == 2 and not trans_x and x.shape[-1] == y.shape[1 if trans_y else 0]:
        # [..., k] @ [k, n] (every Linear on a sequence): ONE gemm over the flattened leading dims,
        # about 2x faster than matmul's loop of small per-batch gemms
        out = np.dot(x.reshape(-1, x.shape[-1]), y.T if trans_y else y)
        return out.reshape(x.shape[:-1] + (out.shape[-1],))
    if trans_x and x.ndim >= 2:
        x = _swap(x)
    if trans_y and y.ndim >= 2:
        y = _swap(y)
    if x.ndim == 0 or y.ndim == 0 or x.shape[-1] != y.shape[0 if y.ndim == 1 else -2]:
        _check_matmul(x.shape, y.shape, False, False)
    return np.matmul(x, y)


def _matmul_grad(x, y, dout, trans_x=False, trans_y=False, **_):
    # view 1-D operands as a row (x) / column (y) matrix, as the forward does
    x2 = x[None, :] if x.ndim == 1 else x
    y2 = y[:, None] if y.ndim == 1 else y
    d = dout
    if y.ndim == 1:
        d = d[..., None]
    if x.ndim == 1:
        d = np.expand_dims(d, -2)
    tx = trans_x and x.ndim >= 2
    ty = trans_y and y.ndim >= 2
    a = _swap(x2) if tx else x2
    b = _swap(y2) if ty else y2
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        a, b = np.conj(a), np.conj(b)   # Paddle's complex grads: d @ b^H and a^H @ d
    da = np.matmul(d, _swap(b))
    db = np.matmul(_swap(a), d)
    dx = _swap(da) if tx else da
    dy = _swap(db) if ty else db
    # batch dimensions that were broadcast get summed back
    dx = unbroadcast(dx, x2.shape).reshape(x.shape).astype(x.dtype, copy=False)
    dy = unbroadcast(dy, y2.shape).reshape(y.shape).astype(y.dtype, copy=False)
    return dx, dy


def _matmul_meta(x, y, trans_x=False, trans_y=False, **_):
    xs, ys = list(x.shape), list(y.shape)
    _check_matmul(xs, ys, trans_x, trans_y)
    x1, y1 = len(xs) == 1, len(ys) == 1
    if x1:
        xs = [1] + xs
    elif trans_x:
        xs[-1], xs[-2] = xs[-2], xs[-1]
    if y1:
        ys = ys + [1]
    elif trans_y:
        ys[-1], ys[-2] = ys[-2], ys[-1]
    batch = broadcast_shapes(xs[:-2], ys[:-2])
    shape = tuple(batch) + (() if x1 else (xs[-2],)) + (() if y1 else (ys[-1],))
    return Meta(shape, np.result_type(x.dtype, y.dtype))


register("matmul_v2", ["X", "Y"], ["Out"], {"trans_x": ("BOOLEAN", False), "trans_y": ("BOOLEAN", False)},
         kernel=_matmul, infer_meta=_matmul_meta)
grad_op("matmul_v2", ["X", "Y", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _matmul_grad)


def _flat2(a, k):
    return a.reshape(int(np.prod(a.shape[:k], dtype=np.int64)), -1)


def _mul(x, y, x_num_col_dims=1, y_num_col_dims=1, **_):
    x2, y2 = _flat2(x, x_num_col_dims), _flat2(y, y_num_col_dims)
    if x2.shape[1] != y2.shape[0]:
        raise ValueError(f"mul: x {list(x.shape)} flattened at x_num_col_dims={x_num_col_dims} gives "
                         f"{list(x2.shape)}, y {list(y.shape)} at y_num_col_dims={y_num_col_dims} gives "
                         f"{list(y2.shape)}; {x2.shape[1]} != {y2.shape[0]}")
    return np.matmul(x2, y2).reshape(x.shape[:x_num_col_dims] + y.shape[y_num_col_dims:])


def _mul_grad(x, y, dout, x_num_col_dims=1, y_num_col_dims=1, **_):
    x2, y2 = _flat2(x, x_num_col_dims), _flat2(y, y_num_col_dims)
    d2 = dout.reshape(x2.shape[0], y2.shape[1])
    return (np.matmul(d2, y2.T).reshape(x.shape).astype(x.dtype, copy=False),
            np.matmul(x2.T, d2).reshape(y.shape).astype(y.dtype, copy=False))


def _mul_meta(x, y, x_num_col_dims=1, y_num_col_dims=1, **_):
    return Meta(tuple(x.shape[:x_num_col_dims]) + tuple(y.shape[y_num_col_dims:]),
                np.result_type(x.dtype, y.dtype))


register("mul", ["X", "Y"], ["Out"], {"x_num_col_dims": ("INT", 1), "y_num_col_dims": ("INT", 1)},
         kernel=_mul, infer_meta=_mul_meta)
grad_op("mul", ["X", "Y", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _mul_grad)


def _dot(x, y, **_):
    if x.shape != y.shape or x.ndim not in (1, 2):
        raise ValueError(f"dot: x and y must be 1-D or 2-D tensors of the same shape, got "
                         f"{list(x.shape)} and {list(y.shape)}")
    if x.dtype.kind == "b":
        return np.logical_and(x, y).sum(axis=-1).astype(np.bool_)
    return np.einsum("...i,...i->...", x, y)


def _dot_grad(x, y, dout, **_):
    d = dout[..., None]
    return (d * y).astype(x.dtype, copy=False), (d * x).astype(y.dtype, copy=False)


def _dot_meta(x, y, **_):
    return Meta(tuple(x.shape[:-1]), np.result_type(x.dtype, y.dtype))


register("dot", ["X", "Y"], ["Out"], {}, kernel=_dot, infer_meta=_dot_meta)
grad_op("dot", ["X", "Y", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _dot_grad)


def _cross_axis(shape, dim):
    if dim == 9:   # Paddle's "not given": the first dimension of size 3
        for i, d in enumerate(shape):
            if d == 3:
                return i
        raise ValueError(f"cross: no dimension of size 3 in shape {list(shape)}; pass axis")
    ax = normalize_axis(dim, len(shape))
    if shape[ax] not in (3, -1):
        raise ValueError(f"cross: dimension {dim} of shape {list(shape)} must have size 3")
    return ax


def _cross(x, y, dim=9, **_):
    if x.shape != y.shape:
        raise ValueError(f"cross: x and y must have the same shape, got {list(x.shape)} and {list(y.shape)}")
    ax = _cross_axis(x.shape, dim)
    return np.cross(x, y, axis=ax)


def _cross_grad(x, y, dout, dim=9, **_):
    ax = _cross_axis(x.shape, dim)
    # d(x × y)·g: dx = y × g, dy = g × x
    return (np.cross(y, dout, axis=ax).astype(x.dtype, copy=False),
            np.cross(dout, x, axis=ax).astype(y.dtype, copy=False))


def _cross_meta(x, y, dim=9, **_):
    return Meta(tuple(x.shape), np.result_type(x.dtype, y.dtype))


register("cross", ["X", "Y"], ["Out"], {"dim": ("INT", 9)}, kernel=_cross, infer_meta=_cross_meta)
grad_op("cross", ["X", "Y", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _cross_grad)


# -- cumsum -----------------------------------------------------------------------------------
def _cumsum(x, axis=-1, flatten=False, exclusive=False, reverse=False, **_):
    shape = x.shape
    if flatten or x.ndim == 0:
        x = x.reshape(-1)
        axis = 0
    else:
        axis = normalize_axis(axis, x.ndim)
    if reverse:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis, dtype=x.dtype)
    if exclusive:
        shifted = np.zeros_like(out)
        dst = [slice(None)] * out.ndim
        src = [slice(None)] * out.ndim
        dst[axis] = slice(1, None)
        src[axis] = slice(None, -1)
        shifted[tuple(dst)] = out[tuple(src)]
        out = shifted
    if reverse:
        out = np.ascontiguousarray(np.flip(out, axis))
    if not flatten and len(shape) == 0:
        out = out.reshape(())
    return out


def _cumsum_grad(x, dout, axis=-1, flatten=False, exclusive=False, reverse=False, **_):
    # each input feeds every later (earlier, when reversed) output: sum the grads the other way
    g = _cumsum(dout, axis=axis, flatten=flatten, exclusive=exclusive, reverse=not reverse)
    return g.reshape(x.shape)


def _cumsum_meta(x, axis=-1, flatten=False, **_):
    if flatten:
        n = -1 if any(d == -1 for d in x.shape) else int(np.prod(x.shape, dtype=np.int64))
        return Meta((n,), x.dtype)
    if len(x.shape):
        normalize_axis(axis, len(x.shape))
    return Meta(tuple(x.shape), x.dtype)


register("cumsum", ["X"], ["Out"], {"axis": ("INT", -1), "flatten": ("BOOLEAN", False),
                                    "exclusive": ("BOOLEAN", False), "reverse": ("BOOLEAN", False)},
         kernel=_cumsum, infer_meta=_cumsum_meta)
grad_op("cumsum", ["X", "Out@GRAD"], ["X@GRAD"], _cumsum_grad)


# -- cumprod (not in the protos file: Paddle's legacy op is cumprod{X}->{Out}, attrs dim/exclusive/reverse)
def _along(a, dim, exclusive, reverse):
    """``a`` moved so the scan runs forward over axis 0 (flipped when reversed, shifted when exclusive)."""
    a = np.moveaxis(a, dim, 0)
    if reverse:
        a = a[::-1]
    if exclusive:
        a = np.concatenate([np.ones_like(a[:1]), a[:-1]], axis=0)
    return a


def _back(a, dim, exclusive, reverse, fill):
    if exclusive:   # undo the shift: the last input feeds no output
        a = np.concatenate([a[1:], np.full_like(a[:1], fill)], axis=0)
    if reverse:
        a = a[::-1]
    return np.ascontiguousarray(np.moveaxis(a, 0, dim))


def _cumprod(x, dim=-1, exclusive=False, reverse=False, **_):
    if x.ndim == 0:
        return x.copy()
    dim = normalize_axis(dim, x.ndim)
    out = np.moveaxis(np.cumprod(_along(x, dim, exclusive, reverse), axis=0, dtype=x.dtype), 0, dim)
    if reverse:
        out = np.flip(out, dim)
    return np.ascontiguousarray(out)


def _cumprod_grad(x, out, dout, dim=-1, exclusive=False, reverse=False, **_):
    # dx_j = prod(x_<j) * S_j with S_j = g_j + x_{j+1} * S_{j+1} (scan order): exact with zeros in x
    if x.ndim == 0:
        return dout.astype(x.dtype, copy=True)
    dim = normalize_axis(dim, x.ndim)
    xs = _along(x, dim, exclusive, reverse)
    g = np.moveaxis(dout, dim, 0)
    if reverse:
        g = g[::-1]
    n = xs.shape[0]
    before = np.concatenate([np.ones_like(xs[:1]), np.cumprod(xs[:-1], axis=0, dtype=xs.dtype)], axis=0)
    acc = np.zeros_like(g[0])
    dx = np.empty_like(xs)
    for j in range(n - 1, -1, -1):
        acc = g[j] + (xs[j + 1] * acc if j + 1 < n else 0)
        dx[j] = before[j] * acc
    return _back(dx, dim, exclusive, reverse, 0).astype(x.dtype, copy=False)


def _cumprod_meta(x, dim=-1, **_):
    if len(x.shape):
        normalize_axis(dim, len(x.shape))
    return Meta(tuple(x.shape), x.dtype)


register("cumprod", ["X"], ["Out"], {"dim": ("INT", -1), "exclusive": ("BOOLEAN", False),
                                     "reverse": ("BOOLEAN", False)},
         kernel=_cumprod, infer_meta=_cumprod_meta)
grad_op("cumprod", ["X", "Out", "Out@GRAD"], ["X@GRAD"], _cumprod_grad)


# -- reductions: logsumexp, p_norm, frobenius_norm, dist --------------------------------------
def _axes(ndim, axis, reduce_all):
    if reduce_all or axis is None or len(axis) == 0 or ndim == 0:
        return None
    return tuple(sorted({normalize_axis(a, ndim) for a in axis}))


def _keep(a, x_ndim, axes):
    """``a`` reduced without keepdims, with the reduced axes put back as size-1 dims."""
    if axes is None:
        return a.reshape((1,) * x_ndim)
    return np.expand_dims(a, axes)


def _logsumexp(x, axis=(), keepdim=False, reduce_all=False, **_):
    x = as_float(x)
    axes = _axes(x.ndim, axis, reduce_all)
    m = np.asarray(x.max(axis=axes, keepdims=True))
    m[~np.isfinite(m)] = 0   # all -inf (or inf) rows: keep exp() finite, the result is still right
    s = np.asarray(np.exp(x - m).sum(axis=axes, keepdims=True))
    with np.errstate(divide="ignore"):
        np.log(s, out=s)
    s += m
    if not keepdim:
        s = s.reshape(reduce_shape(x.shape, axes, False))
    return s


def _logsumexp_grad(x, out, dout, axis=(), keepdim=False, reduce_all=False, **_):
    axes = _axes(x.ndim, axis, reduce_all)
    if not keepdim:
        out, dout = _keep(out, x.ndim, axes), _keep(dout, x.ndim, axes)
    g = np.asarray(x - out)
    np.exp(g, out=g)
    g *= dout
    return g


def _logsumexp_meta(x, axis=(), keepdim=False, reduce_all=False, **_):
    axes = None if (reduce_all or not axis or len(x.shape) == 0) else list(axis)
    return Meta(reduce_shape(x.shape, axes, keepdim), float_meta(x).dtype)


register("logsumexp", ["X"], ["Out"], {"axis": ("INTS", []), "keepdim": ("BOOLEAN", False),
                                       "reduce_all": ("BOOLEAN", False)},
         kernel=_logsumexp, infer_meta=_logsumexp_meta)
grad_op("logsumexp", ["X", "Out", "Out@GRAD"], ["X@GRAD"], _logsumexp_grad)


def _norm_along(a, p, axis, keepdims):
    """The p-norm of ``a`` along ``axis`` (None: all elements); ``a`` is float."""
    if p == 0:
        return np.count_nonzero(a, axis=axis, keepdims=keepdims).astype(a.dtype)
    if p == np.inf:
        return np.abs(a).max(axis=axis, keepdims=keepdims)
    if p == -np.inf:
        return np.abs(a).min(axis=axis, keepdims=keepdims)
    if p == 2:
        return np.sqrt(np.square(a).sum(axis=axis, keepdims=keepdims))
    if p == 1:
        return np.abs(a).sum(axis=axis, keepdims=keepdims)
    with np.errstate(divide="ignore", over="ignore"):
        s = np.power(np.abs(a), p).sum(axis=axis, keepdims=keepdims)
        return np.power(s, 1.0 / p)


def _p_norm_axis(x, axis, asvector):
    if asvector or x.ndim == 0:
        return None
    return normalize_axis(axis, x.ndim)


def _p_norm(x, porder=2.0, axis=-1, epsilon=_EPS, keepdim=False, asvector=False, **_):
    x = as_float(x)
    ax = _p_norm_axis(x, axis, asvector)
    out = _norm_along(x, porder, ax, keepdim)
    return np.asarray(out, dtype=x.dtype)


def _p_norm_grad(x, out, dout, porder=2.0, axis=-1, epsilon=_EPS, keepdim=False, asvector=False, **_):
    ax = _p_norm_axis(x, axis, asvector)
    if not keepdim:
        axes = None if ax is None else (ax,)
        out, dout = _keep(out, x.ndim, axes), _keep(dout, x.ndim, axes)
    p = porder
    if p == 0:
        return np.zeros_like(x)
    if p in (np.inf, -np.inf):
        # every element that attains the max (min) |x| gets the full gradient, like Paddle
        return dout * np.sign(x) * (np.abs(x) == out)
    if p == 2:
        return dout * x / np.maximum(out, epsilon)
    if p == 1:
        return dout * np.sign(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ax_ = np.abs(x)
        g = np.sign(x) * np.power(ax_, p - 1) / np.power(np.maximum(out, epsilon), p - 1)
        g = np.where(x == 0, 0, g)
    return (dout * g).astype(x.dtype, copy=False)


def _p_norm_meta(x, porder=2.0, axis=-1, epsilon=_EPS, keepdim=False, asvector=False, **_):
    n = len(x.shape)
    if asvector or n == 0:
        shape = (1,) * n if keepdim else ()
    else:
        ax = normalize_axis(axis, n)
        shape = tuple(1 if i == ax else d for i, d in enumerate(x.shape)) if keepdim else \
            tuple(d for i, d in enumerate(x.shape) if i != ax)
    return Meta(shape, float_meta(x).dtype)


register("p_norm", ["X"], ["Out"], {"porder": ("FLOAT", 2.0), "axis": ("INT", -1), "epsilon": ("FLOAT", _EPS),
                                    "keepdim": ("BOOLEAN", False), "asvector": ("BOOLEAN", False)},
         kernel=_p_norm, infer_meta=_p_norm_meta)
grad_op("p_norm", ["X", "Out", "Out@GRAD"], ["X@GRAD"], _p_norm_grad)


_REDUCE_ATTRS = {"dim": ("INTS", [0]), "keep_dim": ("BOOLEAN", False), "reduce_all": ("BOOLEAN", False),
                 "in_dtype": ("INT", -1), "out_dtype": ("INT", -1)}


def _frobenius_norm(x, dim=(0,), keep_dim=False, reduce_all=False, **_):
    x = as_float(x)
    axes = _axes(x.ndim, dim, reduce_all)
    return np.asarray(np.sqrt(np.square(x).sum(axis=axes, keepdims=keep_dim)), dtype=x.dtype)


def _frobenius_norm_grad(x, out, dout, dim=(0,), keep_dim=False, reduce_all=False, **_):
    axes = _axes(x.ndim, dim, reduce_all)
    if not keep_dim:
        out, dout = _keep(out, x.ndim, axes), _keep(dout, x.ndim, axes)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = dout * x / out
    return np.where(out == 0, 0, g).astype(x.dtype, copy=False)


def _frobenius_norm_meta(x, dim=(0,), keep_dim=False, reduce_all=False, **_):
    axes = None if (reduce_all or not dim or len(x.shape) == 0) else list(dim)
    return Meta(reduce_shape(x.shape, axes, keep_dim), float_meta(x).dtype)


# Paddle's kernel default for dim is [0]; kernels take the list the op carries
def _fro_kernel(x, dim=[0], keep_dim=False, reduce_all=False, in_dtype=-1, out_dtype=-1, **_):  # noqa: B006
    return _frobenius_norm(x, dim, keep_dim, reduce_all)


def _fro_grad_kernel(x, out, dout, dim=[0], keep_dim=False, reduce_all=False, in_dtype=-1,  # noqa: B006
                     out_dtype=-1, **_):
    return _frobenius_norm_grad(x, out, dout, dim, keep_dim, reduce_all)


register("frobenius_norm", ["X"], ["Out"], _REDUCE_ATTRS, kernel=_fro_kernel, infer_meta=_frobenius_norm_meta)
grad_op("frobenius_norm", ["X", "Out", "Out@GRAD"], ["X@GRAD"], _fro_grad_kernel)


def _dist(x, y, p=2.0, **_):
    d = as_float(np.subtract(x, y))
    return np.asarray(_norm_along(d, p, None, False), dtype=d.dtype)


def _dist_grad(x, y, out, dout, p=2.0, **_):
    d = np.subtract(x, y)
    g = _p_norm_grad(d, out, dout, porder=p, asvector=True)
    return unbroadcast(g, x.shape).astype(x.dtype, copy=False), \
        unbroadcast(-g, y.shape).astype(y.dtype, copy=False)


def _dist_meta(x, y, p=2.0, **_):
    broadcast_shapes(x.shape, y.shape)
    return Meta((), float_meta(Meta((), np.result_type(x.dtype, y.dtype))).dtype)


register("dist", ["X", "Y"], ["Out"], {"p": ("FLOAT", 2.0)}, kernel=_dist, infer_meta=_dist_meta)
grad_op("dist", ["X", "Y", "Out", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _dist_grad)


# -- sum (add_n) ------------------------------------------------------------------------------
def _sum(xs, **_):
    if len(xs) == 0:
        raise ValueError("sum (add_n): needs at least one input tensor, got an empty list")
    if len(xs) == 1:
        return xs[0].copy()
    out = np.add(xs[0], xs[1])
    for a in xs[2:]:
        if a.shape == out.shape and np.result_type(out, a) == out.dtype:
            out += a
        else:
            out = out + a
    return out


def _sum_grad(ctx, dout):
    # every addend receives the output gradient unchanged
    return [[dout] * len(ctx.inputs[0])]


def _sum_meta(xs, **_):
    shape = tuple(xs[0].shape)
    dtype = np.dtype(xs[0].dtype)
    for m in xs[1:]:
        shape = broadcast_shapes(shape, m.shape)
        dtype = np.result_type(dtype, m.dtype)
    return Meta(shape, dtype)


register("sum", ["X[]"], ["Out"], {}, kernel=_sum, infer_meta=_sum_meta, grad=_sum_grad)


# -- einsum (not in the protos file: Paddle's legacy op is einsum{Operands[]}->{Out}, attr equation) --
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def einsum_expand(equation, ndims):
    """(operand subscripts, output subscripts) with '...' replaced by letters the equation does not use
    (right-aligned, as numpy broadcasts) and the implicit output made explicit."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    subs = lhs.split(",")
    if len(subs) != len(ndims):
        raise ValueError(f"einsum: equation {equation!r} has {len(subs)} operands, got {len(ndims)} tensors")
    free = [c for c in _LETTERS if c not in eq]
    n_ell = 0
    for s, nd in zip(subs, ndims):
        named = len(s.replace("...", ""))
        if "..." in s:
            n_ell = max(n_ell, nd - named)
        elif named != nd:
            raise ValueError(f"einsum: subscripts {s!r} name {named} dimensions but the operand has {nd}")
    ell = "".join(free[:n_ell])
    out_subs = []
    for s, nd in zip(subs, ndims):
        k = nd - len(s.replace("...", ""))    # this operand's ellipsis dims: the last k letters of ell
        out_subs.append(s.replace("...", ell[n_ell - k:] if k else "") if "..." in s else s)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        letters = "".join(out_subs)
        out = ell + "".join(sorted(c for c in set(lhs) if c.isalpha() and letters.count(c) == 1))
    for s in out_subs:
        if len(set(s)) != len(s):
            raise ValueError(f"einsum: repeated subscripts in one operand ({equation!r}) are not supported")
    return out_subs, out


def _einsum(operands, equation="", **_):
    subs, out = einsum_expand(equation, [a.ndim for a in operands])
    res = np.einsum(",".join(subs) + "->" + out, *operands, optimize=len(operands) > 2)
    return np.asarray(res, dtype=operands[0].dtype)


def _einsum_meta(operands, equation="", **_):
    subs, out = einsum_expand(equation, [len(m.shape) for m in operands])
    size = {}
    for s, m in zip(subs, operands):
        for c, d in zip(s, m.shape):
            if c not in size or size[c] in (1, -1) and d != 1:
                size[c] = d
    return Meta(tuple(size[c] for c in out), operands[0].dtype)


def _einsum_grad(operands, dout, equation="", **_):
    # d operand_k = einsum(out, other operands -> subs_k), then broadcast over k's own summed-out
    # letters and summed over the axes where operand k was broadcast (size 1)
    subs, out = einsum_expand(equation, [a.ndim for a in operands])
    grads = []
    for k, (sk, xk) in enumerate(zip(subs, operands)):
        others = [(s, a) for j, (s, a) in enumerate(zip(subs, operands)) if j != k]
        seen = set(out).union(*[set(s) for s, _ in others])
        kept = "".join(c for c in sk if c in seen)
        g = np.einsum(",".join([out] + [s for s, _ in others]) + "->" + kept, dout, *[a for _, a in others])
        g = np.asarray(g).reshape([g.shape[kept.index(c)] if c in kept else 1 for c in sk])
        axes = tuple(i for i, (gd, xd) in enumerate(zip(g.shape, xk.shape)) if xd == 1 and gd != 1)
        if axes:
            g = g.sum(axis=axes, keepdims=True)
        grads.append(np.ascontiguousarray(np.broadcast_to(g, xk.shape)).astype(xk.dtype, copy=False))
    return grads


def _einsum_grad_rule(ctx, dout):
    from ..dispatch import run_op
    from .shape import as_list
    return [as_list(run_op("einsum_grad", ctx.inputs[0], dout, **ctx.attrs))]


register("einsum", ["Operands[]"], ["Out"], {"equation": ("STRING", "")}, kernel=_einsum, infer_meta=_einsum_meta,
         grad=_einsum_grad_rule)
register("einsum_grad", ["Operands[]", "Out@GRAD"], ["Operands@GRAD[]"], {"equation": ("STRING", "")},
         kernel=_einsum_grad, infer_meta=lambda ops, dout, **_: [Meta(tuple(m.shape), m.dtype) for m in ops])
