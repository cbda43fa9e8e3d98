"""Tensor functions Paddle lists under ``paddle.tensor`` that we implement only as Tensor methods (the in-place
forms ``add_``, ``clip_``, ``fill_diagonal_`` ..., ``repeat``, ``split_with_sizes``): the same functions, taking
the tensor as the first argument (``paddle.tensor.add_(x, y)`` is ``x.add_(y)``)."""
from __future__ import annotations

from runtime.tensor import Tensor

_NAMES = ("add_", "ceil_", "clamp_", "clip_", "erfinv_", "exp_", "exponential_", "fill_", "fill_diagonal_",
          "fill_diagonal_tensor", "fill_diagonal_tensor_", "floor_", "lerp_", "mul_", "put_along_axis_", "random_",
          "reciprocal_", "repeat", "resize_", "round_", "rsqrt_", "scale_", "set_", "sigmoid_", "split_with_sizes",
          "sqrt_", "uniform_", "zero_")

__all__ = [n for n in _NAMES if callable(getattr(Tensor, n, None))]
globals().update({n: getattr(Tensor, n) for n in __all__})
