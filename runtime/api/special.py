"""Special functions: digamma, polygamma, lgamma, gammaln, multigammaln, gammainc, gammaincc, erfinv,
i0, i0e, i1, i1e (paddle.X and Tensor.X) and their in-place forms (digamma_ ... i0_, erfinv_ as a
Tensor method only, as in Paddle 3.3.1)."""
from __future__ import annotations

import math

import numpy as np

from ..dispatch import run_op
from ..tensor import Tensor, tensor_method
from ._helpers import is_var
from .inplace_extra import _make

__all__ = ["digamma", "polygamma", "lgamma", "gammaln", "multigammaln", "gammainc", "gammaincc", "erfinv",
           "i0", "i0e", "i1", "i1e",
           "digamma_", "polygamma_", "lgamma_", "gammaln_", "multigammaln_", "gammainc_", "gammaincc_", "i0_"]


def _check(x, api, what="x"):
    if not is_var(x):
        raise TypeError(f"{api}: {what} must be a Tensor, got {type(x).__name__}")


def _unary(op, api, doc):
    def fn(x, name=None):
        _check(x, api)
        return run_op(op, x)
    fn.__name__ = fn.__qualname__ = api
    fn.__doc__ = doc
    return tensor_method(fn)


digamma = _unary("digamma", "digamma", "The digamma function psi(x) = d/dx lgamma(x), elementwise "
                 "(integer inputs give float32).")
lgamma = _unary("lgamma", "lgamma", "log|Gamma(x)|, elementwise (integer inputs give float32; poles give inf).")
gammaln = _unary("gammaln", "gammaln", "log|Gamma(x)| for float tensors (Paddle's gammaln op: no integer kernel).")
erfinv = _unary("erfinv", "erfinv", "The inverse error function; +-inf at and beyond +-1.")
i0 = _unary("i0", "i0", "The modified Bessel function of the first kind, order 0.")
i0e = _unary("i0e", "i0e", "exp(-|x|) * i0(x), the exponentially scaled modified Bessel function of order 0.")
i1 = _unary("i1", "i1", "The modified Bessel function of the first kind, order 1.")
i1e = _unary("i1e", "i1e", "exp(-|x|) * i1(x), the exponentially scaled modified Bessel function of order 1.")


def _order(n, api):
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"The input of n must be int type, but received: {type(n)} ")
    if n < 0:
        raise ValueError(f"The input of n must be greater than or equal to 0. But received n = {n}")
    return n


@tensor_method
def polygamma(x, n, name=None):
    """The n-th derivative of digamma, elementwise (n = 0 is digamma itself)."""
    _check(x, "polygamma")
    n = _order(n, "polygamma")
    if n == 0:
        return run_op("digamma", x)
    return run_op("polygamma", x, n=n)


@tensor_method
def gammaincc(x, y, name=None):
    """The regularized upper incomplete gamma function Q(x, y) (x, y >= 0; gradient to y only)."""
    _check(x, "gammaincc")
    _check(y, "gammaincc", "y")
    if isinstance(x, Tensor) and isinstance(y, Tensor):   # Paddle checks the values eagerly
        if not bool(np.all(x.numpy() >= 0)):
            raise ValueError("The input argument x must be greater than or equal to 0.")
        if not bool(np.all(y.numpy() >= 0)):
            raise ValueError("The input argument y must be greater than or equal to 0.")
    return run_op("gammaincc", x, y)


@tensor_method
def gammainc(x, y, name=None):
    """The regularized lower incomplete gamma function P(x, y) = 1 - Q(x, y)."""
    q = gammaincc(x, y)
    return run_op("scale", q, scale=-1.0, bias=1.0, bias_after_scale=True)


@tensor_method
def multigammaln(x, p, name=None):
    """The log of the multivariate gamma function of dimension ``p``:
    p(p-1)/4 log(pi) + sum_{j<p} lgamma(x - j/2)."""
    _check(x, "multigammaln")
    if not p >= 1:
        raise AssertionError(f"The p must be greater than or equal to 1, But received p is {p}.\n")
    from .creation import arange
    from .manipulation import unsqueeze
    from .reduction import sum as _sum
    c = 0.25 * p * (p - 1) * math.log(math.pi)
    b = run_op("scale", arange(1 - p, 1, 1, dtype=x.dtype), scale=0.5, bias=0.0, bias_after_scale=True)
    total = _sum(run_op("lgamma", unsqueeze(x, -1) + b), axis=-1)
    return run_op("scale", total, scale=1.0, bias=float(c), bias_after_scale=True)


# -- in-place forms ------------------------------------------------------------------------------

def _inplace(api, fn):
    made = _make(api, fn)
    tensor_method(made, name=api)
    return made


digamma_ = _inplace("digamma_", digamma)
polygamma_ = _inplace("polygamma_", polygamma)
lgamma_ = _inplace("lgamma_", lgamma)
gammaln_ = _inplace("gammaln_", gammaln)
multigammaln_ = _inplace("multigammaln_", multigammaln)
gammainc_ = _inplace("gammainc_", gammainc)
gammaincc_ = _inplace("gammaincc_", gammaincc)
i0_ = _inplace("i0_", i0)
_inplace("erfinv_", erfinv)     # Tensor.erfinv_ only: Paddle 3.3.1 has no paddle.erfinv_
