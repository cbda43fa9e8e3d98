"""The Gumbel (type-I extreme value) distribution."""
from __future__ import annotations

import math
import numbers

import numpy as np

import runtime as paddle

from ..api._helpers import is_var
from .transform import AffineTransform, ExpTransform
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform


class Gumbel(TransformedDistribution):
    """Gumbel(loc, scale): cdf exp(-exp(-(x - loc) / scale))."""

    def __init__(self, loc, scale):
        if not isinstance(loc, numbers.Real) and not is_var(loc):
            raise TypeError(f'Expected type of loc is Real|Variable|Value, but got {type(loc)}')
        if not isinstance(scale, numbers.Real) and not is_var(scale):
            raise TypeError(f'Expected type of scale is Real|Variable|Value, but got {type(scale)}')
        if isinstance(loc, numbers.Real):
            loc = paddle.full(shape=[], fill_value=loc)
        if isinstance(scale, numbers.Real):
            scale = paddle.full(shape=[], fill_value=scale)
        if list(loc.shape) != list(scale.shape):
            self.loc, self.scale = paddle.broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        finfo = np.finfo('float32')
        self.base_dist = Uniform(paddle.full_like(self.loc, float(finfo.tiny)),
                                 paddle.full_like(self.loc, float(1 - finfo.eps)))
        self.transforms = ()
        super().__init__(self.base_dist, self.transforms)

    @property
    def mean(self):
        return self.loc + self.scale * np.euler_gamma

    @property
    def variance(self):
        return paddle.pow(self.scale, 2) * paddle.full(self.loc.shape, math.pi * math.pi, dtype=self.scale.dtype) / 6

    @property
    def stddev(self):
        return paddle.sqrt(self.variance)

    def prob(self, value):
        y = (self.loc - value.astype(self.loc.dtype)) / self.scale.astype(self.loc.dtype)
        return paddle.exp(y - paddle.exp(y)) / self.scale.astype(y.dtype)

    def log_prob(self, value):
        return paddle.log(self.prob(value))

    def cdf(self, value):
        return paddle.exp(-paddle.exp(-(value - self.loc.astype(value.dtype)) / self.scale.astype(value.dtype)))

    def entropy(self):
        return paddle.log(self.scale) + 1 + np.euler_gamma

    def sample(self, shape=()):
        with paddle.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """loc - scale * log(-log u) for u ~ Uniform(tiny, 1 - eps)."""
        exp_t = ExpTransform()
        negate = AffineTransform(paddle.zeros(self.scale.shape, dtype=self.loc.dtype), -paddle.ones_like(self.scale))
        outer = AffineTransform(self.loc, -self.scale)
        return outer.forward(exp_t.inverse(negate.forward(exp_t.inverse(self._base.sample(shape)))))
