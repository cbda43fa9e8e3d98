"""Activation ops (relu, gelu, sigmoid, softmax, ...) and their dedicated ``*_grad`` ops.

Kernels keep the input's float dtype (Python-float constants are weak under NEP 50);
integer inputs of transcendental activations are computed in float32, as Paddle's
autocast does. Grad kernels read whichever of X or Out makes the rule cheapest.
"""
from __future__ import annotations

import math

import numpy as np

from . import blas_threads  # noqa: F401  (applies DY2ST_BLAS_THREADS once, at import)
from . import zeros as _zeros
from .meta import same_as_x
from .lastaxis import SUM_MIN_SIZE, columns_ok, from_columns, row_max_shift, row_sum, sum_ok, to_columns
from .registry import Meta, register, grad_op

_SQRT_2_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_C = 0.044715

_erf_scalar = np.frompyfunc(math.erf, 1, 1)


def erf(x):
    """Vectorised math.erf, exact to double precision, in ``x``'s dtype (no scipy needed)."""
    return np.asarray(_erf_scalar(x), dtype=x.dtype)


def as_float(x):
    """Integer/bool inputs of float-only ops are computed in float32 (Paddle's autocast)."""
    return x.astype(np.float32) if x.dtype.kind in "iub" else x


def float_meta(x, *_, **__):
    return Meta(tuple(x.shape), np.dtype(np.float32) if np.dtype(x.dtype).kind in "iub" else x.dtype)


def _out_meta(out, dout, **_):
    return Meta(tuple(out.shape), out.dtype)


_EXP_SAFE = {np.dtype(np.float32): 88.0, np.dtype(np.float64): 709.0}


def _readonly(a):
    a.flags.writeable = False
    return a


# per dtype: (-clip point, 1) as 0-D arrays of that dtype, the cheapest second operand of a ufunc call
# (a Python float is converted on every call: ~0.1 µs each); the arithmetic is the same
_SIGMOID_CONSTS = {dt: (_readonly(np.array(-lo, dt)), _readonly(np.array(1, dt))) for dt, lo in _EXP_SAFE.items()}


def sigmoid(x):
    # 1 / (1 + exp(-x)). exp(-x) would overflow for very negative x; clipping x there first is cheaper
    # than an errstate block (~1 us a call): results below sigmoid(-88) = 6e-39 (float32; 1e-308 for
    # float64), which overflow would make 0, become that subnormal bound instead. float16 keeps
    # the errstate form (its clip point, -11, is far above its subnormal range). Five ufunc calls in
    # one buffer, their out= given positionally: the call's fixed cost is most of it on small tensors
    c = _SIGMOID_CONSTS.get(x.dtype)
    if c is None:
        out = np.asarray(np.negative(x))         # asarray: 0-D inputs give scalars
        with np.errstate(over="ignore"):
            np.exp(out, out=out)
        out += 1
        return np.reciprocal(out, out=out)
    out = np.maximum(x, c[0])
    if out.__class__ is not np.ndarray:
        out = np.asarray(out)
    np.negative(out, out)
    np.exp(out, out)
    np.add(out, c[1], out)
    return np.divide(c[1], out, out)        # 1 / out: the same IEEE division as np.reciprocal, faster loop


def _unary(type, kernel, grad_kernel=None, uses="X", attrs=None, meta=float_meta):
    register(type, ["X"], ["Out"], attrs or {}, kernel=kernel, infer_meta=meta)
    if grad_kernel is not None:
        grad_op(type, [uses, "Out@GRAD"], ["X@GRAD"], grad_kernel,
                infer_meta=_out_meta if uses == "Out" else None)


# -- relu family ------------------------------------------------------------------------------
def _relu(x, **_):
    return _zeros.relu(x)       # np.maximum(x, 0) against a zero array: same bits, 3-4x faster (zeros.py)


def _relu_grad(out, dout, **_):
    return dout * (out > 0)


def _relu6(x, **_):
    return np.clip(x, 0, 6)


def _relu6_grad(out, dout, **_):
    return dout * ((out > 0) & (out < 6))


