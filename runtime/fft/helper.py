"""``paddle.fft`` helpers: fftfreq, rfftfreq (sample frequencies) and fftshift, ifftshift (move the
zero-frequency term to the centre and back), built from arange, roll and scale as Paddle does."""
from __future__ import annotations

from ..api.creation import arange
from ..api.manipulation import concat, roll, shape as shape_of
from ..dtype import get_default_dtype
from .transforms import _aliases

__all__ = ["fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _finish(ret, out):
    if out is not None:
        from ..api.creation import assign
        assign(ret, out)
    return ret


def fftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point DFT with sample spacing ``d``: [0, 1, ..., -1] / (d * n)."""
    if d * n == 0:
        raise ValueError("d or n should not be 0.")
    if dtype is None:
        dtype = get_default_dtype()
    val = 1.0 / (n * d)
    pos_max = (n + 1) // 2
    neg_max = n // 2
    indices = arange(-neg_max, pos_max, dtype=dtype)
    indices.stop_gradient = not requires_grad
    # [-neg_max .. pos_max) rolled so that 0 comes first, as the DFT orders its bins
    return _finish(roll(indices, -neg_max) * val, out)


def rfftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """The sample frequencies of rfft's n // 2 + 1 bins: [0, 1, ..., n // 2] / (d * n)."""
    if d * n == 0:
        raise ValueError("d or n should not be 0.")
    if dtype is None:
        dtype = get_default_dtype()
    val = 1.0 / (n * d)
    indices = arange(0, 1 + n // 2, dtype=dtype)
    indices.stop_gradient = not requires_grad
    return _finish(indices * val, out)


def _shift(x, axes, plus):
    """roll ``x`` by (size + plus) // 2 along ``axes`` (every axis when None)."""
    if axes is None:
        axes = list(range(len(x.shape)))
    single = isinstance(axes, int)
    axis_list = [axes] if single else list(axes)
    dims = [x.shape[a] for a in axis_list]
    if all(d >= 0 for d in dims):
        shifts = [(d + plus) // 2 for d in dims]
        return roll(x, shifts[0] if single else shifts, axes)
    # unknown dims of a static program: read the sizes at run time (Paddle always does)
    shape = shape_of(x)
    shifts = concat([(shape[a:a + 1] + plus) // 2 for a in axis_list])
    return roll(x, shifts, axis_list)


@_aliases("input", "axes", "dim")
def fftshift(x, axes=None, name=None):
    """Move the zero-frequency term to the centre: roll by size // 2 along ``axes`` (default all)."""
    return _shift(x, axes, 0)


@_aliases("input", "axes", "dim")
def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift: roll by (size + 1) // 2 along ``axes`` (default all)."""
    return _shift(x, axes, 1)
