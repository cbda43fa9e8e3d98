"""Discrete Fourier transform and signal-framing ops (Paddle's op types): fft_c2c, fft_r2c, fft_c2r,
frame and overlap_add, with their grads.

The three FFT ops carry Paddle's attributes: ``axes`` (the transformed axes; for r2c/c2r the last
one is the half-spectrum axis), ``normalization`` ('backward' | 'forward' | 'ortho'), ``forward``
(the sign of the exponent: True is exp(-2 pi i ...), the direction of ``fft``), ``onesided``
(r2c: keep only the n//2+1 non-negative frequencies of the last axis) and ``last_dim_size``
(c2r: the output length of the last axis; 0 means 2 * (m - 1) for m input bins). The public
functions (`runtime.fft`) compose them: ``ifft`` is c2c with forward=False, ``ihfft`` is r2c with
forward=False, ``hfft`` is c2r with forward=True.

Scaling: n is the product of the transformed lengths (the output's, for c2r); 'backward' scales
the inverse direction by 1/n, 'forward' the forward direction, 'ortho' both by 1/sqrt(n). Kernels
compute the unscaled transform with numpy's pocketfft and multiply by that factor.

Gradients are Paddle's (``dL/dRe + i dL/dIm`` for complex tensors, see complex.py), that is the
adjoint of each linear map: c2c's adjoint is the opposite-direction c2c with the same factor;
r2c's is the opposite-direction c2c of the zero-padded half spectrum, real part; c2r's is r2c of
the output gradient with the interior bins (those standing for a conjugate pair) doubled -- the
imaginary parts of the DC and Nyquist bins do not reach the output, so they get no gradient.
"""
from __future__ import annotations

import math

import numpy as np

from .complex import complex_dtype, real_dtype
from .registry import Meta, grad_op, register

# Paddle declares these attrs required; the defaults only serve callers of run_op that leave them out
_FFT_ATTRS = {"axes": ("LONGS", []), "normalization": ("STRING", "backward"), "forward": ("BOOLEAN", True)}


class FFTDtypeError(TypeError, RuntimeError):
    """A dtype an FFT op has no kernel for (RuntimeError in Paddle's eager mode, TypeError in static)."""


def scale_factor(normalization, forward, n):
    """The factor the unscaled transform of ``n`` points is multiplied by."""
    if normalization == "backward":
        return 1.0 if forward else 1.0 / n
    if normalization == "forward":
        return 1.0 / n if forward else 1.0
    if normalization == "ortho":
        return 1.0 / math.sqrt(n)
    raise ValueError(f"Unexpected norm: {normalization}. Norm should be forward, backward or ortho")


def _norm_axes(op, axes, ndim):
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"{op}: axis {a} is out of range for a tensor of rank {ndim}")
        out.append(a + ndim if a < 0 else a)
    if not out:
        raise ValueError(f"{op}: axes must name at least one axis")
    return tuple(out)


def _check_dtype(op, dtype, kinds):
    d = np.dtype(dtype)
    ok = d in (np.complex64, np.complex128) if kinds == "c" else d in (np.float32, np.float64)
    if not ok:
        want = "complex64 or complex128" if kinds == "c" else "float32 or float64"
        raise FFTDtypeError(f"{op}: the input must be {want}, got {d}")


def _scaled(raw, factor, dtype):
    raw = np.asarray(raw)
    if factor != 1.0:
        raw = raw * factor
    return raw.astype(dtype, copy=False)


def _forward_c2c(x, axes, forward):
    """The unscaled transform with the exponent sign ``forward`` selects."""
    # numpy's inverse with norm="forward" applies no 1/n: the unscaled exp(+2 pi i ...) sum
    return np.fft.fftn(x, axes=axes) if forward else np.fft.ifftn(x, axes=axes, norm="forward")


def _prod(shape, axes):
    n = 1
    for a in axes:
        n *= shape[a]
    return n


