"""Convolution functionals (``paddle.nn.functional.conv1d/conv2d/conv1d_transpose/conv2d_transpose``).

They normalise Paddle's argument forms (int, list, pairs, 'SAME'/'VALID' paddings) into the
attributes of the conv2d / depthwise_conv2d / conv2d_transpose ops; the 1-D forms unsqueeze to
2-D and squeeze back, as Paddle does.
"""
from __future__ import annotations

import numpy as np

from ...dispatch import run_op
from ...tensor import Tensor

__all__ = ["conv1d", "conv2d", "conv1d_transpose", "conv2d_transpose"]


def _ints(value, n, name, fn):
    """``value`` (int or sequence of ``n`` ints) as a list of ``n`` ints."""
    if isinstance(value, Tensor):
        value = value.numpy().reshape(-1).tolist()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)] * n
    if isinstance(value, (list, tuple)) and len(value) == n and \
            all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        return [int(v) for v in value]
    raise ValueError(f"{fn}: {name} must be an int or a list of {n} ints, got {value!r}")


def _is_seq(v):
    return isinstance(v, (list, tuple))


def update_padding(padding, nd, channel_last, fn):
    """Paddle's padding forms -> (paddings attr, padding_algorithm).

    Accepts an int, ``nd`` ints, ``2*nd`` ints [before, after, ...], ``nd + 2`` pairs including
    zero pairs for the batch and channel dims, or the strings 'SAME' / 'VALID'. Symmetric
    explicit paddings collapse to ``nd`` values, as Paddle records them.
    """
    if isinstance(padding, str):
        algo = padding.upper()
        if algo not in ("SAME", "VALID"):
            raise ValueError(f"{fn}: padding must be 'SAME', 'VALID', an int or a list, got {padding!r}")
        return [0] * nd, algo
    if isinstance(padding, Tensor):
        padding = padding.numpy().reshape(-1).tolist()
    if _is_seq(padding):
        if len(padding) == nd + 2 and all(_is_seq(p) for p in padding):
            pairs = [list(p) for p in padding]
            if any(len(p) != 2 for p in pairs):
                raise ValueError(f"{fn}: padding pairs must each have 2 values, got {padding!r}")
            outer = (pairs[0], pairs[-1]) if channel_last else (pairs[0], pairs[1])
            if any(v != 0 for p in outer for v in p):
                raise ValueError(f"{fn}: padding {padding!r} pads the batch or channel dimension; "
                                 "only spatial dimensions may be padded")
            spatial = pairs[1:-1] if channel_last else pairs[2:]
            flat = [int(v) for p in spatial for v in p]
        elif len(padding) == 2 * nd and not any(_is_seq(p) for p in padding):
            flat = [int(v) for v in padding]
        elif len(padding) == nd and not any(_is_seq(p) for p in padding):
            flat = None
            pads = [int(v) for v in padding]
        else:
            raise ValueError(f"{fn}: padding must be an int, {nd} ints, {2 * nd} ints or {nd + 2} pairs, "
                             f"got {padding!r}")
        if flat is not None:
            pads = flat[0::2] if flat[0::2] == flat[1::2] else flat
    else:
        pads = _ints(padding, nd, "padding", fn)
    if any(p < 0 for p in pads):
        raise ValueError(f"{fn}: padding must be non-negative, got {pads}")
    return pads, "EXPLICIT"


def _known(d):
    # a dim is known when it is a non-negative int: -1/None are unknown, and so is a dim that is itself a
    # program value (x.shape in a function to_static converted, where unknown dims become shape ops)
    return isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0


def _add_bias(out, bias, channel_last):
    if bias is None:
        return out
    return run_op("elementwise_add", out, bias, axis=-1 if channel_last else 1)


