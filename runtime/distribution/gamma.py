"""The Gamma distribution (shape ``concentration``, inverse scale ``rate``)."""
from __future__ import annotations

import runtime as paddle

from ..api._helpers import is_var
from ..framework import in_dynamic_mode
from .distribution import dtype_name
from .exponential_family import ExponentialFamily


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate): density rate^a x^(a-1) exp(-rate x) / Gamma(a)."""

    def __init__(self, concentration, rate):
        if not in_dynamic_mode():
            for arg, what in ((concentration, 'concentration'), (rate, 'rate')):
                if not isinstance(arg, float) and not is_var(arg):
                    raise TypeError(f"The type of '{what}' in Gamma must be float or Tensor, but received "
                                    f"{type(arg)}.")
        if self._validate_args(concentration, rate):
            self.concentration = concentration
            self.rate = rate
            self.dtype = dtype_name(concentration.dtype)
        else:
            [self.concentration, self.rate] = self._to_tensor(concentration, rate)
            self.dtype = paddle.get_default_dtype()
        super().__init__(self.concentration.shape)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def prob(self, value):
        return paddle.exp(self.log_prob(value))

    def log_prob(self, value):
        return (self.concentration * paddle.log(self.rate) + (self.concentration - 1) * paddle.log(value)
                - self.rate * value - paddle.lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - paddle.log(self.rate) + paddle.lgamma(self.concentration)
                + (1.0 - self.concentration) * paddle.digamma(self.concentration))

    def sample(self, shape=()):
        with paddle.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """standard_gamma(concentration) / rate: differentiable in ``rate``."""
        shape = list(self._extend_shape(tuple(shape)))
        return paddle.standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)

    def kl_divergence(self, other):
        if not isinstance(other, Gamma):
            raise TypeError(f'Expected type of other is Exponential, but got {type(other)}')
        t1 = other.concentration * paddle.log(self.rate / other.rate)
        t2 = paddle.lgamma(other.concentration) - paddle.lgamma(self.concentration)
        t3 = (self.concentration - other.concentration) * paddle.digamma(self.concentration)
        t4 = (other.rate - self.rate) * (self.concentration / self.rate)
        return t1 + t2 + t3 + t4

    def _natural_parameters(self):   # a method, not a property, as in Paddle 3.3.1
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return paddle.lgamma(x + 1) + (x + 1) * paddle.log(-y.reciprocal())
