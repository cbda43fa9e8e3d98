"""The Student's t distribution (degrees of freedom ``df``, location ``loc``, scale ``scale``)."""
from __future__ import annotations

import math

import runtime as paddle

from ..api._helpers import is_var
from ..framework import in_dynamic_mode
from .distribution import Distribution, noise_shape
from .gamma import Gamma


class StudentT(Distribution):
    """StudentT(df, loc, scale); sampling is normal / sqrt(chi2 / df)."""

    def __init__(self, df, loc, scale, name=None):
        if not in_dynamic_mode():
            for arg, what in ((df, 'df'), (loc, 'loc'), (scale, 'scale')):
                if not isinstance(arg, float) and not is_var(arg):
                    raise TypeError(f"The type of '{what}' in StudentT must be float or Tensor, but received "
                                    f"{type(arg)}.")
        self.name = name if name is not None else 'StudentT'
        self.df, self.loc, self.scale = self._broadcast_all(df, loc, scale)
        if in_dynamic_mode():
            if not bool((self.df >= 0.0).all()):
                raise ValueError('Every element of input parameter `df` should be nonnegative.')
            if not bool((self.scale >= 0.0).all()):
                raise ValueError('Every element of input parameter `scale` should be nonnegative.')
        super().__init__(self.df.shape)
        self._chi2 = Gamma(0.5 * self.df, paddle.full_like(self.df, 0.5))

    @property
    def mean(self):
        return paddle.where(self.df > 1.0, self.loc, paddle.full_like(self.loc, fill_value=float('nan')))

    @property
    def variance(self):
        var = self.df.clone().detach()
        var = paddle.where(self.df > 2.0, self.scale.pow(2) * var / (var - 2),
                           paddle.full_like(var, fill_value=float('nan')))
        inf_condition = (self.df <= 2.0).logical_and(self.df > 1.0)
        return paddle.where(inf_condition, paddle.full_like(var, fill_value=float('inf')), var)

    def sample(self, shape=()):
        if not isinstance(shape, (list, tuple)):
            raise TypeError('sample shape must be Sequence object.')
        with paddle.no_grad():
            z = paddle.randn(noise_shape(self.df, tuple(shape)), dtype=self.df.dtype)
            chi2 = self._chi2.sample(shape)
            return self.loc + self.scale * (z * paddle.rsqrt(chi2 / self.df))

    def entropy(self):
        lbeta = paddle.lgamma(0.5 * self.df) + math.lgamma(0.5) - paddle.lgamma(0.5 * (self.df + 1))
        return (self.scale.log() + 0.5 * (self.df + 1) * (paddle.digamma(0.5 * (self.df + 1))
                                                         - paddle.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.df, value)
        y = (value - self.loc) / self.scale
        Z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + paddle.lgamma(0.5 * self.df)
             - paddle.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * paddle.log1p(y ** 2.0 / self.df) - Z

    def prob(self, value):
        return paddle.exp(self.log_prob(value))
