"""``paddle._C_ops``: Paddle's generated op functions with their positional signatures
(``_C_ops.zeros(shape, dtype, place)``, ``_C_ops.matmul(x, y, transpose_x, transpose_y)`` ...), on our
ops.

Paddle's Python layer calls these with every attribute spelled out; test and model code calls them
directly. Each function here takes the same positional arguments and runs the same op through our
functional API, in eager and static mode alike. ``place`` arguments are accepted and must be a CPU
place (there is no other device). Ops not listed here are not provided: ``_C_ops.<name>`` raises
AttributeError naming the public function to use instead.
"""
from __future__ import annotations

import runtime as _api  # the public API (this module is imported after runtime itself, by dy2st._C_ops)
from .device import CPUPlace
from .dispatch import run_op
from .nn import functional as _F

__all__ = []


def _cpu(place):
    """Paddle's place argument: None, a CPUPlace, or the string 'cpu'; a GPU place is refused."""
    if place is None or isinstance(place, CPUPlace) or (isinstance(place, str) and place.lower().startswith("cpu")):
        return
    kind = type(place).__name__
    if kind in ("Place",) or "CPU" in kind:
        return
    raise RuntimeError(f"_C_ops: place {place!r} is not available; dy2st runs on the CPU (use paddle.CPUPlace())")


def _export(fn):
    __all__.append(fn.__name__)
    return fn


# -- creation ------------------------------------------------------------------------------------

@_export
def full(shape, value, dtype, place=None):
    _cpu(place)
    return _api.full(shape, value, dtype)


@_export
def zeros(shape, dtype, place=None):
    _cpu(place)
    return _api.zeros(shape, dtype)


@_export
def ones(shape, dtype, place=None):
    _cpu(place)
    return _api.ones(shape, dtype)


@_export
def empty(shape, dtype, place=None):
    _cpu(place)
    return _api.empty(shape, dtype)


@_export
def full_like(x, value, dtype=None, place=None):
    _cpu(place)
    return _api.full_like(x, value, dtype)


@_export
def eye(num_rows, num_columns, dtype, place=None):
    _cpu(place)
    return _api.eye(num_rows, num_columns if num_columns is not None and num_columns >= 0 else None, dtype)


@_export
def arange(start, end, step, dtype, place=None):
    _cpu(place)
    return _api.arange(start, end, step, dtype)


@_export
def linspace(start, stop, number, dtype, place=None):
    _cpu(place)
    return _api.linspace(start, stop, number, dtype)


@_export
def assign(x):
    return _api.assign(x)


@_export
def assign_(x):
    """In-place assign of ``x`` to itself: ``x`` (its inplace version bumped, as Paddle's in-place op does)."""
    x._version = x.inplace_version + 1
    return x


@_export
def assign_out_(x, output):
    """Copy ``x`` into ``output`` (``paddle.assign(x, output)``); returns ``output``."""
    _api.assign(x, output)
    return output


# -- elementwise ---------------------------------------------------------------------------------

def _binary(name):
    target = getattr(_api, name)

    def op(x, y):
        return target(x, y)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``_C_ops.{name}(x, y)``: ``paddle.{name}``."
    __all__.append(name)
    return op


def _unary(name, source=_api):
    target = getattr(source, name)

    def op(x):
        return target(x)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``_C_ops.{name}(x)``: ``paddle.{name}``."
    __all__.append(name)
    return op


add, subtract, multiply, divide = (_binary(n) for n in ("add", "subtract", "multiply", "divide"))
maximum, minimum, equal, not_equal = (_binary(n) for n in ("maximum", "minimum", "equal", "not_equal"))
less_than, greater_than, logical_and = (_binary(n) for n in ("less_than", "greater_than", "logical_and"))
exp, log, sqrt, abs, sign, floor, ceil, square, logical_not = (
    _unary(n) for n in ("exp", "log", "sqrt", "abs", "sign", "floor", "ceil", "square", "logical_not"))
