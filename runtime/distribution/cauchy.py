"""The Cauchy distribution (location ``loc``, scale ``scale``)."""
from __future__ import annotations

import numbers

import numpy as np

import runtime as paddle

from ..api._helpers import is_var
from .distribution import Distribution, noise_shape


def _check_tensor(value, what='value'):
    if not is_var(value):
        raise TypeError(f'Expected type of {what} is Variable or Value, but got {type(value)}')


class Cauchy(Distribution):
    """Cauchy(loc, scale): density 1 / (pi scale (1 + ((x - loc) / scale)^2)); no mean or variance."""

    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else 'Cauchy'
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
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=self.loc.shape, event_shape=())

    @property
    def mean(self):
        raise ValueError('Cauchy distribution has no mean.')

    @property
    def variance(self):
        raise ValueError('Cauchy distribution has no variance.')

    @property
    def stddev(self):
        raise ValueError('Cauchy distribution has no stddev.')

    def sample(self, shape=(), name=None):
        with paddle.no_grad():
            return self.rsample(shape, name)

    def rsample(self, shape=(), name=None):
        """loc + scale * tan(pi (u - 1/2))."""
        if not isinstance(shape, (np.ndarray, list, tuple)) and not is_var(shape):
            raise TypeError(f'Expected type of shape is Sequence[int], but got {type(shape)}')
        u = paddle.rand(noise_shape(self.loc, tuple(shape)), dtype=self.dtype)
        loc, scale = self.loc + paddle.zeros_like(u), self.scale + paddle.zeros_like(u)
        return loc + scale * paddle.tan(np.pi * (u - 0.5))

    def prob(self, value):
        _check_tensor(value)
        return self.log_prob(value).exp()

    def log_prob(self, value):
        _check_tensor(value)
        value = self._check_values_dtype_in_probs(self.loc, value)
        loc, scale, value = paddle.broadcast_tensors([self.loc, self.scale, value])
        return -paddle.square((value - loc) / scale).log1p() - (
            paddle.full(loc.shape, np.log(np.pi), dtype=self.dtype) + scale.log())

    def cdf(self, value):
        _check_tensor(value)
        value = self._check_values_dtype_in_probs(self.loc, value)
        loc, scale, value = paddle.broadcast_tensors([self.loc, self.scale, value])
        return paddle.atan((value - loc) / scale) / np.pi + 0.5

    def entropy(self):
        return paddle.full(self.loc.shape, np.log(4 * np.pi), dtype=self.dtype) + self.scale.log()

    def kl_divergence(self, other):
        if not isinstance(other, Cauchy):
            raise TypeError(f'Expected type of other is Cauchy, but got {type(other)}')
        t1 = (paddle.pow(self.scale + other.scale, 2) + paddle.pow(self.loc - other.loc, 2)).log()
        t2 = (4 * (self.scale * other.scale)).log()
        return t1 - t2
