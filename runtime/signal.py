"""``paddle.signal``: stft and istft (Paddle's ``__all__``) and the frame / overlap_add functions they
are built from (public in Paddle's module too).

stft and istft are composites, step for step as Paddle 3.3.1 writes them, so programs record the
same ops: optional centre padding (``pad3d``), ``frame``, a transpose, the window product, one
``fft_r2c``/``fft_c2c`` (stft) or ``fft_c2r``/``fft_c2c`` (istft), and for istft ``overlap_add``
of the frames and of the squared window (the envelope the result is divided by). Their gradients
are those of these ops. Argument errors are Paddle's: ValueError from frame/overlap_add,
AssertionError from stft/istft's asserts, TypeError for a real istft input in a static program.
"""
from __future__ import annotations

import numpy as np

from .api.complex import is_complex
from .api.creation import ones
from .api.manipulation import squeeze, tile, transpose, unsqueeze
from .api.math import multiply
from .dispatch import run_op
from .fft.transforms import fft_c2c, fft_c2r, fft_r2c
from .framework import in_dynamic_mode
from .nn.functional.vision import pad

__all__ = ["stft", "istft"]


def frame(x, frame_length, hop_length, axis=-1, name=None):
    """Slice ``x`` into overlapping frames of ``frame_length`` every ``hop_length`` samples.

    axis=-1: [..., seq] -> [..., frame_length, num_frames]; axis=0: [seq, ...] -> [num_frames,
    frame_length, ...], with num_frames = 1 + (seq - frame_length) // hop_length."""
    if axis not in [0, -1]:
        raise ValueError(f"Unexpected axis: {axis}. It should be 0 or -1.")
    if not isinstance(frame_length, int) or frame_length <= 0:
        raise ValueError(f"Unexpected frame_length: {frame_length}. It should be an positive integer.")
    if not isinstance(hop_length, int) or hop_length <= 0:
        raise ValueError(f"Unexpected hop_length: {hop_length}. It should be an positive integer.")
    if in_dynamic_mode() and frame_length > x.shape[axis]:
        raise ValueError(f"Attribute frame_length should be less equal than sequence length, "
                         f"but got ({frame_length}) > ({x.shape[axis]}).")
    return run_op("frame", x, frame_length=frame_length, hop_length=hop_length, axis=axis)


def overlap_add(x, hop_length, axis=-1, name=None):
    """Sum frames back into a sequence (the adjoint of frame): [..., frame_length, num_frames] ->
    [..., (num_frames - 1) * hop_length + frame_length] for axis=-1 (mirrored for axis=0)."""
    if axis not in [0, -1]:
        raise ValueError(f"Unexpected axis: {axis}. It should be 0 or -1.")
    if not isinstance(hop_length, int) or hop_length <= 0:
        raise ValueError(f"Unexpected hop_length: {hop_length}. It should be an positive integer.")
    return run_op("overlap_add", x, hop_length=hop_length, axis=axis)


