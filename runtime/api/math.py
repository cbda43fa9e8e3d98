"""Math functions: elementwise binary ops (add ... remainder), unary functions (exp, sqrt, sin ...),
scale, clip, cumsum, logsumexp, add_n and their in-place ``*_`` forms."""
from __future__ import annotations

import builtins
import numbers

import numpy as np

from ..dispatch import run_op
from ..dtype import convert_dtype, float32, int64
from ..tensor import Tensor, tensor_method
from ._helpers import is_var, scalar_like
from .param_alias import param_alias

__all__ = ["add", "subtract", "multiply", "divide", "pow", "maximum", "minimum", "floor_divide",
           "remainder", "mod", "floor_mod",
           "exp", "log", "log1p", "log2", "log10", "expm1", "sqrt", "rsqrt", "square", "abs", "floor", "ceil",
           "round", "trunc", "frac", "sign", "sgn", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
           "asinh", "acosh", "atanh", "tanh", "sigmoid", "erf", "reciprocal", "neg", "stanh", "scale", "clip",
           "cumsum", "cumprod", "logsumexp", "add_n",
           # in-place forms Paddle also offers as top-level functions (the rest are Tensor methods only)
           "log_", "square_", "abs_", "trunc_", "sin_", "cos_", "tanh_", "neg_", "cumsum_", "log1p_", "expm1_",
           "tan_", "erf_", "frac_", "pow_"]


def _binary(op_type, x, y):
    if not is_var(y):
        y = scalar_like(y, x)
    elif not is_var(x):
        x = scalar_like(x, y)
    return run_op(op_type, x, y)


@tensor_method
@param_alias(x="input", y="other")
def add(x, y, name=None):
    """Elementwise ``x + y`` with broadcasting."""
    return _binary("elementwise_add", x, y)


@tensor_method
@param_alias(x="input", y="other")
def subtract(x, y, name=None):
    return _binary("elementwise_sub", x, y)


@tensor_method
def multiply(x, y, name=None):
    return _binary("elementwise_mul", x, y)


@tensor_method
@param_alias(x="input", y="other")
def divide(x, y, name=None):
    return _binary("elementwise_div", x, y)


@tensor_method
def pow(x, y, name=None):
    """``x ** y``; ``y`` may be a tensor or a Python number."""
    if not is_var(y):
        # Paddle's pow op: float tensors keep their dtype; integer tensors truncate the exponent
        if isinstance(y, (int, float)) and not isinstance(y, bool) and x.dtype.np.kind in "fiu":
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
@param_alias(x="input", y="other")
def remainder(x, y, name=None):
    return _binary("elementwise_mod", x, y)


mod = floor_mod = remainder
tensor_method(remainder, name="mod")
tensor_method(remainder, name="floor_mod")


# -- unary functions --------------------------------------------------------------------------
def _check(x, api):
    if not is_var(x):
        raise TypeError(f"{api}: x must be a Tensor, got {type(x).__name__}")


def _unary(op_type, api, doc):
    def fn(x, name=None):
        _check(x, api)
        return run_op(op_type, x)
    fn.__name__ = fn.__qualname__ = api
    fn.__doc__ = doc
    return tensor_method(fn)


