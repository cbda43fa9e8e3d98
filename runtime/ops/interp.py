"""Resampling and padding ops: bilinear_interp_v2, nearest_interp_v2, pad3d, pad, pixel_shuffle and grads.

Interpolation is separable: per spatial dim, each output index reads one (nearest) or two
(linear) input indices with weights computed in float32 exactly as Paddle's CPU kernel does
(ratio ``(in-1)/(out-1)`` with align_corners, else ``1/scale`` when a scale is given, else
``in/out``; align_mode 0 uses half-pixel centres ``ratio*(k+0.5)-0.5`` clamped at 0). The
forward gathers along each axis; the grads apply the transposed (out, in) tap matrices.
Output size precedence is Paddle's: SizeTensor > OutSize > Scale tensor > scale attr > out_* attrs.
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, grad_op, register

_INTERP_ATTRS = {
    "data_layout": ("STRING", "NCHW"),
    "out_d": ("INT", 0),
    "out_h": ("INT", 0),
    "out_w": ("INT", 0),
    "scale": ("FLOATS", []),
    "interp_method": ("STRING", "bilinear"),
    "align_corners": ("BOOLEAN", True),
    "align_mode": ("INT", 1),
}
_INTERP_INPUTS = ["X", "OutSize?", "SizeTensor[]?", "Scale?"]


def _spatial_axes(ndim, data_layout):
    if ndim < 3:
        raise ValueError(f"interpolate: X must have at least 3 dims (batch, channel, spatial...), got {ndim}")
    if data_layout in ("NCHW", "NCDHW", "NCW", "AnyLayout"):
        return list(range(2, ndim))
    if data_layout in ("NHWC", "NDHWC", "NWC"):
        return list(range(1, ndim - 1))
    raise ValueError(f"interpolate: data_layout must be 'NCHW' or 'NHWC', got {data_layout!r}")


def _scales(nd, scale_tensor, scale):
    """Per-dim scale factors (-1 when none is given)."""
    if scale_tensor is not None:
        vals = [float(v) for v in np.asarray(scale_tensor).reshape(-1)]
    elif scale is not None and len(scale):
        vals = [float(v) for v in scale]
    else:
        return [-1.0] * nd
    if len(vals) == 1:
        vals = vals * nd
    vals = vals[:nd]
    if len(vals) != nd or any(v <= 0 for v in vals):
        raise ValueError(f"interpolate: scale must hold {nd} positive values, got {vals}")
    return vals


def _resolve(in_sizes, out_size, size_tensor, scale_tensor, out_d, out_h, out_w, scale):
    """(output sizes, per-dim scales) with Paddle's precedence."""
    nd = len(in_sizes)
    scales = _scales(nd, scale_tensor, scale)
    if scales[0] > 0:
        outs = [int(np.float32(n) * np.float32(s)) for n, s in zip(in_sizes, scales)]
    else:
        outs = [int(v) for v in (out_d, out_h, out_w)[3 - nd:]]
    if out_size is not None:
        outs = [int(v) for v in np.asarray(out_size).reshape(-1)]
    if size_tensor:
        outs = [int(np.asarray(t).reshape(-1)[0]) for t in size_tensor]
    if len(outs) != nd or any(o <= 0 for o in outs):
        raise ValueError(f"interpolate: output size must be {nd} positive values, got {outs} "
                         "(set out_h/out_w, a scale, OutSize or SizeTensor)")
    return outs, scales


def _ratio(n_in, n_out, align_corners, scale):
    if n_out <= 1:
        return np.float32(0.0)
    if align_corners:
        return np.float32(n_in - 1) / np.float32(n_out - 1)
    if scale > 0:
        return np.float32(1.0 / float(scale))   # Paddle: 1/scale in double, then rounded to float
    return np.float32(n_in) / np.float32(n_out)


