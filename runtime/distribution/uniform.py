"""The Uniform distribution on [low, high)."""
from __future__ import annotations

import numpy as np

import runtime as paddle

from ..api._helpers import is_var
from .distribution import Distribution, dtype_name, noise_shape


class Uniform(Distribution):
    """Uniform(low, high): density 1 / (high - low) on low < x < high.

    As in Paddle 3.3.1, it has no mean, variance, rsample or kl_divergence (they raise NotImplementedError).
    """

    def __init__(self, low, high, name=None):
        for arg, what in ((low, 'low'), (high, 'high')):
            if not isinstance(arg, (int, float, list, tuple, np.ndarray)) and not is_var(arg):
                raise TypeError(f"The type of '{what}' in Uniform must be int, float, list, tuple, numpy.ndarray "
                                f"or Tensor, but received {type(arg)}.")
        self.all_arg_is_float = False
        self.batch_size_unknown = False
        self.name = name if name is not None else 'Uniform'
        self.dtype = 'float32'
        if isinstance(low, int):
            low = float(low)
        if isinstance(high, int):
            high = float(high)
        if self._validate_args(low, high):
            self.low = low
            self.high = high
            self.dtype = dtype_name(low.dtype)
        else:
            if isinstance(low, float) and isinstance(high, float):
                self.all_arg_is_float = True
            if isinstance(low, np.ndarray) and str(low.dtype) in ('float32', 'float64'):
                self.dtype = str(low.dtype)
            elif isinstance(high, np.ndarray) and str(high.dtype) in ('float32', 'float64'):
                self.dtype = str(high.dtype)
            self.low, self.high = self._to_tensor(low, high)
            if self.dtype != dtype_name(self.low.dtype):
                self.low = paddle.cast(self.low, dtype=self.dtype)
                self.high = paddle.cast(self.high, dtype=self.dtype)
        super().__init__(self.low.shape)

    def sample(self, shape=(), seed=0):
        """Samples of shape ``shape + batch_shape``."""
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"The type of 'shape' in sample must be list or tuple, but received {type(shape)}.")
        shape = list(shape)
        with paddle.no_grad():
            u = paddle.uniform(noise_shape(self.low + self.high, shape), dtype=self.dtype, min=0.0, max=1.0,
                               seed=seed)
            output = u * (paddle.zeros_like(u) + (self.high - self.low)) + self.low
        if self.all_arg_is_float:
            return paddle.reshape(output, shape)
        return output

    def _inside(self, value):
        lb = paddle.cast(self.low < value, value.dtype)
        ub = paddle.cast(value < self.high, value.dtype)
        return lb * ub

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.low, value)
        return paddle.log(self._inside(value)) - paddle.log(self.high - self.low)

    def probs(self, value):
        value = self._check_values_dtype_in_probs(self.low, value)
        return self._inside(value) / (self.high - self.low)

    def entropy(self):
        return paddle.log(self.high - self.low)
