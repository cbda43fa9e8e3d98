"""The Dirichlet distribution over the probability simplex."""
from __future__ import annotations

import math

import runtime as paddle

from .exponential_family import ExponentialFamily


def _dirichlet(concentration):
    """One Dirichlet sample per row of ``concentration``: normalised standard-Gamma draws (no gradient)."""
    with paddle.no_grad():
        g = paddle.standard_gamma(concentration)
        return g / g.sum(-1, keepdim=True)


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration): density prod x_i^(a_i - 1) / B(a) on the simplex (event shape [k])."""

    def __init__(self, concentration):
        if concentration.dim() < 1 or math.prod(concentration.shape) == 0:
            raise ValueError('`concentration` parameter must be at least one dimensional')
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:])

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self):
        c0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (c0 - self.concentration) / (c0.pow(2) * (c0 + 1))

    def sample(self, shape=()):
        shape = shape if isinstance(shape, tuple) else tuple(shape)
        return _dirichlet(self.concentration.expand(list(self._extend_shape(shape))))

    def prob(self, value):
        return paddle.exp(self.log_prob(value))

    def log_prob(self, value):
        return ((paddle.log(value) * (self.concentration - 1.0)).sum(-1)
                + paddle.lgamma(self.concentration.sum(-1)) - paddle.lgamma(self.concentration).sum(-1))

    def entropy(self):
        c0 = self.concentration.sum(-1)
        k = self.concentration.shape[-1]
        return (paddle.lgamma(self.concentration).sum(-1) - paddle.lgamma(c0) - (k - c0) * paddle.digamma(c0)
                - ((self.concentration - 1.0) * paddle.digamma(self.concentration)).sum(-1))

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - paddle.lgamma(x.sum(-1))