def _leaky_relu(x, alpha=0.019999999552965164, **_):
    x = as_float(x)
    return np.where(x >= 0, x, x * alpha)


def _leaky_relu_grad(x, dout, alpha=0.019999999552965164, **_):
    return np.where(x >= 0, dout, dout * alpha)


def _elu(x, alpha=1.0, **_):
    x = as_float(x)
    with np.errstate(over="ignore"):
        return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _elu_grad(x, dout, alpha=1.0, **_):
    return np.where(x > 0, dout, dout * (alpha * np.exp(np.minimum(x, 0))))


_unary("relu", _relu, _relu_grad, uses="Out", meta=same_as_x)
_unary("relu6", _relu6, _relu6_grad, uses="Out", meta=same_as_x)
_unary("leaky_relu", _leaky_relu, _leaky_relu_grad, attrs={"alpha": ("FLOAT", 0.019999999552965164)})
_unary("elu", _elu, _elu_grad, attrs={"alpha": ("FLOAT", 1.0)})


# -- gelu -------------------------------------------------------------------------------------
# Exact (erf) gelu of float32/float16 takes erf from a vectorised erfc (the Chebyshev-fitted
# form, fractional error < 1.2e-7, evaluated in float64, then rounded to the input dtype):
# np.frompyfunc(math.erf) costs a Python call per element, ~10x slower at transformer sizes.
# The rest stays in the input dtype, as Paddle computes it (including the cancellation of
# 1 + erf(z) for very negative z, which Paddle's float32 kernel shows too).
_ERFC_COEF = (0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418,
              0.37409196, 1.00002368)


def erf_fast(x):
    """erf of a float32/float16 array to ~1e-7 absolute (an ulp or two where |erf| >= 0.5; tiny
    values near 0 are not relatively accurate): what gelu's ``1 + erf`` needs."""
    z = np.array(x, dtype=np.float64, ndmin=1)     # ndmin: 0-D arithmetic would give scalars
    a = np.abs(z)
    t = np.multiply(a, 0.5)
    t += 1.0
    np.reciprocal(t, out=t)
    p = np.multiply(t, _ERFC_COEF[0])
    for c in _ERFC_COEF[1:]:
        p += c
        p *= t
    p -= 1.26551223
    np.square(a, out=a)
    p -= a
    np.exp(p, out=p)
    p *= t                                  # erfc(|z|)
    p -= 1.0
    np.copysign(p, z, out=p)                # erf(z) = sign(z) * (1 - erfc(|z|))
    return p.astype(x.dtype).reshape(np.shape(x))


def _erf_for(x):
    return erf if x.dtype == np.float64 or x.dtype.kind != "f" else erf_fast


def _gelu(x, approximate=False, **_):
    x = as_float(x)
    if approximate:
        inner = np.asarray(x * x)
        inner *= _GELU_C
        inner += 1
        inner *= x
        inner *= _SQRT_2_PI
        np.tanh(inner, out=inner)
    else:
        inner = _erf_for(x)(np.asarray(x * _INV_SQRT_2))
    inner += 1
    inner *= x
    inner *= 0.5
    return inner


def _gelu_grad(x, dout, approximate=False, **_):
    if approximate:
        x2 = x * x
        t = np.tanh(_SQRT_2_PI * x * (1 + _GELU_C * x2))
        dt = (1 - t * t) * (_SQRT_2_PI * (1 + 3 * _GELU_C * x2))
        g = 0.5 * (1 + t) + 0.5 * x * dt
    else:
        g = _erf_for(x)(np.asarray(x * _INV_SQRT_2))
        g += 1
        g *= 0.5
        pdf = np.asarray(x * x)
        pdf *= -0.5
        np.exp(pdf, out=pdf)
        pdf *= x
        pdf *= _INV_SQRT_2PI
        g += pdf
    g *= dout
    return g


_unary("gelu", _gelu, _gelu_grad, attrs={"approximate": ("BOOLEAN", False)})


# -- sigmoid family ---------------------------------------------------------------------------
def _sigmoid(x, **_):
    return sigmoid(as_float(x))


def _sigmoid_grad(out, dout, **_):
    return dout * out * (1 - out)


