"""The Normal (Gaussian) distribution, real or complex (circularly-symmetric complex Gaussian)."""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

import runtime as paddle

from ..api._helpers import is_var
from ..api.random import _gaussian
from .distribution import Distribution, dtype_name, noise_shape

_REAL_OF = {'complex64': 'float32', 'complex128': 'float64'}


def _is_complex(x):
    if isinstance(x, complex):
        return True
    if isinstance(x, np.ndarray):
        return x.dtype.kind == 'c'
    return is_var(x) and x.dtype.np.kind == 'c'


class Normal(Distribution):
    """Normal(loc, scale): density exp(-(x - loc)^2 / (2 scale^2)) / (sqrt(2 pi) scale).

    ``loc`` and ``scale`` are numbers, lists, numpy arrays or tensors (all numbers/arrays or all tensors);
    Python numbers and lists become float32, float64 numpy arrays and tensors keep their dtype. A complex
    ``loc`` makes a complex Gaussian: density exp(-|x - loc|^2 / scale^2) / (pi scale^2).
    """

    def __init__(self, loc, scale, name=None):
        if not isinstance(loc, (int, float, complex, list, tuple, np.ndarray)) and not is_var(loc):
            raise TypeError(f"The type of 'loc' in Normal must be int, float, complex, list, tuple, numpy.ndarray "
                            f"or Tensor, but received {type(loc)}.")
        if not isinstance(scale, (int, float, list, tuple, np.ndarray)) and not is_var(scale):
            raise TypeError(f"The type of 'scale' in Normal must be int, float, list, tuple, numpy.ndarray or "
                            f"Tensor, but received {type(scale)}.")
        self.all_arg_is_float = False
        self.name = name if name is not None else 'Normal'
        self.dtype = 'float32'
        self._complex_gaussian = False
        if isinstance(loc, int):
            loc = float(loc)
        if isinstance(scale, int):
            scale = float(scale)
        if isinstance(loc, (tuple, list)):
            loc = np.array(loc)
            if loc.dtype == np.float64:
                loc = loc.astype('float32')
            if loc.dtype == np.complex128:
                loc = loc.astype('complex64')
        if isinstance(scale, (tuple, list)):
            scale = np.array(scale, dtype=np.float32)
        if _is_complex(loc):
            self._init_complex(loc, scale)
        elif self._validate_args(loc, scale):
            self.loc = loc
            self.scale = scale
            self.dtype = dtype_name(loc.dtype)
        else:
            if isinstance(loc, float) and isinstance(scale, float):
                self.all_arg_is_float = True
            if isinstance(loc, np.ndarray) and str(loc.dtype) in ('float32', 'float64'):
                self.dtype = str(loc.dtype)
            elif isinstance(scale, np.ndarray) and str(scale.dtype) in ('float32', 'float64'):
                self.dtype = str(scale.dtype)
            self.loc, self.scale = self._to_tensor(loc, scale)
            if self.dtype != dtype_name(self.loc.dtype):
                self.loc = paddle.cast(self.loc, dtype=self.dtype)
                self.scale = paddle.cast(self.scale, dtype=self.dtype)
        super().__init__(self.loc.shape)

    def _init_complex(self, loc, scale):
        self._complex_gaussian = True
        if isinstance(loc, complex) and isinstance(scale, float):
            self.all_arg_is_float = True
        if isinstance(loc, np.ndarray):
            real = _REAL_OF[str(loc.dtype)]
            self.loc = paddle.complex(paddle.to_tensor(loc.real, real), paddle.to_tensor(loc.imag, real))
        elif isinstance(loc, complex):
            self.loc = paddle.complex(paddle.to_tensor(loc.real, dtype='float32'),
                                      paddle.to_tensor(loc.imag, dtype='float32'))
        else:
            self.loc = loc
        if isinstance(scale, np.ndarray):
            self.scale = paddle.to_tensor(scale, dtype=str(scale.dtype))
        elif isinstance(scale, float):
            self.scale = paddle.to_tensor(scale, dtype='float32')
        else:
            self.scale = scale
        self.dtype = dtype_name(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return self.scale.pow(2)

    def _standard_noise(self, shape, seed=0):
        """Standard normal noise of ``shape``; complex noise has variance 1/2 in each component.
        A non-zero ``seed`` fixes the real noise (the gaussian_random op's own generator, as Paddle)."""
        if not self._complex_gaussian:
            return _gaussian(shape, 0.0, 1.0, self.dtype, 'sample', seed=seed)
        real = _REAL_OF[self.dtype]
        half = math.sqrt(0.5)
        return paddle.complex(paddle.randn(shape, dtype=real) * half, paddle.randn(shape, dtype=real) * half)

    def sample(self, shape=(), seed=0):
        """Samples of shape ``shape + batch_shape`` (not differentiable)."""
        if not isinstance(shape, Iterable):
            raise TypeError('sample shape must be Iterable object.')
        shape = list(shape)
        with paddle.no_grad():
            eps = self._standard_noise(noise_shape(self.loc + self.scale, shape), seed)
            output = eps * (paddle.zeros_like(eps) + self.scale) + self.loc
        if self.all_arg_is_float:
            return paddle.reshape(output, shape)
        return output

    def rsample(self, shape=()):
        """Reparameterised samples loc + eps * scale."""
        if not isinstance(shape, Iterable):
            raise TypeError('sample shape must be Iterable object.')
        eps = self._standard_noise(noise_shape(self.loc + self.scale, tuple(shape)))
        return self.loc + eps * self.scale

    def entropy(self):
        loc = paddle.abs(self.loc) if self._complex_gaussian else self.loc   # (only its shape and real dtype)
        zero = paddle.zeros_like(loc + self.scale)
        if self._complex_gaussian:
            return (1.0 + zero) + (math.log(math.pi) + 2.0 * paddle.log(self.scale + zero))
        return (0.5 + zero) + (0.5 * math.log(2 * math.pi) + paddle.log(self.scale + zero))

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        diff = value - self.loc
        if self._complex_gaussian:
            return -1.0 * (diff.conj() * diff) / var - (2.0 * paddle.log(self.scale) + math.log(math.pi))
        return -1.0 * (diff * diff) / (2.0 * var) - (paddle.log(self.scale) + math.log(math.sqrt(2.0 * math.pi)))

    def probs(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        diff = value - self.loc
        if self._complex_gaussian:
            return paddle.exp(-1.0 * (diff.conj() * diff) / var) / (math.pi * var)
        return paddle.exp(-1.0 * (diff * diff) / (2.0 * var)) / (math.sqrt(2 * math.pi) * self.scale)

    def kl_divergence(self, other):
        if not isinstance(other, Normal):
            raise TypeError(f"Expected type of other is Normal, but got {type(other)}")
        if self._complex_gaussian != other._complex_gaussian:
            raise ValueError('The kl divergence must be computed between two distributions in the same number '
                             'field.')
        var_ratio = self.scale / other.scale
        var_ratio = var_ratio * var_ratio
        t1 = (self.loc - other.loc) / other.scale
        if self._complex_gaussian:
            return var_ratio + t1.conj() * t1 - 1.0 - paddle.log(var_ratio)
        t1 = t1 * t1
        return 0.5 * var_ratio + 0.5 * (t1 - 1.0 - paddle.log(var_ratio))
