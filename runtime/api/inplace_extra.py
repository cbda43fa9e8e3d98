"""In-place variants (``x.add_(y)``, ``paddle.acos_(x)``, ...) of functions we already have, by Paddle's rules.

Paddle's in-place APIs compute the function and make ``x`` take the result: its value, dtype (a
comparison leaves ``x`` bool, ``div_`` of integers leaves it float32, ``cast_`` changes it) and
gradient path. Two rules are checked here, as Paddle checks them: a leaf tensor that needs a gradient
cannot be changed in place (`check_inplace`), and the result must keep ``x``'s shape — broadcasting
``y`` into ``x`` is fine, broadcasting ``x`` up is an error. Like the existing ``exp_`` family
(runtime/api/math.py), the new value is computed out of place and rebound (`_rebind`), so arrays an
earlier op saved for its backward keep their values. Static Variables are not updated in place (the
error says to use the out-of-place function).
"""
from __future__ import annotations


from ..tensor import Tensor, tensor_method
from .manipulation import _rebind, check_inplace

__all__ = []

# Tensor methods Paddle 3.3.1 does not also export as paddle.<name>
_METHOD_ONLY = frozenset({"add_", "mul_", "put_along_axis_"})


def _same_shape(x, out, api):
    if isinstance(out, Tensor) and list(out.shape) != list(x.shape):
        raise ValueError(f"The shape of broadcast output {list(out.shape)} is different from that of inplace "
                         f"tensor {list(x.shape)} in the Inplace operation ({api}).")


def _make(api, fn, target=0, keep_shape=True):
    """``api`` (name ending in ``_``): ``fn(*args)`` written into ``args[target]``; ``keep_shape``: the
    broadcasting rule (element-wise ops; not for t_ / transpose_, whose point is a new shape)."""
    def inplace(*args, **kwargs):
        x = args[target] if len(args) > target else kwargs.get("x")
        check_inplace(x, api)
        out = fn(*args, **kwargs)
        if keep_shape and isinstance(x, Tensor):
            _same_shape(x, out, api)
        return _rebind(x, out)
    inplace.__name__ = inplace.__qualname__ = api
    inplace.__doc__ = f"In-place ``{fn.__name__}``: ``{'x' if target == 0 else 'x (the 2nd argument)'}`` takes the " \
                      "result (value, dtype and gradient path) and is returned."
    return inplace


def _register():
    import runtime as paddle
    unary = ("acos", "asin", "atan", "acosh", "asinh", "atanh", "cosh", "sinh", "log2", "log10", "logical_not",
             "bitwise_not", "cumprod", "tril", "triu", "t", "transpose", "cast")
    binary = ("add", "subtract", "multiply", "divide", "floor_divide", "remainder", "mod", "floor_mod",
              "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor", "equal",
              "not_equal", "greater_than", "greater_equal", "less_than", "less_equal", "less", "put_along_axis")
    aliases = {"sub_": "subtract", "mul_": "multiply", "div_": "divide"}
    made = {}
    for base in unary + binary:
        if hasattr(paddle, base) and not hasattr(Tensor, base + "_"):
            made[base + "_"] = _make(base + "_", getattr(paddle, base), keep_shape=base not in ("t", "transpose"))
    for api, base in aliases.items():
        if not hasattr(Tensor, api):
            made[api] = _make(api, getattr(paddle, base))
    # paddle.where_(condition, x, y) writes into x; as a Tensor method the tensor is the condition
    made["where_"] = _make("where_", paddle.where, target=1)
    _where_ = made["where_"]

    def where_(condition, x=None, y=None, name=None):
        import numpy as np
        if np.isscalar(x) or np.isscalar(y) or x is None or y is None:    # Paddle's checks, its message
            raise ValueError("either both or neither of x and y should be given")
        return _where_(condition, x, y)
    where_.__name__ = where_.__qualname__ = "where_"
    where_.__doc__ = _where_.__doc__
    made["where_"] = where_
    for api, fn in made.items():
        tensor_method(fn, name=api)
        globals()[api] = fn
        if api not in _METHOD_ONLY:
            __all__.append(api)


_register()
