"""kl_divergence(p, q) dispatched on the classes of p and q; register_kl adds rules."""
from __future__ import annotations

import functools
import warnings

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution, sum_rightmost
from .exponential import Exponential
from .exponential_family import ExponentialFamily, grad_of_log_normalizer
from .gamma import Gamma
from .geometric import Geometric
from .laplace import Laplace
from .lognormal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson import Poisson
from .uniform import Uniform

__all__ = ['register_kl', 'kl_divergence']

_REGISTER_TABLE = {}


def kl_divergence(p, q):
    """KL(p || q) by the rule registered for the most specific pair of base classes of p and q."""
    return _dispatch(type(p), type(q))(p, q)


def register_kl(cls_p, cls_q):
    """Decorator registering ``f(p, q)`` as the KL rule for instances of ``cls_p`` and ``cls_q``."""
    if not isinstance(cls_p, type) or not isinstance(cls_q, type) or not issubclass(cls_p, Distribution) \
            or not issubclass(cls_q, Distribution):
        raise TypeError('cls_p and cls_q must be subclass of Distribution')

    def decorator(f):
        _REGISTER_TABLE[cls_p, cls_q] = f
        return f
    return decorator


def _dispatch(cls_p, cls_q):
    matches = [(sp, sq) for sp, sq in _REGISTER_TABLE if issubclass(cls_p, sp) and issubclass(cls_q, sq)]
    if not matches:
        raise NotImplementedError(f"No KL(p || q) is registered for p: {cls_p.__name__}, q: {cls_q.__name__}; "
                                  f"register one with paddle.distribution.register_kl")
    left_p, left_q = min(_Compare(*m) for m in matches).classes
    # (Paddle 3.3.1 unpacks this pair unswapped and then raises KeyError for asymmetric registrations)
    right_q, right_p = min(_Compare(*reversed(m)) for m in matches).classes
    if _REGISTER_TABLE[left_p, left_q] is not _REGISTER_TABLE[right_p, right_q]:
        warnings.warn(f'Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}). '
                      f'Please register_kl({left_p.__name__}, {right_q.__name__})', RuntimeWarning)
    return _REGISTER_TABLE[left_p, left_q]


@functools.total_ordering
class _Compare:
    """Orders class pairs so that the most derived (most specific) pair is the minimum."""

    def __init__(self, *classes):
        self.classes = classes

    def __eq__(self, other):
        return self.classes == other.classes

    def __le__(self, other):
        for x, y in zip(self.classes, other.classes):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _by_method(p, q):
    return p.kl_divergence(q)


for _cls in (Bernoulli, Binomial, Categorical, Cauchy, ContinuousBernoulli, Normal, MultivariateNormal, Uniform,
             Laplace, Geometric, Exponential, Gamma, Poisson):
    register_kl(_cls, _cls)(_by_method)
del _cls


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_p, sum_q = p.alpha + p.beta, q.alpha + q.beta
    return (q.alpha.lgamma() + q.beta.lgamma() + sum_p.lgamma()
            - (p.alpha.lgamma() + p.beta.lgamma() + sum_q.lgamma())
            + (p.alpha - q.alpha) * p.alpha.digamma() + (p.beta - q.beta) * p.beta.digamma()
            + (sum_q - sum_p) * sum_p.digamma())


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    cp, cq = p.concentration, q.concentration
    return (cp.sum(-1).lgamma() - cq.sum(-1).lgamma() - (cp.lgamma() - cq.lgamma()).sum(-1)
            + ((cp - cq) * (cp.digamma() - cp.sum(-1).digamma().unsqueeze(-1))).sum(-1))


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log-normaliser, for two members of the same family."""
    if type(p) is not type(q):
        raise NotImplementedError(f"No KL(p || q) is registered for p: {type(p).__name__}, q: {type(q).__name__}")
    p_params = []
    for param in p._natural_parameters:
        param = param.detach()
        param.stop_gradient = False
        p_params.append(param)
    q_params = q._natural_parameters
    p_log_norm = p._log_normalizer(*p_params)
    try:
        p_grads = grad_of_log_normalizer(p_log_norm, p_params)
    except RuntimeError as e:
        raise TypeError(f"Can't compute kl_divergence({type(p).__name__}, {type(q).__name__}) use bregman "
                        f"divergence. Please register_kl({type(p).__name__}, {type(q).__name__}).") from e
    kl = q._log_normalizer(*q_params) - p_log_norm
    for p_param, q_param, p_grad in zip(p_params, q_params, p_grads):
        kl -= sum_rightmost((q_param - p_param) * p_grad, len(q.event_shape))
    return kl


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return p._base.kl_divergence(q._base)
