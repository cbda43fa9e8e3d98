"""Elementwise ops with Paddle op types of their own: logit, atan2, copysign, elementwise_heaviside,
elementwise_fmax, elementwise_fmin, nextafter, bitwise_left_shift / bitwise_right_shift, and the
creation op logspace. Dtype rules, special values and gradients follow Paddle 3.3.1 (measured)."""
from __future__ import annotations

import numpy as np

from .elementwise import unbroadcast
from .meta import broadcast_shapes
from .promotion import operand_dtype
from .registry import Meta, register, grad_op
from .special import check_dtype


def _binary_dtype(op, x, y, kinds, same=False):
    check_dtype(op, x, kinds)
    check_dtype(op, y, kinds)
    if same and np.dtype(x.dtype) != np.dtype(y.dtype):
        raise ValueError(f"{op}: x and y must have the same dtype, got {np.dtype(x.dtype).name} and "
                         f"{np.dtype(y.dtype).name} (cast one of them)")
    return operand_dtype(op, x.dtype, len(x.shape), y.dtype, len(y.shape))


def _binary_meta(op, kinds, same=False, out=None):
    def meta(x, y, **_):
        d = _binary_dtype(op, x, y, kinds, same)
        return Meta(broadcast_shapes(x.shape, y.shape), np.dtype(out) if out else d)
    return meta


def _pair_grad_meta(x, y, dout, **_):
    return Meta(tuple(x.shape), x.dtype), Meta(tuple(y.shape), y.dtype)


def _reduce_pair(x, y, gx, gy):
    return (unbroadcast(gx, x.shape).astype(x.dtype, copy=False),
            unbroadcast(gy, y.shape).astype(y.dtype, copy=False))


# -- logit ---------------------------------------------------------------------------------------

def _logit(x, eps=1e-6, **_):
    d = np.dtype(np.float32) if check_dtype("logit", x).kind in "iu" else x.dtype
    v = x.astype(d, copy=False)
    if eps:
        v = np.clip(v, eps, 1.0 - eps)
    with np.errstate(all="ignore"):
        return np.log(v / (1 - v)).astype(d, copy=False)


def _logit_grad(x, dout, eps=1e-6, **_):
    x = x.astype(dout.dtype, copy=False)
    with np.errstate(all="ignore"):
        g = dout / (x * (1 - x))
    # outside [eps, 1 - eps] the gradient is 0 when clipping (eps > 0), NaN when not (measured)
    outside = (x < eps) | (x > 1 - eps)
    return np.where(outside, 0.0 if eps else np.nan, g).astype(dout.dtype, copy=False)


register("logit", ["X"], ["Out"], {"eps": ("FLOAT", 1e-6)}, kernel=_logit,
         infer_meta=lambda x, **_: Meta(tuple(x.shape), np.dtype(np.float32) if check_dtype("logit", x).kind in "iu"
                                        else x.dtype))
grad_op("logit", ["X", "Out@GRAD"], ["X@GRAD"], _logit_grad,
        infer_meta=lambda x, d, **_: Meta(tuple(x.shape), d.dtype))


# -- atan2: integer inputs give float64 holding float32-rounded values (measured) ---------------

def _atan2_dtypes(x1, x2):
    d = _binary_dtype("atan2", x1, x2, "fiu")
    return (np.dtype(np.float32), np.dtype(np.float64)) if d.kind in "iu" else (d, d)


def _atan2(x1, x2, **_):
    rounded, out = _atan2_dtypes(x1, x2)
    # integers: computed in double, rounded to float32, returned as float64 (measured)
    res = np.arctan2(x1.astype(np.float64), x2.astype(np.float64)) if rounded != out else \
        np.arctan2(x1.astype(out, copy=False), x2.astype(out, copy=False))
    return res.astype(rounded, copy=False).astype(out, copy=False)


def _atan2_grad(x1, x2, dout, **_):
    a, b = x1.astype(np.float64), x2.astype(np.float64)
    with np.errstate(all="ignore"):
        den = a * a + b * b
        return _reduce_pair(x1, x2, dout * b / den, -dout * a / den)


register("atan2", ["X1", "X2"], ["Out"], {}, kernel=_atan2,
         infer_meta=lambda x1, x2, **_: Meta(broadcast_shapes(x1.shape, x2.shape), _atan2_dtypes(x1, x2)[1]))
grad_op("atan2", ["X1", "X2", "Out@GRAD"], ["X1@GRAD", "X2@GRAD"], _atan2_grad)


# -- copysign ------------------------------------------------------------------------------------

def _negative(y):
    return np.signbit(y) if y.dtype.kind == "f" else (y < 0)


def _copysign(x, y, **_):
    d = _binary_dtype("copysign", x, y, "fiub")
    x, y = x.astype(d, copy=False), y.astype(d, copy=False)
    if d.kind == "b":
        return np.broadcast_to(x, np.broadcast_shapes(x.shape, y.shape)).copy()
    if d.kind == "f":
        return np.copysign(x, y)
    mag = np.abs(x)
    return np.where(_negative(y), -mag, mag).astype(d, copy=False)


def _copysign_grad(x, y, dout, **_):
    xf = x.astype(np.float64)
    sign = np.where(_negative(y), -1.0, 1.0)
    with np.errstate(invalid="ignore"):
        gx = dout * np.where(xf == 0, 0.0, np.sign(xf) * sign)
    return _reduce_pair(x, y, gx, np.zeros(np.broadcast_shapes(x.shape, y.shape, dout.shape)))


