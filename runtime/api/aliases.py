"""The torch-style names Paddle 3.3.1 also accepts (``paddle.cat``, ``x.clamp``, ``paddle.div`` ...).

Only names the real package has are defined, at top level and as Tensor methods where Paddle
offers them; each forwards to the Paddle-named function with Paddle's extra keywords
(``rounding_mode``, ``alpha``, ``out``).
"""
from __future__ import annotations

import numpy as np

from ..tensor import tensor_method
from ..random import seed as _seed
from .creation import assign, to_tensor
from .logic import equal, greater_equal, greater_than, less_equal, less_than, not_equal
from .manipulation import concat, flip, take_along_axis, transpose
from .math import clip, divide, floor, multiply, neg, subtract, trunc
from .composite_extra import outer
from .param_alias import param_alias

__all__ = ["cat", "concatenate", "clamp", "div", "eq", "ge", "gt", "le", "lt", "ne", "sub", "mul", "swapdims",
           "take_along_dim", "reverse", "manual_seed", "permute", "from_numpy", "ger", "true_divide", "negative"]


def _out(res, out):
    return res if out is None else assign(res, output=out)


def cat(x, axis=0, name=None, *, out=None):
    """Alias of `concat`."""
    return _out(concat(x, axis=axis), out)


def concatenate(x, axis=0, name=None, *, out=None):
    """Alias of `concat`."""
    return _out(concat(x, axis=axis), out)


@tensor_method
@param_alias(x="input")
def clamp(x, min=None, max=None, name=None, *, out=None):
    """Alias of `clip`."""
    return _out(clip(x, min, max), out)


@tensor_method
def clamp_(x, min=None, max=None, name=None):
    """Alias of `clip_` (in place)."""
    return x.clip_(min, max)


@tensor_method
def div(x, y, name=None, *, rounding_mode=None, out=None):
    """Alias of `divide`; ``rounding_mode`` None (true division), 'trunc' or 'floor'."""
    res = divide(x, y)
    if rounding_mode == "trunc":
        res = trunc(res)
    elif rounding_mode == "floor":
        res = floor(res)
    elif rounding_mode is not None:
        raise ValueError(f"div: rounding_mode must be None, 'trunc' or 'floor', got {rounding_mode!r}")
    return _out(res, out)


def _compare_alias(name, fn):
    def alias(x, y, name=None, *, out=None):
        return _out(fn(x, y), out)
    alias.__name__ = alias.__qualname__ = name
    alias.__doc__ = f"Alias of `{fn.__name__}`."
    return tensor_method(alias)


eq = _compare_alias("eq", equal)
ne = _compare_alias("ne", not_equal)
ge = _compare_alias("ge", greater_equal)
gt = tensor_method(param_alias(x="input", y="other")(_compare_alias("gt", greater_than)))
le = _compare_alias("le", less_equal)
lt = _compare_alias("lt", less_than)
mul = tensor_method(param_alias(x="input", y="other")(_compare_alias("mul", multiply)))


@tensor_method
def sub(x, y, name=None, *, alpha=1, out=None):
    """Alias of `subtract`: ``x - alpha * y``."""
    return _out(subtract(x, y if alpha == 1 else y * alpha), out)


@tensor_method
def swapdims(x, perm, name=None):
    """Alias of `transpose`."""
    return transpose(x, perm)


@tensor_method
def take_along_dim(arr, indices, axis, broadcast=True, *, out=None):
    """Alias of `take_along_axis`."""
    return _out(take_along_axis(arr, indices, axis, broadcast), out)


@tensor_method
def reverse(x, axis, name=None):
    """Alias of `flip` (Paddle's ``paddle.reverse``)."""
    return flip(x, axis)


def manual_seed(seed):
    """Alias of `seed`."""
    return _seed(seed)


@tensor_method
def permute(input, *dims):
    """`transpose` taking the permutation as a list or as separate ints (``x.permute(1, 0)``)."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    return transpose(input, list(dims))


def from_numpy(ndarray):
    """A Tensor holding a copy of ``ndarray`` (its dtype kept)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, got {type(ndarray).__name__}")
    return to_tensor(ndarray)


def ger(x, y, name=None, *, out=None):
    """Alias of `outer`."""
    return outer(x, y, out=out)


@tensor_method
def true_divide(input, other, *, out=None):
    """`divide` (true division)."""
    return _out(divide(input, other), out)


@tensor_method
def negative(x, name=None):
    """Alias of `neg`."""
    return neg(x)
