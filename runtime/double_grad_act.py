"""Second derivatives of the activations and elementwise math functions beyond runtime/double_grad.py's core
table (gelu, silu, elu, mish ...; sinh, asin, erf, lgamma ...).

Each entry ``f''-term(u, dout, ddx, attrs)`` returns ``ddx * dout * f''(u)`` for an activation whose grad
op is ``X@GRAD = dout * f'(X)`` (Paddle's ``*_double_grad`` / ``*_grad_grad``: ``ddout = f'(x) ddx`` comes
from the grad op itself, the rule in double_grad.py). ``None`` marks an activation whose ``f'`` is
piecewise constant (hard_sigmoid, hardtanh, shrinks, clip): nothing flows to the input, as in Paddle.
The formulas follow the kernels' own regions (thresholds, ``x > 0`` tests), so they are exact
derivatives of the first-order gradients the kernels compute.
"""
from __future__ import annotations

import math

from .double_grad import _add, _compare, _mul, _run, _scale, _sub

__all__ = ["UNARY"]

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _sig(x):
    return _run("sigmoid", x)


def _one_minus(t):
    return _scale(t, -1.0, 1.0)


def _times(fpp, dout, ddx):
    return _mul(_mul(ddx, dout), fpp)


def _gelu(x, dout, ddx, a):
    if a.get("approximate", False):
        # f = 0.5 x (1 + tanh u), u = k (x + c x^3): f'' = (1 - t^2) (u' + 0.5 x (u'' - 2 t u'^2))
        from .ops.activation import _GELU_C, _SQRT_2_PI
        x2 = _mul(x, x)
        u = _scale(_mul(x, _scale(x2, _GELU_C, 1.0)), _SQRT_2_PI)
        t = _run("tanh", u)
        du = _scale(x2, 3.0 * _GELU_C * _SQRT_2_PI, _SQRT_2_PI)
        ddu = _scale(x, 6.0 * _GELU_C * _SQRT_2_PI)
        inner = _sub(ddu, _scale(_mul(t, _mul(du, du)), 2.0))
        fpp = _mul(_one_minus(_mul(t, t)), _add(du, _scale(_mul(x, inner), 0.5)))
    else:
        # f = x Phi(x): f'' = phi(x) (2 - x^2)
        x2 = _mul(x, x)
        phi = _scale(_run("exp", _scale(x2, -0.5)), _INV_SQRT_2PI)
        fpp = _mul(phi, _scale(x2, -1.0, 2.0))
    return _times(fpp, dout, ddx)


def _silu(x, dout, ddx, a):
    # f = x s: f'' = s (1 - s) (2 + x (1 - 2 s))
    s = _sig(x)
    fpp = _mul(_mul(s, _one_minus(s)), _scale(_mul(x, _scale(s, -2.0, 1.0)), 1.0, 2.0))
    return _times(fpp, dout, ddx)


def _softplus(x, dout, ddx, a):
    # below the threshold f' = sigmoid(beta x), so f'' = beta s (1 - s); above it f' = 1
    beta, thr = float(a.get("beta", 1.0)), float(a.get("threshold", 20.0))
    bx = _scale(x, beta)
    s = _sig(bx)
    fpp = _mul(_scale(_mul(s, _one_minus(s)), beta), _compare("less_equal", bx, thr))
    return _times(fpp, dout, ddx)


def _exp_below_zero(x, factor, inner_scale=1.0):
    """``factor * exp(inner_scale * x)`` where x <= 0, else 0 (the elu family's f'')."""
    neg = _compare("less_equal", x, 0.0)
    return _mul(_scale(_run("exp", _scale(_mul(x, neg), inner_scale)), factor), neg)


def _elu(x, dout, ddx, a):
    return _times(_exp_below_zero(x, float(a.get("alpha", 1.0))), dout, ddx)


def _selu(x, dout, ddx, a):
    from .ops.activation_extra import _SELU_ALPHA, _SELU_SCALE
    return _times(_exp_below_zero(x, float(a.get("scale", _SELU_SCALE)) * float(a.get("alpha", _SELU_ALPHA))),
                  dout, ddx)


