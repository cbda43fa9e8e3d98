"""The Binomial distribution."""
from __future__ import annotations

import runtime as paddle

from ..framework import in_dynamic_mode
from .distribution import Distribution


class Binomial(Distribution):
    """Binomial(total_count, probs): successes in ``total_count`` trials of probability ``probs``."""

    def __init__(self, total_count, probs):
        self.dtype = paddle.get_default_dtype()
        self.total_count, self.probs = self._to_tensor(total_count, probs)
        super().__init__(self.total_count.shape)

    def _to_tensor(self, total_count, probs):
        if isinstance(probs, float):
            probs = paddle.to_tensor(probs, dtype=self.dtype)
        else:
            self.dtype = probs.dtype
        if isinstance(total_count, int):
            total_count = paddle.to_tensor(total_count, dtype=self.dtype)
        else:
            total_count = paddle.cast(total_count, dtype=self.dtype)
        return paddle.broadcast_tensors([total_count, probs])

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape=()):
        """Counts in the distribution's dtype, shape ``shape + batch_shape``."""
        if not isinstance(shape, (list, tuple)):
            raise TypeError('sample shape must be Sequence object.')
        with paddle.no_grad():
            out_shape = list(tuple(shape) + tuple(self.batch_shape))
            count = paddle.broadcast_to(self.total_count, shape=out_shape)
            prob = paddle.broadcast_to(self.probs, shape=out_shape)
            return paddle.cast(paddle.binomial(paddle.cast(count, dtype='int32'), prob), self.dtype)

    def entropy(self):
        values = self._enumerate_support()
        log_prob = self.log_prob(values)
        return -(paddle.exp(log_prob) * log_prob).sum(0)

    def _enumerate_support(self):
        """0 .. max(total_count), shaped to broadcast against the batch (a run-time length in static mode)."""
        n = paddle.max(self.total_count)
        end = 1 + int(n) if in_dynamic_mode() else 1 + n
        return paddle.arange(end, dtype=self.dtype).reshape((-1,) + (1,) * len(self.batch_shape))

    def log_prob(self, value):
        value = paddle.cast(value, dtype=self.dtype)
        log_comb = (paddle.lgamma(self.total_count + 1.0) - paddle.lgamma(self.total_count - value + 1.0)
                    - paddle.lgamma(value + 1.0))
        eps = float(paddle.finfo(self.probs.dtype).eps)
        probs = paddle.clip(self.probs, min=eps, max=1 - eps)
        log_pmf = log_comb + value * paddle.log(probs) + (self.total_count - value) * paddle.log(1 - probs)
        return paddle.nan_to_num(log_pmf, neginf=-eps)

    def prob(self, value):
        return paddle.exp(self.log_prob(value))

    def kl_divergence(self, other):
        support = self._enumerate_support()
        log_prob_1 = self.log_prob(support)
        log_prob_2 = other.log_prob(support)
        return (paddle.exp(log_prob_1) * (log_prob_1 - log_prob_2)).sum(0)
