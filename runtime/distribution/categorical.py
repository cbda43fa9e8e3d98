"""The Categorical distribution over K categories, parameterised by non-negative weights ``logits``."""
from __future__ import annotations

import numpy as np

import runtime as paddle

from ..api._helpers import is_var
from .distribution import Distribution, dtype_name


class Categorical(Distribution):
    """Categorical(logits): category k has probability logits[k] / sum(logits).

    As in Paddle, ``probs``/``log_prob`` normalise the given weights directly, while ``sample``,
    ``entropy`` and ``kl_divergence`` treat them as unnormalised log-probabilities (softmax).
    """

    def __init__(self, logits, name=None):
        if not isinstance(logits, (list, tuple, np.ndarray)) and not is_var(logits):
            raise TypeError(f"The type of 'logits' in Categorical must be list, tuple, numpy.ndarray or Tensor, "
                            f"but received {type(logits)}.")
        self.name = name if name is not None else 'Categorical'
        self.dtype = 'float32'
        if self._validate_args(logits):
            self.logits = logits
            self.dtype = dtype_name(logits.dtype)
        else:
            if isinstance(logits, np.ndarray) and str(logits.dtype) in ('float32', 'float64'):
                self.dtype = str(logits.dtype)
            self.logits = self._to_tensor(logits)[0]
            if self.dtype != dtype_name(self.logits.dtype):
                self.logits = paddle.cast(self.logits, dtype=self.dtype)
        self._prob = self.logits / paddle.sum(self.logits, axis=-1, keepdim=True)
        super().__init__()

    def sample(self, shape=()):
        """Category indices (int64) of shape ``shape + logits.shape[:-1]``."""
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"The type of 'shape' in sample must be list or tuple, but received {type(shape)}.")
        shape = list(shape)
        num_samples = int(np.prod(np.array(shape)))
        logits_shape = list(self.logits.shape)
        if len(logits_shape) > 1:
            sample_shape = shape + logits_shape[:-1]
            logits = paddle.reshape(self.logits, [-1, logits_shape[-1]])
        else:
            sample_shape = shape
            logits = self.logits
        with paddle.no_grad():
            index = paddle.multinomial(self._logits_to_probs(logits), num_samples, True)
        perm = list(range(index.dim()))
        perm.insert(0, perm.pop(-1))
        return paddle.reshape(index.transpose(perm), sample_shape)

    def _normalised(self, logits):
        logits = logits - paddle.max(logits, axis=-1, keepdim=True)
        z = paddle.sum(paddle.exp(logits), axis=-1, keepdim=True)
        return logits, z

    def kl_divergence(self, other):
        if not isinstance(other, Categorical):
            raise TypeError(f"The type of 'other' in kl_divergence must be Categorical, but received "
                            f"{type(other)}.")
        logits, z = self._normalised(self.logits)
        other_logits, other_z = self._normalised(other.logits)
        prob = paddle.exp(logits) / z
        return paddle.sum(prob * (logits - paddle.log(z) - other_logits + paddle.log(other_z)), axis=-1,
                          keepdim=True)

    def entropy(self):
        logits, z = self._normalised(self.logits)
        prob = paddle.exp(logits) / z
        return -paddle.sum(prob * (logits - paddle.log(z)), axis=-1)

    def probs(self, value):
        """The normalised weight of category ``value`` (int tensor), broadcast against the batch."""
        if len(self._prob.shape) == 1:
            return paddle.gather(self._prob, value.reshape([-1])).reshape(value.shape)
        if len(value.shape) == 1:
            return paddle.take_along_axis(self._prob, paddle.reshape(value, (len(self._prob.shape) - 1) * [1] + [-1]),
                                          axis=-1)
        return paddle.take_along_axis(self._prob, value, axis=-1)

    def log_prob(self, value):
        return paddle.log(self.probs(value))
