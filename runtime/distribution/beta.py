"""The Beta distribution on (0, 1), built on a two-component Dirichlet."""
from __future__ import annotations

import numbers

import runtime as paddle

from .dirichlet import Dirichlet
from .exponential_family import ExponentialFamily


class Beta(ExponentialFamily):
    """Beta(alpha, beta): density x^(alpha-1) (1-x)^(beta-1) / B(alpha, beta)."""

    def __init__(self, alpha, beta):
        if isinstance(alpha, numbers.Real):
            alpha = paddle.full(shape=[], fill_value=alpha)
        if isinstance(beta, numbers.Real):
            beta = paddle.full(shape=[], fill_value=beta)
        self.alpha, self.beta = paddle.broadcast_tensors([alpha, beta])
        self._dirichlet = Dirichlet(paddle.stack([self.alpha, self.beta], -1))
        super().__init__(self._dirichlet._batch_shape)

    @property
    def mean(self):
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        total = self.alpha + self.beta
        return self.alpha * self.beta / (total.pow(2) * (total + 1))

    def prob(self, value):
        return paddle.exp(self.log_prob(value))

    def log_prob(self, value):
        return self._dirichlet.log_prob(paddle.stack([value, 1.0 - value], -1))

    def sample(self, shape=()):
        shape = shape if isinstance(shape, tuple) else tuple(shape)
        return paddle.squeeze(self._dirichlet.sample(shape)[..., 0], axis=-1)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return paddle.lgamma(x) + paddle.lgamma(y) - paddle.lgamma(x + y)
