"""The Poisson distribution."""
from __future__ import annotations

import runtime as paddle

from ..framework import in_dynamic_mode
from .distribution import Distribution, dtype_name


class Poisson(Distribution):
    """Poisson(rate): P(k) = rate^k exp(-rate) / k!. Entropy and KL sum over a bounded support."""

    def __init__(self, rate):
        self.dtype = paddle.get_default_dtype()
        self.rate = self._to_tensor(rate)
        super().__init__(self.rate.shape)

    def _to_tensor(self, rate):
        if isinstance(rate, (float, int)):
            return paddle.to_tensor([rate], dtype=self.dtype)
        self.dtype = dtype_name(rate.dtype)
        return rate

    @property
    def mean(self):
        return self.rate

    @property
    def variance(self):
        return self.rate

    def sample(self, shape=()):
        if not isinstance(shape, (list, tuple)):
            raise TypeError('sample shape must be Sequence object.')
        out_shape = list(tuple(shape) + tuple(self.batch_shape))
        with paddle.no_grad():
            return paddle.poisson(paddle.broadcast_to(self.rate, shape=out_shape))

    def entropy(self):
        values = self._enumerate_bounded_support(self.rate).reshape((-1,) + (1,) * len(self.batch_shape))
        log_prob = self.log_prob(values)
        proposed = -(paddle.exp(log_prob) * log_prob).sum(0)
        mask = paddle.cast(paddle.not_equal(self.rate, paddle.to_tensor(0.0, dtype=self.dtype)), dtype=self.dtype)
        return proposed * mask

    def _enumerate_bounded_support(self, rate):
        """0 .. max(rate + 30 sqrt(max rate)) (+30 when the rates are below 1); a run-time length in static mode."""
        rmax = paddle.max(rate)
        s_max = paddle.where(rmax >= 1.0, paddle.sqrt(rmax), paddle.ones_like(rmax))
        upper = paddle.max(paddle.cast(rate + 30 * s_max, dtype='int32'))
        return paddle.arange(0, int(upper) if in_dynamic_mode() else upper, dtype=self.dtype)

    def log_prob(self, value):
        value = paddle.cast(value, dtype=self.dtype)
        eps = float(paddle.finfo(self.rate.dtype).eps)
        return paddle.nan_to_num(-self.rate + value * paddle.log(self.rate) - paddle.lgamma(value + 1), neginf=-eps)

    def prob(self, value):
        return paddle.exp(self.log_prob(value))

    def kl_divergence(self, other):
        if self.batch_shape != other.batch_shape:
            raise ValueError('KL divergence of two poisson distributions should share the same `batch_shape`.')
        rate_max = paddle.max(paddle.maximum(self.rate, other.rate))
        a_max = paddle.max(self._enumerate_bounded_support(rate_max))
        a_max = int(a_max) if in_dynamic_mode() else a_max
        support = paddle.arange(0, a_max, dtype=self.dtype).reshape((-1,) + (1,) * len(self.batch_shape))
        log_prob_1 = self.log_prob(support)
        log_prob_2 = other.log_prob(support)
        return (paddle.exp(log_prob_1) * (log_prob_1 - log_prob_2)).sum(0)
