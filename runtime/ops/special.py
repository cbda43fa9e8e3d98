"""Special-function ops with Paddle's op types: digamma, polygamma, lgamma, gammaln, gammaincc, erfinv,
i0, i0e, i1, i1e, each with its ``*_grad`` op (the numerics are in special_numerics.py).

Kernels compute in float64 and return the input's float dtype; integer inputs give float32 (Paddle's
autocast) where Paddle accepts them (not gammaln / gammaincc), bool inputs are refused as Paddle's
missing kernels refuse them.
"""
from __future__ import annotations

import math

import numpy as np

from . import special_numerics as sn
from .meta import broadcast_shapes
from .registry import Meta, register, grad_op


class KernelDtypeError(TypeError, RuntimeError):
    """An op has no kernel for this dtype (Paddle raises RuntimeError (NotFound); a TypeError too)."""


def check_dtype(op, x, kinds="fiu"):
    d = np.dtype(x.dtype)
    if d.kind not in kinds:
        allowed = {"f": "float32/float64", "i": "int8..int64", "u": "uint8"}
        want = ", ".join(allowed[k] for k in kinds if k in allowed)
        raise KernelDtypeError(f"{op}: no kernel for dtype {d.name} (supported: {want}); cast the input first, "
                               f"e.g. x.astype('float32')")
    return d


def _out_dtype(d):
    return np.dtype(np.float32) if np.dtype(d).kind in "iu" else np.dtype(d)


def _unary_kernel(op, fn, kinds="fiu"):
    def kernel(x, **_):
        d = _out_dtype(check_dtype(op, x, kinds))
        if op == "erfinv" and d != np.float64:
            # Paddle inverts ndtri((y + 1) / 2): y + 1 rounds in the input's own precision
            with np.errstate(all="ignore"):
                x = (x.astype(d) + d.type(1)) - d.type(1)
        return fn(x.astype(np.float64)).astype(d, copy=False)
    kernel.__name__ = "_" + op
    return kernel


def _unary_meta(op, kinds="fiu"):
    def meta(x, **_):
        return Meta(tuple(x.shape), _out_dtype(check_dtype(op, x, kinds)))
    return meta


def _grad_kernel(fn):
    """A grad kernel ``fn(x64, dout64)`` in float64, returning dout's dtype."""
    def kernel(x, dout, **_):
        with np.errstate(all="ignore"):
            g = fn(x.astype(np.float64), dout.astype(np.float64))
        return g.astype(dout.dtype, copy=False)
    return kernel


def _dout_meta(x, dout, **_):
    return Meta(tuple(x.shape), dout.dtype)


def _register_unary(op, in_slot, out_slot, fn, grad, kinds="fiu", attrs=None):
    register(op, [in_slot], [out_slot], attrs or {}, kernel=_unary_kernel(op, fn, kinds),
             infer_meta=_unary_meta(op, kinds))
    grad_op(op, [in_slot, out_slot + "@GRAD"], [in_slot + "@GRAD"], _grad_kernel(grad), infer_meta=_dout_meta)


_register_unary("digamma", "X", "Out", sn.digamma, lambda x, d: d * sn.polygamma(1, x))
_register_unary("lgamma", "X", "Out", sn.lgamma, lambda x, d: d * sn.digamma(x))
_register_unary("gammaln", "x", "out", sn.lgamma, lambda x, d: d * sn.digamma(x), kinds="f")
_register_unary("erfinv", "X", "Out", sn.erfinv,
                lambda x, d: d * (math.sqrt(math.pi) / 2.0) * np.exp(sn.erfinv(x) ** 2))
_register_unary("i0", "x", "out", sn.i0, lambda x, d: d * sn.i1(x))
# Paddle's i0e grad takes sign(0) as +1: d/dx at 0 is -1, not 0 (measured)
_register_unary("i0e", "x", "out", sn.i0e, lambda x, d: d * (sn.i1e(x) - np.where(x < 0, -1.0, 1.0) * sn.i0e(x)))


def _i1_grad(x, d):
    safe = np.where(x == 0, 1.0, x)
    return d * np.where(x == 0, 0.5, sn.i0(x) - sn.i1(x) / safe)


def _i1e_grad(x, d):
    safe = np.where(x == 0, 1.0, x)
    return d * np.where(x == 0, 0.5, sn.i0e(x) - sn.i1e(x) * (np.sign(x) + 1.0 / safe))


_register_unary("i1", "x", "out", sn.i1, _i1_grad)
_register_unary("i1e", "x", "out", sn.i1e, _i1e_grad)


# -- polygamma (attr n) --------------------------------------------------------------------------

def _polygamma(x, n=None, **_):
    if n is None:
        raise TypeError("polygamma: the attribute n is required")
    d = _out_dtype(check_dtype("polygamma", x))
    return sn.polygamma(int(n), x.astype(np.float64)).astype(d, copy=False)


def _polygamma_grad(x, dout, n=None, **_):
    with np.errstate(all="ignore"):
        g = dout.astype(np.float64) * sn.polygamma(int(n) + 1, x.astype(np.float64))
    return g.astype(dout.dtype, copy=False)


register("polygamma", ["x"], ["out"], {"n": ("INT", None)}, kernel=_polygamma,
         infer_meta=_unary_meta("polygamma"))
grad_op("polygamma", ["x", "out@GRAD"], ["x@GRAD"], _polygamma_grad, infer_meta=_dout_meta)


# -- gammaincc(x, y) = Q(x, y); Paddle's gradient reaches y only ----------------------------------

def _gammaincc_dtype(x, y):
    dx, dy = check_dtype("gammaincc", x, "f"), check_dtype("gammaincc", y, "f")
    if dx != dy:
        raise ValueError(f"gammaincc: x and y must have the same dtype, got {dx.name} and {dy.name} "
                         "(cast one of them)")
    return dx


def _gammaincc(x, y, **_):
    d = _gammaincc_dtype(x, y)
    return sn.gammaincc(x.astype(np.float64), y.astype(np.float64)).astype(d, copy=False)


def _gammaincc_grad(x, y, dout, **_):
    xb, yb = np.broadcast_arrays(x.astype(np.float64), y.astype(np.float64))
    g = dout.astype(np.float64) * sn.gammaincc_dx(xb, yb)
    from .elementwise import unbroadcast
    return unbroadcast(g, y.shape).astype(y.dtype, copy=False)


register("gammaincc", ["x", "y"], ["out"], {}, kernel=_gammaincc, differentiable=("y",),
         infer_meta=lambda x, y, **_: Meta(broadcast_shapes(x.shape, y.shape), _gammaincc_dtype(x, y)))
grad_op("gammaincc", ["x", "y", "out@GRAD"], ["y@GRAD"], _gammaincc_grad)
