"""Elementwise math functions: logit, sinc, signbit, copysign, hypot, heaviside, fmax, fmin, nextafter,
ldexp, frexp, gcd, lcm, logaddexp, rad2deg, deg2rad, isneginf, isposinf, isreal, isin, bit shifts,
bitwise_invert, atan2 (paddle.X and Tensor.X) and the in-place forms Paddle 3.3.1 has.

Where Paddle composes a function from other ops (hypot, ldexp, frexp, gcd, logaddexp, sinc, isin ...)
so do we, with the same steps, so values, dtypes and gradients agree; the rest are one op each.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..dispatch import run_op
from ..tensor import Tensor, tensor_method
from ._helpers import is_var
from .inplace_extra import _make
from .manipulation import _paddle_version_count
from .param_alias import param_alias

__all__ = ["logit", "sinc", "signbit", "copysign", "hypot", "heaviside", "fmax", "fmin", "nextafter", "ldexp",
           "frexp", "gcd", "lcm", "logaddexp", "rad2deg", "deg2rad", "isneginf", "isposinf", "isreal", "isin",
           "bitwise_left_shift", "bitwise_right_shift", "bitwise_invert", "atan2",
           "logit_", "sinc_", "copysign_", "hypot_", "ldexp_", "gcd_", "lcm_", "bitwise_left_shift_",
           "bitwise_right_shift_", "bitwise_invert_"]
# Paddle's private helpers that model code calls as paddle.tensor.math._X_with_axis (the legacy elementwise
# ``axis`` attribute: y's dims line up with x's from ``axis``)
__all__ += ["_elementwise_op_with_axis", "_add_with_axis", "_subtract_with_axis", "_multiply_with_axis",
            "_divide_with_axis"]


def _P():
    import runtime
    return runtime


def _tensor(x, api, what="x"):
    if not is_var(x):
        raise TypeError(f"{api}: {what} must be a Tensor, got {type(x).__name__}")


def _tensor_arg(y, api):
    """Paddle's op binding refuses a Python number where a Tensor argument is required (a ValueError)."""
    if not is_var(y):
        raise ValueError(f"{api}(): argument 'y' (position 1) must be Tensor, but got {type(y).__name__}")


def _np_dtype(x):
    return x.dtype.np if hasattr(x.dtype, "np") else np.dtype(x.dtype)


@tensor_method
def logit(x, eps=None, name=None):
    """log(x / (1 - x)), with x first clipped to [eps, 1 - eps] when eps is given."""
    _tensor(x, "logit")
    return run_op("logit", x, eps=0.0 if eps is None else float(eps))


@tensor_method
def sinc(x, name=None):
    """sin(pi x) / (pi x), 1 at x = 0 (float tensors only)."""
    _tensor(x, "sinc")
    P = _P()
    if _np_dtype(x).kind != "f":
        raise TypeError(f"sinc: x must be a float16/float32/float64 tensor, got {_np_dtype(x).name}")
    tmp = P.where(x != 0, x, P.full_like(x, 1.0e-20))
    tmp = P.multiply(tmp, P.to_tensor(math.pi, dtype=x.dtype))
    tmp = P.divide(P.sin(tmp), tmp)
    return P.where(P.logical_not(P.isnan(tmp)), tmp, P.full_like(x, 1.0))


@tensor_method
def signbit(x, name=None):
    """True where the sign bit of x is set (negative numbers and -0.0)."""
    _tensor(x, "signbit")
    P = _P()
    if _np_dtype(x).kind not in "fiu":
        raise TypeError(f"signbit: x must be a float or integer tensor, got {_np_dtype(x).name}")
    neg_one_where_negative = run_op("copysign", P.full_like(x, 1), x)
    return P.less_than(P.sign(neg_one_where_negative), P.zeros_like(neg_one_where_negative))


@tensor_method
def copysign(x, y, name=None):
    """|x| with the sign of y (y may be a Python number); the gradient reaches x only."""
    _tensor(x, "copysign")
    P = _P()
    if isinstance(y, (int, float)) and not isinstance(y, bool):
        y = P.to_tensor(y, dtype=x.dtype)
    _tensor(y, "copysign", "y")
    out_shape = list(P.broadcast_shape(list(x.shape), list(y.shape)))
    if out_shape != list(x.shape):
        warnings.warn(f"The shape of broadcast output {out_shape} is different from the input tensor x with shape: "
                      f"{list(x.shape)}, please make sure you are using copysign api correctly.")
    return run_op("copysign", x, y)


