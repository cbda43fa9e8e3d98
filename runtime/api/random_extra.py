"""Random sampling beyond uniform/normal: poisson, binomial, standard_gamma, log_normal, and the in-place
fills Tensor.exponential_ / bernoulli_ / cauchy_ / geometric_ / log_normal_ / random_ (eager tensors).

Every sample comes from `runtime.random.generator`, so ``paddle.seed(s)`` makes them repeatable; the
numbers differ from Paddle's own generator (same distributions, different streams).
"""
from __future__ import annotations

import numbers

import numpy as np

from ..autograd import freeze_inputs
from ..dispatch import run_op
from ..random import generator as _generator
from ..tensor import Tensor, tensor_method
from ._helpers import is_var
from .manipulation import check_inplace
from .math import exp
from .random import normal
from .param_alias import param_alias

# exponential_ and random_ are Tensor methods only, as in Paddle
__all__ = ["poisson", "binomial", "standard_gamma", "log_normal", "log_normal_", "bernoulli_", "cauchy_",
           "geometric_", "normal_"]


def _float_tensor(x, op, what="x", dtypes=("float32", "float64")):
    if not is_var(x):
        raise TypeError(f"{op}: {what} must be a Tensor, got {type(x).__name__}")
    if x.dtype.name not in dtypes:
        raise TypeError(f"{op}: {what} must have dtype {' or '.join(dtypes)}, got {x.dtype.name}")
    return x


def poisson(x, name=None):
    """A Poisson sample for each rate in ``x`` (same shape and dtype)."""
    return run_op("poisson", _float_tensor(x, "poisson"))


def standard_gamma(x, name=None):
    """A Gamma(concentration, 1) sample for each concentration in ``x``."""
    return run_op("standard_gamma", _float_tensor(x, "standard_gamma"))


def binomial(count, prob, name=None):
    """The number of successes in ``count`` trials of probability ``prob`` (broadcast; int64).

    As in Paddle, ``count`` is cast to ``prob``'s dtype before the op (whose ``count`` input has prob's dtype,
    as Paddle's kernel reads it), so any real ``count`` dtype is accepted."""
    if not is_var(count) or count.dtype.np.kind not in "biuf":
        raise TypeError("binomial: count must be a Tensor of a bool, integer or floating-point dtype, got "
                        f"{count.dtype.name if is_var(count) else type(count).__name__}")
    _float_tensor(prob, "binomial", "prob", ("float16", "float32", "float64"))
    from .manipulation import broadcast_tensors
    if count.dtype != prob.dtype:
        count = run_op("cast", count, in_dtype=count.dtype.proto, out_dtype=prob.dtype.proto)
    count, prob = broadcast_tensors([count, prob])
    out = run_op("binomial", count, prob)
    out.stop_gradient = True
    return out


def log_normal(mean=1.0, std=2.0, shape=None, name=None):
    """``exp`` of normal samples with the given ``mean`` and ``std`` (of the underlying normal)."""
    return exp(normal(mean=mean, std=std, shape=shape))


# -- in-place fills --------------------------------------------------------------------------------

def _eager(x, op):
    if not isinstance(x, Tensor):
        raise NotImplementedError(f"Tensor.{op} is not supported on static Variables; use the out-of-place "
                                  "sampling functions (paddle.uniform, paddle.normal ...)")
    check_inplace(x, op)


def _refill(x, values, versions=1):
    """``x`` takes ``values`` in place; the new values do not depend on the old ones (no grad path).
    ``versions`` is what Paddle 3.3.1 adds to ``x.inplace_version`` for the call (measured: its fills
    are built from several in-place steps)."""
    freeze_inputs(x)
    x._data = np.ascontiguousarray(values, dtype=x._data.dtype)
    x._node = None
    x._version = x.inplace_version + versions
    return x


def _uniform_like(x, low=0.0, high=1.0):
    return _generator(0).uniform(low, high, x.shape)


def _float_x(x, op):
    if x.dtype.np.kind != "f":
        raise TypeError(f"{op}: x must be a floating-point tensor, got {x.dtype.name}")