# -- fft_c2c ----------------------------------------------------------------------------------------
def _fft_c2c(x, axes=(), normalization="backward", forward=True):
    _check_dtype("fft_c2c", x.dtype, "c")
    axes = _norm_axes("fft_c2c", axes, x.ndim)
    factor = scale_factor(normalization, forward, _prod(x.shape, axes))
    return _scaled(_forward_c2c(x, axes, forward), factor, x.dtype)


def _fft_c2c_meta(x, axes=(), normalization="backward", forward=True, **_):
    _check_dtype("fft_c2c", x.dtype, "c")
    _norm_axes("fft_c2c", axes, len(x.shape))
    scale_factor(normalization, forward, 1)
    return Meta(tuple(x.shape), np.dtype(x.dtype))


def _fft_c2c_grad(dout, axes=(), normalization="backward", forward=True):
    axes = _norm_axes("fft_c2c_grad", axes, dout.ndim)
    factor = scale_factor(normalization, forward, _prod(dout.shape, axes))
    return _scaled(_forward_c2c(dout, axes, not forward), factor, dout.dtype)


register("fft_c2c", ["X"], ["Out"], dict(_FFT_ATTRS), kernel=_fft_c2c, infer_meta=_fft_c2c_meta)
grad_op("fft_c2c", ["Out@GRAD"], ["X@GRAD"], _fft_c2c_grad,
        infer_meta=lambda dout, **_: Meta(tuple(dout.shape), np.dtype(dout.dtype)))


# -- fft_r2c ----------------------------------------------------------------------------------------
def _fft_r2c(x, axes=(), normalization="backward", forward=True, onesided=True):
    _check_dtype("fft_r2c", x.dtype, "f")
    axes = _norm_axes("fft_r2c", axes, x.ndim)
    factor = scale_factor(normalization, forward, _prod(x.shape, axes))
    raw = np.fft.rfftn(x, axes=axes) if onesided else np.fft.fftn(x, axes=axes)
    if not forward:
        # for a real signal the exp(+...) transform is the conjugate of the exp(-...) one
        raw = np.conj(raw)
    return _scaled(raw, factor, complex_dtype(x.dtype))


def _fft_r2c_meta(x, axes=(), normalization="backward", forward=True, onesided=True, **_):
    _check_dtype("fft_r2c", x.dtype, "f")
    axes = _norm_axes("fft_r2c", axes, len(x.shape))
    scale_factor(normalization, forward, 1)
    shape = list(x.shape)
    if onesided and shape[axes[-1]] != -1:
        shape[axes[-1]] = shape[axes[-1]] // 2 + 1
    return Meta(tuple(shape), complex_dtype(x.dtype))


def _fft_r2c_grad(x, dout, axes=(), normalization="backward", forward=True, onesided=True):
    axes = _norm_axes("fft_r2c_grad", axes, x.ndim)
    factor = scale_factor(normalization, forward, _prod(x.shape, axes))
    last = axes[-1]
    if onesided:
        # the adjoint of keeping the first m bins is zero-padding them back to the full length
        pad = [(0, 0)] * dout.ndim
        pad[last] = (0, x.shape[last] - dout.shape[last])
        dout = np.pad(dout, pad)
    return _scaled(_forward_c2c(dout, axes, not forward).real, factor, x.dtype)


register("fft_r2c", ["X"], ["Out"], dict(_FFT_ATTRS, onesided=("BOOLEAN", True)), kernel=_fft_r2c,
         infer_meta=_fft_r2c_meta)
grad_op("fft_r2c", ["X", "Out@GRAD"], ["X@GRAD"], _fft_r2c_grad)


# -- fft_c2r ----------------------------------------------------------------------------------------
def _c2r_sizes(shape, axes, last_dim_size):
    n_last = last_dim_size if last_dim_size > 0 else 2 * (shape[axes[-1]] - 1)
    return [shape[a] for a in axes[:-1]] + [n_last]