exp = _unary("exp", "exp", "e ** x, elementwise (integer inputs give float32, as in Paddle).")
log = _unary("log", "log", "Natural logarithm, elementwise.")
log1p = _unary("log1p", "log1p", "log(1 + x), accurate for small x.")
log2 = _unary("log2", "log2", "Base-2 logarithm, elementwise.")
log10 = _unary("log10", "log10", "Base-10 logarithm, elementwise.")
expm1 = _unary("expm1", "expm1", "exp(x) - 1, accurate for small x.")
sqrt = _unary("sqrt", "sqrt", "Square root, elementwise (integer inputs give float32).")
rsqrt = _unary("rsqrt", "rsqrt", "1 / sqrt(x), elementwise.")
square = _unary("square", "square", "x * x, elementwise (keeps integer dtypes).")
abs = _unary("abs", "abs", "Absolute value, elementwise (keeps integer dtypes).")
floor = _unary("floor", "floor", "Largest integer <= x, elementwise; the gradient is zero.")
ceil = _unary("ceil", "ceil", "Smallest integer >= x, elementwise; the gradient is zero.")
trunc = _unary("trunc", "trunc", "x rounded toward zero, elementwise; the gradient is zero.")
sign = _unary("sign", "sign", "-1, 0 or 1 by the sign of x (keeps x's dtype); the gradient is zero.")
sin = _unary("sin", "sin", "Sine, elementwise.")
cos = _unary("cos", "cos", "Cosine, elementwise.")
tan = _unary("tan", "tan", "Tangent, elementwise.")
asin = _unary("asin", "asin", "Arcsine, elementwise.")
acos = _unary("acos", "acos", "Arccosine, elementwise.")
atan = _unary("atan", "atan", "Arctangent, elementwise.")
sinh = _unary("sinh", "sinh", "Hyperbolic sine, elementwise.")
cosh = _unary("cosh", "cosh", "Hyperbolic cosine, elementwise.")
asinh = _unary("asinh", "asinh", "Inverse hyperbolic sine, elementwise.")
acosh = _unary("acosh", "acosh", "Inverse hyperbolic cosine, elementwise.")
atanh = _unary("atanh", "atanh", "Inverse hyperbolic tangent, elementwise.")
tanh = _unary("tanh", "tanh", "Hyperbolic tangent, elementwise.")
sigmoid = _unary("sigmoid", "sigmoid", "1 / (1 + exp(-x)), elementwise.")
erf = _unary("erf", "erf", "The error function, elementwise.")
reciprocal = _unary("reciprocal", "reciprocal", "1 / x, elementwise (integer inputs give float32).")


@tensor_method
def round(x, decimals=0, name=None):
    """Round to ``decimals`` decimal places, halves to even (0.5 -> 0, 2.5 -> 2) as Paddle does."""
    _check(x, "round")
    if not isinstance(decimals, numbers.Integral) or isinstance(decimals, bool):
        raise TypeError(f"round: decimals must be an int, got {decimals!r}")
    return run_op("round", x, decimals=int(decimals))


@tensor_method
def sgn(x, name=None):
    """The sign of x (for real tensors the same as `sign`)."""
    return sign(x)


@tensor_method
@param_alias(x="input")
def frac(x, name=None):
    """The fractional part x - trunc(x), with x's sign."""
    _check(x, "frac")
    return run_op("elementwise_sub", x, run_op("trunc", x))


@tensor_method
def neg(x, name=None):
    """-x."""
    _check(x, "neg")
    return run_op("scale", x, scale=-1.0, bias=0.0, bias_after_scale=True)


@tensor_method
def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """scale_b * tanh(scale_a * x)."""
    _check(x, "stanh")
    return run_op("stanh", x, scale_a=float(scale_a), scale_b=float(scale_b))


# -- scale / clip -----------------------------------------------------------------------------
def _number(v, api, what):
    if isinstance(v, bool) or not isinstance(v, (numbers.Real, np.number)):
        raise TypeError(f"{api}: {what} must be a number or a Tensor, got {type(v).__name__}")
    return float(v)


@tensor_method
def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """``x * scale + bias`` (or ``(x + bias) * scale`` when ``bias_after_scale`` is False), then ``act``.

    ``scale`` may be a 1-element Tensor. Integer tensors keep their dtype (the factors are truncated).
    """
    _check(x, "scale")
    scale_t = None
    if is_var(scale):
        scale_t, scale = scale, 1.0
    else:
        scale = _number(scale, "scale", "scale")
    out = run_op("scale", x, scale_t, None, scale=scale, bias=_number(bias, "scale", "bias"),
                 bias_after_scale=bool(bias_after_scale))
    if act is not None:
        if not isinstance(act, str):
            raise TypeError(f"scale: act must be the name of an activation such as 'relu', got {act!r}")
        out = run_op(act, out)
    return out


