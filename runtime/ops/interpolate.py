"""Interpolation ops beyond nearest/bilinear: linear_interp_v2 (3-D), trilinear_interp_v2 (5-D), bicubic_interp_v2.

Each spatial dim is resampled by one (out, in) weight matrix, so the forward applies the matrices
axis by axis and the gradient applies their transposes. Coordinates follow Paddle's CPU kernels
(the shared rules and the output-size precedence live in `interp`): linear taps are the ones
bilinear uses, per axis; bicubic samples at ``ratio*k`` (align_corners) or ``ratio*(k+0.5)-0.5``
(whatever align_mode says), takes the four neighbours ``floor(src)-1 .. floor(src)+2`` clamped to
the border, weighted by Keys' cubic convolution with A = -0.75.

Rounding follows Paddle 3.3.1's CPU kernels as measured (to the last bit in float64): the step is
a float32; the half-pixel source is taken in float for trilinear and for sizes, in double for
scales (bilinear-style taps, shared with `interp`); the 1-D linear forward keeps its fraction in
the input's precision while its grad uses float ones; bicubic's forward works in the input's
precision and its grad takes the half-pixel source in float.
"""
from __future__ import annotations

import numpy as np

from . import interp as _interp
from .registry import grad_op, register

_CUBIC_A = -0.75


def _cubic_weights(t):
    """The four cubic-convolution weights for fractional offsets ``t`` (shape [n]) -> [n, 4]."""
    A = _CUBIC_A

    def near(d):        # |d| <= 1
        return ((A + 2) * d - (A + 3)) * d * d + 1

    def far(d):         # 1 < |d| < 2
        return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A

    return np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], axis=-1)


def _cubic_matrix(n_in, n_out, ratio, align_corners, dtype, for_grad=False):
    k = np.arange(n_out, dtype=np.float64)
    if align_corners:
        src = (np.float32(ratio) * k.astype(np.float32)).astype(np.float64)
    elif for_grad:
        # Paddle's bicubic grad kernel takes the half-pixel source in float, the forward in double
        src = (np.float32(ratio) * (k + 0.5).astype(np.float32) - np.float32(0.5)).astype(np.float64)
    else:
        src = np.float64(ratio) * (k + 0.5) - 0.5
    if np.dtype(dtype) == np.float32:
        src = src.astype(np.float32)
    base = np.floor(src.astype(np.float32)).astype(np.int64)
    t = (src - base).astype(dtype)
    w = _cubic_weights(t)
    A = np.zeros((n_out, n_in), dtype=dtype)
    rows = np.arange(n_out)
    for i in range(4):
        np.add.at(A, (rows, np.clip(base - 1 + i, 0, n_in - 1)), w[:, i])
    return A


def _linear_matrix(n_in, n_out, ratio, align_corners, align_mode, dtype, float_src, exact_half_pixel):
    lo, hi, w0, w1 = _interp._taps(n_in, n_out, ratio, True, align_corners, align_mode, float_src)
    if exact_half_pixel and align_mode == 0 and not align_corners:
        # Paddle's 1-D linear forward truncates the index from the double source and keeps the
        # fraction in the input's precision
        src = np.float64(ratio) * (np.arange(n_out) + 0.5) - 0.5
        lo = np.minimum(np.maximum(np.trunc(src), 0).astype(np.int64), n_in - 1)
        hi = np.minimum(lo + 1, n_in - 1)
        w1 = np.maximum(src, 0).astype(dtype) - np.maximum(np.trunc(src), 0).astype(dtype)
        w0 = 1 - w1
    A = np.zeros((n_out, n_in), dtype=dtype)
    rows = np.arange(n_out)
    np.add.at(A, (rows, lo), w0.astype(dtype))
    np.add.at(A, (rows, hi), w1.astype(dtype))
    return A


def _linear_ratio(n_in, n_out, align_corners, scale):
    """linear/trilinear keep the ``in/out`` (or ``1/scale``) step for a single output (bilinear uses 0),
    so with half-pixel centres one output samples the middle of the input (measured on Paddle 3.3.1)."""
    if n_out == 1 and not align_corners:
        return np.float32(1.0 / float(scale)) if scale > 0 else np.float32(n_in) / np.float32(n_out)
    return _interp._ratio(n_in, n_out, align_corners, scale)


