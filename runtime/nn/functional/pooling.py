"""Pooling functionals: max/avg/adaptive pooling in 1-D and 2-D (``paddle.nn.functional``).

2-D pooling maps onto the pool2d op (max_pool2d_with_index when a mask is asked for, and
for adaptive max pooling, as Paddle does); 1-D pooling unsqueezes to [N, C, 1, L].
"""
from __future__ import annotations

import numpy as np

from ...dispatch import run_op
from ...ops.conv import same_pads
from ...tensor import Tensor
from .conv import _ints, update_padding
from ...api.param_alias import param_alias

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d"]


def _check_format(data_format, fn):
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{fn}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    return data_format == "NHWC"


def _check_rank(x, n, fn):
    if len(x.shape) != n:
        raise ValueError(f"{fn}: x must be a {n}-D tensor, got shape {list(x.shape)}")


def _pool_padding(padding, nd, channel_last, ceil_mode, fn):
    pads, algo = update_padding(padding, nd, channel_last, fn)
    if algo == "VALID" and ceil_mode:
        raise ValueError(f"{fn}: padding='VALID' cannot be combined with ceil_mode=True")
    return pads, algo


def _kernel_stride(kernel_size, stride, n, fn):
    k = _ints(kernel_size, n, "kernel_size", fn)
    s = k if stride is None else _ints(stride, n, "stride", fn)
    if any(v <= 0 for v in k + s):
        raise ValueError(f"{fn}: kernel_size and stride must be positive, got {k} and {s}")
    return k, s


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW",
               name=None):
    """2-D max pooling; with ``return_mask`` also the flat (h * W + w) index of each maximum."""
    fn = "max_pool2d"
    channel_last = _check_format(data_format, fn)
    _check_rank(x, 4, fn)
    k, s = _kernel_stride(kernel_size, stride, 2, fn)
    pads, algo = _pool_padding(padding, 2, channel_last, ceil_mode, fn)
    if return_mask:
        if channel_last:
            raise ValueError(f"{fn}: return_mask=True needs data_format='NCHW'")
        if algo == "SAME":
            H, W = x.shape[2], x.shape[3]
            if H < 0 or W < 0:
                raise ValueError(f"{fn}: padding='SAME' with return_mask=True needs known spatial dims, "
                                 f"got x shape {list(x.shape)}")
            pads = list(same_pads(H, k[0], s[0]) + same_pads(W, k[1], s[1]))
        return run_op("max_pool2d_with_index", x, ksize=k, strides=s, paddings=pads, global_pooling=False,
                      adaptive=False, ceil_mode=bool(ceil_mode))
    return run_op("pool2d", x, ksize=k, strides=s, paddings=pads, ceil_mode=bool(ceil_mode), exclusive=True,
                  data_format=data_format, pooling_type="max", global_pooling=False, adaptive=False,
                  padding_algorithm=algo)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCHW", name=None):
    """2-D average pooling; ``exclusive`` leaves padding out of the divisor."""
    fn = "avg_pool2d"
    channel_last = _check_format(data_format, fn)
    _check_rank(x, 4, fn)
    k, s = _kernel_stride(kernel_size, stride, 2, fn)
    pads, algo = _pool_padding(padding, 2, channel_last, ceil_mode, fn)
    out = run_op("pool2d", x, ksize=k, strides=s, paddings=pads, ceil_mode=bool(ceil_mode),
                 exclusive=bool(exclusive), data_format=data_format, pooling_type="avg", global_pooling=False,
                 adaptive=False, padding_algorithm=algo)
    if divisor_override is None:
        return out
    if not isinstance(divisor_override, (int, float, np.number)) or isinstance(divisor_override, bool) \
            or divisor_override == 0:
        raise ValueError(f"{fn}: divisor_override must be a non-zero number, got {divisor_override!r}")
    # Paddle rescales the pooled result: out * (kh * kw) / divisor_override
    return run_op("scale", out, scale=float(k[0] * k[1]) / float(divisor_override))


def _adaptive_size(output_size, in_sizes, fn):
    n = len(in_sizes)
    if isinstance(output_size, Tensor):
        output_size = output_size.numpy().reshape(-1).tolist()
    if isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        sizes = [int(output_size)] * n
    elif isinstance(output_size, (list, tuple)) and len(output_size) == n:
        sizes = []
        for v, d in zip(output_size, in_sizes):
            if v is None:
                if d < 0:
                    raise ValueError(f"{fn}: output_size None keeps the input size, which is unknown here")
                v = d
            if isinstance(v, Tensor):
                v = v.item()
            sizes.append(int(v))
    else:
        raise ValueError(f"{fn}: output_size must be an int or a list of {n} ints (None keeps the input size), "
                         f"got {output_size!r}")
    if any(v <= 0 for v in sizes):
        raise ValueError(f"{fn}: output_size must be positive, got {sizes}")
    return sizes