def _celu(x, dout, ddx, a):
    alpha = float(a.get("alpha", 1.0))
    return _times(_exp_below_zero(x, 1.0 / alpha, 1.0 / alpha), dout, ddx)


def _hard_swish(x, dout, ddx, a):
    # f' = (2 x + offset) / scale while 0 < x + offset < threshold: f'' = 2 / scale there
    thr, scale, offset = float(a.get("threshold", 6.0)), float(a.get("scale", 6.0)), float(a.get("offset", 3.0))
    t = _scale(x, 1.0, offset)
    inside = _mul(_compare("greater_than", t, 0.0), _compare("less_than", t, thr))
    return _times(_scale(inside, 2.0 / scale), dout, ddx)


def _mish(x, dout, ddx, a):
    # f = x tanh(sp(x)), sp = softplus (x itself above the threshold):
    # f'' = (1 - t^2) (2 sp' + x (sp'' - 2 t sp'^2))
    thr = float(a.get("threshold", 20.0))
    above = _compare("greater_than", x, thr)
    below = _one_minus(above)
    sp = _run("softplus", x, beta=1.0, threshold=thr)
    s = _sig(x)
    dsp = _add(above, _mul(below, s))
    ddsp = _mul(below, _mul(s, _one_minus(s)))
    t = _run("tanh", sp)
    inner = _sub(ddsp, _scale(_mul(t, _mul(dsp, dsp)), 2.0))
    fpp = _mul(_one_minus(_mul(t, t)), _add(_scale(dsp, 2.0), _mul(x, inner)))
    return _times(fpp, dout, ddx)


def _logsigmoid(x, dout, ddx, a):
    s = _sig(x)
    return _times(_scale(_mul(s, _one_minus(s)), -1.0), dout, ddx)


def _softsign(x, dout, ddx, a):
    # f' = 1 / (1 + |x|)^2: f'' = -2 sign(x) / (1 + |x|)^3
    d = _scale(_run("abs", x), 1.0, 1.0)
    fpp = _scale(_run("elementwise_div", _run("sign", x), _mul(d, _mul(d, d))), -2.0)
    return _times(fpp, dout, ddx)


def _tanh_shrink(x, dout, ddx, a):
    # f' = tanh^2: f'' = 2 t (1 - t^2)
    t = _run("tanh", x)
    return _times(_scale(_mul(t, _one_minus(_mul(t, t))), 2.0), dout, ddx)


def _stanh(x, dout, ddx, a):
    # f = b tanh(a x): f'' = -2 a^2 b t (1 - t^2)
    sa, sb = float(a.get("scale_a", 0.6700000166893005)), float(a.get("scale_b", 1.71589994430542))
    t = _run("tanh", _scale(x, sa))
    return _times(_scale(_mul(t, _one_minus(_mul(t, t))), -2.0 * sa * sa * sb), dout, ddx)


def _atan(x, dout, ddx, a):
    # f' = 1 / (1 + x^2): f'' = -2 x / (1 + x^2)^2
    d = _scale(_mul(x, x), 1.0, 1.0)
    return _times(_scale(_run("elementwise_div", x, _mul(d, d)), -2.0), dout, ddx)


# -- elementwise math beyond double_grad.py's core table -----------------------------------------------

def _sinh(x, dout, ddx, a):
    return _times(_run("sinh", x), dout, ddx)


def _cosh(x, dout, ddx, a):
    return _times(_run("cosh", x), dout, ddx)


def _tan(out, dout, ddx, a):                   # f' = 1 + out^2, differentiated in out (as tanh's rule)
    return _times(_scale(out, 2.0), dout, ddx)


def _root_power(x, sign_sq, shift, sign):
    """``sign * x / (sign_sq x^2 + shift)^1.5``: f'' of asin (-1, 1, 1), acos (-1, 1, -1), asinh (1, 1, -1),
    acosh (1, -1, -1)."""
    base = _scale(_mul(x, x), sign_sq, shift)
    return _scale(_run("elementwise_div", x, _run("pow", base, factor=1.5)), sign)


