"""The Laplace (double exponential) distribution."""
from __future__ import annotations

import numbers

import numpy as np

import runtime as paddle

from ..api._helpers import is_var
from .distribution import Distribution, noise_shape


class Laplace(Distribution):
    """Laplace(loc, scale): density exp(-|x - loc| / scale) / (2 scale)."""

    def __init__(self, loc, scale):
        if not isinstance(loc, numbers.Real) and not is_var(loc):
            raise TypeError(f'Expected type of loc is Real|Variable, but got {type(loc)}')
        if not isinstance(scale, numbers.Real) and not is_var(scale):
            raise TypeError(f'Expected type of scale is Real|Variable, but got {type(scale)}')
        if isinstance(loc, numbers.Real):
            loc = paddle.full(shape=[], fill_value=loc)
        if isinstance(scale, numbers.Real):
            scale = paddle.full(shape=[], fill_value=scale)
        if (len(scale.shape) > 0 or len(loc.shape) > 0) and loc.dtype == scale.dtype:
            self.loc, self.scale = paddle.broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return 2 ** 0.5 * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def _validate_value(self, value):
        if isinstance(value, numbers.Real):
            value = paddle.full(shape=[], fill_value=value)
        if value.dtype != self.scale.dtype:
            value = paddle.cast(value, self.scale.dtype)
        if len(self.scale.shape) > 0 or len(self.loc.shape) > 0 or len(value.shape) > 0:
            return tuple(paddle.broadcast_tensors([self.loc, self.scale, value]))
        return self.loc, self.scale, value

    def log_prob(self, value):
        loc, scale, value = self._validate_value(value)
        return -paddle.log(2 * scale) - paddle.abs(value - loc) / scale

    def entropy(self):
        return 1 + paddle.log(2 * self.scale)

    def cdf(self, value):
        loc, scale, value = self._validate_value(value)
        return 0.5 - 0.5 * (value - loc).sign() * paddle.expm1(-(value - loc).abs() / scale)

    def icdf(self, value):
        loc, scale, value = self._validate_value(value)
        term = value - 0.5
        return loc - scale * term.sign() * paddle.log1p(-2 * term.abs())

    def sample(self, shape=()):
        with paddle.no_grad():
            return self.rsample(tuple(shape))

    def rsample(self, shape=()):
        """loc - scale * sign(u) * log(1 - |u|) for u uniform in (-1, 1)."""
        eps = self._get_eps()
        u = paddle.uniform(shape=noise_shape(self.loc + self.scale, tuple(shape)),
                           min=float(np.nextafter(-1, 1)) + eps / 2, max=1.0 - eps / 2,
                           dtype=self.loc.dtype)
        return self.loc - self.scale * u.sign() * paddle.log1p(-u.abs())

    def _get_eps(self):
        return 2.22045e-16 if self.loc.dtype == paddle.float64 else 1.19209e-07

    def kl_divergence(self, other):
        t = paddle.abs(self.loc - other.loc)
        term1 = (self.scale * paddle.exp(-t / self.scale) + t) / other.scale
        return term1 + paddle.log(other.scale / self.scale) - 1