def _taps(n_in, n_out, ratio, linear, align_corners, align_mode, float_src=False):
    """For each output index: (low index, high index, low weight, high weight)."""
    k = np.arange(n_out)
    if not linear:
        src = ratio * k.astype(np.float32)
        if align_corners:
            src = src.astype(np.float64) + 0.5
        lo = np.minimum(src.astype(np.int64), n_in - 1)
        return lo, lo, np.ones(n_out, np.float32), np.zeros(n_out, np.float32)
    if align_mode == 0 and not align_corners:
        if float_src:
            # measured on Paddle 3.3.1 (float64 too): with an output size the half-pixel source is
            # computed in float, with a scale in double and then rounded
            src32 = np.float32(ratio) * (k + 0.5).astype(np.float32) - np.float32(0.5)
            lo = np.maximum(np.trunc(src32).astype(np.int64), 0)
            frac = np.maximum(src32, np.float32(0)) - lo.astype(np.float32)
        else:
            src64 = np.float64(ratio) * (k + 0.5) - 0.5
            lo = np.maximum(np.trunc(src64).astype(np.int64), 0)
            frac = np.maximum(src64, 0).astype(np.float32) - lo.astype(np.float32)
    else:
        src = ratio * k.astype(np.float32)
        lo = src.astype(np.int64)
        frac = src - lo.astype(np.float32)
    lo = np.minimum(lo, n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    return lo, hi, (np.float32(1) - frac).astype(np.float32), frac.astype(np.float32)


def _plan(x_shape, out_size, size_tensor, scale_tensor, data_layout, out_d, out_h, out_w, scale,
          align_corners, align_mode, linear):
    axes = _spatial_axes(len(x_shape), data_layout)
    in_sizes = [x_shape[a] for a in axes]
    outs, scales = _resolve(in_sizes, out_size, size_tensor, scale_tensor, out_d, out_h, out_w, scale)
    taps = [_taps(n, o, _ratio(n, o, align_corners, s), linear, align_corners, align_mode, s <= 0)
            for n, o, s in zip(in_sizes, outs, scales)]
    return axes, taps


# Paddle 3.3.1's CPU kernels by dtype (others raise its "kernel not registered" RuntimeError)
KERNEL_DTYPES = {
    "nearest_interp": ("int64", "float64", "float16", "float32", "int32", "uint8", "bfloat16"),
    "bilinear_interp": ("float64", "float16", "float32", "uint8", "bfloat16"),
    "linear_interp": ("float64", "float16", "float32", "uint8", "bfloat16"),
    "trilinear_interp": ("float64", "float16", "float32", "uint8", "bfloat16"),
    "bicubic_interp": ("float64", "float16", "float32", "bfloat16"),
}


def check_kernel_dtype(kernel, dtype):
    """Raise Paddle's RuntimeError when ``kernel`` has no CPU kernel for ``dtype``."""
    name = str(np.dtype(dtype))
    if name not in KERNEL_DTYPES[kernel]:
        raise RuntimeError(f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {name}) of kernel "
                           f"`{kernel}` is not registered. Selected wrong DataType `{name}`. Paddle support "
                           f"following DataTypes: {', '.join(KERNEL_DTYPES[kernel])}. Cast the input to float32 "
                           "first (e.g. x.astype('float32')).")


def corner_sum(x, axes, taps, corner_order):
    """Paddle's integer-input linear resampling: each output is the sum, in ``corner_order`` (tuples of
    0 = low / 1 = high tap per axis), of ``value * w_axis0 * w_axis1 ...`` in float32, truncated.
    Measured exact for channel-first layouts only: Paddle's channel-last kernels round differently (an
    output can differ by one), so those are refused rather than approximated."""
    if axes[0] != 2:
        raise NotImplementedError("interpolate: linear resampling of integer (uint8) input in a channel-last "
                                  "layout (NHWC/NDHWC) is not supported by dy2st (its rounding does not match "
                                  "Paddle's exactly); use data_format='NCHW'/'NCDHW' or cast to float32 first")
    acc = None
    for corner in corner_order:
        v = x
        for axis, c, (lo, hi, _w0, _w1) in zip(axes, corner, taps):
            v = v.take(hi if c else lo, axis=axis)
        t = v.astype(np.float32)
        for axis, c, (_lo, _hi, w0, w1) in zip(axes, corner, taps):
            t = t * _along(w1 if c else w0, axis, t.ndim, np.float32)
        acc = t if acc is None else acc + t
    return np.trunc(acc).astype(x.dtype)


# bilinear's CPU kernel adds (y0,x0), (y1,x0), (y0,x1), (y1,x1) -- measured on uint8 input
_BILINEAR_CORNERS = ((0, 0), (1, 0), (0, 1), (1, 1))


def _along(w, axis, ndim, dtype):
    return w.astype(dtype, copy=False).reshape((-1,) + (1,) * (ndim - 1 - axis))