def _pad_window(window, win_length, n_fft):
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = pad(window, pad=[left, n_fft - win_length - left], mode="constant")
    return window


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, name=None):
    """Short-time Fourier transform of a [seq] or [batch, seq] signal: [(batch,) n_fft // 2 + 1 (onesided)
    or n_fft, num_frames] complex frames."""
    x_rank = len(x.shape)
    assert x_rank in [1, 2], f"x should be a 1D or 2D real tensor, but got rank of x is {x_rank}"
    if x_rank == 1:   # (batch, seq_length)
        x = unsqueeze(x, 0)
    if hop_length is None:
        hop_length = int(n_fft // 4)
    assert hop_length > 0, f"hop_length should be > 0, but got {hop_length}."
    if win_length is None:
        win_length = n_fft
    if in_dynamic_mode():
        assert 0 < n_fft <= x.shape[-1], f"n_fft should be in (0, seq_length({x.shape[-1]})], but got {n_fft}."
    assert 0 < win_length <= n_fft, f"win_length should be in (0, n_fft({n_fft})], but got {win_length}."
    if window is not None:
        assert len(window.shape) == 1 and len(window) == win_length, (
            f"expected a 1D window tensor of size equal to win_length({win_length}), but got window with "
            f"shape {window.shape}.")
    else:
        window = ones(shape=(win_length,), dtype=x.dtype)
    window = _pad_window(window, win_length, n_fft)

    if center:
        assert pad_mode in ["constant", "reflect"], \
            f'pad_mode should be "reflect" or "constant", but got "{pad_mode}".'
        p = n_fft // 2
        x = squeeze(pad(unsqueeze(x, -1), pad=[p, p], mode=pad_mode, data_format="NLC"), -1)

    x_frames = frame(x=x, frame_length=n_fft, hop_length=hop_length, axis=-1)
    x_frames = transpose(x_frames, perm=[0, 2, 1])   # (batch, num_frames, n_fft)
    x_frames = multiply(x_frames, window)

    norm = "ortho" if normalized else "backward"
    if onesided is None:
        onesided = not is_complex(x_frames)
    if is_complex(x_frames):
        assert not onesided, "onesided should be False when input or window is a complex Tensor."

    if not is_complex(x):
        out = fft_r2c(x=x_frames, n=None, axis=-1, norm=norm, forward=True, onesided=onesided, name=name)
    else:
        out = fft_c2c(x=x_frames, n=None, axis=-1, norm=norm, forward=True, name=name)
    out = transpose(out, perm=[0, 2, 1])   # (batch, n_fft, num_frames)
    if x_rank == 1:
        out = squeeze(out, 0)
    return out


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=True, length=None, return_complex=False, name=None):
    """Inverse short-time Fourier transform: frames [(batch,) fft_size, num_frames] back to a signal
    (least-squares overlap-add with the window, divided by the summed squared window)."""
    if not in_dynamic_mode() and x.dtype.np.kind != "c":
        # Paddle checks the dtype only when building a static program; eager inputs that are real reach
        # fft_c2r, which casts them to complex
        raise TypeError(f"The data type of 'x' in istft must be ['complex64', 'complex128'], but received "
                        f"{x.dtype.np.name}.")
    x_rank = len(x.shape)
    assert x_rank in [2, 3], f"x should be a 2D or 3D complex tensor, but got rank of x is {x_rank}"
    if x_rank == 2:   # (batch, n_fft, n_frames)
        x = unsqueeze(x, 0)
    if hop_length is None:
        hop_length = int(n_fft // 4)
    if win_length is None:
        win_length = n_fft
    # no gaps between frames
    assert 0 < hop_length <= win_length, f"hop_length should be in (0, win_length({win_length})], but got {hop_length}."
    assert 0 < win_length <= n_fft, f"win_length should be in (0, n_fft({n_fft})], but got {win_length}."

    n_frames = x.shape[-1]
    fft_size = x.shape[-2]
    if in_dynamic_mode():
        assert x.size != 0, "x should not be an empty tensor."
        if onesided:
            assert fft_size == n_fft // 2 + 1, (
                f"fft_size should be equal to n_fft // 2 + 1({n_fft // 2 + 1}) when onesided is True, but got "
                f"{fft_size}.")
        else:
            assert fft_size == n_fft, \
                f"fft_size should be equal to n_fft({n_fft}) when onesided is False, but got {fft_size}."

    if window is not None:
        assert len(window.shape) == 1 and len(window) == win_length, (
            f"expected a 1D window tensor of size equal to win_length({win_length}), but got window with "
            f"shape {window.shape}.")
    else:
        window_dtype = "float32" if x.dtype.np in (np.float32, np.complex64) else "float64"
        window = ones(shape=(win_length,), dtype=window_dtype)
    window = _pad_window(window, win_length, n_fft)

    x = transpose(x, perm=[0, 2, 1])   # (batch, num_frames, n_fft)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        assert not onesided, \
            "onesided should be False when input(output of istft) or window is a complex Tensor."
        out = fft_c2c(x=x, n=None, axis=-1, norm=norm, forward=False, name=None)
    else:
        assert not is_complex(window), "Data type of window should not be complex when return_complex is False."
        if onesided is False:
            x = x[:, :, :n_fft // 2 + 1]
        out = fft_c2r(x=x, n=None, axis=-1, norm=norm, forward=False, name=None)

    out = transpose(multiply(out, window), perm=[0, 2, 1])   # (batch, n_fft, num_frames)
    out = overlap_add(x=out, hop_length=hop_length, axis=-1)   # (batch, seq_length)

    window_envelop = overlap_add(
        x=transpose(tile(x=unsqueeze(multiply(window, window), 0), repeat_times=[n_frames, 1]), perm=[1, 0]),
        hop_length=hop_length, axis=-1)   # (seq_length,)

    if length is None:
        if center:
            out = out[:, (n_fft // 2):-(n_fft // 2)]
            window_envelop = window_envelop[(n_fft // 2):-(n_fft // 2)]
    else:
        start = n_fft // 2 if center else 0
        out = out[:, start:start + length]
        window_envelop = window_envelop[start:start + length]

    # the Nonzero Overlap Add (NOLA) constraint
    if in_dynamic_mode() and window_envelop.abs().min().item() < 1e-11:
        raise ValueError(
            "Abort istft because Nonzero Overlap Add (NOLA) condition failed. For more information about NOLA "
            "constraint please see `scipy.signal.check_NOLA`(https://docs.scipy.org/doc/scipy/reference/generated/"
            "scipy.signal.check_NOLA.html).")
    out = out / window_envelop
    if x_rank == 2:
        out = squeeze(out, axis=0)
    return out
