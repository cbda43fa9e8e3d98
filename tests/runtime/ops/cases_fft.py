"""Table rows for the FFT and signal ops: fft_c2c, fft_r2c, fft_c2r, frame, overlap_add.

The references do not use numpy.fft: transforms are explicit DFT matrices, one axis at a time,
and c2r builds the full Hermitian spectrum from the half one by hand (mirroring every transformed
axis), so they check the kernels' use of pocketfft, its scaling and its conventions (which bins
are kept, which imaginary parts are dropped) independently. Complex inputs are grad-checked
part by part (see op_harness); complex outputs get complex loss weights.
"""
import math

import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(11)


def r(*shape):
    return rng.uniform(-1, 1, shape)


def c(*shape):
    return r(*shape) + 1j * r(*shape)


def factor(normalization, forward, n):
    if normalization == "ortho":
        return 1 / math.sqrt(n)
    return 1 / n if (normalization == "forward") == forward else 1.0


def dft(x, axes, forward):
    """The unscaled DFT along ``axes`` (exp(-2 pi i jk/n) when forward) by matrix products."""
    x = np.asarray(x, dtype=np.complex128)
    sign = -1 if forward else 1
    for a in axes:
        n = x.shape[a]
        k = np.arange(n)
        m = np.exp(sign * 2j * np.pi * np.outer(k, k) / n)
        x = np.moveaxis(np.tensordot(m, np.moveaxis(x, a, 0), axes=1), 0, a)
    return x


def n_of(shape, axes):
    return int(np.prod([shape[a] for a in axes]))


def c2c_ref(X, axes, normalization, forward):
    return (dft(X, axes, forward) * factor(normalization, forward, n_of(X.shape, axes))).astype(X.dtype)


