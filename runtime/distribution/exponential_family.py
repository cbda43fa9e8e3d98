"""ExponentialFamily: entropy (and Bregman-divergence KL) from the natural parameters and log-normaliser."""
from __future__ import annotations

import runtime as paddle

from ..framework import in_dynamic_mode
from .distribution import Distribution


def grad_of_log_normalizer(log_norm, params):
    """d log_norm / d params, differentiable (eager: create_graph; static: appended backward ops)."""
    if in_dynamic_mode():
        return paddle.grad(log_norm, params, create_graph=True)
    return paddle.static.gradients(log_norm, params)


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions p(x) = h(x) exp(<eta, t(x)> - F(eta)).

    Subclasses give ``_natural_parameters`` (eta), ``_log_normalizer`` (F) and ``_mean_carrier_measure``
    (E[log h(x)]); the entropy is then F(eta) - <eta, grad F(eta)> - E[log h(x)].
    """

    @property
    def _natural_parameters(self):
        raise NotImplementedError

    def _log_normalizer(self):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """Entropy from the Bregman identity (differentiable with respect to the parameters)."""
        entropy_value = -self._mean_carrier_measure
        natural_parameters = []
        for parameter in self._natural_parameters:
            parameter = parameter.detach()
            parameter.stop_gradient = False
            natural_parameters.append(parameter)
        log_norm = self._log_normalizer(*natural_parameters)
        grads = grad_of_log_normalizer(log_norm.sum(), natural_parameters)
        entropy_value += log_norm
        for p, g in zip(natural_parameters, grads):
            entropy_value -= p * g
        return entropy_value