def _int_forward(op, x, out_size, size_tensor, scale_tensor, data_layout, out_d, out_h, out_w, scale,
                 align_corners, align_mode):
    """Integer (uint8) input as Paddle's CPU kernels compute it: the 1-D linear kernel keeps its
    weights in the input dtype, so it reads the low tap; trilinear sums the 8 corners (depth, height,
    width order) in float32 and truncates."""
    axes = _interp._spatial_axes(x.ndim, data_layout)
    in_sizes = [x.shape[a] for a in axes]
    outs, scales = _interp._resolve(in_sizes, out_size, size_tensor, scale_tensor, out_d, out_h, out_w, scale)
    taps = [_interp._taps(n, o, _linear_ratio(n, o, align_corners, s), True, align_corners, align_mode, True)
            for n, o, s in zip(in_sizes, outs, scales)]
    if len(axes) == 1:
        return np.ascontiguousarray(x.take(taps[0][0], axis=axes[0]))
    corners = [(d, h, w) for d in (0, 1) for h in (0, 1) for w in (0, 1)]
    return _interp.corner_sum(x, axes, taps, corners)


def _matrices(x_shape, dtype, cubic, for_grad, exact_half_pixel, out_size, size_tensor, scale_tensor,
              data_layout, out_d, out_h, out_w, scale, align_corners, align_mode):
    axes = _interp._spatial_axes(len(x_shape), data_layout)
    in_sizes = [x_shape[a] for a in axes]
    outs, scales = _interp._resolve(in_sizes, out_size, size_tensor, scale_tensor, out_d, out_h, out_w, scale)
    mats = []
    for n, o, s in zip(in_sizes, outs, scales):
        # (Paddle's 1-D linear grad kernel keeps bilinear's 0 step for one output, unlike its forward)
        one_step = cubic or (for_grad and len(axes) == 1)
        ratio = _interp._ratio(n, o, align_corners, s) if one_step else _linear_ratio(n, o, align_corners, s)
        mats.append(_cubic_matrix(n, o, ratio, align_corners, dtype, for_grad) if cubic
                    else _linear_matrix(n, o, ratio, align_corners, align_mode, dtype, s <= 0 or len(axes) == 3,
                                        exact_half_pixel))
    return axes, mats


def _apply(y, axis, m):
    """Contract the (out, in) matrix ``m`` with ``y`` along ``axis``."""
    return np.moveaxis(np.matmul(np.moveaxis(y, axis, -1), m.T), -1, axis)


def _check_rank(op, ndim, rank):
    if ndim != rank:
        raise ValueError(f"{op}: X must be {rank}-D, got a {ndim}-D input")


def _forward(op, rank, cubic):
    def kernel(x, out_size=None, size_tensor=None, scale_tensor=None, data_layout="NCHW", out_d=0, out_h=0,
               out_w=0, scale=(), interp_method="bilinear", align_corners=True, align_mode=1, **_):
        _check_rank(op, x.ndim, rank)
        _interp.check_kernel_dtype(op[:-3], x.dtype)
        if x.dtype.kind in "iu":
            return _int_forward(op, x, out_size, size_tensor, scale_tensor, data_layout, out_d, out_h, out_w,
                                scale, align_corners, align_mode)
        axes, mats = _matrices(x.shape, x.dtype, cubic, False, rank == 3, out_size, size_tensor, scale_tensor,
                               data_layout, out_d, out_h, out_w, scale, align_corners, align_mode)
        y = x
        for axis, m in zip(axes, mats):
            y = _apply(y, axis, m)
        return np.ascontiguousarray(y, dtype=x.dtype)
    return kernel


def _backward(op, rank, cubic):
    def kernel(x, out_size, size_tensor, scale_tensor, dout, data_layout="NCHW", out_d=0, out_h=0, out_w=0,
               scale=(), interp_method="bilinear", align_corners=True, align_mode=1, **_):
        # (the 1-D linear grad kernel keeps float fractions, unlike its forward)
        axes, mats = _matrices(x.shape, x.dtype, cubic, True, False, out_size, size_tensor, scale_tensor,
                               data_layout, out_d, out_h, out_w, scale, align_corners, align_mode)
        g = dout
        for axis, m in zip(axes, mats):
            g = _apply(g, axis, m.T)
        return np.ascontiguousarray(g, dtype=x.dtype)
    return kernel


def _meta(op, rank):
    shared = _interp._interp_meta(False)

    def meta(x, *rest, **attrs):
        _check_rank(op, len(x.shape), rank)
        return shared(x, *rest, **attrs)
    return meta


for _t, _rank, _cubic in (("linear_interp_v2", 3, False), ("trilinear_interp_v2", 5, False),
                          ("bicubic_interp_v2", 4, True)):
    register(_t, _interp._INTERP_INPUTS, ["Out"], _interp._INTERP_ATTRS, kernel=_forward(_t, _rank, _cubic),
             infer_meta=_meta(_t, _rank), differentiable=("X",))
    grad_op(_t, _interp._INTERP_INPUTS + ["Out@GRAD"], ["X@GRAD"], _backward(_t, _rank, _cubic))

