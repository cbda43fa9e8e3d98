"""3-D convolution and pooling functionals (``paddle.nn.functional``): conv3d, conv3d_transpose,
avg_pool3d, max_pool3d, adaptive_avg_pool3d, adaptive_max_pool3d.

They map onto Paddle's conv3d / conv3d_transpose / pool3d / max_pool3d_with_index ops with the
same argument normalisation as the 2-D forms (int, 3 ints, 6 ints, 5 pairs, 'SAME' / 'VALID').
"""
from __future__ import annotations

import numpy as np

from ...dispatch import run_op
from ...ops.conv import same_pads
from .conv import _add_bias, _ints, _known, _output_size, update_padding
from .pooling import _adaptive_size, _kernel_stride, _pool_padding

__all__ = ["conv3d", "conv3d_transpose", "avg_pool3d", "max_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d"]


def _format(data_format, fn):
    if data_format not in ("NCDHW", "NDHWC"):
        raise ValueError(f"{fn}: data_format must be 'NCDHW' or 'NDHWC', got {data_format!r}")
    return data_format == "NDHWC"


def _rank5(t, fn, what="x"):
    if len(t.shape) != 5:
        raise ValueError(f"{fn}: {what} must be a 5-D tensor, got shape {list(t.shape)}")


def _groups(groups, fn):
    if not isinstance(groups, (int, np.integer)) or isinstance(groups, bool) or groups <= 0:
        raise ValueError(f"{fn}: groups must be a positive int, got {groups!r}")
    return int(groups)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCDHW", name=None):
    """3-D convolution of ``x`` [N, C, D, H, W] (or NDHWC) with ``weight`` [M, C/groups, kd, kh, kw]."""
    fn = "conv3d"
    channel_last = _format(data_format, fn)
    _rank5(x, fn)
    _rank5(weight, fn, "weight")
    groups = _groups(groups, fn)
    C = x.shape[-1 if channel_last else 1]
    M = weight.shape[0]
    if _known(C) and C % groups:
        raise ValueError(f"{fn}: the input channels ({C}, x shape {list(x.shape)}) must be divisible by "
                         f"groups ({groups})")
    if _known(M) and M % groups:
        raise ValueError(f"{fn}: the number of filters ({M}) must be divisible by groups ({groups})")
    if _known(C) and _known(weight.shape[1]) and C != weight.shape[1] * groups:
        raise ValueError(f"{fn}: x has {C} channels but weight shape {list(weight.shape)} with groups={groups} "
                         f"expects {weight.shape[1] * groups}")
    pads, algo = update_padding(padding, 3, channel_last, fn)
    out = run_op("conv3d", x, weight, strides=_ints(stride, 3, "stride", fn), paddings=pads,
                 padding_algorithm=algo, groups=groups, dilations=_ints(dilation, 3, "dilation", fn),
                 data_format=data_format)
    return _add_bias(out, bias, channel_last)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format="NCDHW", name=None):
    """3-D transposed convolution; ``weight`` is [C_in, C_out/groups, kd, kh, kw]."""
    fn = "conv3d_transpose"
    channel_last = _format(data_format, fn)
    _rank5(x, fn)
    _rank5(weight, fn, "weight")
    groups = _groups(groups, fn)
    C = x.shape[-1 if channel_last else 1]
    if _known(C) and C % groups:
        raise ValueError(f"{fn}: the input channels ({C}) must be divisible by groups ({groups})")
    pads, algo = update_padding(padding, 3, channel_last, fn)
    if output_size is not None and output_padding != 0:
        raise ValueError(f"{fn}: output_padding and output_size are mutually exclusive; give only one")
    osize = _output_size(output_size, 3, fn)
    opad = [] if output_padding == 0 else _ints(output_padding, 3, "output_padding", fn)
    out = run_op("conv3d_transpose", x, weight, strides=_ints(stride, 3, "stride", fn), paddings=pads,
                 output_padding=opad, output_size=osize, padding_algorithm=algo, groups=groups,
                 dilations=_ints(dilation, 3, "dilation", fn), data_format="NHWC" if channel_last else "NCHW")
    return _add_bias(out, bias, channel_last)