def _tanh(x, **_):
    return np.tanh(as_float(x))


def _tanh_grad(out, dout, **_):
    return dout * (1 - out * out)


def _silu(x, **_):
    x = as_float(x)
    out = sigmoid(x)
    out *= x
    return out


def _silu_grad(x, dout, **_):
    s = sigmoid(x)
    g = 1 - s
    g *= x
    g += 1
    g *= s
    g *= dout
    return g


def _hard_swish(x, threshold=6.0, scale=6.0, offset=3.0, **_):
    x = as_float(x)
    out = np.clip(x + offset, 0, threshold)
    out *= x
    out /= scale
    return out


def _hard_swish_grad(x, dout, threshold=6.0, scale=6.0, offset=3.0, **_):
    t = x + offset
    # above the threshold out = x * threshold / scale, so the slope is threshold / scale there
    g = np.where(t <= 0, 0, np.where(t < threshold, (2 * x + offset) / scale, threshold / scale))
    return dout * g.astype(x.dtype, copy=False)


def _hard_sigmoid(x, slope=0.20000000298023224, offset=0.5, **_):
    x = as_float(x)
    out = np.asarray(x * slope)
    out += offset
    return np.clip(out, 0, 1, out=out)


def _hard_sigmoid_grad(out, dout, slope=0.20000000298023224, offset=0.5, **_):
    return dout * (((out > 0) & (out < 1)) * slope).astype(dout.dtype, copy=False)


def _softplus(x, beta=1.0, threshold=20.0, **_):
    x = as_float(x)
    bx = x * beta
    # logaddexp(0, z) = log(1 + e^z) without overflow; above the threshold Paddle returns x itself
    return np.where(bx > threshold, x, np.logaddexp(0, bx) / beta)


def _softplus_grad(x, dout, beta=1.0, threshold=20.0, **_):
    bx = x * beta
    return np.where(bx > threshold, dout, dout * sigmoid(bx))


def _softsign(x, **_):
    x = as_float(x)
    return x / (1 + np.abs(x))


def _softsign_grad(x, dout, **_):
    d = 1 + np.abs(x)
    d *= d
    return dout / d


def _stanh(x, scale_a=0.6700000166893005, scale_b=1.71589994430542, **_):
    x = as_float(x)
    return scale_b * np.tanh(x * scale_a)


def _stanh_grad(x, dout, scale_a=0.6700000166893005, scale_b=1.71589994430542, **_):
    t = np.tanh(x * scale_a)
    return dout * (scale_a * scale_b) * (1 - t * t)


_unary("sigmoid", _sigmoid, _sigmoid_grad, uses="Out")
_unary("tanh", _tanh, _tanh_grad, uses="Out")
_unary("silu", _silu, _silu_grad)
_unary("swish", _silu, _silu_grad)   # Paddle's swish op has no beta attribute: it is silu
_unary("hard_swish", _hard_swish, _hard_swish_grad,
       attrs={"threshold": ("FLOAT", 6.0), "scale": ("FLOAT", 6.0), "offset": ("FLOAT", 3.0)})
_unary("hard_sigmoid", _hard_sigmoid, _hard_sigmoid_grad, uses="Out",
       attrs={"slope": ("FLOAT", 0.20000000298023224), "offset": ("FLOAT", 0.5)})
_unary("softplus", _softplus, _softplus_grad, attrs={"beta": ("FLOAT", 1.0), "threshold": ("FLOAT", 20.0)})
_unary("softsign", _softsign, _softsign_grad)
_unary("stanh", _stanh, _stanh_grad,
       attrs={"scale_a": ("FLOAT", 0.6700000166893005), "scale_b": ("FLOAT", 1.71589994430542)})


# -- softmax ----------------------------------------------------------------------------------
def _axis(x, axis):
    if x.ndim == 0:
        return None   # a 0-D tensor is its own (one-element) softmax row
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"softmax: axis {axis} is out of range for a tensor of rank {x.ndim} "
                         f"(expected -{x.ndim} <= axis < {x.ndim})")
    return axis