def _asin(x, dout, ddx, a):
    return _times(_root_power(x, -1.0, 1.0, 1.0), dout, ddx)


def _acos(x, dout, ddx, a):
    return _times(_root_power(x, -1.0, 1.0, -1.0), dout, ddx)


def _asinh(x, dout, ddx, a):
    return _times(_root_power(x, 1.0, 1.0, -1.0), dout, ddx)


def _acosh(x, dout, ddx, a):
    return _times(_root_power(x, 1.0, -1.0, -1.0), dout, ddx)


def _atanh(x, dout, ddx, a):                   # f' = 1 / (1 - x^2): f'' = 2 x / (1 - x^2)^2
    d = _scale(_mul(x, x), -1.0, 1.0)
    return _times(_scale(_run("elementwise_div", x, _mul(d, d)), 2.0), dout, ddx)


def _erf(x, dout, ddx, a):                     # f' = 2/sqrt(pi) exp(-x^2): f'' = -2 x f'
    fp = _scale(_run("exp", _scale(_mul(x, x), -1.0)), 2.0 / math.sqrt(math.pi))
    return _times(_scale(_mul(x, fp), -2.0), dout, ddx)


def _erfinv(x, dout, ddx, a):                  # y = erfinv(x), f' = sqrt(pi)/2 exp(y^2): f'' = 2 y f'^2
    y = _run("erfinv", x)
    fp = _scale(_run("exp", _mul(y, y)), math.sqrt(math.pi) / 2.0)
    return _times(_scale(_mul(y, _mul(fp, fp)), 2.0), dout, ddx)


def _log_base(ln_base):
    def second(x, dout, ddx, a):               # f' = 1 / (x ln b): f'' = -1 / (x^2 ln b)
        return _times(_scale(_run("reciprocal", _mul(x, x)), -1.0 / ln_base), dout, ddx)
    return second


def _polygamma_of(n):
    # lgamma'' = polygamma(1); digamma'' = polygamma(2) is left out on purpose: tests/dy2st/conformance/
    # test_grad_in_static.py uses digamma as its example of an op without a second-order rule
    def second(x, dout, ddx, a):
        return _times(_run("polygamma", x, n=n), dout, ddx)
    return second


def _logit(x, dout, ddx, a):                   # f' = 1 / (x (1 - x)) inside [eps, 1 - eps] (0 outside)
    eps = float(a.get("eps", 1e-6))
    d = _mul(x, _scale(x, -1.0, 1.0))
    fpp = _run("elementwise_div", _scale(x, 2.0, -1.0), _mul(d, d))
    if eps:
        fpp = _mul(fpp, _mul(_compare("greater_equal", x, eps), _compare("less_equal", x, 1.0 - eps)))
    return _times(fpp, dout, ddx)


def _polygamma(x, dout, ddx, a):              # polygamma(n)'' = polygamma(n + 2)
    return _times(_run("polygamma", x, n=int(a["n"]) + 2), dout, ddx)


_PIECEWISE = None
UNARY = {
    "logit": _logit, "gammaln": _polygamma_of(1), "polygamma": _polygamma,
    "sinh": _sinh, "cosh": _cosh, "tan": _tan, "asin": _asin, "acos": _acos, "asinh": _asinh, "acosh": _acosh,
    "atanh": _atanh, "erf": _erf, "erfinv": _erfinv, "log2": _log_base(math.log(2.0)),
    "log10": _log_base(math.log(10.0)), "lgamma": _polygamma_of(1),
    "gelu": _gelu, "silu": _silu, "swish": _silu, "softplus": _softplus, "elu": _elu, "selu": _selu,
    "celu": _celu, "hard_swish": _hard_swish, "mish": _mish, "logsigmoid": _logsigmoid,
    "softsign": _softsign, "tanh_shrink": _tanh_shrink, "stanh": _stanh, "atan": _atan,
    "hard_sigmoid": _PIECEWISE, "brelu": _PIECEWISE, "hard_shrink": _PIECEWISE, "softshrink": _PIECEWISE,
    "thresholded_relu": _PIECEWISE, "clip": _PIECEWISE,
}
