"""Shared read-only zero arrays, and relu computed against them.

numpy 2.4's ``np.maximum`` (and ``np.minimum``) runs a slow scalar-broadcast loop when one operand is a
Python or numpy scalar: on this project's 2-core EPYC, ``np.maximum(x, 0)`` on a [64, 256] float32 array
takes ~5.5 µs and ``np.maximum(x, zeros)`` against a whole zero array of x's shape ~1.3 µs (45 against
9 µs on LeNet's [32, 6, 28, 28] map); the results are the same bits (the same ufunc on the same values:
NaN propagates, -0.0 meets +0.0 alike). The zero arrays are views of one buffer per dtype, grown as
needed and made by ``np.zeros`` (calloc: pages never written stay the kernel's shared zero page), so
they cost no resident memory beyond what is read; beyond ZEROS_MAX_BYTES the scalar is used.

(The relu gradient's ``dout * (out > 0)`` measured no faster as ``np.multiply(dout, mask, dtype=...)``.)
"""
from __future__ import annotations

import math

import numpy as np

ZEROS_MAX_BYTES = 1 << 26
FAST_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))   # where the zero-array form pays
_buffers = {}          # dtype -> the shared zero buffer
_views = {}            # (shape, dtype) -> a zero view of that shape (the hot path's one dict lookup)
_MAX_VIEWS = 512


def zeros_readonly(shape, dtype):
    """A read-only C-contiguous zero array of ``shape`` and ``dtype`` (a view of a shared buffer), or the
    scalar 0 of that dtype when it would exceed ZEROS_MAX_BYTES."""
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    z = _views.get((shape, dtype))
    if z is not None:
        return z
    n = math.prod(shape)
    if n * dtype.itemsize > ZEROS_MAX_BYTES:
        return dtype.type(0)
    buf = _buffers.get(dtype)
    if buf is None or buf.size < n:
        buf = np.zeros(max(n, 1024), dtype)
        buf.flags.writeable = False
        _buffers[dtype] = buf       # (a racing thread may replace it with another zero buffer: harmless)
    z = buf[:n].reshape(shape)
    if len(_views) >= _MAX_VIEWS:
        _views.clear()
    _views[(shape, dtype)] = z
    return z


def relu(x):
    """``np.maximum(x, 0)``, bit for bit, faster for float32 / float64 arrays."""
    if x.__class__ is np.ndarray and x.dtype in FAST_DTYPES:
        z = _views.get((x.shape, x.dtype))
        return np.maximum(x, zeros_readonly(x.shape, x.dtype) if z is None else z)
    return np.maximum(x, 0)


def relu_inplace(out):
    """``np.maximum(out, 0, out=out)``, bit for bit, faster for float32 / float64 arrays."""
    if out.dtype not in FAST_DTYPES:
        return np.maximum(out, 0, out=out)
    z = _views.get((out.shape, out.dtype))
    return np.maximum(out, zeros_readonly(out.shape, out.dtype) if z is None else z, out=out)

