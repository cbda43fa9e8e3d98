"""Comparison, logical and bitwise functions, isfinite/isnan/isinf, isclose/allclose, equal_all."""
from __future__ import annotations

import numpy as np

from ..dispatch import run_op
from ..tensor import tensor_method
from ._helpers import is_var, scalar_like
from .param_alias import param_alias

__all__ = ["equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal", "less",
           "greater", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_not", "isfinite", "isnan", "isinf", "isclose",
           "allclose", "equal_all"]


def _np_dtype(x):
    d = x.dtype
    return d.np if hasattr(d, "np") else np.dtype(d)


def _compare(op_type, x, y, name):
    if not is_var(x):
        if not is_var(y):
            raise TypeError(f"{name}: x must be a Tensor, got {type(x).__name__}")
        x = np.asarray(x, dtype=_np_dtype(y))
    if not is_var(y):
        if y is None or not (np.isscalar(y) or isinstance(y, np.ndarray)):
            raise TypeError(f"{name}: y must be a Tensor or a number, got {type(y).__name__}")
        # paddle.equal(x, 2.5) converts the number to x's dtype first (unlike ``x == 2.5``)
        y = np.asarray(y, dtype=_np_dtype(x))
    return run_op(op_type, x, y)


@tensor_method
@param_alias(x="input", y="other")
def equal(x, y, name=None):
    """Elementwise ``x == y`` (bool, broadcasting)."""
    return _compare("equal", x, y, "equal")


@tensor_method
@param_alias(x="input", y="other")
def not_equal(x, y, name=None):
    return _compare("not_equal", x, y, "not_equal")


@tensor_method
@param_alias(x="input", y="other")
def less_than(x, y, name=None):
    return _compare("less_than", x, y, "less_than")


@tensor_method
@param_alias(x="input", y="other")
def less_equal(x, y, name=None):
    return _compare("less_equal", x, y, "less_equal")


@tensor_method
def greater_than(x, y, name=None):
    return _compare("greater_than", x, y, "greater_than")


@tensor_method
@param_alias(x="input", y="other")
def greater_equal(x, y, name=None):
    return _compare("greater_equal", x, y, "greater_equal")


less = less_than
greater = greater_than
tensor_method(less_than, name="less")
tensor_method(greater_than, name="greater")


def _binary(op_type, x, y):
    if not is_var(y):
        y = scalar_like(y, x)
    return run_op(op_type, x, y)


@tensor_method
def logical_and(x, y, out=None, name=None):
    """Elementwise AND of the truth values (any nonzero is True); bool result."""
    return _binary("logical_and", x, y)


@tensor_method
def logical_or(x, y, out=None, name=None):
    return _binary("logical_or", x, y)


@tensor_method
def logical_xor(x, y, out=None, name=None):
    return _binary("logical_xor", x, y)


@tensor_method
def logical_not(x, out=None, name=None):
    return run_op("logical_not", x)


def _check_bitwise(x, name):
    if _np_dtype(x).kind not in "iub":
        raise TypeError(f"{name}: x must be an integer or bool tensor, got {x.dtype}")


@tensor_method
def bitwise_and(x, y, out=None, name=None):
    """Elementwise ``x & y`` for integer and bool tensors."""
    _check_bitwise(x, "bitwise_and")
    return _binary("bitwise_and", x, y)


@tensor_method
@param_alias(x="input", y="other")
def bitwise_or(x, y, out=None, name=None):
    _check_bitwise(x, "bitwise_or")
    return _binary("bitwise_or", x, y)


@tensor_method
def bitwise_xor(x, y, out=None, name=None):
    _check_bitwise(x, "bitwise_xor")
    return _binary("bitwise_xor", x, y)


@tensor_method
def bitwise_not(x, out=None, name=None):
    _check_bitwise(x, "bitwise_not")
    return run_op("bitwise_not", x)


@tensor_method
def isfinite(x, name=None):
    return run_op("isfinite_v2", x)


@tensor_method
def isnan(x, name=None):
    return run_op("isnan_v2", x)


@tensor_method
def isinf(x, name=None):
    return run_op("isinf_v2", x)


@tensor_method
def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """``|x - y| <= atol + rtol * |y|`` elementwise (equal infinities are close; NaNs only with
    ``equal_nan``)."""
    if _np_dtype(x).kind not in "fc":
        raise TypeError(f"isclose: x must be a floating-point tensor, got {x.dtype}")
    if not is_var(y):
        y = scalar_like(y, x)
    npd = _np_dtype(x)
    if rtol < 0 or atol < 0:
        raise ValueError(f"isclose: rtol and atol must be non-negative, got rtol={rtol}, atol={atol}")
    diff = run_op("elementwise_sub", x, y)
    neg_y = run_op("elementwise_mul", y, np.asarray(-1, dtype=npd))
    abs_y = run_op("elementwise_max", y, neg_y)
    tol = run_op("elementwise_add", run_op("elementwise_mul", abs_y, np.asarray(rtol, dtype=npd)),
                 np.asarray(atol, dtype=npd))
    neg_tol = run_op("elementwise_mul", tol, np.asarray(-1, dtype=npd))
    # |d| <= t  <=>  -t <= d <= t, without an abs op
    close = run_op("logical_and", run_op("less_equal", diff, tol), run_op("greater_equal", diff, neg_tol))
    close = run_op("logical_or", close, run_op("equal", x, y))
    if equal_nan:
        both = run_op("logical_and", run_op("isnan_v2", x), run_op("isnan_v2", y))
        close = run_op("logical_or", close, both)
    return close


@tensor_method
def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """True (0-D bool) when every element of x is close to y (see `isclose`)."""
    return run_op("reduce_all", isclose(x, y, rtol, atol, equal_nan), None, None, dim=[], reduce_all=True)


@tensor_method
def equal_all(x, y, name=None):
    """True (0-D bool) when x and y have the same shape and equal elements."""
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) != len(ys) or any(a != b and a != -1 and b != -1 for a, b in zip(xs, ys)):
        return run_op("fill_constant", None, None, None, dtype=0, shape=[], value=0.0, str_value="0.0")
    return run_op("reduce_all", run_op("equal", x, y), None, None, dim=[], reduce_all=True)