@tensor_method
def hypot(x, y, name=None):
    """sqrt(x**2 + y**2), elementwise."""
    _tensor(x, "hypot")
    _tensor(y, "hypot", "y")
    P = _P()
    return P.sqrt(P.pow(x, 2) + P.pow(y, 2))


def _binary_op(op, api, doc):
    def fn(x, y, name=None):
        _tensor(x, api)
        _tensor_arg(y, api)
        return run_op(op, x, y)
    fn.__name__ = fn.__qualname__ = api
    fn.__doc__ = doc
    return tensor_method(fn)


heaviside = _binary_op("elementwise_heaviside", "heaviside",
                       "The Heaviside step: 0 where x < 0, y where x == 0, 1 where x > 0 (x and y of one dtype).")
fmax = _binary_op("elementwise_fmax", "fmax", "Elementwise maximum that ignores NaN (NaN only where both are NaN).")
fmin = _binary_op("elementwise_fmin", "fmin", "Elementwise minimum that ignores NaN (NaN only where both are NaN).")
nextafter = _binary_op("nextafter", "nextafter", "The next representable float after x towards y (no gradient).")


@tensor_method
def atan2(x, y, name=None):
    """arctan(x / y) in the quadrant of the point (y, x) (numpy's arctan2(x, y)); integers give float64."""
    _tensor(x, "atan2")
    _tensor(y, "atan2", "y")
    if list(x.shape) != list(y.shape):
        # Paddle's atan2 op wants equal shapes (its infer-shape refuses broadcasting): expand first
        P = _P()
        shape = P.broadcast_shape(list(x.shape), list(y.shape))
        x, y = P.broadcast_to(x, shape), P.broadcast_to(y, shape)
    return run_op("atan2", x, y)


def _float_dtype_for(x, y):
    P = _P()
    if _np_dtype(x) == np.float64 or _np_dtype(y) == np.float64:
        return "float64"
    return P.get_default_dtype()


@tensor_method
def ldexp(x, y, name=None):
    """x * 2**y, in float64 when either input is float64, else in the default float dtype."""
    if not is_var(x):
        raise TypeError(f"x must be tensor type, but got {type(x)}")
    if not is_var(y):
        raise TypeError(f"y must be tensor type, but got {type(y)}")
    P = _P()
    d = _float_dtype_for(x, y)
    x, y = P.cast(x, d), P.cast(y, d)
    return P.multiply(x, P.pow(P.to_tensor(2, dtype=d), y))


@tensor_method
def frexp(x, name=None):
    """(mantissa, exponent) with x = mantissa * 2**exponent, |mantissa| in [0.5, 1); float32/float64 only."""
    _tensor(x, "frexp")
    P = _P()
    if _np_dtype(x) not in (np.float32, np.float64):
        raise TypeError(f"The data type of input must be one of ['float32', 'float64'], but got {x.dtype}")
    ax = P.abs(x)
    exponent = P.floor(P.log2(ax))
    exponent = P.where(P.isinf(exponent), P.full_like(exponent, 0), exponent)
    mantissa = P.divide(ax, P.pow(P.full_like(exponent, 2), exponent))
    big = mantissa >= 1
    exponent = P.where(big, P.add(exponent, P.ones_like(exponent)), exponent)
    mantissa = P.where(big, P.divide(mantissa, P.full_like(mantissa, 2)), mantissa)
    mantissa = P.where(x < 0, mantissa * -1, mantissa)
    return mantissa, exponent


def _gcd_step(x, y):
    P = _P()
    nz = y != 0
    y_safe = P.where(nz, y, P.ones_like(y))
    x, y = P.where(nz, y, x), P.where(nz, P.mod(x, y_safe), P.zeros_like(y))
    return P.where(x < y, y, x), P.where(x < y, x, y)


