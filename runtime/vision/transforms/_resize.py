"""Resampling kernels for `resize`, in numpy: nearest, bilinear, bicubic, area and lanczos.

Each interpolation is a weight matrix ``W`` of shape ``[out, in]`` per axis; the image is
``W_h @ img @ W_w^T``. The sampling positions follow OpenCV's ``cv2.resize`` (which Paddle's
numpy backend calls) and Paddle's ``F.interpolate`` (its Tensor backend): half-pixel centres,
source index ``floor(dst * in / out)`` for nearest, bicubic with ``a = -0.75`` and lanczos4 with
8 taps, both with replicated borders. OpenCV computes uint8 bilinear/bicubic/lanczos results in
fixed point; we compute in float64 and round, so those can differ from OpenCV by 1.
"""
from __future__ import annotations


import numpy as np

from ._common import cast_back

CV2_MODES = ("nearest", "bilinear", "area", "bicubic", "lanczos")


def _taps_matrix(n_in, n_out, src, taps, weight_fn):
    """Weights for taps ``floor(src) + k`` (k in ``taps``), borders replicated."""
    base = np.floor(src).astype(np.int64)
    t = src - base
    w = np.zeros((n_out, n_in), np.float64)
    rows = np.arange(n_out)
    for k in taps:
        idx = np.clip(base + k, 0, n_in - 1)
        np.add.at(w, (rows, idx), weight_fn(k - t))
    return w


def _cubic(x, a=-0.75):
    x = np.abs(x)
    return np.where(x <= 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                    np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0.0))


def _lanczos4(x):
    x = np.asarray(x, np.float64)
    out = np.ones_like(x)
    nz = np.abs(x) > 1e-12
    px = np.pi * x[nz]
    out[nz] = np.sin(px) * np.sin(px / 4) / (px * px / 4)
    return out


def axis_weights(n_in, n_out, mode, area_mode_linear=False):
    """The ``[n_out, n_in]`` interpolation matrix of one axis."""
    scale = n_in / n_out
    d = np.arange(n_out, dtype=np.float64)
    if mode == "nearest":
        idx = np.minimum(np.floor(d * scale).astype(np.int64), n_in - 1)
        w = np.zeros((n_out, n_in))
        w[np.arange(n_out), idx] = 1.0
        return w
    if mode == "bilinear" or (mode == "area" and area_mode_linear):
        if mode == "area":
            # cv2's INTER_AREA when enlarging: linear with the fraction (dx+1) - (sx+1)/scale
            sx = np.floor(d * scale)
            fx = (d + 1) - (sx + 1) / scale
            fx = np.where(fx <= 0, 0.0, fx - np.floor(fx))
            src = sx + fx
        else:
            src = (d + 0.5) * scale - 0.5
        src = np.maximum(src, 0.0)   # a source position before pixel 0 takes pixel 0
        base = np.minimum(np.floor(src), n_in - 1)
        t = np.where(base >= n_in - 1, 0.0, src - base)
        base = base.astype(np.int64)
        w = np.zeros((n_out, n_in))
        rows = np.arange(n_out)
        np.add.at(w, (rows, base), 1 - t)
        np.add.at(w, (rows, np.minimum(base + 1, n_in - 1)), t)
        return w
    if mode == "bicubic":
        return _taps_matrix(n_in, n_out, (d + 0.5) * scale - 0.5, range(-1, 3), _cubic)
    if mode == "lanczos":
        w = _taps_matrix(n_in, n_out, (d + 0.5) * scale - 0.5, range(-3, 5), _lanczos4)
        return w / w.sum(axis=1, keepdims=True)
    if mode == "area":
        # each output pixel averages the source interval [i*scale, (i+1)*scale) by overlap
        lo = d * scale
        hi = lo + scale
        edges = np.arange(n_in + 1, dtype=np.float64)
        overlap = np.clip(np.minimum(hi[:, None], edges[None, 1:]) - np.maximum(lo[:, None], edges[None, :-1]), 0, None)
        return overlap / scale
    if mode == "adaptive_area":
        # paddle's F.interpolate(mode='area'): adaptive average pooling over whole pixels
        w = np.zeros((n_out, n_in))
        for i in range(n_out):
            s, e = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
            w[i, s:e] = 1.0 / (e - s)
        return w
    raise ValueError(f"resize: unknown interpolation {mode!r}")


def resize_hw(arr, oh, ow, mode):
    """Resize axes 0 and 1 of an ``(H, W, ...)`` array to ``(oh, ow)``; the dtype is kept."""
    h, w = arr.shape[:2]
    if oh <= 0 or ow <= 0:
        raise ValueError(f"resize: the output size must be positive, got height={oh}, width={ow}")
    if mode == "nearest":
        ri = np.minimum(np.floor(np.arange(oh) * (h / oh)).astype(np.int64), h - 1)
        ci = np.minimum(np.floor(np.arange(ow) * (w / ow)).astype(np.int64), w - 1)
        return arr[ri][:, ci]
    linear_area = mode == "area" and not (h >= oh and w >= ow)
    wh = axis_weights(h, oh, mode, linear_area)
    ww = axis_weights(w, ow, mode, linear_area)
    x = arr.astype(np.float64)
    out = np.tensordot(wh, x, axes=(1, 0))                 # (oh, w, ...)
    out = np.moveaxis(np.tensordot(ww, out, axes=(1, 1)), 0, 1)   # (oh, ow, ...)
    return cast_back(out, arr.dtype)


def target_size(h, w, size):
    """Paddle's output (height, width): an int sets the shorter side (the other keeps the aspect
    ratio, truncated); a pair is (height, width). None when an int size already matches."""
    if isinstance(size, int):
        if (w <= h and w == size) or (h <= w and h == size):
            return None
        if w < h:
            return int(size * h / w), size
        return size, int(size * w / h)
    return int(size[0]), int(size[1])


def check_size(size, who="resize"):
    if not (isinstance(size, int) or (hasattr(size, "__len__") and len(size) == 2)):
        raise TypeError(f"{who}: Got inappropriate size arg: {size!r} (expected an int or a (height, width) pair)")


