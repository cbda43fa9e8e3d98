"""Elementwise math: add, subtract, multiply, divide, pow, maximum, minimum, floor_divide, remainder."""
from __future__ import annotations

from ..dispatch import run_op
from ..tensor import tensor_method
from ._helpers import is_var, scalar_like

__all__ = ["add", "subtract", "multiply", "divide", "pow", "maximum", "minimum", "floor_divide",
           "remainder", "mod", "floor_mod"]


def _binary(op_type, x, y):
    if not is_var(y):
        y = scalar_like(y, x)
    elif not is_var(x):
        x = scalar_like(x, y)
    return run_op(op_type, x, y)


@tensor_method
def add(x, y, name=None):
    """Elementwise ``x + y`` with broadcasting."""
    return _binary("elementwise_add", x, y)


@tensor_method
def subtract(x, y, name=None):
    return _binary("elementwise_sub", x, y)


@tensor_method
def multiply(x, y, name=None):
    return _binary("elementwise_mul", x, y)


@tensor_method
def divide(x, y, name=None):
    return _binary("elementwise_div", x, y)


@tensor_method
def pow(x, y, name=None):
    """``x ** y``; ``y`` may be a tensor or a Python number."""
    if not is_var(y):
        if isinstance(y, (int, float)) and not isinstance(y, bool) and x.dtype.np.kind == "f":
            return run_op("pow", x, factor=float(y))
    return _binary("elementwise_pow", x, y)


@tensor_method
def maximum(x, y, name=None):
    return _binary("elementwise_max", x, y)


@tensor_method
def minimum(x, y, name=None):
    return _binary("elementwise_min", x, y)


@tensor_method
def floor_divide(x, y, name=None):
    return _binary("elementwise_floordiv", x, y)


@tensor_method
def remainder(x, y, name=None):
    return _binary("elementwise_mod", x, y)


mod = floor_mod = remainder
tensor_method(remainder, name="mod")
tensor_method(remainder, name="floor_mod")
