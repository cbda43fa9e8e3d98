"""Complex-number functions: real, imag, conj, angle, complex, as_real, as_complex, is_complex (also
Tensor methods, as in Paddle: ``x.real()``, ``x.imag()``, ``x.conj()``, ``x.angle()`` ...).

The ops live in runtime/ops/complex.py; their gradients follow Paddle's convention for complex
tensors (``dL/dRe + i dL/dIm``)."""
from __future__ import annotations

from ..dispatch import run_op
from ..tensor import tensor_method
from ._helpers import is_var

__all__ = ["real", "imag", "conj", "angle", "complex", "as_real", "as_complex", "is_complex"]


def _check(x, api, what="x"):
    if not is_var(x):
        raise TypeError(f"{api}: {what} must be a Tensor, got {type(x).__name__}")


@tensor_method
def real(x, name=None):
    """The real part of a complex tensor (float32 for complex64, float64 for complex128)."""
    _check(x, "real")
    return run_op("real", x)


@tensor_method
def imag(x, name=None):
    """The imaginary part of a complex tensor."""
    _check(x, "imag")
    return run_op("imag", x)


@tensor_method
def conj(x, name=None):
    """The complex conjugate; real and integer tensors come back unchanged."""
    _check(x, "conj")
    return run_op("conj", x)


@tensor_method
def angle(x, name=None):
    """The argument of each element (pi for negative real numbers, 0 for the others)."""
    _check(x, "angle")
    return run_op("angle", x)


def complex(real, imag, name=None, *, out=None):
    """``real + i * imag`` from two real tensors of one dtype (broadcast together)."""
    _check(real, "complex", "real")
    _check(imag, "complex", "imag")
    res = run_op("complex", real, imag)
    if out is not None:
        from .creation import assign
        assign(res, out)
    return res


@tensor_method
def as_real(x, name=None):
    """A complex tensor of shape [...] as a real one of shape [..., 2] (real, imaginary)."""
    _check(x, "as_real")
    return run_op("as_real", x)


@tensor_method
def as_complex(x, name=None):
    """A real tensor of shape [..., 2] as a complex one of shape [...]."""
    _check(x, "as_complex")
    return run_op("as_complex", x)


@tensor_method
def is_complex(x):
    """True when ``x`` has a complex dtype."""
    if not is_var(x):
        raise TypeError(f"is_complex: x must be a Tensor, got {type(x).__name__}")
    return x.dtype.np.kind == "c"
