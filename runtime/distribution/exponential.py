"""The Exponential distribution with rate ``rate``."""
from __future__ import annotations

import numpy as np

import runtime as paddle

from ..api._helpers import is_var
from ..framework import in_dynamic_mode
from .distribution import dtype_name, noise_shape
from .exponential_family import ExponentialFamily


class Exponential(ExponentialFamily):
    """Exponential(rate): density rate * exp(-rate x) on x >= 0."""

    def __init__(self, rate):
        if not in_dynamic_mode() and not isinstance(rate, float) and not is_var(rate):
            raise TypeError(f"The type of 'rate' in Exponential must be float or Tensor, but received "
                            f"{type(rate)}.")
        if self._validate_args(rate):
            self.rate = rate
            self.dtype = dtype_name(rate.dtype)
        else:
            [self.rate] = self._to_tensor(rate)
            self.dtype = paddle.get_default_dtype()
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def sample(self, shape=()):
        with paddle.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """-log(u) / rate for uniform u in (tiny, 1)."""
        u = paddle.uniform(shape=noise_shape(self.rate, tuple(shape)), min=float(np.finfo('float32').tiny),
                           max=1.0, dtype=self.rate.dtype)
        return -paddle.log(u) / self.rate

    def prob(self, value):
        return self.rate * paddle.exp(-self.rate * value)

    def log_prob(self, value):
        return paddle.log(self.rate) - self.rate * value

    def entropy(self):
        return 1.0 - paddle.log(self.rate)

    def cdf(self, value):
        return 1.0 - paddle.exp(-self.rate * value)

    def icdf(self, value):
        return -paddle.log1p(-value) / self.rate

    def kl_divergence(self, other):
        if not isinstance(other, Exponential):
            raise TypeError(f'Expected type of other is Exponential, but got {type(other)}')
        rate_ratio = other.rate / self.rate
        return -paddle.log(rate_ratio) + rate_ratio - 1

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -paddle.log(-x)
