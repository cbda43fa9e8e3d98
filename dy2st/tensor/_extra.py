"""Tensor functions Paddle has under ``paddle.tensor`` that are thin forms of our API: tensor arrays,
``fill_constant``, ``rank``, ``is_tensor``, ``create_parameter`` and the dtype queries as functions."""
from __future__ import annotations

from runtime.static.tensor_array import array_length, array_read, array_write, create_array  # noqa: F401
from runtime.nn.param_attr import create_parameter  # noqa: F401
from runtime.tensor import is_tensor  # noqa: F401

__all__ = ["array_length", "array_read", "array_write", "create_array", "fill_constant", "rank", "is_integer",
           "is_floating_point", "is_tensor", "create_parameter"]


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    """A tensor of ``shape`` filled with ``value`` (``paddle.full`` with Paddle's legacy argument order);
    with ``out``, written into it."""
    from runtime.api.creation import assign, full
    result = full(shape, value, dtype)
    if out is None:
        return result
    return assign(result, output=out)


def rank(input):
    """The number of dimensions of ``input`` as a 0-D int32 tensor."""
    from runtime.api.creation import full
    return full([], input.ndim, "int32")


def is_integer(x):
    """Whether ``x``'s dtype is an integer type."""
    return x.is_integer()


def is_floating_point(x):
    """Whether ``x``'s dtype is a floating-point type."""
    return x.is_floating_point()