def _check_4d(x, fn, what="x"):
    if len(x.shape) != 4:
        raise ValueError(f"{fn}: {what} must be a 4-D tensor, got shape {list(x.shape)}")


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW", name=None):
    """2-D convolution of ``x`` [N, C, H, W] (or NHWC) with ``weight`` [M, C/groups, kh, kw]."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"conv2d: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    _check_4d(x, "conv2d")
    _check_4d(weight, "conv2d", "weight")
    channel_last = data_format == "NHWC"
    C = x.shape[3 if channel_last else 1]
    M = weight.shape[0]
    if not isinstance(groups, (int, np.integer)) or groups <= 0:
        raise ValueError(f"conv2d: groups must be a positive int, got {groups!r}")
    if _known(C) and C % groups:
        raise ValueError(f"conv2d: the input channels ({C}, x shape {list(x.shape)}) must be divisible by "
                         f"groups ({groups})")
    if _known(M) and M % groups:
        raise ValueError(f"conv2d: the number of filters ({M}, weight shape {list(weight.shape)}) must be "
                         f"divisible by groups ({groups})")
    if _known(C) and _known(weight.shape[1]) and C != weight.shape[1] * groups:
        raise ValueError(f"conv2d: x has {C} channels but weight shape {list(weight.shape)} with groups={groups} "
                         f"expects {weight.shape[1] * groups}")
    pads, algo = update_padding(padding, 2, channel_last, "conv2d")
    op = "depthwise_conv2d" if (_known(C) and C == groups and C != 1 and _known(M) and M % C == 0) else "conv2d"
    out = run_op(op, x, weight, strides=_ints(stride, 2, "stride", "conv2d"), paddings=pads,
                 padding_algorithm=algo, dilations=_ints(dilation, 2, "dilation", "conv2d"), groups=int(groups),
                 data_format=data_format)
    return _add_bias(out, bias, channel_last)


def _output_size(output_size, n, fn):
    if output_size is None:
        return []
    if isinstance(output_size, Tensor):
        output_size = output_size.numpy().reshape(-1).tolist()
    if _is_seq(output_size):
        output_size = [int(v.item()) if isinstance(v, Tensor) else v for v in output_size]
        if len(output_size) == 1:
            output_size = output_size * n
    return _ints(output_size, n, "output_size", fn)


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1, groups=1,
                     output_size=None, data_format="NCHW", name=None):
    """2-D transposed convolution; ``weight`` is [C_in, C_out/groups, kh, kw]."""
    fn = "conv2d_transpose"
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{fn}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    _check_4d(x, fn)
    _check_4d(weight, fn, "weight")
    channel_last = data_format == "NHWC"
    C = x.shape[3 if channel_last else 1]
    if not isinstance(groups, (int, np.integer)) or groups <= 0:
        raise ValueError(f"{fn}: groups must be a positive int, got {groups!r}")
    if _known(C) and C % groups:
        raise ValueError(f"{fn}: the input channels ({C}, x shape {list(x.shape)}) must be divisible by "
                         f"groups ({groups})")
    pads, algo = update_padding(padding, 2, channel_last, fn)
    if output_size is not None and output_padding != 0:
        raise ValueError(f"{fn}: output_padding and output_size are mutually exclusive; give only one")
    osize = _output_size(output_size, 2, fn)
    opad = [] if output_padding == 0 else _ints(output_padding, 2, "output_padding", fn)
    op = "depthwise_conv2d_transpose" if (C == groups and C != 1 and weight.shape[1] == 1) else "conv2d_transpose"
    out = run_op(op, x, weight, None, strides=_ints(stride, 2, "stride", fn), paddings=pads,
                 output_padding=opad, output_size=osize, padding_algorithm=algo, groups=int(groups),
                 dilations=_ints(dilation, 2, "dilation", fn), data_format=data_format)
    return _add_bias(out, bias, channel_last)


# -- 1-D through 2-D ------------------------------------------------------------------------------

def _pad_1d(padding, channel_last, fn):
    """1-D paddings as the equivalent 2-D (H padding 0) attribute."""
    pads, algo = update_padding(padding, 1, channel_last, fn)
    if algo != "EXPLICIT":
        return [0, 0], algo
    return ([0] + pads if len(pads) == 1 else [0, 0] + pads), algo


def _conv1d_common(x, weight, fn, data_format):
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"{fn}: data_format must be 'NCL' or 'NLC', got {data_format!r}")
    if len(x.shape) != 3:
        raise ValueError(f"{fn}: x must be a 3-D tensor, got shape {list(x.shape)}")
    if len(weight.shape) != 3:
        raise ValueError(f"{fn}: weight must be a 3-D tensor, got shape {list(weight.shape)}")
    channel_last = data_format == "NLC"
    # Paddle inserts the unit H dim before L: [N, C, 1, L] or [N, 1, L, C]
    x2 = run_op("unsqueeze2", x, None, None, axes=[1 if channel_last else 2])
    w2 = run_op("unsqueeze2", weight, None, None, axes=[2])
    return x2, w2, channel_last


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL", name=None):
    """1-D convolution of ``x`` [N, C, L] (or NLC) with ``weight`` [M, C/groups, k]."""
    fn = "conv1d"
    x2, w2, channel_last = _conv1d_common(x, weight, fn, data_format)
    pads, algo = _pad_1d(padding, channel_last, fn)
    C = x.shape[2 if channel_last else 1]
    if not isinstance(groups, (int, np.integer)) or groups <= 0:
        raise ValueError(f"{fn}: groups must be a positive int, got {groups!r}")
    if _known(C) and C % groups:
        raise ValueError(f"{fn}: the input channels ({C}) must be divisible by groups ({groups})")
    if _known(C) and _known(weight.shape[1]) and C != weight.shape[1] * groups:
        raise ValueError(f"{fn}: x has {C} channels but weight shape {list(weight.shape)} with groups={groups} "
                         f"expects {weight.shape[1] * groups}")
    out = run_op("conv2d", x2, w2, strides=[1] + _ints(stride, 1, "stride", fn), paddings=pads,
                 padding_algorithm=algo, dilations=[1] + _ints(dilation, 1, "dilation", fn), groups=int(groups),
                 data_format="NHWC" if channel_last else "NCHW")
    out = run_op("squeeze2", out, axes=[1 if channel_last else 2])
    return _add_bias(out, bias, channel_last)


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format="NCL", name=None):
    """1-D transposed convolution; ``weight`` is [C_in, C_out/groups, k]."""
    fn = "conv1d_transpose"
    x2, w2, channel_last = _conv1d_common(x, weight, fn, data_format)
    pads, algo = _pad_1d(padding, channel_last, fn)
    if not isinstance(groups, (int, np.integer)) or groups <= 0:
        raise ValueError(f"{fn}: groups must be a positive int, got {groups!r}")
    if output_size is not None and output_padding != 0:
        raise ValueError(f"{fn}: output_padding and output_size are mutually exclusive; give only one")
    osize = _output_size(output_size, 1, fn)
    opad = [] if output_padding == 0 else [0] + _ints(output_padding, 1, "output_padding", fn)
    out = run_op("conv2d_transpose", x2, w2, None, strides=[1] + _ints(stride, 1, "stride", fn), paddings=pads,
                 output_padding=opad, output_size=([1] + osize) if osize else [], padding_algorithm=algo,
                 groups=int(groups), dilations=[1] + _ints(dilation, 1, "dilation", fn),
                 data_format="NHWC" if channel_last else "NCHW")
    out = run_op("squeeze2", out, axes=[1 if channel_last else 2])
    return _add_bias(out, bias, channel_last)