def _fft_c2r(x, axes=(), normalization="backward", forward=True, last_dim_size=0):
    _check_dtype("fft_c2r", x.dtype, "c")
    axes = _norm_axes("fft_c2r", axes, x.ndim)
    s = _c2r_sizes(x.shape, axes, last_dim_size)
    if s[-1] <= 0:
        # one input bin and no last_dim_size: 2 * (1 - 1) = 0 output samples, an empty result as in Paddle
        shape = list(x.shape)
        shape[axes[-1]] = 0
        return np.zeros(shape, real_dtype(x.dtype))
    factor = scale_factor(normalization, forward, math.prod(s))
    # the exp(-...) transform of a Hermitian spectrum is the exp(+...) transform of its conjugate
    src = np.conj(x) if forward else x
    raw = np.fft.irfftn(src, s=s, axes=axes, norm="forward")
    return _scaled(raw, factor, real_dtype(x.dtype))


def _fft_c2r_meta(x, axes=(), normalization="backward", forward=True, last_dim_size=0, **_):
    _check_dtype("fft_c2r", x.dtype, "c")
    axes = _norm_axes("fft_c2r", axes, len(x.shape))
    scale_factor(normalization, forward, 1)
    shape = list(x.shape)
    if last_dim_size > 0:
        shape[axes[-1]] = last_dim_size
    elif shape[axes[-1]] != -1:
        shape[axes[-1]] = 2 * (shape[axes[-1]] - 1)
    return Meta(tuple(shape), real_dtype(x.dtype))


