"""Spatial-transformer functionals: grid_sample and affine_grid (``paddle.nn.functional``)."""
from __future__ import annotations

import numpy as np

from ...api._helpers import is_var
from ...dispatch import run_op
from ...tensor import Tensor
from .common import _cast

__all__ = ["grid_sample", "affine_grid"]


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, name=None):
    """Sample ``x`` ([N, C, H, W] or [N, C, D, H, W]) at the normalised points of ``grid``
    ([N, Ho, Wo, 2] or [N, Do, Ho, Wo, 3], x first), Paddle's ``grid_sampler`` op."""
    fn = "grid_sample"
    if not is_var(x) or not is_var(grid):
        raise TypeError(f"{fn}: x and grid must be Tensors, got {type(x).__name__} and {type(grid).__name__}")
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"{fn}: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "reflection", "border"):
        raise ValueError(f"{fn}: padding_mode must be 'zeros', 'reflection' or 'border', got {padding_mode!r}")
    if not isinstance(align_corners, bool):
        raise TypeError(f"{fn}: align_corners must be a bool, got {align_corners!r}")
    if len(x.shape) not in (4, 5):
        raise ValueError(f"{fn}: x must be 4-D or 5-D, got shape {list(x.shape)}")
    if len(grid.shape) != len(x.shape):
        raise ValueError(f"{fn}: grid must have as many dims as x ({len(x.shape)}), got shape {list(grid.shape)}")
    return run_op("grid_sampler", x, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """The sampling grid of the affine maps ``theta`` ([N, 2, 3] or [N, 3, 4]) for an output of shape
    ``out_shape`` ([N, C, H, W] or [N, C, D, H, W]): [N, H, W, 2] or [N, D, H, W, 3]."""
    fn = "affine_grid"
    if not is_var(theta):
        raise TypeError(f"{fn}: theta must be a Tensor, got {type(theta).__name__}")
    if str(theta.dtype).replace("paddle.", "") not in ("float32", "float64"):
        raise TypeError(f"{fn}: theta must be float32 or float64, got {theta.dtype}")
    if not isinstance(align_corners, bool):
        raise TypeError(f"{fn}: align_corners must be a bool, got {align_corners!r}")
    if isinstance(out_shape, Tensor):
        out_shape = [int(v) for v in out_shape.numpy().reshape(-1)]
    if is_var(out_shape):
        if len(out_shape.shape) != 1:
            raise ValueError(f"{fn}: an out_shape tensor must be 1-D, got shape {list(out_shape.shape)}")
        return run_op("affine_grid", theta, _cast(out_shape, "int32"), align_corners=align_corners)
    if isinstance(out_shape, (list, tuple)):
        out_shape = [v.item() if isinstance(v, Tensor) else v for v in out_shape]
        if any(is_var(v) for v in out_shape):
            # entries known only when the graph runs (a dynamic batch): one int32 shape tensor
            import runtime as paddle   # late: the functional package loads while runtime initialises
            parts = [paddle.reshape(_cast(v, "int32"), [1]) if is_var(v) else paddle.full([1], int(v), "int32")
                     for v in out_shape]
            return run_op("affine_grid", theta, paddle.concat(parts), align_corners=align_corners)
    if not isinstance(out_shape, (list, tuple)) or not all(isinstance(v, (int, np.integer)) for v in out_shape):
        raise TypeError(f"{fn}: out_shape must be a list/tuple of ints or a Tensor, got {out_shape!r}")
    if len(out_shape) == 0:
        raise ValueError(f"{fn}: out_shape cannot be empty")
    return run_op("affine_grid", theta, None, output_shape=[int(v) for v in out_shape], align_corners=align_corners)
