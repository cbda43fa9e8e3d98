"""The transforms of ``paddle.fft``: fft/ifft/rfft/irfft/hfft/ihfft, their 2-D and n-D forms.

Each public function picks one of three ops (runtime/ops/fft.py) exactly as Paddle 3.3.1 does, so
programs record the same op types and attributes and save into .pdmodel files real Paddle loads:

=====================  ========  =======  ========
function               op        forward  onesided
=====================  ========  =======  ========
fft / fftn (complex)   fft_c2c   True
ifft / ifftn (complex) fft_c2c   False
fft / fftn (real)      fft_r2c   True     False
ifft / ifftn (real)    fft_r2c   False    False
rfft / rfftn           fft_r2c   True     True
ihfft / ihfftn         fft_r2c   False    True
irfft / irfftn         fft_c2r   False
hfft / hfftn           fft_c2r   True
=====================  ========  =======  ========

Integer inputs are cast to the default float dtype first (complex of it for the complex ops);
real inputs of irfft/hfft are cast to the matching complex dtype. ``n``/``s`` crop or zero-pad
the input along the transformed axes (a ``slice`` and a ``pad`` op, as Paddle records them); for
irfft/hfft they give the *output* length, the input being resized to ``n // 2 + 1`` bins. The
n-D functions sort the axes (all but the last, for the real transforms) as Paddle does. Argument
errors are ValueErrors with Paddle's messages. ``input=`` and ``dim=`` are accepted as aliases of
``x`` and ``axis``/``axes``, as in Paddle.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from ..dispatch import run_op
from ..dtype import get_default_dtype
from ..ops.complex import complex_dtype

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2",
           "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]


def _aliases(x_alias, axis_name, axis_alias):
    """Paddle's ``param_two_alias``: keyword ``input`` means ``x``, ``dim`` means ``axis``/``axes``."""
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if "x" not in kwargs and x_alias in kwargs:
                kwargs["x"] = kwargs.pop(x_alias)
            if axis_name not in kwargs and axis_alias in kwargs:
                kwargs[axis_name] = kwargs.pop(axis_alias)
            return fn(*args, **kwargs)
        return wrapper
    return deco


# -- argument checks (Paddle's messages) --------------------------------------------------------------
def _check_normalization(norm):
    if norm not in ("forward", "backward", "ortho"):
        raise ValueError(f"Unexpected norm: {norm}. Norm should be forward, backward or ortho")


def _check_fft_n(n):
    if not isinstance(n, int):
        raise ValueError(f"Invalid FFT argument n({n}), it should be an integer.")
    if n <= 0:
        raise ValueError(f"Invalid FFT argument n({n}), it should be positive.")


def _check_fft_shape(x, s):
    ndim = len(x.shape)
    if not isinstance(s, Sequence):
        raise ValueError(f"Invalid FFT argument s({s}), it should be a sequence of integers.")
    if len(s) > ndim:
        raise ValueError("Length of FFT argument s should not be larger than the rank of input. "
                         f"Received s: {s}, rank of x: {ndim}")
    for size in s:
        if not isinstance(size, int) or size <= 0:
            raise ValueError(f"FFT sizes {s} contains invalid value ({size})")


def _check_fft_axis(x, axis):
    ndim = len(x.shape)
    if not isinstance(axis, int):
        raise ValueError(f"Invalid FFT axis ({axis}), it should be an integer.")
    if axis < -ndim or axis >= ndim:
        raise ValueError(f"Invalid FFT axis ({axis}), it should be in range [-{ndim}, {ndim})")


def _check_fft_axes(x, axes):
    ndim = len(x.shape)
    if not isinstance(axes, Sequence):
        raise ValueError(f"Invalid FFT axes ({axes}), it should be a sequence of integers.")
    if len(axes) > ndim:
        raise ValueError("Length of fft axes should not be larger than the rank of input. "
                         f"Received, len of axes: {len(axes)}, rank of x: {ndim}")
    for axis in axes:
        if not isinstance(axis, int) or axis < -ndim or axis >= ndim:
            raise ValueError(f"FFT axes {axes} contains invalid value ({axis}), it should be in range "
                             f"[-{ndim}, {ndim})")


def _check_at_least_ndim(x, rank):
    if len(x.shape) < rank:
        raise ValueError(f"The rank of the input ({len(x.shape)}) should >= {rank}")


def _check_2d_args(x, s, axes):
    _check_at_least_ndim(x, 2)
    if s is not None and (not isinstance(s, Sequence) or len(s) != 2):
        raise ValueError(f"Invalid FFT argument s ({s}), it should be a sequence of 2 integers.")
    if axes is not None and (not isinstance(axes, Sequence) or len(axes) != 2):
        raise ValueError(f"Invalid FFT argument axes ({axes}), it should be a sequence of 2 integers.")


def _normalize_axes(x, axes):
    ndim = len(x.shape)
    return [a if a >= 0 else a + ndim for a in axes]


