"""The Geometric distribution: the number of failures before the first success."""
from __future__ import annotations

import numbers

import numpy as np

import runtime as paddle

from ..api._helpers import is_var
from .distribution import Distribution, noise_shape


def _check_k(k):
    if not isinstance(k, numbers.Integral) and not is_var(k):
        raise TypeError(f'Expected type of k is number.Real|framework.Variable|Value, but got {type(k)}')


class Geometric(Distribution):
    """Geometric(probs): P(k) = (1 - p)^k p for k = 0, 1, 2, ..."""

    def __init__(self, probs):
        if isinstance(probs, numbers.Real):
            probs = paddle.full(shape=[], fill_value=probs, dtype=paddle.float32)
        elif not is_var(probs):
            raise TypeError(f'Expected type of probs is Number.Real|Tensor|framework.Variable|Value, but got '
                            f'{type(probs)}')
        self.probs = probs
        super().__init__(tuple(probs.shape))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    @property
    def stddev(self):
        return paddle.sqrt(self.variance)

    def pmf(self, k):
        _check_k(k)
        return paddle.pow(1.0 - self.probs, k) * self.probs

    def log_pmf(self, k):
        _check_k(k)
        return paddle.log(self.pmf(k))

    def sample(self, shape=()):
        with paddle.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """floor(log u / log(1 - p)) (piecewise constant: its gradient is zero almost everywhere)."""
        u = paddle.uniform(shape=noise_shape(self.probs, tuple(shape)), min=float(np.finfo('float32').tiny),
                           max=1.0, dtype=self.probs.dtype)
        return paddle.floor(paddle.log(u) / paddle.log1p(-self.probs))

    def entropy(self):
        x = (1.0 - self.probs) * paddle.log(1.0 - self.probs)
        y = self.probs * paddle.log(self.probs)
        return -(x + y) / self.probs

    def cdf(self, k):
        _check_k(k)
        return 1.0 - paddle.pow(1.0 - self.probs, k + 1)

    def kl_divergence(self, other):
        if not isinstance(other, Geometric):
            raise TypeError(f'Exacted type of other is geometric.Geometric, but got {type(other)}')
        p, q = self.probs, other.probs
        return p * paddle.log(p / q) + (1.0 - p) * paddle.log((1.0 - p) / (1.0 - q))
