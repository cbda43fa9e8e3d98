"""Channel rearrangements: pixel_unshuffle ([N, C, H, W] -> [N, C*r*r, H/r, W/r]) and channel_shuffle.

pixel_unshuffle is pixel_shuffle's inverse (out channel c*r*r + i*r + j holds the pixels at
row offset i, column offset j of channel c), so each is the other's gradient. channel_shuffle
splits the channels into ``groups`` and interleaves them (channel g*(C/g) + k goes to k*groups + g).
"""
from __future__ import annotations

import numpy as np

from . import interp as _interp
from .registry import Meta, grad_op, register


def _check(op, shape, data_format):
    if len(shape) != 4:
        raise ValueError(f"{op}: X must be 4-D, got shape {list(shape)}")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{op}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    return (3, 1, 2) if data_format == "NHWC" else (1, 2, 3)


# -- pixel_unshuffle ------------------------------------------------------------------------------

def _unshuffle_factor(op, shape, downscale_factor, data_format):
    c, h, w = _check(op, shape, data_format)
    r = int(downscale_factor)
    if r <= 0:
        raise ValueError(f"{op}: downscale_factor must be positive, got {r}")
    for axis, name in ((h, "height"), (w, "width")):
        if shape[axis] >= 0 and shape[axis] % r:
            raise ValueError(f"{op}: the {name} {shape[axis]} must be divisible by downscale_factor {r}")
    return r, (c, h, w)


def _pixel_unshuffle(x, downscale_factor=1, data_format="NCHW"):
    r, _ = _unshuffle_factor("pixel_unshuffle", x.shape, downscale_factor, data_format)
    return _interp._shuffle(x, r, data_format, inverse=True)


def _pixel_unshuffle_grad(dout, downscale_factor=1, data_format="NCHW"):
    return _interp._shuffle(dout, int(downscale_factor), data_format)


def _pixel_unshuffle_meta(x, downscale_factor=1, data_format="NCHW", **_):
    r, (c, h, w) = _unshuffle_factor("pixel_unshuffle", x.shape, downscale_factor, data_format)
    shape = list(x.shape)
    shape[c] = -1 if shape[c] < 0 else shape[c] * r * r
    shape[h] = -1 if shape[h] < 0 else shape[h] // r
    shape[w] = -1 if shape[w] < 0 else shape[w] // r
    return Meta(tuple(shape), x.dtype)


def _pixel_unshuffle_grad_meta(dout, downscale_factor=1, data_format="NCHW", **_):
    c, h, w = _check("pixel_unshuffle_grad", dout.shape, data_format)
    r = int(downscale_factor)
    shape = list(dout.shape)
    shape[c] = -1 if shape[c] < 0 else shape[c] // (r * r)
    shape[h] = -1 if shape[h] < 0 else shape[h] * r
    shape[w] = -1 if shape[w] < 0 else shape[w] * r
    return Meta(tuple(shape), dout.dtype)


register("pixel_unshuffle", ["X"], ["Out"], {"downscale_factor": ("INT", 1), "data_format": ("STRING", "NCHW")},
         kernel=_pixel_unshuffle, infer_meta=_pixel_unshuffle_meta)
grad_op("pixel_unshuffle", ["Out@GRAD"], ["X@GRAD"], _pixel_unshuffle_grad, infer_meta=_pixel_unshuffle_grad_meta)


# -- channel_shuffle ------------------------------------------------------------------------------

def _groups(op, shape, groups, data_format):
    c, _h, _w = _check(op, shape, data_format)
    g = int(groups)
    if g <= 0:
        raise ValueError(f"{op}: groups must be positive, got {g}")
    if shape[c] >= 0 and shape[c] % g:
        raise ValueError(f"{op}: the channel count {shape[c]} must be divisible by groups {g}")
    return g, c


def _interleave(x, first, second, axis):
    """Channels viewed as [first, second] -> transposed to [second, first]."""
    y = np.moveaxis(x, axis, -1)
    lead = y.shape[:-1]
    y = y.reshape(lead + (first, second)).swapaxes(-1, -2).reshape(lead + (first * second,))
    return np.ascontiguousarray(np.moveaxis(y, -1, axis))


def _channel_shuffle(x, groups=1, data_format="NCHW"):
    g, c = _groups("channel_shuffle", x.shape, groups, data_format)
    return _interleave(x, g, x.shape[c] // g, c)


def _channel_shuffle_grad(dout, groups=1, data_format="NCHW"):
    g, c = _groups("channel_shuffle_grad", dout.shape, groups, data_format)
    return _interleave(dout, dout.shape[c] // g, g, c)


def _channel_shuffle_meta(x, groups=1, data_format="NCHW", **_):
    _groups("channel_shuffle", x.shape, groups, data_format)
    return Meta(tuple(x.shape), x.dtype)


register("channel_shuffle", ["X"], ["Out"], {"groups": ("INT", 1), "data_format": ("STRING", "NCHW")},
         kernel=_channel_shuffle, infer_meta=_channel_shuffle_meta)
grad_op("channel_shuffle", ["Out@GRAD"], ["X@GRAD"], _channel_shuffle_grad,
        infer_meta=lambda dout, **_: Meta(tuple(dout.shape), dout.dtype))
