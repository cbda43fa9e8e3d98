"""Power-average pooling functionals: lp_pool1d and lp_pool2d (``paddle.nn.functional``), on Paddle's
lp_pool2d op (1-D unsqueezed to [N, C, 1, L] or [N, 1, L, C], as Paddle does)."""
from __future__ import annotations

from ...dispatch import run_op
from .pooling import _kernel_stride, _pool_padding

__all__ = ["lp_pool1d", "lp_pool2d"]


def _norm(norm_type, fn):
    if not isinstance(norm_type, (int, float)) or isinstance(norm_type, bool):
        raise TypeError(f"{fn}: norm_type must be a number, got {norm_type!r}")
    if norm_type == 0:
        raise ValueError(f"{fn}: norm_type cannot be 0")
    return float(norm_type)


def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCHW", name=None):
    """``(sum over each window of x**p) ** (1/p)``; p = inf gives max pooling."""
    fn = "lp_pool2d"
    if len(x.shape) != 4:
        raise ValueError(f"{fn}: x must be a 4-D tensor, got shape {list(x.shape)}")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{fn}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    p = _norm(norm_type, fn)
    k, s = _kernel_stride(kernel_size, stride, 2, fn)
    pads, algo = _pool_padding(padding, 2, data_format == "NHWC", ceil_mode, fn)
    return run_op("lp_pool2d", x, None, None, kernel_size=k, strides=s, paddings=pads, ceil_mode=bool(ceil_mode),
                  exclusive=True, data_format=data_format, pooling_type="lp", global_pooling=False, adaptive=False,
                  padding_algorithm=algo, norm_type=p)


def lp_pool1d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCL", name=None):
    """``lp_pool2d`` over the length of an [N, C, L] (or NLC) input."""
    fn = "lp_pool1d"
    if len(x.shape) != 3:
        raise ValueError(f"{fn}: x must be a 3-D tensor, got shape {list(x.shape)}")
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"{fn}: data_format must be 'NCL' or 'NLC', got {data_format!r}")
    p = _norm(norm_type, fn)
    k, s = _kernel_stride(kernel_size, stride, 1, fn)
    channel_last = data_format == "NLC"
    pads, algo = _pool_padding(padding, 1, channel_last, ceil_mode, fn)
    pads = [0, 0] + pads if len(pads) == 2 else [0] + pads
    axis = 1 if channel_last else 2
    x2 = run_op("unsqueeze2", x, None, None, axes=[axis])
    out = run_op("lp_pool2d", x2, None, None, kernel_size=[1] + k, strides=[1] + s, paddings=pads,
                 ceil_mode=bool(ceil_mode), exclusive=True, data_format="NHWC" if channel_last else "NCHW",
                 pooling_type="lp", global_pooling=False, adaptive=False, padding_algorithm=algo, norm_type=p)
    return run_op("squeeze2", out, axes=[axis])