def r2c_ref(X, axes, normalization, forward, onesided):
    out = dft(X, axes, forward) * factor(normalization, forward, n_of(X.shape, axes))
    if onesided:
        out = np.take(out, np.arange(X.shape[axes[-1]] // 2 + 1), axis=axes[-1])
    return out.astype(np.complex64 if X.dtype == np.float32 else np.complex128)


def hermitian_full(X, axes, n):
    """The full spectrum (length ``n`` on the last axis) whose first m bins there are X: bin k > n//2 is
    conj(X) at the mirrored index -k of every transformed axis."""
    last = axes[-1]
    mirrored = np.conj(X)
    for a in axes[:-1]:
        mirrored = np.roll(np.flip(mirrored, a), 1, a)   # index k -> -k (mod size)
    full = np.zeros(X.shape[:last] + (n,) + X.shape[last + 1:], np.complex128)
    for k in range(n):
        src = (X, k) if k <= n // 2 else (mirrored, n - k)
        if src[1] < X.shape[last]:
            idx = [slice(None)] * X.ndim
            idx[last] = src[1]
            full_idx = [slice(None)] * X.ndim
            full_idx[last] = k
            full[tuple(full_idx)] = src[0][tuple(idx)]
    return full


def c2r_ref(X, axes, normalization, forward, last_dim_size=0):
    n = last_dim_size or 2 * (X.shape[axes[-1]] - 1)
    full = hermitian_full(X, axes, n)
    # the imaginary parts of the DC / Nyquist bins (not Hermitian) only reach the imaginary part
    out = dft(full, axes, forward).real * factor(normalization, forward, n_of(full.shape, axes))
    return out.astype(np.float32 if X.dtype == np.complex64 else np.float64)


def frame_ref(X, frame_length, hop_length, axis=-1):
    seq = X.shape[axis]
    n = 1 + (seq - frame_length) // hop_length
    if axis == -1:
        return np.stack([X[..., j * hop_length:j * hop_length + frame_length] for j in range(n)], axis=-1)
    return np.stack([X[j * hop_length:j * hop_length + frame_length] for j in range(n)], axis=0)


def overlap_add_ref(X, hop_length, axis=-1):
    if axis == -1:
        fl, n = X.shape[-2:]
        out = np.zeros(X.shape[:-2] + ((n - 1) * hop_length + fl,), X.dtype)
        for j in range(n):
            out[..., j * hop_length:j * hop_length + fl] += X[..., :, j]
        return out
    n, fl = X.shape[:2]
    out = np.zeros(((n - 1) * hop_length + fl,) + X.shape[2:], X.dtype)
    for j in range(n):
        out[j * hop_length:j * hop_length + fl] += X[j]
    return out


def _c2c(X, axes=(), normalization="backward", forward=True):
    return c2c_ref(X, list(axes), normalization, forward)


def _r2c(X, axes=(), normalization="backward", forward=True, onesided=True):
    return r2c_ref(X, list(axes), normalization, forward, onesided)


def _c2r(X, axes=(), normalization="backward", forward=True, last_dim_size=0):
    return c2r_ref(X, list(axes), normalization, forward, last_dim_size)


def _attrs(axes, norm, forward, **kw):
    return dict(axes=axes, normalization=norm, forward=forward, **kw)


CASES = [
    # fft_c2c: fft / ifft / fftn / ifftn with every normalization
    OpCase("fft_c2c", {"X": c(3, 5)}, _c2c, _attrs([1], "backward", True), name="fft", grad=("X",)),
    OpCase("fft_c2c", {"X": c(2, 3, 4)}, _c2c, _attrs([0, 2], "ortho", False), name="ifftn_ortho", grad=("X",)),
    OpCase("fft_c2c", {"X": c(2, 3)}, _c2c, _attrs([0, 1], "forward", True), name="fftn_forward", grad=("X",)),
    OpCase("fft_c2c", {"X": c(4, 3)}, _c2c, _attrs([0], "backward", False), name="ifft_axis0", grad=("X",)),
    OpCase("fft_c2c", {"X": c(3, 4).astype(np.complex64)}, _c2c, _attrs([1], "backward", True), name="c64",
           check_grad=False, rtol=1e-4, atol=1e-5),
    # fft_r2c: rfft / ihfft (onesided), fft of a real input (two-sided), multi-axis
    OpCase("fft_r2c", {"X": r(3, 6)}, _r2c, _attrs([1], "backward", True, onesided=True), name="rfft_even"),
    OpCase("fft_r2c", {"X": r(2, 5)}, _r2c, _attrs([1], "forward", False, onesided=True), name="ihfft_odd"),
    OpCase("fft_r2c", {"X": r(3, 4)}, _r2c, _attrs([0, 1], "ortho", True, onesided=False), name="fftn_real"),
    OpCase("fft_r2c", {"X": r(2, 3, 4)}, _r2c, _attrs([0, 2], "backward", False, onesided=True),
           name="inverse_axes02"),
    OpCase("fft_r2c", {"X": r(4, 3)}, _r2c, _attrs([0], "ortho", True, onesided=True), name="axis0"),
    OpCase("fft_r2c", {"X": r(3, 8).astype(np.float32)}, _r2c, _attrs([1], "backward", True, onesided=True),
           name="f32", check_grad=False, rtol=1e-4, atol=1e-5),
    # fft_c2r: irfft (default and explicit odd length), hfft, irfftn / hfftn over several axes
    OpCase("fft_c2r", {"X": c(3, 4)}, _c2r, _attrs([1], "backward", False), name="irfft", grad=("X",)),
    OpCase("fft_c2r", {"X": c(2, 4)}, _c2r, _attrs([1], "ortho", False, last_dim_size=7), name="irfft_n7",
           grad=("X",)),
    OpCase("fft_c2r", {"X": c(2, 3)}, _c2r, _attrs([1], "forward", True), name="hfft", grad=("X",)),
    OpCase("fft_c2r", {"X": c(3, 4)}, _c2r, _attrs([0, 1], "backward", False), name="irfftn", grad=("X",)),
    OpCase("fft_c2r", {"X": c(2, 3, 3)}, _c2r, _attrs([0, 2], "ortho", True, last_dim_size=5), name="hfftn_n5",
           grad=("X",)),
    OpCase("fft_c2r", {"X": c(4, 2)}, _c2r, _attrs([0], "backward", False, last_dim_size=6), name="axis0",
           grad=("X",)),
    # last_dim_size that does not match the bins (only reachable through the op): extra bins are ignored,
    # missing ones read as zeros
    OpCase("fft_c2r", {"X": c(2, 5)}, _c2r, _attrs([1], "backward", False, last_dim_size=4), name="extra_bins",
           grad=("X",)),
    OpCase("fft_c2r", {"X": c(2, 3)}, _c2r, _attrs([1], "forward", True, last_dim_size=9), name="missing_bins",
           grad=("X",)),
    OpCase("fft_c2r", {"X": c(2, 5).astype(np.complex64)}, _c2r, _attrs([1], "backward", False), name="c64",
           check_grad=False, rtol=1e-4, atol=1e-5),
    # frame / overlap_add on both axes; samples no frame covers get a zero gradient
    OpCase("frame", {"X": r(2, 8)}, frame_ref, dict(frame_length=3, hop_length=2, axis=-1), name="last"),
    OpCase("frame", {"X": r(7, 2)}, frame_ref, dict(frame_length=4, hop_length=1, axis=0), name="first"),
    OpCase("frame", {"X": rng.integers(-5, 5, (9,))}, frame_ref, dict(frame_length=4, hop_length=3, axis=-1),
           name="int64"),
    OpCase("overlap_add", {"X": r(2, 3, 4)}, overlap_add_ref, dict(hop_length=2, axis=-1), name="last"),
    OpCase("overlap_add", {"X": r(4, 3, 2)}, overlap_add_ref, dict(hop_length=1, axis=0), name="first"),
    OpCase("overlap_add", {"X": r(2, 3)}, overlap_add_ref, dict(hop_length=3, axis=-1), name="gaps"),
]