def _resize_fft_input(x, s, axes):
    """Crop (slice) or zero-pad (pad) ``x`` to length ``s[i]`` along ``axes[i]``."""
    if len(s) != len(axes):
        raise ValueError("length of `s` should equals length of `axes`.")
    shape = list(x.shape)
    ndim = len(shape)
    to_pad, paddings, to_slice, ends = [], [], [], []
    for size, axis in zip(s, axes):
        if shape[axis] < size:
            to_pad.append(axis)
            paddings.append(size - shape[axis])
        elif shape[axis] > size:
            to_slice.append(axis)
            ends.append(size)
    if to_slice:
        x = run_op("slice", x, None, None, None, None, axes=to_slice, starts=[0] * len(to_slice), ends=ends,
                   infer_flags=[1] * len(to_slice))
    if to_pad:
        widths = [0] * (2 * ndim)
        for axis, p in zip(to_pad, paddings):
            widths[2 * axis + 1] = p
        x = run_op("pad", x, paddings=widths, pad_value=0.0)
    return x


# -- dtype handling ------------------------------------------------------------------------------------
def _kind(x):
    return x.dtype.np.kind


def _cast(x, dtype):
    dtype = np.dtype(dtype)
    if x.dtype.np == dtype:
        return x
    from ..api.manipulation import cast
    return cast(x, dtype.name)


def _default_np():
    return np.dtype(get_default_dtype())


def _to_complex_input(x):
    """The complex tensor c2c/c2r transform: integers as complex(default dtype), floats as complex(x.dtype)."""
    k = _kind(x)
    if k in "iu":
        return _cast(x, complex_dtype(_default_np()))
    if k == "f":
        return _cast(x, complex_dtype(x.dtype.np))
    return x


def _to_real_input(x):
    return _cast(x, _default_np()) if _kind(x) in "iu" else x


def _finish(ret, out):
    if out is not None:
        from ..api.creation import assign
        assign(ret, out)
    return ret


# -- one-axis and n-axis transforms: Paddle's internal functions (paddle.fft.fft_c2c ...), which
# paddle.signal also calls -----------------------------------------------------------------------------
def _axis_args(x, n, axis, norm, n_to_input=lambda n: n):
    _check_normalization(norm)
    axis = axis if axis is not None else -1
    _check_fft_axis(x, axis)
    axes = _normalize_axes(x, [axis])
    if n is not None:
        _check_fft_n(n)
        x = _resize_fft_input(x, [n_to_input(n)], axes)
    return x, axes


def fft_c2c(x, n, axis, norm, forward, name=None, out=None):
    x = _to_complex_input(x)
    x, axes = _axis_args(x, n, axis, norm)
    return _finish(run_op("fft_c2c", x, axes=axes, normalization=norm, forward=forward), out)


def fft_r2c(x, n, axis, norm, forward, onesided, name=None, out=None):
    x = _to_real_input(x)
    x, axes = _axis_args(x, n, axis, norm)
    return _finish(run_op("fft_r2c", x, axes=axes, normalization=norm, forward=forward, onesided=onesided), out)