# ufunc reductions directly: ndarray.max/.sum go through a Python wrapper (~1 us a call, a
# quarter of a batch-1 softmax)
_max_reduce = np.maximum.reduce
_add_reduce = np.add.reduce


def _row_dot(a, b, ax):
    """sum(a * b) over ``ax`` with keepdims, without the full-size product when ``ax`` is last."""
    if ax == -1 or ax == a.ndim - 1:
        return np.einsum("...i,...i->...", a, b)[..., None]
    return _add_reduce(a * b, axis=ax, keepdims=True)


def _softmax(x, axis=-1, **_):
    x = as_float(x)
    ax = _axis(x, axis)
    # the last axis of more than a few elements (on tiny tensors the checks cost more than they save;
    # ax is None only for 0-D x)
    if x.size >= 256 and (ax == -1 or ax == x.ndim - 1):
        if x.shape[-1] <= 24 and columns_ok(x):    # narrow rows: all on the transpose, one pass a step
            t = to_columns(x)
            t -= _max_reduce(t, axis=0)
            np.exp(t, out=t)
            t /= _add_reduce(t, axis=0)
            return from_columns(t, x.shape)
        if x.size >= SUM_MIN_SIZE:     # below that neither fast reduction pays for wider rows
            # many short rows: the row maximum from `row_max_shift` (a transpose or fold where that
            # beats numpy's per-row reduction), the row sums from einsum where that pays
            out = np.subtract(x, row_max_shift(x))      # the only full-size temporary
            np.exp(out, out=out)
            out /= row_sum(out) if sum_ok(out) else _add_reduce(out, axis=-1, keepdims=True)
            return out
    out = np.asarray(np.subtract(x, _max_reduce(x, axis=ax, keepdims=True)))
    np.exp(out, out=out)
    out /= _add_reduce(out, axis=ax, keepdims=True)
    return out


def _softmax_grad(out, dout, axis=-1, **_):
    ax = _axis(out, axis)
    if ax is None:
        g = dout * out
        g -= out * g
        return g
    # out * (dout - sum(dout * out)), Paddle's form: one full-size temporary
    g = np.subtract(dout, _row_dot(dout, out, ax))
    g *= out
    return g


def _log_softmax(x, axis=-1, **_):
    x = as_float(x)
    ax = _axis(x, axis)
    if x.size >= 256 and (ax == -1 or ax == x.ndim - 1):
        if x.shape[-1] <= 24 and columns_ok(x):
            t = to_columns(x)
            t -= _max_reduce(t, axis=0)
            t -= np.log(_add_reduce(np.exp(t), axis=0))
            return from_columns(t, x.shape)
        if x.size >= SUM_MIN_SIZE:
            out = np.subtract(x, row_max_shift(x))
            e = np.exp(out)
            lse = row_sum(e) if sum_ok(e) else _add_reduce(e, axis=-1, keepdims=True)
            out -= np.log(lse, out=lse)
            return out
    out = np.asarray(np.subtract(x, _max_reduce(x, axis=ax, keepdims=True)))
    out -= np.log(_add_reduce(np.exp(out), axis=ax, keepdims=True))
    return out


def _log_softmax_grad(out, dout, axis=-1, **_):
    ax = _axis(out, axis)
    g = np.asarray(np.exp(out))
    if sum_ok(dout) and (ax == -1 or ax == out.ndim - 1) and dout.shape == out.shape:
        g *= row_sum(dout)
    else:
        g *= _add_reduce(dout, axis=ax, keepdims=True)
    np.subtract(dout, g, out=g)
    return g


def _softmax_meta(x, axis=-1, **_):
    if len(x.shape) and not -len(x.shape) <= axis < len(x.shape):
        raise ValueError(f"softmax: axis {axis} is out of range for a tensor of rank {len(x.shape)}")
    return float_meta(x)


_unary("softmax", _softmax, _softmax_grad, uses="Out", attrs={"axis": ("INT", -1)}, meta=_softmax_meta)
_unary("log_softmax", _log_softmax, _log_softmax_grad, uses="Out", attrs={"axis": ("INT", -1)},
       meta=_softmax_meta)
