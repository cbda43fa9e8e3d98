"""The Multinomial distribution: counts of ``total_count`` categorical draws."""
from __future__ import annotations

import runtime as paddle

from .categorical import Categorical
from .distribution import Distribution


def _clip_by_zero(x):
    return (x.clip(min=0) + x - x.clip(max=0)) / 2


class Multinomial(Distribution):
    """Multinomial(total_count, probs): event shape [k]; ``probs`` is normalised along the last axis."""

    def __init__(self, total_count, probs):
        if not isinstance(total_count, int) or total_count < 1:
            raise ValueError('input parameter total_count must be int type and grater than zero.')
        if probs.dim() < 1:
            raise ValueError('probs parameter should not be none and over one dimension')
        self.probs = probs / probs.sum(-1, keepdim=True)
        self.total_count = total_count
        self._categorical = Categorical(logits=self._probs_to_logits(probs))
        super().__init__(probs.shape[:-1], probs.shape[-1:])

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def prob(self, value):
        return paddle.exp(self.log_prob(value))

    def log_prob(self, value):
        if paddle.is_integer(value):
            value = paddle.cast(value, self.probs.dtype)
        logits, value = paddle.broadcast_tensors([paddle.log(self.probs), value])
        # 0 * log(0) counts as 0: zero out -inf logits where the count is zero
        logits = paddle.where((value == 0) & paddle.isinf(logits), paddle.zeros_like(logits), logits)
        return paddle.lgamma(value.sum(-1) + 1) - paddle.lgamma(value + 1).sum(-1) + (value * logits).sum(-1)

    def sample(self, shape=()):
        """Counts (in probs' dtype) of shape ``shape + batch_shape + [k]``."""
        if not isinstance(shape, (list, tuple)):
            raise TypeError('sample shape must be Iterable object.')
        samples = self._categorical.sample([self.total_count, *list(shape)])
        return paddle.nn.functional.one_hot(samples, self.probs.shape[-1]).cast(self.probs.dtype).sum(0)

    def entropy(self):
        n = paddle.full(shape=[], fill_value=self.total_count, dtype=self.probs.dtype)
        support = paddle.arange(self.total_count + 1, dtype=self.probs.dtype).reshape(
            (-1,) + (1,) * len(self.probs.shape))[1:]
        binomial_pmf = paddle.exp(self._binomial_logpmf(n, support))
        return (n * self._categorical.entropy() - paddle.lgamma(n + 1)
                + (binomial_pmf * paddle.lgamma(support + 1)).sum([0, -1]))

    def _binomial_logpmf(self, count, value):
        logits = self._probs_to_logits(self.probs, is_binary=True)
        factor_n = paddle.lgamma(count + 1)
        factor_k = paddle.lgamma(value + 1)
        factor_nmk = paddle.lgamma(count - value + 1)
        norm = count * _clip_by_zero(logits) + count * paddle.log1p(paddle.exp(-paddle.abs(logits))) - factor_n
        return value * logits - factor_k - factor_nmk - norm