def fft_c2r(x, n, axis, norm, forward, name=None, out=None):
    x = _to_complex_input(x)
    x, axes = _axis_args(x, n, axis, norm, lambda n: n // 2 + 1)
    return _finish(run_op("fft_c2r", x, axes=axes, normalization=norm, forward=forward,
                          last_dim_size=n if n is not None else 0), out)


def _nd_args(x, s, axes, norm, sort_last):
    """Checked, normalised and sorted (axes, s). ``sort_last``: the c2c form sorts every axis, the real
    forms keep the last (half-spectrum) axis last."""
    _check_normalization(norm)
    if s is not None:
        _check_fft_shape(x, s)
    rank = len(x.shape)
    if axes is None:
        axes = list(range(rank)) if s is None else list(range(rank - len(s), rank))
    else:
        _check_fft_axes(x, axes)
        axes = _normalize_axes(x, axes)
        order = np.argsort(axes if sort_last else axes[:-1], kind="stable").tolist()
        if not sort_last:
            order.append(len(axes) - 1)
        axes = [axes[i] for i in order]
        if s is not None:
            if len(s) != len(axes):
                raise ValueError(f"Length of s ({len(s)}) and length of axes ({len(axes)}) does not match.")
            s = [s[i] for i in order]
    return axes, s


def fftn_c2c(x, s, axes, norm, forward, name=None, out=None):
    x = _to_complex_input(x)
    axes, s = _nd_args(x, s, axes, norm, sort_last=True)
    if s is not None:
        x = _resize_fft_input(x, s, axes)
    return _finish(run_op("fft_c2c", x, axes=axes, normalization=norm, forward=forward), out)


def fftn_r2c(x, s, axes, norm, forward, onesided, name=None, out=None):
    x = _to_real_input(x)
    axes, s = _nd_args(x, s, axes, norm, sort_last=False)
    if s is not None:
        x = _resize_fft_input(x, s, axes)
    return _finish(run_op("fft_r2c", x, axes=axes, normalization=norm, forward=forward, onesided=onesided), out)


def fftn_c2r(x, s, axes, norm, forward, name=None, out=None):
    x = _to_complex_input(x)
    axes, s = _nd_args(x, s, axes, norm, sort_last=False)
    if s is not None:
        x = _resize_fft_input(x, list(s[:-1]) + [s[-1] // 2 + 1], axes)
    return _finish(run_op("fft_c2r", x, axes=axes, normalization=norm, forward=forward,
                          last_dim_size=s[-1] if s else 0), out)


def _is_real(x):
    return _kind(x) in "iuf"


# -- public 1-D ----------------------------------------------------------------------------------------
@_aliases("input", "axis", "dim")
def fft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """One-dimensional discrete Fourier transform (complex result; a real input gives its full spectrum)."""
    if _is_real(x):
        return fft_r2c(x, n, axis, norm, True, False, out=out)
    return fft_c2c(x, n, axis, norm, True, out=out)


@_aliases("input", "axis", "dim")
def ifft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """One-dimensional inverse discrete Fourier transform."""
    if _is_real(x):
        return fft_r2c(x, n, axis, norm, False, False, out=out)
    return fft_c2c(x, n, axis, norm, False, out=out)


@_aliases("input", "axis", "dim")
def rfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The n // 2 + 1 non-negative frequency terms of the FFT of a real signal."""
    return fft_r2c(x, n, axis, norm, True, True, out=out)


@_aliases("input", "axis", "dim")
def irfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """Inverse of rfft: a real signal of length ``n`` (default 2 * (m - 1)) from m half-spectrum bins."""
    return fft_c2r(x, n, axis, norm, False, out=out)


@_aliases("input", "axis", "dim")
def hfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """FFT of a signal with Hermitian symmetry given by its first half (a real result of length n)."""
    return fft_c2r(x, n, axis, norm, True, out=out)


@_aliases("input", "axis", "dim")
def ihfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """Inverse of hfft: the n // 2 + 1 half-spectrum terms of the inverse FFT of a real signal."""
    return fft_r2c(x, n, axis, norm, False, True, out=out)


# -- public n-D ----------------------------------------------------------------------------------------
@_aliases("input", "axes", "dim")
def fftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """N-dimensional discrete Fourier transform over ``axes`` (all axes, or the last len(s), by default)."""
    if _is_real(x):
        return fftn_r2c(x, s, axes, norm, True, False, out=out)
    return fftn_c2c(x, s, axes, norm, True, out=out)


@_aliases("input", "axes", "dim")
def ifftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """N-dimensional inverse discrete Fourier transform."""
    if _is_real(x):
        return fftn_r2c(x, s, axes, norm, False, False, out=out)
    return fftn_c2c(x, s, axes, norm, False, out=out)


@_aliases("input", "axes", "dim")
def rfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """N-dimensional FFT of a real input; the last axis keeps its n // 2 + 1 non-negative frequencies."""
    return fftn_r2c(x, s, axes, norm, True, True, out=out)


@_aliases("input", "axes", "dim")
def irfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """Inverse of rfftn (a real result; ``s[-1]`` is the output length of the last axis)."""
    return fftn_c2r(x, s, axes, norm, False, out=out)


@_aliases("input", "axes", "dim")
def hfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """N-dimensional FFT of a Hermitian-symmetric signal given by its half spectrum (a real result)."""
    return fftn_c2r(x, s, axes, norm, True, out=out)


@_aliases("input", "axes", "dim")
def ihfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """N-dimensional inverse FFT of a real signal, half spectrum on the last axis."""
    return fftn_r2c(x, s, axes, norm, False, True, out=out)


# -- public 2-D ----------------------------------------------------------------------------------------
@_aliases("input", "axes", "dim")
def fft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """Two-dimensional discrete Fourier transform (fftn over two axes)."""
    _check_2d_args(x, s, axes)
    return fftn(x, s, axes, norm, name, out=out)


@_aliases("input", "axes", "dim")
def ifft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """Two-dimensional inverse discrete Fourier transform."""
    _check_2d_args(x, s, axes)
    return ifftn(x, s, axes, norm, name, out=out)


@_aliases("input", "axes", "dim")
def rfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """Two-dimensional FFT of a real input (half spectrum on the last axis)."""
    _check_2d_args(x, s, axes)
    return rfftn(x, s, axes, norm, name, out=out)


@_aliases("input", "axes", "dim")
def irfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """Inverse of rfft2."""
    _check_2d_args(x, s, axes)
    return irfftn(x, s, axes, norm, name, out=out)


@_aliases("input", "axes", "dim")
def hfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """Two-dimensional FFT of a Hermitian-symmetric signal (a real result)."""
    _check_2d_args(x, s, axes)
    return hfftn(x, s, axes, norm, name, out=out)


@_aliases("input", "axes", "dim")
def ihfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """Two-dimensional inverse FFT of a real signal (half spectrum on the last axis)."""
    _check_2d_args(x, s, axes)
    return ihfftn(x, s, axes, norm, name, out=out)