def _interp_forward(linear):
    def kernel(x, out_size=None, size_tensor=None, scale_tensor=None, data_layout="NCHW", out_d=0, out_h=0,
               out_w=0, scale=(), interp_method="bilinear", align_corners=True, align_mode=1, **_):
        if linear and x.ndim != 4:
            raise ValueError(f"bilinear_interp_v2: X must be 4-D, got shape {list(x.shape)}")
        check_kernel_dtype("bilinear_interp" if linear else "nearest_interp", x.dtype)
        axes, taps = _plan(x.shape, out_size, size_tensor, scale_tensor, data_layout, out_d, out_h, out_w,
                           scale, align_corners, align_mode, linear)
        if linear and x.dtype.kind in "iu":
            # integer input: float32 weights, then truncation (casting the weights would zero them)
            return corner_sum(x, axes, taps, _BILINEAR_CORNERS)
        y = x
        for axis, (lo, hi, w0, w1) in zip(axes, taps):
            if linear:
                y = y.take(lo, axis=axis) * _along(w0, axis, y.ndim, x.dtype) + \
                    y.take(hi, axis=axis) * _along(w1, axis, y.ndim, x.dtype)
            else:
                y = y.take(lo, axis=axis)
        return y.astype(x.dtype, copy=False)
    return kernel


def _interp_backward(linear):
    def kernel(x, out_size, size_tensor, scale_tensor, dout, data_layout="NCHW", out_d=0, out_h=0, out_w=0,
               scale=(), interp_method="bilinear", align_corners=True, align_mode=1, **_):
        axes, taps = _plan(x.shape, out_size, size_tensor, scale_tensor, data_layout, out_d, out_h, out_w,
                           scale, align_corners, align_mode, linear)
        g = dout
        for axis, (lo, hi, w0, w1), n_in in zip(axes, taps, [x.shape[a] for a in axes]):
            A = np.zeros((len(lo), n_in), dtype=x.dtype)
            rows = np.arange(len(lo))
            np.add.at(A, (rows, lo), w0.astype(x.dtype))
            if linear:
                np.add.at(A, (rows, hi), w1.astype(x.dtype))
            g = np.moveaxis(np.matmul(np.moveaxis(g, axis, -1), A), -1, axis)
        return np.ascontiguousarray(g, dtype=x.dtype)
    return kernel


def _interp_meta(linear):
    def meta(x, out_size=None, size_tensor=None, scale_tensor=None, data_layout="NCHW", out_d=0, out_h=0,
             out_w=0, scale=(), **_):
        if linear and len(x.shape) != 4:
            raise ValueError(f"bilinear_interp_v2: X must be 4-D, got shape {list(x.shape)}")
        axes = _spatial_axes(len(x.shape), data_layout)
        nd = len(axes)
        in_sizes = [x.shape[a] for a in axes]
        if size_tensor or out_size is not None or scale_tensor is not None:
            outs = [-1] * nd
            if size_tensor and out_size is None:
                # Paddle keeps the sizes known at build time in the attrs next to the tensor list
                attr = [out_d, out_h, out_w][3 - nd:]
                outs = [int(a) if a > 0 else -1 for a in attr]
        else:
            scales = _scales(nd, None, scale)
            if scales[0] > 0:
                outs = [-1 if n < 0 else int(np.float32(n) * np.float32(s)) for n, s in zip(in_sizes, scales)]
            else:
                outs = [int(v) for v in (out_d, out_h, out_w)[3 - nd:]]
                if any(o <= 0 for o in outs):
                    raise ValueError(f"interpolate: output size {outs} is not positive; set out_h/out_w, "
                                     "a scale, OutSize or SizeTensor")
        shape = list(x.shape)
        for a, o in zip(axes, outs):
            shape[a] = o
        return Meta(tuple(shape), x.dtype)
    return meta


for _t, _linear in (("bilinear_interp_v2", True), ("nearest_interp_v2", False)):
    register(_t, _INTERP_INPUTS, ["Out"], _INTERP_ATTRS, kernel=_interp_forward(_linear),
             infer_meta=_interp_meta(_linear), differentiable=("X",))
    grad_op(_t, _INTERP_INPUTS + ["Out@GRAD"], ["X@GRAD"], _interp_backward(_linear))