_F32_MIN = float(np.finfo(np.float32).min)
_CLIP_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64")
_FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64")
_F32_MAX = float(np.finfo(np.float32).max)


@tensor_method
@param_alias(x="input")
def clip(x, min=None, max=None, name=None, *, out=None):
    """Limit x to ``[min, max]``; either bound may be None (unbounded) or a 1-element Tensor.

    An integer tensor clipped with a float bound (a Python float or a floating Tensor) gives float32, as
    in Paddle; ``out`` receives the result too. x must be float16/bfloat16/float32/float64/int32/int64.
    """
    _check(x, "clip")
    if out is not None:
        from .creation import assign
        return assign(clip(x, min, max), output=out)
    if x.dtype.name not in _CLIP_DTYPES:
        from ..ops.special import KernelDtypeError
        raise KernelDtypeError(f"clip: x must be one of {', '.join(_CLIP_DTYPES)}, got {x.dtype.name}; "
                               "cast it first (e.g. x.astype('int32'))")
    attrs, min_t, max_t = {}, None, None
    kind = x.dtype.np.kind if hasattr(x.dtype, "np") else np.dtype(x.dtype).kind
    if kind in "iu" and builtins.any(isinstance(v, float) or (is_var(v) and v.dtype.name in _FLOAT_NAMES)
                                     for v in (min, max)):
        x = run_op("cast", x, in_dtype=x.dtype.proto, out_dtype=float32.proto)
    for key, v in (("min", min), ("max", max)):
        if v is None:
            attrs[key] = _F32_MIN if key == "min" else _F32_MAX
        elif is_var(v):
            if key == "min":
                min_t = v
            else:
                max_t = v
            attrs[key] = _F32_MIN if key == "min" else _F32_MAX
        else:
            attrs[key] = _number(v, "clip", key)
    if min_t is None and max_t is None and attrs["min"] > attrs["max"]:
        raise ValueError(f"clip: min ({attrs['min']}) must not be greater than max ({attrs['max']})")
    return run_op("clip", x, min_t, max_t, **attrs)


# -- cumsum / logsumexp / add_n ---------------------------------------------------------------
def _int_axis(axis, api):
    if isinstance(axis, Tensor):
        axis = int(axis.item())
    if isinstance(axis, bool) or not isinstance(axis, (numbers.Integral, np.integer)):
        raise TypeError(f"{api}: axis must be an int, got {axis!r}")
    axis = int(axis)
    return axis


def _check_axis(x, axis, api):
    ndim = len(x.shape)
    if ndim and not -ndim <= axis < ndim:
        raise ValueError(f"{api}: axis {axis} is out of range for a tensor of rank {ndim} "
                         f"(expected -{ndim} <= axis < {ndim})")


@tensor_method
@param_alias(x="input", axis="dim")
def cumsum(x, axis=None, dtype=None, name=None):
    """Cumulative sum along ``axis`` (None: over the flattened tensor, giving a 1-D result).

    ``dtype`` casts x first; integer inputs other than int64 give int64, as in Paddle.
    """
    _check(x, "cumsum")
    if dtype is not None:
        d = convert_dtype(dtype)
        if d != x.dtype:
            x = run_op("cast", x, in_dtype=x.dtype.proto, out_dtype=d.proto)
    else:
        kind = x.dtype.np.kind if hasattr(x.dtype, "np") else np.dtype(x.dtype).kind
        if kind in "iub" and x.dtype != int64:
            x = run_op("cast", x, in_dtype=x.dtype.proto, out_dtype=int64.proto)
    if axis is None:
        return run_op("cumsum", x, axis=-1, flatten=True)
    axis = _int_axis(axis, "cumsum")
    _check_axis(x, axis, "cumsum")
    return run_op("cumsum", x, axis=axis, flatten=False)


