"""The Bernoulli distribution (with a relaxed, reparameterised rsample)."""
from __future__ import annotations

import numpy as np

import runtime as paddle

from ..api._helpers import is_var
from ..framework import in_dynamic_mode
from .distribution import dtype_name, noise_shape
from .exponential_family import ExponentialFamily

_EPS = {'float32': float(np.finfo('float32').eps), 'float64': float(np.finfo('float64').eps)}


def _clip_probs(probs, dtype):
    eps = _EPS.get(dtype)
    return paddle.clip(probs, min=eps, max=1 - eps).astype(dtype)


class Bernoulli(ExponentialFamily):
    """Bernoulli(probs): 1 with probability ``probs`` (clipped to [eps, 1 - eps]), else 0."""

    def __init__(self, probs, name=None):
        self.name = name or 'Bernoulli'
        if not in_dynamic_mode() and not isinstance(probs, float) and not is_var(probs):
            raise TypeError(f"The type of 'probs' in {self.name} must be float or Tensor, but received "
                            f"{type(probs)}.")
        if self._validate_args(probs):
            self.probs = probs
            self.dtype = dtype_name(probs.dtype)
        else:
            [self.probs] = self._to_tensor(probs)
            self.dtype = paddle.get_default_dtype()
        self.probs = _clip_probs(self.probs, self.dtype)
        self.logits = self._probs_to_logits(self.probs, is_binary=True)
        super().__init__(batch_shape=self.probs.shape, event_shape=())

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return paddle.multiply(self.probs, 1 - self.probs)

    def sample(self, shape=()):
        with paddle.no_grad():
            return paddle.bernoulli(self.probs + paddle.zeros(noise_shape(self.probs, tuple(shape)), self.probs.dtype))

    def rsample(self, shape=(), temperature=1.0):
        """Relaxed (logistic) samples (log u - log(1-u) + logits) / temperature, differentiable in probs."""
        if not isinstance(temperature, float):
            raise TypeError(f"The type of 'temperature' in {self.name}_rsample must be float, but received "
                            f"{type(temperature)}.")
        temperature = paddle.full(shape=[], fill_value=temperature, dtype=self.dtype)
        uniforms = paddle.rand(noise_shape(self.probs, tuple(shape)), dtype=self.dtype)
        probs = self.probs + paddle.zeros_like(uniforms)
        return ((uniforms.log() - (-uniforms).log1p()) + (probs.log() - (-probs).log1p())) / temperature

    def cdf(self, value):
        value = self._check_values_dtype_in_probs(self.probs, value)
        probs, value = paddle.broadcast_tensors([self.probs, value])
        zeros = paddle.zeros_like(probs)
        ones = paddle.ones_like(probs)
        return paddle.where(value < 0, zeros, paddle.where(value < 1, ones - probs, ones))

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.probs, value)
        logits, value = paddle.broadcast_tensors([self.logits, value])
        return -paddle.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction='none')

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        return paddle.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction='none')

    def kl_divergence(self, other):
        if not isinstance(other, Bernoulli):
            raise TypeError(f"Expected type of other is Bernoulli, but got {type(other)}")
        F = paddle.nn.functional
        a, b = self.logits, other.logits
        log_pa, log_pb = -F.softplus(-a), -F.softplus(-b)
        pa, one_minus_pa = F.sigmoid(a), F.sigmoid(-a)
        log_1m_pa, log_1m_pb = -F.softplus(a), -F.softplus(b)
        return (log_pa * pa - log_pb * pa) + (log_1m_pa * one_minus_pa - log_1m_pb * one_minus_pa)
