"""Complex-number ops (Paddle's op types): real, imag, conj, angle, complex, as_real, as_complex.

Gradients through complex tensors follow Paddle (and PyTorch): for a real loss L and a complex
tensor z = a + ib, the gradient Paddle stores is ``dL/da + i dL/db``. Under that convention a
real input simply receives the real part of what a complex-valued rule would give, the gradient
of ``real(z)`` is ``complex(g, 0)``, of ``imag(z)`` is ``complex(0, g)``, of ``conj(z)`` is
``conj(g)``, and a product's gradient multiplies by the *conjugate* of the other factor (see
elementwise.py). Measured against real Paddle 3.3.1 in tests/interop/test_fft_interop.py.

Dtypes: real/imag take complex64/complex128 only (Paddle has no real kernel for them and raises
RuntimeError); angle takes float or complex and returns the matching real dtype; complex needs
two real tensors of one dtype and broadcasts them.
"""
from __future__ import annotations

import numpy as np

from .elementwise import unbroadcast
from .meta import broadcast_shapes
from .registry import Meta, grad_op, register

_TO_COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_TO_REAL = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64)}


class ComplexDtypeError(TypeError, RuntimeError):
    """A dtype an op has no kernel for. Paddle raises RuntimeError (kernel not registered) in eager
    mode and TypeError from its static dtype checks; this error is both."""


def complex_dtype(dtype) -> np.dtype:
    """float32 -> complex64, float64 -> complex128 (complex dtypes map to themselves)."""
    d = np.dtype(dtype)
    if d.kind == "c":
        return d
    if d not in _TO_COMPLEX:
        raise ComplexDtypeError(f"no complex dtype corresponds to {d}: expected float32 or float64")
    return _TO_COMPLEX[d]


def real_dtype(dtype) -> np.dtype:
    """complex64 -> float32, complex128 -> float64 (real dtypes map to themselves)."""
    d = np.dtype(dtype)
    return _TO_REAL.get(d, d)


def _need_complex(op, dtype):
    d = np.dtype(dtype)
    if d.kind != "c":
        raise ComplexDtypeError(f"{op}: the input must be complex64 or complex128, got {d} (Paddle has no {op} "
                                f"kernel for real dtypes)")


def _need_float(op, dtype, what="x"):
    d = np.dtype(dtype)
    if d not in _TO_COMPLEX:
        raise ComplexDtypeError(f"{op}: {what} must be float32 or float64, got {d}")


# -- real / imag ------------------------------------------------------------------------------------
def _real(x):
    _need_complex("real", x.dtype)
    return np.ascontiguousarray(x.real)


def _imag(x):
    _need_complex("imag", x.dtype)
    return np.ascontiguousarray(x.imag)


def _to_real_meta(op):
    def meta(x, **_):
        _need_complex(op, x.dtype)
        return Meta(tuple(x.shape), real_dtype(x.dtype))
    return meta


def _complex_grad_meta(dout, **_):
    return Meta(tuple(dout.shape), complex_dtype(dout.dtype))


def _real_grad(dout):
    return dout.astype(complex_dtype(dout.dtype))


def _imag_grad(dout):
    g = np.zeros(dout.shape, complex_dtype(dout.dtype))
    g.imag = dout
    return g


register("real", ["X"], ["Out"], kernel=_real, infer_meta=_to_real_meta("real"))
grad_op("real", ["Out@GRAD"], ["X@GRAD"], _real_grad, infer_meta=_complex_grad_meta)
register("imag", ["X"], ["Out"], kernel=_imag, infer_meta=_to_real_meta("imag"))
grad_op("imag", ["Out@GRAD"], ["X@GRAD"], _imag_grad, infer_meta=_complex_grad_meta)


# -- conj -------------------------------------------------------------------------------------------
def _conj(x):
    if x.dtype.kind == "b":
        raise ComplexDtypeError("conj: Paddle has no conj kernel for bool tensors")
    # real and integer tensors come back unchanged (a copy), as in Paddle
    return np.conj(x) if x.dtype.kind == "c" else x.copy()


def _conj_meta(x, **_):
    if np.dtype(x.dtype).kind == "b":
        raise ComplexDtypeError("conj: Paddle has no conj kernel for bool tensors")
    return Meta(tuple(x.shape), np.dtype(x.dtype))


register("conj", ["X"], ["Out"], kernel=_conj, infer_meta=_conj_meta)
grad_op("conj", ["Out@GRAD"], ["X@GRAD"], _conj, infer_meta=_conj_meta)


