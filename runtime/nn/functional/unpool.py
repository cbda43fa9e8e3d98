"""Max unpooling functionals: max_unpool1d / max_unpool2d / max_unpool3d (``paddle.nn.functional``).

Paddle's unpool (the 1-D form unsqueezed to [N, C, 1, L]) and unpool3d ops; the default output size
is (in - 1) * stride + kernel - 2 * padding per spatial dim, and a given ``output_size`` must lie
strictly within one stride of it.
"""
from __future__ import annotations

from ...dispatch import run_op
from ...tensor import Tensor
from .conv import _ints

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _output_size(fn, x, kernel, stride, padding, output_size):
    n = len(kernel)
    spatial = list(x.shape[-n:])
    default = [(spatial[d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        if any(s < 0 for s in spatial):
            raise ValueError(f"{fn}: the spatial dims of x {list(x.shape)} must be known, or pass output_size")
        return default
    if not isinstance(output_size, (list, tuple)):
        raise TypeError(f"{fn}: output_size must be None, a list or a tuple, got {output_size!r}")
    sizes = [int(v.item()) if isinstance(v, Tensor) else int(v) for v in output_size]
    if len(sizes) == n + 2:
        sizes = sizes[2:]
    if len(sizes) != n:
        raise ValueError(f"{fn}: output_size must hold {n} or {n + 2} values, got {list(output_size)}")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if spatial[d] >= 0 and not lo < sizes[d] < hi:
            raise ValueError(f"{fn}: invalid output_size {sizes} (dim {d} must be between {lo} and {hi})")
    return sizes


def _check(fn, x, indices, nd):
    if len(x.shape) != nd + 2 or len(indices.shape) != nd + 2:
        raise ValueError(f"{fn}: x and indices must be {nd + 2}-D, got shapes {list(x.shape)} and "
                         f"{list(indices.shape)}")


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW", output_size=None, name=None):
    """Scatter ``x`` [N, C, H, W] to the positions ``indices`` (from max_pool2d's mask) records."""
    fn = "max_unpool2d"
    _check(fn, x, indices, 2)
    if data_format != "NCHW":
        raise ValueError(f"{fn}: data_format must be 'NCHW', got {data_format!r}")
    k = _ints(kernel_size, 2, "kernel_size", fn)
    s = k if stride is None else _ints(stride, 2, "stride", fn)
    p = _ints(padding, 2, "padding", fn)
    outs = _output_size(fn, x, k, s, p, output_size)
    return run_op("unpool", x, indices, ksize=k, unpooling_type="max", strides=s, paddings=p, output_size=outs,
                  data_format="NCHW")


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL", output_size=None, name=None):
    """Scatter ``x`` [N, C, L] to the positions ``indices`` (from max_pool1d's mask) records."""
    fn = "max_unpool1d"
    _check(fn, x, indices, 1)
    if data_format != "NCL":
        raise ValueError(f"{fn}: data_format must be 'NCL', got {data_format!r}")
    k = [1] + _ints(kernel_size, 1, "kernel_size", fn)
    s = k if stride is None else [1] + _ints(stride, 1, "stride", fn)
    p = [0] + _ints(padding, 1, "padding", fn)
    if output_size is not None:
        output_size = list(output_size[:2]) + [1] + list(output_size[2:]) if len(output_size) == 3 else \
            [1] + list(output_size)
    x2 = run_op("unsqueeze2", x, None, None, axes=[2])
    i2 = run_op("unsqueeze2", indices, None, None, axes=[2])
    outs = _output_size(fn, x2, k, s, p, output_size)
    out = run_op("unpool", x2, i2, ksize=k, unpooling_type="max", strides=s, paddings=p, output_size=outs,
                 data_format="NCHW")
    return run_op("squeeze2", out, axes=[2])


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW", output_size=None, name=None):
    """Scatter ``x`` [N, C, D, H, W] to the positions ``indices`` (from max_pool3d's mask) records."""
    fn = "max_unpool3d"
    _check(fn, x, indices, 3)
    if data_format != "NCDHW":
        raise ValueError(f"{fn}: data_format must be 'NCDHW', got {data_format!r}")
    k = _ints(kernel_size, 3, "kernel_size", fn)
    s = k if stride is None else _ints(stride, 3, "stride", fn)
    p = _ints(padding, 3, "padding", fn)
    outs = _output_size(fn, x, k, s, p, output_size)
    return run_op("unpool3d", x, indices, ksize=k, strides=s, paddings=p, output_size=outs, data_format="NCDHW")