def _fft_c2r_grad(x, dout, axes=(), normalization="backward", forward=True, last_dim_size=0):
    axes = _norm_axes("fft_c2r_grad", axes, x.ndim)
    last = axes[-1]
    n = dout.shape[last]
    if n == 0:
        return np.zeros_like(x)
    factor = scale_factor(normalization, forward, _prod(dout.shape, axes))
    g = np.fft.rfftn(dout, axes=axes)
    # bins 1 .. n - n//2 - 1 each stand for a conjugate pair of the full spectrum: both reach the output
    idx = [slice(None)] * g.ndim
    idx[last] = slice(1, n - n // 2)
    g[tuple(idx)] *= 2
    m = x.shape[last]
    if g.shape[last] > m:      # the kernel zero-padded a shorter input: keep the bins x has
        idx[last] = slice(0, m)
        g = g[tuple(idx)]
    elif g.shape[last] < m:    # the kernel ignored x's bins beyond n//2: they get no gradient
        pad = [(0, 0)] * g.ndim
        pad[last] = (0, m - g.shape[last])
        g = np.pad(g, pad)
    if forward:
        g = np.conj(g)
    return _scaled(g, factor, x.dtype)


register("fft_c2r", ["X"], ["Out"], dict(_FFT_ATTRS, last_dim_size=("LONG", 0)), kernel=_fft_c2r,
         infer_meta=_fft_c2r_meta)
grad_op("fft_c2r", ["X", "Out@GRAD"], ["X@GRAD"], _fft_c2r_grad)


# -- frame / overlap_add ----------------------------------------------------------------------------
# frame (axis=-1): x [..., seq] -> [..., frame_length, n_frames], out[..., i, j] = x[..., j * hop + i];
# frame (axis=0):  x [seq, ...] -> [n_frames, frame_length, ...], out[j, i, ...] = x[j * hop + i, ...].
# overlap_add is its adjoint: it sums the frames back into a sequence of (n_frames-1)*hop + frame_length.

def _check_signal_axis(op, axis, ndim, min_ndim):
    if axis not in (0, -1):
        raise ValueError(f"{op}: axis must be 0 or -1, got {axis}")
    if ndim < min_ndim:
        raise ValueError(f"{op}: x must have at least {min_ndim} dimension(s), got rank {ndim}")


def _n_frames(seq, frame_length, hop_length):
    return -1 if seq == -1 else 1 + (seq - frame_length) // hop_length


def _frame(x, frame_length=1, hop_length=1, axis=-1):
    _check_signal_axis("frame", axis, x.ndim, 1)
    if frame_length <= 0 or hop_length <= 0:
        raise ValueError(f"frame: frame_length ({frame_length}) and hop_length ({hop_length}) must be positive")
    seq = x.shape[axis]
    if frame_length > seq:
        raise ValueError(f"frame: frame_length ({frame_length}) must not exceed the sequence length ({seq})")
    n = _n_frames(seq, frame_length, hop_length)
    if axis == -1:
        idx = np.arange(frame_length)[:, None] + hop_length * np.arange(n)[None, :]
        return x[..., idx]
    idx = hop_length * np.arange(n)[:, None] + np.arange(frame_length)[None, :]
    return x[idx]


def _frame_meta(x, frame_length=1, hop_length=1, axis=-1, **_):
    shape = tuple(x.shape)
    _check_signal_axis("frame", axis, len(shape), 1)
    seq = shape[axis]
    if seq != -1 and frame_length > seq:
        raise ValueError(f"frame: frame_length ({frame_length}) must not exceed the sequence length ({seq})")
    n = _n_frames(seq, frame_length, hop_length)
    out = shape[:-1] + (frame_length, n) if axis == -1 else (n, frame_length) + shape[1:]
    return Meta(out, np.dtype(x.dtype))


def _overlap_add(x, hop_length=1, axis=-1):
    _check_signal_axis("overlap_add", axis, x.ndim, 2)
    if hop_length <= 0:
        raise ValueError(f"overlap_add: hop_length ({hop_length}) must be positive")
    if axis == -1:
        fl, n = x.shape[-2], x.shape[-1]
        out = np.zeros(x.shape[:-2] + ((n - 1) * hop_length + fl,), x.dtype)
        starts = hop_length * np.arange(n)
        for i in range(fl):   # within one frame offset i the target positions are distinct
            out[..., starts + i] += x[..., i, :]
        return out
    n, fl = x.shape[0], x.shape[1]
    out = np.zeros(((n - 1) * hop_length + fl,) + x.shape[2:], x.dtype)
    starts = hop_length * np.arange(n)
    for i in range(fl):
        out[starts + i] += x[:, i]
    return out


def _overlap_add_meta(x, hop_length=1, axis=-1, **_):
    shape = tuple(x.shape)
    _check_signal_axis("overlap_add", axis, len(shape), 2)
    fl, n = (shape[-2], shape[-1]) if axis == -1 else (shape[1], shape[0])
    seq = -1 if -1 in (fl, n) else (n - 1) * hop_length + fl
    out = shape[:-2] + (seq,) if axis == -1 else (seq,) + shape[2:]
    return Meta(out, np.dtype(x.dtype))


def _frame_grad(x, dout, frame_length=1, hop_length=1, axis=-1):
    # overlap_add of the frame gradients, cut or padded to x's length (samples no frame covers get 0)
    g = _overlap_add(dout, hop_length=hop_length, axis=axis)
    seq = x.shape[axis]
    if g.shape[axis] < seq:
        pad = [(0, 0)] * g.ndim
        pad[axis] = (0, seq - g.shape[axis])
        g = np.pad(g, pad)
    return g


register("frame", ["X"], ["Out"], {"frame_length": ("INT", 1), "hop_length": ("INT", 1), "axis": ("INT", -1)},
         kernel=_frame, infer_meta=_frame_meta)
grad_op("frame", ["X", "Out@GRAD"], ["X@GRAD"], _frame_grad)


def _overlap_add_grad(x, dout, hop_length=1, axis=-1):
    # the adjoint of summing frames is framing the output gradient with the input's frame length
    fl = x.shape[-2] if axis == -1 else x.shape[1]
    return _frame(dout, frame_length=fl, hop_length=hop_length, axis=axis)


register("overlap_add", ["X"], ["Out"], {"hop_length": ("INT", 1), "axis": ("INT", -1)},
         kernel=_overlap_add, infer_meta=_overlap_add_meta)
grad_op("overlap_add", ["X", "Out@GRAD"], ["X@GRAD"], _overlap_add_grad)