@tensor_method
@param_alias(x="input")
def cumprod(x, dim=None, dtype=None, name=None):
    """Cumulative product along ``dim`` (None: over the flattened tensor); ``dtype`` casts x first."""
    _check(x, "cumprod")
    if dtype is not None:
        d = convert_dtype(dtype)
        if d != x.dtype:
            x = run_op("cast", x, in_dtype=x.dtype.proto, out_dtype=d.proto)
    if dim is None:
        x = run_op("reshape2", x, None, None, shape=[-1])
        dim = 0
    dim = _int_axis(dim, "cumprod")
    _check_axis(x, dim, "cumprod")
    return run_op("cumprod", x, dim=dim)


@tensor_method
def logsumexp(x, axis=None, keepdim=False, name=None):
    """log(sum(exp(x))) over ``axis`` (None: every axis), computed without overflow."""
    _check(x, "logsumexp")
    if axis is None:
        return run_op("logsumexp", x, axis=[], keepdim=bool(keepdim), reduce_all=True)
    if isinstance(axis, Tensor):
        axis = [int(v) for v in axis.numpy().reshape(-1)]
    axes = [axis] if not isinstance(axis, (list, tuple)) else list(axis)
    axes = [_int_axis(a, "logsumexp") for a in axes]
    for a in axes:
        _check_axis(x, a, "logsumexp")
    return run_op("logsumexp", x, axis=axes, keepdim=bool(keepdim), reduce_all=len(axes) == 0)


@tensor_method
def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of the same shape and dtype."""
    if is_var(inputs):
        inputs = [inputs]
    inputs = list(inputs)
    if not inputs:
        raise ValueError("add_n: inputs must be a non-empty list of Tensors, got an empty list")
    for i, t in enumerate(inputs):
        if not is_var(t):
            raise TypeError(f"add_n: inputs[{i}] must be a Tensor, got {type(t).__name__}")
    shape0, dtype0 = list(inputs[0].shape), inputs[0].dtype
    for i, t in enumerate(inputs[1:], 1):
        if list(t.shape) != shape0 or t.dtype != dtype0:
            raise ValueError(f"add_n: every input must have the shape and dtype of inputs[0] ({shape0}, "
                             f"{dtype0}), but inputs[{i}] has {list(t.shape)}, {t.dtype}")
    return run_op("sum", inputs)


# -- in-place forms ---------------------------------------------------------------------------
def _inplace(api, fn):
    def inplace(x, *args, **kwargs):
        from .manipulation import _rebind, check_inplace
        check_inplace(x, api)
        return _rebind(x, fn(x, *args, **kwargs))
    inplace.__name__ = inplace.__qualname__ = api
    inplace.__doc__ = f"In-place `{fn.__name__}`: ``x`` itself takes the result (and is returned)."
    return tensor_method(inplace)


exp_ = _inplace("exp_", exp)
log_ = _inplace("log_", log)
sqrt_ = _inplace("sqrt_", sqrt)
rsqrt_ = _inplace("rsqrt_", rsqrt)
square_ = _inplace("square_", square)
abs_ = _inplace("abs_", abs)
floor_ = _inplace("floor_", floor)
ceil_ = _inplace("ceil_", ceil)
round_ = _inplace("round_", round)
trunc_ = _inplace("trunc_", trunc)
sin_ = _inplace("sin_", sin)
cos_ = _inplace("cos_", cos)
tanh_ = _inplace("tanh_", tanh)
sigmoid_ = _inplace("sigmoid_", sigmoid)
reciprocal_ = _inplace("reciprocal_", reciprocal)
neg_ = _inplace("neg_", neg)
scale_ = _inplace("scale_", scale)
clip_ = _inplace("clip_", clip)
cumsum_ = _inplace("cumsum_", cumsum)
log1p_ = _inplace("log1p_", log1p)
expm1_ = _inplace("expm1_", expm1)
tan_ = _inplace("tan_", tan)
erf_ = _inplace("erf_", erf)
frac_ = _inplace("frac_", frac)
_pow_inplace = _inplace("pow_", pow)


@tensor_method
def pow_(x, y, name=None):
    """In-place ``pow`` with a Python int or float exponent (Paddle raises TypeError for anything else)."""
    if not isinstance(y, (int, float)):
        raise TypeError(f"y must be scalar type, but received: {type(y)} ")
    return _pow_inplace(x, y)
