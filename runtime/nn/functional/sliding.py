"""Sliding-block functionals: unfold (im2col) and fold (col2im) (``paddle.nn.functional``)."""
from __future__ import annotations

import numpy as np

from ...dispatch import run_op

__all__ = ["unfold", "fold"]


def _pair(value, fn, name):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)] * 2
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, (int, np.integer)) for v in value):
        return [int(v) for v in value]
    raise TypeError(f"{fn}: {name} must be an int or a list/tuple of two ints, got {value!r}")


def _paddings(value, fn):
    """Paddle's [top, left, bottom, right] from an int, two ints ([h, w]) or four ints."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)] * 4
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, np.integer)) for v in value):
        if len(value) == 2:
            return [int(v) for v in value] * 2
        if len(value) == 4:
            return [int(v) for v in value]
    raise ValueError(f"{fn}: paddings must be an int or a list/tuple of 2 or 4 ints, got {value!r}")


def _check_float(x, fn, kinds):
    name = str(x.dtype).replace("paddle.", "")
    if name not in kinds:
        raise TypeError(f"{fn}: x must have one of the dtypes {list(kinds)}, got {name}")


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """Extract sliding blocks: [N, C, H, W] -> [N, C*kh*kw, L] (Paddle's ``unfold`` op)."""
    fn = "unfold"
    if len(x.shape) != 4:
        raise ValueError(f"{fn}: x must be 4-D [N, C, H, W], got shape {list(x.shape)}")
    _check_float(x, fn, ("float16", "bfloat16", "float32", "float64"))
    return run_op("unfold", x, kernel_sizes=_pair(kernel_sizes, fn, "kernel_sizes"),
                  strides=_pair(strides, fn, "strides"), paddings=_paddings(paddings, fn),
                  dilations=_pair(dilations, fn, "dilations"))


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """Sum sliding blocks back into an image: [N, C*kh*kw, L] -> [N, C, H, W] (Paddle's ``fold`` op)."""
    fn = "fold"
    if len(x.shape) != 3:
        raise ValueError(f"{fn}: x must be 3-D [N, C*kh*kw, L], got shape {list(x.shape)}")
    _check_float(x, fn, ("float32", "float64", "complex64", "complex128"))
    return run_op("fold", x, output_sizes=_pair(output_sizes, fn, "output_sizes"),
                  kernel_sizes=_pair(kernel_sizes, fn, "kernel_sizes"), strides=_pair(strides, fn, "strides"),
                  paddings=_paddings(paddings, fn), dilations=_pair(dilations, fn, "dilations"))