# -- pad3d ----------------------------------------------------------------------------------------

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _pad3d_plan(shape, paddings_t, paddings, mode, data_format):
    p = [int(v) for v in (np.asarray(paddings_t).reshape(-1) if paddings_t is not None else paddings)]
    if len(p) != 6:
        raise ValueError(f"pad3d: paddings must have 6 values [left, right, top, bottom, front, back], got {p}")
    if any(v < 0 for v in p):
        raise ValueError(f"pad3d: paddings must be non-negative, got {p}")
    if mode not in _PAD_MODES:
        raise ValueError(f"pad3d: mode must be one of {list(_PAD_MODES)}, got {mode!r}")
    if len(shape) != 5:
        raise ValueError(f"pad3d: X must be 5-D, got shape {list(shape)}")
    if data_format == "NCDHW":
        d, h, w = 2, 3, 4
    elif data_format == "NDHWC":
        d, h, w = 1, 2, 3
    else:
        raise ValueError(f"pad3d: data_format must be 'NCDHW' or 'NDHWC', got {data_format!r}")
    return [(w, p[0], p[1]), (h, p[2], p[3]), (d, p[4], p[5])]


def _source_index(n, before, after, mode, axis_name):
    pos = np.arange(-before, n + after)
    if mode == "reflect":
        if before >= n or after >= n:
            raise ValueError(f"pad3d: in reflect mode the paddings of the {axis_name} dimension ({before}, {after}) "
                             f"must be smaller than its size {n}")
        pos = np.abs(pos)
        return np.where(pos >= n, 2 * (n - 1) - pos, pos)
    if n == 0 and (before or after):
        raise ValueError(f"pad3d: cannot pad an empty {axis_name} dimension in {mode} mode")
    if mode == "replicate":
        return np.clip(pos, 0, n - 1)
    return pos % n


_AXIS_NAMES = ("width", "height", "depth")


def _pad3d(x, paddings_t=None, paddings=(), mode="constant", value=0.0, data_format="NCDHW", **_):
    plan = _pad3d_plan(x.shape, paddings_t, paddings, mode, data_format)
    if mode == "constant":
        widths = [(0, 0)] * x.ndim
        for axis, b, a in plan:
            widths[axis] = (b, a)
        return np.pad(x, widths, mode="constant", constant_values=np.asarray(value).astype(x.dtype))
    y = x
    for (axis, b, a), name in zip(plan, _AXIS_NAMES):
        if b or a:
            y = y.take(_source_index(x.shape[axis], b, a, mode, name), axis=axis)
    return y


def _pad3d_grad(x, paddings_t, dout, paddings=(), mode="constant", value=0.0, data_format="NCDHW", **_):
    plan = _pad3d_plan(x.shape, paddings_t, paddings, mode, data_format)
    g = dout
    for (axis, b, a), name in zip(plan, _AXIS_NAMES):
        if not (b or a):
            continue
        n = x.shape[axis]
        gm = np.moveaxis(g, axis, 0)
        res = gm[b:b + n].copy()
        if mode != "constant":
            src = _source_index(n, b, a, mode, name)
            border = np.r_[0:b, b + n:b + n + a]
            np.add.at(res, src[border], gm[border])
        g = np.moveaxis(res, 0, axis)
    return np.ascontiguousarray(g, dtype=x.dtype)


def _pad3d_meta(x, paddings_t=None, paddings=(), mode="constant", value=0.0, data_format="NCDHW", **_):
    if len(x.shape) != 5:
        raise ValueError(f"pad3d: X must be 5-D, got shape {list(x.shape)}")
    shape = list(x.shape)
    if paddings_t is not None:
        d, h, w = (2, 3, 4) if data_format == "NCDHW" else (1, 2, 3)
        for a in (d, h, w):
            shape[a] = -1
        return Meta(tuple(shape), x.dtype)
    for axis, b, a in _pad3d_plan(x.shape, None, paddings, mode, data_format):
        if shape[axis] >= 0:
            shape[axis] += b + a
    return Meta(tuple(shape), x.dtype)


register("pad3d", ["X", "Paddings?"], ["Out"],
         {"paddings": ("INTS", []), "mode": ("STRING", "constant"), "value": ("FLOAT", 0.0),
          "data_format": ("STRING", "NCDHW")},
         kernel=_pad3d, infer_meta=_pad3d_meta, differentiable=("X",))
grad_op("pad3d", ["X", "Paddings?", "Out@GRAD"], ["X@GRAD"], _pad3d_grad)