# -- angle ------------------------------------------------------------------------------------------
def _angle(x):
    if x.dtype.kind == "c":
        return np.angle(x).astype(real_dtype(x.dtype), copy=False)
    _need_float("angle", x.dtype)
    # Paddle's real kernel: pi for negative numbers, 0 otherwise (so -0.0 gives 0, unlike atan2)
    return np.where(x < 0, np.pi, 0.0).astype(x.dtype)


def _angle_meta(x, **_):
    if np.dtype(x.dtype).kind != "c":
        _need_float("angle", x.dtype)
    return Meta(tuple(x.shape), real_dtype(x.dtype))


def _angle_grad(x, dout):
    if x.dtype.kind != "c":
        return np.zeros_like(x)   # piecewise constant in x
    # d angle / d re = -im / |x|^2, d angle / d im = re / |x|^2, so the gradient is g * (-im + i re) / |x|^2
    # = g * i x / |x|^2; zero at the origin, as Paddle's kernel gives
    sq = x.real * x.real + x.imag * x.imag
    safe = np.where(sq == 0, 1, sq)
    return np.where(sq == 0, 0, dout * (1j * x) / safe).astype(x.dtype, copy=False)


register("angle", ["X"], ["Out"], kernel=_angle, infer_meta=_angle_meta)
grad_op("angle", ["X", "Out@GRAD"], ["X@GRAD"], _angle_grad)


# -- complex(x, y) = x + iy ------------------------------------------------------------------------
def _complex(x, y):
    _need_float("complex", x.dtype)
    _need_float("complex", y.dtype, "y")
    if x.dtype != y.dtype:
        raise ValueError(f"complex: x and y must have the same dtype, got {x.dtype} and {y.dtype}")
    shape = np.broadcast_shapes(x.shape, y.shape)
    out = np.empty(shape, complex_dtype(x.dtype))
    out.real = x
    out.imag = y
    return out


def _complex_meta(x, y, **_):
    _need_float("complex", x.dtype)
    _need_float("complex", y.dtype, "y")
    if np.dtype(x.dtype) != np.dtype(y.dtype):
        raise ValueError(f"complex: x and y must have the same dtype, got {x.dtype} and {y.dtype}")
    return Meta(broadcast_shapes(x.shape, y.shape), complex_dtype(x.dtype))


def _complex_grad(x, y, dout):
    return (unbroadcast(np.ascontiguousarray(dout.real), x.shape).astype(x.dtype, copy=False),
            unbroadcast(np.ascontiguousarray(dout.imag), y.shape).astype(y.dtype, copy=False))


register("complex", ["X", "Y"], ["Out"], kernel=_complex, infer_meta=_complex_meta)
grad_op("complex", ["X", "Y", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _complex_grad)


# -- as_real / as_complex: a complex [...] tensor <-> a real [..., 2] one ---------------------------
def _as_real(x):
    _need_complex("as_real", x.dtype)
    return np.stack([x.real, x.imag], axis=-1)


def _as_real_meta(x, **_):
    _need_complex("as_real", x.dtype)
    return Meta(tuple(x.shape) + (2,), real_dtype(x.dtype))


def _as_complex(x):
    _need_float("as_complex", x.dtype)
    if x.ndim == 0 or x.shape[-1] != 2:
        raise ValueError(f"as_complex: the last dimension of x must be 2 (real and imaginary parts), got shape "
                         f"{list(x.shape)}")
    out = np.empty(x.shape[:-1], complex_dtype(x.dtype))
    out.real = x[..., 0]
    out.imag = x[..., 1]
    return out


def _as_complex_meta(x, **_):
    _need_float("as_complex", x.dtype)
    shape = tuple(x.shape)
    if not shape or shape[-1] not in (2, -1):
        raise ValueError(f"as_complex: the last dimension of x must be 2 (real and imaginary parts), got shape "
                         f"{list(shape)}")
    return Meta(shape[:-1], complex_dtype(x.dtype))


register("as_real", ["X"], ["Out"], kernel=_as_real, infer_meta=_as_real_meta)
# the two ops are inverse linear maps that preserve a + ib <-> (a, b), so each one's grad is the other
grad_op("as_real", ["Out@GRAD"], ["X@GRAD"], _as_complex, infer_meta=lambda d, **_: _as_complex_meta(d))
register("as_complex", ["X"], ["Out"], kernel=_as_complex, infer_meta=_as_complex_meta)
grad_op("as_complex", ["Out@GRAD"], ["X@GRAD"], _as_real, infer_meta=lambda d, **_: _as_real_meta(d))