register("copysign", ["x", "y"], ["out"], {}, kernel=_copysign, infer_meta=_binary_meta("copysign", "fiub"))
grad_op("copysign", ["x", "y", "out@GRAD"], ["x@GRAD", "y@GRAD"], _copysign_grad)


# -- heaviside: y where x == 0, 1 where x > 0, else 0 (NaN x gives 0) -----------------------------

def _heaviside(x, y, **_):
    _binary_dtype("elementwise_heaviside", x, y, "fiu", same=True)
    with np.errstate(invalid="ignore"):
        return np.where(x == 0, y, np.where(x > 0, 1, 0)).astype(x.dtype, copy=False)


def _heaviside_grad(x, y, dout, **_):
    return _reduce_pair(x, y, np.zeros(dout.shape), np.where(x == 0, dout, 0))


register("elementwise_heaviside", ["X", "Y"], ["Out"], {}, kernel=_heaviside,
         infer_meta=_binary_meta("elementwise_heaviside", "fiu", same=True))
grad_op("elementwise_heaviside", ["X", "Y", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _heaviside_grad)


# -- fmax / fmin: NaN-ignoring max/min; ties send the gradient to x (measured) --------------------

def _fminmax(op, fn, x_wins):
    def kernel(x, y, **_):
        d = _binary_dtype(op, x, y, "fiu")
        return fn(x.astype(d, copy=False), y.astype(d, copy=False))

    def grad(x, y, dout, **_):
        with np.errstate(invalid="ignore"):
            mask = x_wins(x, y) | (np.isnan(y) if y.dtype.kind == "f" else False)
        return _reduce_pair(x, y, np.where(mask, dout, 0), np.where(mask, 0, dout))

    register(op, ["X", "Y"], ["Out"], {}, kernel=kernel, infer_meta=_binary_meta(op, "fiu"))
    grad_op(op, ["X", "Y", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], grad)


_fminmax("elementwise_fmax", np.fmax, lambda x, y: x >= y)
_fminmax("elementwise_fmin", np.fmin, lambda x, y: x <= y)


# -- nextafter (no gradient) ---------------------------------------------------------------------

def _nextafter(x, y, **_):
    d = _binary_dtype("nextafter", x, y, "f")
    return np.nextafter(x.astype(d, copy=False), y.astype(d, copy=False))


register("nextafter", ["x", "y"], ["out"], {}, kernel=_nextafter, infer_meta=_binary_meta("nextafter", "f"),
         differentiable=())


# -- bit shifts: shifts outside [0, bits) give 0 (or -1 for an arithmetic right shift of x < 0) ---

def _shift(op, left):
    def kernel(x, y, is_arithmetic=True, **_):
        _binary_dtype(op, x, y, "iu", same=True)
        bits = x.dtype.itemsize * 8
        x, y = np.broadcast_arrays(x, y)
        ok = (y >= 0) & (y < bits)
        s = np.where(ok, y, 0).astype(x.dtype)
        if left:
            out = np.left_shift(x, s)
            return np.where(ok, out, 0).astype(x.dtype)
        if is_arithmetic or x.dtype.kind == "u":
            out = np.right_shift(x, s)
            return np.where(ok, out, np.where(x < 0, -1, 0)).astype(x.dtype)
        unsigned = np.dtype(f"u{x.dtype.itemsize}")
        out = np.right_shift(x.view(unsigned) if x.flags.c_contiguous else x.astype(unsigned),
                             s.astype(unsigned)).astype(x.dtype)
        return np.where(ok, out, 0).astype(x.dtype)
    register(op, ["x", "y"], ["out"], {"is_arithmetic": ("BOOLEAN", True)}, kernel=kernel,
             infer_meta=_binary_meta(op, "iu", same=True), differentiable=())


_shift("bitwise_left_shift", True)
_shift("bitwise_right_shift", False)


# -- logspace: base ** linspace(start, stop, num), start/stop/base read in the output dtype --------

_DTYPE_OF = {2: np.int32, 3: np.int64, 5: np.float32, 6: np.float64}


def _logspace(start, stop, num, base, dtype=None, **_):
    if dtype is None:
        raise TypeError("logspace: the attribute dtype is required")
    if int(dtype) not in _DTYPE_OF:
        raise TypeError(f"logspace: dtype must be int32, int64, float32 or float64 (proto code {dtype})")
    d = np.dtype(_DTYPE_OF[int(dtype)])
    n = int(np.asarray(num).reshape(-1)[0])
    if n <= 0:
        raise ValueError(f"The num of logspace op should be larger than 0, but received num is {n}")
    a = float(np.asarray(start).reshape(-1)[0].astype(d))
    b = float(np.asarray(stop).reshape(-1)[0].astype(d))
    base = float(np.asarray(base).reshape(-1)[0].astype(d))
    if n == 1:
        return np.asarray([base ** a], dtype=np.float64).astype(d)
    step = (b - a) / (n - 1)
    i = np.arange(n, dtype=np.float64)
    # the first half counts up from start, the second down from stop (Paddle's linspace scheme)
    expo = np.where(i < n // 2, a + step * i, b - step * (n - 1 - i))
    with np.errstate(over="ignore"):
        return np.power(base, expo).astype(d)


register("logspace", ["Start", "Stop", "Num", "Base"], ["Out"], {"dtype": ("INT", None)}, kernel=_logspace,
         differentiable=(),
         infer_meta=lambda s, e, n, b, dtype=None, **_: Meta((-1,), np.dtype(_DTYPE_OF.get(int(dtype), np.float32))))