# -- pad (constant, every dim) --------------------------------------------------------------------

def _pad_widths(ndim, paddings):
    p = [int(v) for v in paddings]
    if len(p) != 2 * ndim:
        raise ValueError(f"pad: paddings must have 2 values per dimension ({2 * ndim} for a {ndim}-D input), "
                         f"got {p}")
    if any(v < 0 for v in p):
        raise ValueError(f"pad: paddings must be non-negative, got {p}")
    return [(p[2 * i], p[2 * i + 1]) for i in range(ndim)]


def _pad(x, paddings=(), pad_value=0.0, **_):
    return np.pad(x, _pad_widths(x.ndim, paddings), mode="constant",
                  constant_values=np.asarray(pad_value).astype(x.dtype))


def _pad_grad(x, dout, paddings=(), **_):
    idx = tuple(slice(b, b + n) for (b, _a), n in zip(_pad_widths(x.ndim, paddings), x.shape))
    return np.ascontiguousarray(dout[idx])


def _pad_meta(x, paddings=(), **_):
    widths = _pad_widths(len(x.shape), paddings)
    return Meta(tuple(d if d < 0 else d + b + a for d, (b, a) in zip(x.shape, widths)), x.dtype)


register("pad", ["X"], ["Out"], {"paddings": ("INTS", []), "pad_value": ("FLOAT", 0.0)},
         kernel=_pad, infer_meta=_pad_meta)
grad_op("pad", ["X", "Out@GRAD"], ["X@GRAD"], _pad_grad)


# -- pixel_shuffle --------------------------------------------------------------------------------

def _shuffle(x, r, data_format, inverse=False):
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"pixel_shuffle: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if data_format == "NHWC":
        x = x.transpose(0, 3, 1, 2)
    N, C, H, W = x.shape
    if not inverse:
        if C % (r * r):
            raise ValueError(f"pixel_shuffle: channels {C} must be divisible by upscale_factor**2 = {r * r}")
        y = x.reshape(N, C // (r * r), r, r, H, W).transpose(0, 1, 4, 2, 5, 3).reshape(N, C // (r * r), H * r, W * r)
    else:
        y = x.reshape(N, C, H // r, r, W // r, r).transpose(0, 1, 3, 5, 2, 4).reshape(N, C * r * r, H // r, W // r)
    if data_format == "NHWC":
        y = y.transpose(0, 2, 3, 1)
    return np.ascontiguousarray(y)


def _pixel_shuffle(x, upscale_factor=1, data_format="NCHW", **_):
    return _shuffle(x, int(upscale_factor), data_format)


def _pixel_shuffle_grad(dout, upscale_factor=1, data_format="NCHW", **_):
    return _shuffle(dout, int(upscale_factor), data_format, inverse=True)


def _pixel_shuffle_meta(x, upscale_factor=1, data_format="NCHW", **_):
    if len(x.shape) != 4:
        raise ValueError(f"pixel_shuffle: X must be 4-D, got shape {list(x.shape)}")
    r = int(upscale_factor)
    if data_format == "NHWC":
        N, H, W, C = x.shape
        return Meta((N, H if H < 0 else H * r, W if W < 0 else W * r, C if C < 0 else C // (r * r)), x.dtype)
    N, C, H, W = x.shape
    return Meta((N, C if C < 0 else C // (r * r), H if H < 0 else H * r, W if W < 0 else W * r), x.dtype)


register("pixel_shuffle", ["X"], ["Out"], {"upscale_factor": ("INT", 1), "data_format": ("STRING", "NCHW")},
         kernel=_pixel_shuffle, infer_meta=_pixel_shuffle_meta)
grad_op("pixel_shuffle", ["Out@GRAD"], ["X@GRAD"], _pixel_shuffle_grad,
        infer_meta=lambda d, upscale_factor=1, data_format="NCHW", **_: _unshuffle_meta(d, upscale_factor, data_format))


def _unshuffle_meta(d, upscale_factor, data_format):
    r = int(upscale_factor)
    if data_format == "NHWC":
        N, H, W, C = d.shape
        return Meta((N, H if H < 0 else H // r, W if W < 0 else W // r, C if C < 0 else C * r * r), d.dtype)
    N, C, H, W = d.shape
    return Meta((N, C if C < 0 else C * r * r, H if H < 0 else H // r, W if W < 0 else W // r), d.dtype)