sigmoid, tanh = _unary("sigmoid", _F), _unary("tanh", _api)
relu = _unary("relu", _F)


@_export
def pow(x, y):
    return _api.pow(x, y)


@_export
def scale(x, scale, bias, bias_after_scale):
    return _api.scale(x, scale, bias, bias_after_scale)


@_export
def cast(x, dtype):
    return _api.cast(x, dtype)


@_export
def clip(x, min, max):
    return _api.clip(x, min, max)


# -- matmul, reductions, softmax -----------------------------------------------------------------

@_export
def matmul(x, y, transpose_x=False, transpose_y=False):
    return _api.matmul(x, y, transpose_x, transpose_y)


@_export
def sum(x, axis, dtype, keepdim):
    return _api.sum(x, axis if axis not in ([], ()) else None, dtype, keepdim)


@_export
def mean(x, axis, keepdim):
    return _api.mean(x, axis if axis not in ([], ()) else None, keepdim)


@_export
def max(x, axis, keepdim):
    return _api.max(x, axis if axis not in ([], ()) else None, keepdim)


@_export
def min(x, axis, keepdim):
    return _api.min(x, axis if axis not in ([], ()) else None, keepdim)


@_export
def prod(x, axis, keepdim, reduce_all):
    return _api.prod(x, None if reduce_all or axis in ([], ()) else axis, keepdim)


@_export
def cumsum(x, axis, flatten, exclusive, reverse):
    return run_op("cumsum", x, axis=int(axis), flatten=bool(flatten), exclusive=bool(exclusive),
                  reverse=bool(reverse))


@_export
def argmax(x, axis, keepdims, flatten, dtype):
    return _api.argmax(x, None if flatten else axis, keepdims, dtype)


@_export
def argmin(x, axis, keepdims, flatten, dtype):
    return _api.argmin(x, None if flatten else axis, keepdims, dtype)


@_export
def softmax(x, axis):
    return _F.softmax(x, axis)


@_export
def log_softmax(x, axis):
    return _F.log_softmax(x, axis)


# -- shape manipulation ----------------------------------------------------------------------------

@_export
def reshape(x, shape):
    return _api.reshape(x, shape)


@_export
def transpose(x, perm):
    return _api.transpose(x, perm)


@_export
def concat(x, axis):
    return _api.concat(x, axis)


@_export
def stack(x, axis):
    return _api.stack(x, axis)


@_export
def split(x, sections, axis):
    return _api.split(x, sections, axis)


@_export
def squeeze(x, axis):
    return _api.squeeze(x, axis)


@_export
def unsqueeze(x, axis):
    return _api.unsqueeze(x, axis)


@_export
def flatten(x, start_axis, stop_axis):
    return _api.flatten(x, start_axis, stop_axis)


@_export
def gather(x, index, axis):
    return _api.gather(x, index, axis)


@_export
def tile(x, repeat_times):
    return _api.tile(x, repeat_times)


@_export
def expand(x, shape):
    return _api.expand(x, shape)


@_export
def flip(x, axis):
    return _api.flip(x, axis)


@_export
def where(condition, x, y):
    return _api.where(condition, x, y)


@_export
def topk(x, k, axis, largest, sorted):
    return _api.topk(x, k, axis, largest, sorted)


# -- nn ------------------------------------------------------------------------------------------

@_export
def one_hot(x, num_classes):
    return _F.one_hot(x, num_classes)


@_export
def embedding(x, weight, padding_idx=-1, sparse=False):
    return _F.embedding(x, weight, None if padding_idx == -1 else padding_idx, sparse)


@_export
def layer_norm(x, scale, bias, epsilon, begin_norm_axis):
    return _F.layer_norm(x, list(x.shape[begin_norm_axis:]), scale, bias, epsilon)


def __getattr__(name):
    raise AttributeError(f"paddle._C_ops.{name} is not provided by dy2st; call the public API "
                         f"(paddle.{name}, paddle.nn.functional.{name} ...) instead")
