"""Rounding a float32 tensor to bfloat16 precision as a differentiable op (straight-through gradient)."""
from __future__ import annotations

from ..autograd_pylayer import PyLayer
from ..tensor import Tensor


class BF16Round(PyLayer):
    """Forward: values rounded to bfloat16 precision; backward: the gradient rounded the same way."""

    @staticmethod
    def forward(ctx, x):
        from .op_rules import round_to_bfloat16
        return Tensor._wrap(round_to_bfloat16(x._data))

    @staticmethod
    def backward(ctx, g):
        from .op_rules import round_to_bfloat16
        return Tensor._wrap(round_to_bfloat16(g._data))