def _pool3d(x, fn, kernel_size, stride, padding, ceil_mode, data_format):
    channel_last = _format(data_format, fn)
    _rank5(x, fn)
    k, s = _kernel_stride(kernel_size, stride, 3, fn)
    pads, algo = _pool_padding(padding, 3, channel_last, ceil_mode, fn)
    return channel_last, k, s, pads, algo


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCDHW", name=None):
    """3-D average pooling; ``exclusive`` leaves padding out of the divisor."""
    fn = "avg_pool3d"
    _, k, s, pads, algo = _pool3d(x, fn, kernel_size, stride, padding, ceil_mode, data_format)
    out = run_op("pool3d", x, ksize=k, strides=s, paddings=pads, ceil_mode=bool(ceil_mode), exclusive=bool(exclusive),
                 data_format=data_format, pooling_type="avg", global_pooling=False, adaptive=False,
                 padding_algorithm=algo)
    if divisor_override is None:
        return out
    if not isinstance(divisor_override, (int, float, np.number)) or isinstance(divisor_override, bool) \
            or divisor_override == 0:
        raise ValueError(f"{fn}: divisor_override must be a non-zero number, got {divisor_override!r}")
    # as Paddle: the pooled result rescaled by (kd * kh * kw) / divisor_override
    return run_op("scale", out, scale=float(k[0] * k[1] * k[2]) / float(divisor_override))


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCDHW",
               name=None):
    """3-D max pooling; with ``return_mask`` also the flat (d*H*W + h*W + w) index of each maximum."""
    fn = "max_pool3d"
    channel_last, k, s, pads, algo = _pool3d(x, fn, kernel_size, stride, padding, ceil_mode, data_format)
    if return_mask:
        if channel_last:
            raise ValueError(f"{fn}: return_mask=True needs data_format='NCDHW'")
        if algo == "SAME":
            if any(d < 0 for d in x.shape[2:]):
                raise ValueError(f"{fn}: padding='SAME' with return_mask=True needs known spatial dims, "
                                 f"got x shape {list(x.shape)}")
            pads = [p for n, kk, ss in zip(x.shape[2:], k, s) for p in same_pads(n, kk, ss)]
        return run_op("max_pool3d_with_index", x, ksize=k, strides=s, paddings=pads, global_pooling=False,
                      adaptive=False, ceil_mode=bool(ceil_mode))
    return run_op("pool3d", x, ksize=k, strides=s, paddings=pads, ceil_mode=bool(ceil_mode), exclusive=True,
                  data_format=data_format, pooling_type="max", global_pooling=False, adaptive=False,
                  padding_algorithm=algo)


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    """Average over Paddle's adaptive bins [floor(i*n/out), ceil((i+1)*n/out)) along D, H and W."""
    fn = "adaptive_avg_pool3d"
    channel_last = _format(data_format, fn)
    _rank5(x, fn)
    size = _adaptive_size(output_size, list(x.shape[1:4] if channel_last else x.shape[2:]), fn)
    return run_op("pool3d", x, ksize=size, strides=[1, 1, 1], paddings=[0, 0, 0], ceil_mode=False, exclusive=True,
                  data_format=data_format, pooling_type="avg", global_pooling=False, adaptive=True,
                  padding_algorithm="EXPLICIT")


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    """Max over the adaptive bins; with ``return_mask`` also the flat index of each maximum."""
    fn = "adaptive_max_pool3d"
    _rank5(x, fn)
    size = _adaptive_size(output_size, list(x.shape[2:]), fn)
    out, mask = run_op("max_pool3d_with_index", x, ksize=size, strides=[1, 1, 1], paddings=[0, 0, 0],
                       global_pooling=False, adaptive=True, ceil_mode=False)
    return (out, mask) if return_mask else out