@tensor_method
@param_alias(x="input", y="other")
def gcd(x, y, name=None):
    """The greatest common divisor of |x| and |y|, elementwise (Euclid's algorithm; gcd(0, 0) = 0)."""
    _tensor(x, "gcd")
    _tensor(y, "gcd", "y")
    P = _P()
    shape = P.broadcast_shape(list(x.shape), list(y.shape))
    x, y = P.abs(P.broadcast_to(x, shape)), P.abs(P.broadcast_to(y, shape))
    if isinstance(x, Tensor):
        while bool(P.any(y != 0)):
            x, y = _gcd_step(x, y)
        return x
    from ..static.control_flow import while_loop
    out, _ = while_loop(lambda a, b: P.any(b != 0), _gcd_step, [x, y])
    return out


@tensor_method
@param_alias(x="input", y="other")
def lcm(x, y, name=None):
    """The least common multiple of |x| and |y|, elementwise (0 when either is 0)."""
    P = _P()
    d = gcd(x, y)
    zero = P.equal(d, P.zeros_like(d))
    d_safe = P.where(zero, P.ones_like(d), d)
    return P.where(zero, P.zeros_like(d), P.floor_divide(P.abs(x * y), d_safe))


@tensor_method
def logaddexp(x, y, name=None):
    """log(exp(x) + exp(y)) without overflow: max(x, y) + log1p(exp(-|x - y|)); integers give float32."""
    P = _P()
    log_1p = P.log1p(P.exp(-P.abs(x - y)))
    m = P.maximum(x, y)
    if _np_dtype(m) in (np.int32, np.int64):
        m = P.cast(m, log_1p.dtype)
    return log_1p + m


def _angle_scale(x, factor, api):
    _tensor(x, api)
    P = _P()
    if _np_dtype(x) in (np.int32, np.int64):
        x = P.cast(x, "float32")
    return run_op("scale", x, scale=factor, bias=0.0, bias_after_scale=True)


@tensor_method
def rad2deg(x, name=None):
    """Radians to degrees (integer inputs give float32)."""
    return _angle_scale(x, 180 / np.pi, "rad2deg")


@tensor_method
def deg2rad(x, name=None):
    """Degrees to radians (integer inputs give float32)."""
    return _angle_scale(x, np.pi / 180.0, "deg2rad")


def _inf_test(x, api, negative):
    if not is_var(x):
        raise TypeError(f"x must be tensor type, but got {type(x)}")
    P = _P()
    if _np_dtype(x).kind not in "fiu":
        raise TypeError(f"{api}: x must be a float or integer tensor, got {_np_dtype(x).name}")
    sb = signbit(x)
    return P.logical_and(P.isinf(x), sb if negative else P.logical_not(sb))


@tensor_method
def isposinf(x, name=None):
    """True where x is +inf."""
    return _inf_test(x, "isposinf", False)


@tensor_method
def isneginf(x, name=None):
    """True where x is -inf."""
    return _inf_test(x, "isneginf", True)


@tensor_method
def isreal(x, name=None):
    """True where x has no imaginary part (everywhere for a real dtype)."""
    if not is_var(x):
        raise TypeError(f"x must be tensor type, but got {type(x)}")
    P = _P()
    if _np_dtype(x).kind != "c":
        return P.ones_like(x, dtype="bool")
    return P.equal(P.imag(x), P.zeros_like(P.imag(x)))


@tensor_method
@param_alias(x="elements", test_x="test_elements")
def isin(x, test_x, assume_unique=False, invert=False, name=None):
    """True where an element of x occurs in test_x (or does not, with invert=True).

    ``assume_unique`` is accepted for Paddle's signature; the result never depends on it here."""
    if not is_var(x):
        raise TypeError(f"x must be tensor type, but got {type(x)}")
    if not is_var(test_x):
        raise TypeError(f"x must be tensor type, but got {type(test_x)}")
    P = _P()
    zero_dim = len(x.shape) == 0
    if zero_dim:
        x = P.reshape(x, [1])
    size_x, size_t = math.prod(x.shape), math.prod(test_x.shape)
    if size_t < math.pow(size_x, 0.145) * 10.0:
        # few test values: compare every pair
        cmp = P.reshape(x, list(x.shape) + [1] * len(test_x.shape)) == test_x
        cmp = P.any(cmp, axis=list(range(-1, -len(test_x.shape) - 1, -1))) if len(test_x.shape) else cmp
    else:
        flat = P.flatten(x)
        srt = P.sort(P.flatten(test_x))
        idx = P.searchsorted(srt, flat)
        idx = P.where(idx < size_t, idx, P.zeros_like(idx))
        cmp = P.reshape(P.gather(srt, idx) == flat, list(x.shape))
    if invert:
        cmp = P.logical_not(cmp)
    return P.reshape(cmp, []) if zero_dim else cmp