@param_alias(x="input")
def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """Average over Paddle's adaptive bins [floor(i*H/out), ceil((i+1)*H/out))."""
    fn = "adaptive_avg_pool2d"
    channel_last = _check_format(data_format, fn)
    _check_rank(x, 4, fn)
    in_hw = x.shape[1:3] if channel_last else x.shape[2:4]
    size = _adaptive_size(output_size, list(in_hw), fn)
    return run_op("pool2d", x, ksize=size, strides=[1, 1], paddings=[0, 0], ceil_mode=False, exclusive=True,
                  data_format=data_format, pooling_type="avg", global_pooling=False, adaptive=True,
                  padding_algorithm="EXPLICIT")


@param_alias(x="input", return_mask="return_indices")
def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """Max over the adaptive bins; with ``return_mask`` also the flat index of each maximum."""
    fn = "adaptive_max_pool2d"
    _check_rank(x, 4, fn)
    size = _adaptive_size(output_size, list(x.shape[2:4]), fn)
    out, mask = run_op("max_pool2d_with_index", x, ksize=size, strides=[1, 1], paddings=[0, 0],
                       global_pooling=False, adaptive=True, ceil_mode=False)
    return (out, mask) if return_mask else out


# -- 1-D through 2-D ------------------------------------------------------------------------------

def _to_2d(x, fn):
    _check_rank(x, 3, fn)
    return run_op("unsqueeze2", x, None, None, axes=[2])


def _from_2d(t):
    return run_op("squeeze2", t, axes=[2])


def _pad_1d(padding, ceil_mode, fn):
    pads, algo = _pool_padding(padding, 1, False, ceil_mode, fn)
    if algo != "EXPLICIT":
        return [0, 0], algo
    return ([0] + pads if len(pads) == 1 else [0, 0] + pads), algo


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
    """1-D max pooling over [N, C, L]."""
    fn = "max_pool1d"
    x2 = _to_2d(x, fn)
    k, s = _kernel_stride(kernel_size, stride, 1, fn)
    pads, algo = _pad_1d(padding, ceil_mode, fn)
    if return_mask:
        if algo == "SAME":
            L = x.shape[2]
            if L < 0:
                raise ValueError(f"{fn}: padding='SAME' with return_mask=True needs a known length")
            pads = [0, 0] + list(same_pads(L, k[0], s[0]))
        out, mask = run_op("max_pool2d_with_index", x2, ksize=[1] + k, strides=[1] + s, paddings=pads,
                           global_pooling=False, adaptive=False, ceil_mode=bool(ceil_mode))
        return _from_2d(out), _from_2d(mask)
    out = run_op("pool2d", x2, ksize=[1] + k, strides=[1] + s, paddings=pads, ceil_mode=bool(ceil_mode),
                 exclusive=True, data_format="NCHW", pooling_type="max", global_pooling=False, adaptive=False,
                 padding_algorithm=algo)
    return _from_2d(out)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
    """1-D average pooling over [N, C, L]."""
    fn = "avg_pool1d"
    x2 = _to_2d(x, fn)
    k, s = _kernel_stride(kernel_size, stride, 1, fn)
    pads, algo = _pad_1d(padding, ceil_mode, fn)
    out = run_op("pool2d", x2, ksize=[1] + k, strides=[1] + s, paddings=pads, ceil_mode=bool(ceil_mode),
                 exclusive=bool(exclusive), data_format="NCHW", pooling_type="avg", global_pooling=False,
                 adaptive=False, padding_algorithm=algo)
    return _from_2d(out)


@param_alias(x="input")
def adaptive_avg_pool1d(x, output_size, name=None):
    """1-D adaptive average pooling over [N, C, L]."""
    fn = "adaptive_avg_pool1d"
    x2 = _to_2d(x, fn)
    size = _adaptive_size(output_size, [x.shape[2]], fn)
    out = run_op("pool2d", x2, ksize=[1] + size, strides=[1, 1], paddings=[0, 0], ceil_mode=False, exclusive=True,
                 data_format="NCHW", pooling_type="avg", global_pooling=False, adaptive=True,
                 padding_algorithm="EXPLICIT")
    return _from_2d(out)


@param_alias(x="input", return_mask="return_indices")
def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    """1-D adaptive max pooling over [N, C, L]."""
    fn = "adaptive_max_pool1d"
    x2 = _to_2d(x, fn)
    size = _adaptive_size(output_size, [x.shape[2]], fn)
    out, mask = run_op("max_pool2d_with_index", x2, ksize=[1] + size, strides=[1, 1], paddings=[0, 0],
                       global_pooling=False, adaptive=True, ceil_mode=False)
    out = _from_2d(out)
    return (out, _from_2d(mask)) if return_mask else out
