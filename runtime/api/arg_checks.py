"""Argument checks with Paddle's error types: static-mode ``check_type`` / ``check_dtype`` and eager
"argument must be a Tensor" errors.

Paddle checks argument types and dtypes in Python only while building a static Program
(``paddle.base.data_feeder.check_*`` do nothing in dygraph mode) and raises TypeError; in dygraph
mode the C++ op binding refuses a non-Tensor argument with ValueError ("(InvalidArgument) bmm():
argument 'x' (position 0) must be Tensor, but got numpy.ndarray"). Code written against either
habit catches the error below: :class:`ArgumentTypeError` is both a TypeError and a ValueError.
"""
from __future__ import annotations

from ..dtype import DType, convert_dtype
from ..framework import state
from ._helpers import is_var

__all__ = ["ArgumentTypeError", "to_dtype", "static_check_type", "static_check_dtype",
           "check_variable_and_dtype", "require_tensor"]


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type or dtype. Paddle raises TypeError for this while building a
    static Program and ValueError from its eager op bindings; this error is both."""


def to_dtype(dtype, op: str) -> DType:
    """``convert_dtype`` whose error for an unknown dtype name is a TypeError, as Paddle's
    (``paddle.full([1], 5, dtype='uint4')``: "data type 'uint4' not understood")."""
    try:
        return convert_dtype(dtype)
    except ValueError as e:
        raise ArgumentTypeError(f"{op}: data type {dtype!r} not understood ({e})") from None


def _dtype_name(dtype) -> str:
    try:
        return convert_dtype(dtype).name
    except (TypeError, ValueError):
        return str(dtype)


def static_check_type(value, name: str, expected, op: str, extra: str = ""):
    """Paddle's ``check_type``: TypeError when ``value`` is not an ``expected`` instance, only while
    building a static Program (in dygraph mode Paddle does not check)."""
    if state.static and not isinstance(value, expected):
        raise ArgumentTypeError(f"The type of '{name}' in {op} must be {expected}, but received "
                                f"{type(value)}. {extra}".rstrip())


def static_check_dtype(dtype, name: str, allowed, op: str, extra: str = ""):
    """Paddle's ``check_dtype``: TypeError when ``dtype`` is not one of the ``allowed`` names, only
    while building a static Program."""
    if not state.static:
        return
    got = _dtype_name(dtype)
    if got not in allowed:
        raise ArgumentTypeError(f"The data type of '{name}' in {op} must be {list(allowed)}, but received "
                                f"{got}. {extra}".rstrip())


def check_variable_and_dtype(x, name: str, allowed, op: str, position: int = 0):
    """A tensor argument: static mode checks its type and dtype (TypeError, as Paddle); eager mode
    refuses a non-Tensor as Paddle's op binding does (ValueError)."""
    require_tensor(x, name, op, position)
    static_check_dtype(x.dtype, name, allowed, op)


def require_tensor(x, name: str, op: str, position: int = 0):
    """Refuse a non-Tensor argument (an ndarray, list, tuple ...) with the error both Paddle's
    static check (TypeError) and its eager binding (ValueError) would give."""
    if not is_var(x):
        raise ArgumentTypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, but got "
                                f"{type(x).__module__ + '.' if type(x).__module__ != 'builtins' else ''}"
                                f"{type(x).__name__}")