def _shift(op, api):
    def fn(x, y, is_arithmetic=True, out=None, name=None):
        _tensor(x, api)
        _tensor_arg(y, api)
        res = run_op(op, x, y, is_arithmetic=bool(is_arithmetic))
        if out is not None:
            _P().assign(res, out)
            return out
        return res
    fn.__name__ = fn.__qualname__ = api
    fn.__doc__ = f"x {'<<' if 'left' in op else '>>'} y elementwise for integer tensors; is_arithmetic=False " \
                 "shifts the unsigned bit pattern. Shifts outside [0, bits) give 0 (-1 for x < 0 shifted right)."
    return tensor_method(fn)


bitwise_left_shift = _shift("bitwise_left_shift", "bitwise_left_shift")
bitwise_right_shift = _shift("bitwise_right_shift", "bitwise_right_shift")


@tensor_method
def bitwise_invert(x, out=None, name=None):
    """~x (the same as bitwise_not)."""
    return _P().bitwise_not(x, out=out)


# -- in-place forms ------------------------------------------------------------------------------

def _inplace(api, fn):
    made = _make(api, fn)
    tensor_method(made, name=api)
    return made


logit_ = _inplace("logit_", logit)
_sinc_into_x = _make("sinc_", sinc)


@tensor_method
def sinc_(x, name=None):
    """In-place ``sinc``: x takes the result; as in Paddle, the value returned is a new tensor equal to x."""
    return run_op("assign", _sinc_into_x(x))
copysign_ = _inplace("copysign_", copysign)
# Paddle's versions of these count 3, 2, 3 and 4 in-place steps in x.inplace_version
hypot_ = _paddle_version_count(_inplace("hypot_", hypot), 3)
ldexp_ = _paddle_version_count(_inplace("ldexp_", ldexp), 2)
gcd_ = _paddle_version_count(_inplace("gcd_", gcd), 3)
lcm_ = _paddle_version_count(_inplace("lcm_", lcm), 4)
bitwise_left_shift_ = _inplace("bitwise_left_shift_", bitwise_left_shift)
bitwise_right_shift_ = _inplace("bitwise_right_shift_", bitwise_right_shift)
bitwise_invert_ = _inplace("bitwise_invert_", bitwise_invert)


def _elementwise_op_with_axis(x, y, axis=-1, name=None, op_type="Undefined"):
    """Paddle's legacy ``elementwise_*(axis=k)``: the lower-rank operand is reshaped so its dims sit at
    ``axis`` of the other's (trailing 1s after), then the op broadcasts. As in Paddle, the shape for a
    lower-rank ``x`` is built from ``y``'s dims."""
    assert op_type in ["add", "subtract", "multiply", "divide"], (
        "op_name input error! _elementwise_op_with_axis is an inner function to replace "
        f"elementwise_add/sub/mul/div. Input op_name={op_type}, Expect op_name=[add|subtract|multiply|divide]\n")
    P = _P()
    op = getattr(P, op_type)
    x_shape, y_shape = list(x.shape), list(y.shape)
    if axis == -1 or len(x_shape) == len(y_shape):
        return op(x, y)
    if len(x_shape) > len(y_shape):
        padding = len(x_shape) - len(y_shape) - axis
        y = P.reshape(y, [1] * axis + y_shape + [1] * padding)
    else:
        padding = len(y_shape) - len(x_shape) - axis
        x = P.reshape(x, [1] * axis + y_shape + [1] * padding)
    return op(x, y)


def _add_with_axis(x, y, axis=-1, name=None):
    return _elementwise_op_with_axis(x, y, axis, name, "add")


def _subtract_with_axis(x, y, axis=-1, name=None):
    return _elementwise_op_with_axis(x, y, axis, name, "subtract")


def _multiply_with_axis(x, y, axis=-1, name=None):
    return _elementwise_op_with_axis(x, y, axis, name, "multiply")


def _divide_with_axis(x, y, axis=-1, name=None):
    return _elementwise_op_with_axis(x, y, axis, name, "divide")