def normal_(x, mean=0.0, std=1.0, name=None):
    """Fill ``x`` in place with N(``mean``, ``std``) samples (``paddle.normal_``; also ``x.normal_()``)."""
    _eager(x, "normal_")
    _float_x(x, "normal_")
    return x.normal_(mean, std)


@tensor_method
@param_alias(lam="lambd")
def exponential_(x, lam=1.0, name=None):
    """Fill ``x`` in place with Exponential(``lam``) samples (density lam * exp(-lam * v))."""
    _eager(x, "exponential_")
    out = run_op("exponential", x, **{"lambda": float(lam)})
    return _refill(x, out._data, versions=0)


@tensor_method
def bernoulli_(x, p=0.5, name=None):
    """Fill ``x`` in place with 0/1 samples that are 1 with probability ``p`` (a number or a tensor
    broadcast to x's shape)."""
    _eager(x, "bernoulli_")
    prob = p.numpy() if isinstance(p, Tensor) else np.asarray(p, dtype=np.float64)
    if prob.size and (np.min(prob) < 0 or np.max(prob) > 1):
        raise ValueError(f"bernoulli_: p must be in [0, 1], got {p!r}")
    u = _uniform_like(x)
    return _refill(x, (u < np.broadcast_to(prob, x.shape)).astype(x.dtype.np), versions=3)


@tensor_method
def cauchy_(x, loc=0, scale=1, name=None):
    """Fill ``x`` in place with Cauchy(``loc``, ``scale``) samples: loc + scale * tan(pi * (u - 1/2))."""
    _eager(x, "cauchy_")
    _float_x(x, "cauchy_")
    u = _uniform_like(x)
    return _refill(x, float(loc) + float(scale) * np.tan(np.pi * (u - 0.5)), versions=6)


@tensor_method
def geometric_(x, probs, name=None):
    """Fill ``x`` in place as Paddle does: ``log(u) / log1p(-probs)`` for u uniform in (tiny, 1) (the
    continuous form; floor it plus one for integer trial counts)."""
    _eager(x, "geometric_")
    _float_x(x, "geometric_")
    p = probs.numpy() if isinstance(probs, Tensor) else np.asarray(probs, dtype=np.float64)
    if p.size and (np.min(p) <= 0 or np.max(p) >= 1):
        raise ValueError(f"geometric_: probs must be in (0, 1), got {probs!r}")
    u = _uniform_like(x, float(np.finfo(x.dtype.np).tiny), 1.0)
    return _refill(x, np.log(u) / np.log1p(-p), versions=3)


@tensor_method
def log_normal_(x, mean=1.0, std=2.0, name=None):
    """Fill ``x`` in place with exp(N(``mean``, ``std``)) samples."""
    _eager(x, "log_normal_")
    _float_x(x, "log_normal_")
    return _refill(x, np.exp(_generator(0).normal(float(mean), float(std), x.shape)), versions=2)


@tensor_method
def random_(x, from_=0, to=None, *, generator=None):
    """Fill ``x`` in place with integers uniform in [from_, to) (to defaults to 2**mantissa for floats,
    the dtype's max for ints)."""
    _eager(x, "random_")
    d = x.dtype.np
    for v, what in ((from_, "from_"), (to, "to")):
        if v is not None and (not isinstance(v, (numbers.Integral, np.integer)) or isinstance(v, bool)):
            raise TypeError(f"random_: {what} must be an int, got {v!r}")
    if to is None:
        if from_ == 0:
            to = 2 ** {np.dtype(np.float16): 11, np.dtype(np.float32): 24, np.dtype(np.float64): 53}[d] \
                if d.kind == "f" else int(np.iinfo(d).max)
        else:
            from_, to = 0, from_
    if from_ >= to:
        raise ValueError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    if d.kind == "b":
        raise TypeError("random_: x must be a numeric tensor, got bool")
    return _refill(x, _generator(0).integers(int(from_), int(to), x.shape, dtype=np.int64, endpoint=False))
