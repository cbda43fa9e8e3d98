"""The Continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem and Cunningham, 2019)."""
from __future__ import annotations

import runtime as paddle

from .distribution import Distribution, noise_shape


class ContinuousBernoulli(Distribution):
    """ContinuousBernoulli(probs): density C(p) p^x (1-p)^(1-x) on [0, 1].

    Near p = 1/2 (inside ``lims``) the normaliser, mean and variance use Taylor expansions, as Paddle.
    """

    def __init__(self, probs, lims=(0.499, 0.501)):
        self.dtype = paddle.get_default_dtype()
        self.probs = self._to_tensor(probs)
        self.lims = paddle.to_tensor(lims, dtype=self.dtype)
        eps = float(paddle.finfo(self.probs.dtype).eps)
        self.probs = paddle.clip(self.probs, min=eps, max=1 - eps)
        super().__init__(self.probs.shape)

    def _to_tensor(self, probs):
        if isinstance(probs, (float, int)):
            return paddle.to_tensor([probs], dtype=self.dtype)
        self.dtype = probs.dtype
        return probs

    def _cut_support_region(self):
        return paddle.logical_or(paddle.less_equal(self.probs, self.lims[0]),
                                 paddle.greater_than(self.probs, self.lims[1]))

    def _cut_probs(self):
        return paddle.where(self._cut_support_region(), self.probs, self.lims[0] * paddle.ones_like(self.probs))

    def _tanh_inverse(self, value):
        return 0.5 * (paddle.log1p(value) - paddle.log1p(-value))

    def _log_constant(self):
        cut = self._cut_probs()
        half = paddle.to_tensor(0.5, dtype=self.dtype)
        below = paddle.where(paddle.less_equal(cut, half), cut, paddle.zeros_like(cut))
        above = paddle.where(paddle.greater_equal(cut, half), cut, paddle.ones_like(cut))
        propose = paddle.log(2.0 * paddle.abs(self._tanh_inverse(1.0 - 2.0 * cut))) - paddle.where(
            paddle.less_equal(cut, half), paddle.log1p(-2.0 * below), paddle.log(2.0 * above - 1.0))
        x = paddle.square(self.probs - 0.5)
        taylor = paddle.log(paddle.to_tensor(2.0, dtype=self.dtype)) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return paddle.where(self._cut_support_region(), propose, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        propose = cut / (2.0 * cut - 1.0) + paddle.to_tensor(1.0, dtype=self.dtype) / (
            2.0 * self._tanh_inverse(1.0 - 2.0 * cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * paddle.square(x)) * x
        return paddle.where(self._cut_support_region(), propose, taylor)

    @property
    def variance(self):
        cut = self._cut_probs()
        propose = cut * (cut - 1.0) / paddle.square(1.0 - 2.0 * cut) + paddle.to_tensor(1.0, dtype=self.dtype) / (
            paddle.square(paddle.log1p(-cut) - paddle.log(cut)))
        x = paddle.square(self.probs - 0.5)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return paddle.where(self._cut_support_region(), propose, taylor)

    def sample(self, shape=()):
        with paddle.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """icdf of uniform draws (differentiable in probs)."""
        if not isinstance(shape, (list, tuple)):
            raise TypeError('sample shape must be Sequence object.')
        u = paddle.uniform(shape=noise_shape(self.probs, tuple(shape)), dtype=self.dtype, min=0, max=1)
        return self.icdf(u)

    def log_prob(self, value):
        value = paddle.cast(value, dtype=self.dtype)
        eps = float(paddle.finfo(self.probs.dtype).eps)
        cross_entropy = paddle.nan_to_num(value * paddle.log(self.probs) + (1.0 - value) * paddle.log(1 - self.probs),
                                          neginf=-eps)
        return self._log_constant() + cross_entropy

    def prob(self, value):
        return paddle.exp(self.log_prob(value))

    def entropy(self):
        log_p = paddle.log(self.probs)
        log_1m_p = paddle.log1p(-self.probs)
        return paddle.where(paddle.equal(self.probs, paddle.to_tensor(0.5, dtype=self.dtype)),
                            paddle.full_like(self.probs, 0.0),
                            -self._log_constant() + self.mean * (log_1m_p - log_p) - log_1m_p)

    def cdf(self, value):
        value = paddle.cast(value, dtype=self.dtype)
        cut = self._cut_probs()
        cdfs = (paddle.pow(cut, value) * paddle.pow(1.0 - cut, 1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = paddle.where(self._cut_support_region(), cdfs, value)
        return paddle.where(paddle.less_equal(value, paddle.to_tensor(0.0, dtype=self.dtype)), paddle.zeros_like(value),
                            paddle.where(paddle.greater_equal(value, paddle.to_tensor(1.0, dtype=self.dtype)),
                                         paddle.ones_like(value), unbounded))

    def icdf(self, value):
        value = paddle.cast(value, dtype=self.dtype)
        cut = self._cut_probs()
        return paddle.where(self._cut_support_region(),
                            (paddle.log1p(-cut + value * (2.0 * cut - 1.0)) - paddle.log1p(-cut))
                            / (paddle.log(cut) - paddle.log1p(-cut)), value)

    def kl_divergence(self, other):
        if self.batch_shape != other.batch_shape:
            raise ValueError('KL divergence of two Continuous Bernoulli distributions should share the same '
                             '`batch_shape`.')
        log_q = paddle.log(other.probs)
        log_1m_q = paddle.log1p(-other.probs)
        return -self.entropy() - (other._log_constant() + self.mean * (log_q - log_1m_q) + log_1m_q)
