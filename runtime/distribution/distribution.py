"""The ``Distribution`` base class of paddle.distribution: shapes, argument conversion, shared helpers."""
from __future__ import annotations

import warnings

import numpy as np

import runtime as paddle
from ..api._helpers import is_var
from ..framework import in_dynamic_mode


def dtype_name(dtype) -> str:
    """A dtype (ours, numpy's or a string) as Paddle's name: 'float32', 'float64' ..."""
    if hasattr(dtype, "np"):
        return str(np.dtype(dtype.np))
    return str(np.dtype(dtype))


def sum_rightmost(value, n: int):
    """Sum the ``n`` rightmost axes of ``value`` (the event axes of a reinterpreted batch)."""
    return value.sum(list(range(-n, 0))) if n > 0 else value


class Distribution:
    """The abstract base class of probability distributions.

    ``batch_shape`` is the shape of independent, not identically distributed draws; ``event_shape``
    the shape of one draw ([] for scalar distributions, [n] for an n-dimensional one).
    """

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = batch_shape if isinstance(batch_shape, tuple) else tuple(batch_shape)
        self._event_shape = event_shape if isinstance(event_shape, tuple) else tuple(event_shape)
        super().__init__()

    @property
    def batch_shape(self):
        """The batch shape of the distribution (a tuple)."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The event shape of the distribution (a tuple)."""
        return self._event_shape

    @property
    def mean(self):
        """Mean of the distribution."""
        raise NotImplementedError

    @property
    def variance(self):
        """Variance of the distribution."""
        raise NotImplementedError

    def sample(self, shape=()):
        """Draw samples of shape ``shape + batch_shape + event_shape``."""
        raise NotImplementedError

    def rsample(self, shape=()):
        """Reparameterised samples: differentiable with respect to the parameters."""
        raise NotImplementedError

    def entropy(self):
        """The entropy of the distribution."""
        raise NotImplementedError

    def kl_divergence(self, other):
        """The KL-divergence between this distribution and ``other``."""
        raise NotImplementedError

    def prob(self, value):
        """Probability density/mass at ``value``."""
        return self.log_prob(value).exp()

    def log_prob(self, value):
        """Log probability density/mass at ``value``."""
        raise NotImplementedError

    def probs(self, value):
        """Probability density/mass (deprecated in Paddle; use ``prob``)."""
        raise NotImplementedError

    def _extend_shape(self, sample_shape):
        return tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape)

    def _validate_args(self, *args):
        """True when the arguments are tensors; ValueError when tensors and numbers are mixed."""
        is_variable = any(is_var(a) for a in args)
        is_number = any(not is_var(a) for a in args)
        if is_variable and is_number:
            raise ValueError('if one argument is Tensor, all arguments should be Tensor')
        return is_variable

    def _to_tensor(self, *args):
        """float, list, tuple or numpy arguments as float32 tensors broadcast to one shape (Paddle's rule)."""
        arrays = []
        for arg in args:
            if not isinstance(arg, (float, list, tuple, np.ndarray)) and not is_var(arg):
                raise TypeError('Type of input args must be float, list, tuple, numpy.ndarray or Tensor, '
                                f'but received type {type(arg)}')
            if is_var(arg):
                arrays.append(arg)
                continue
            arr = np.array(arg)
            if str(arr.dtype) not in ('float32', 'float64'):
                warnings.warn('data type of argument only support float32 and float64, your argument will be '
                              'convert to float32.')
            arrays.append(arr.astype('float32'))
        shape = np.broadcast_shapes(*[tuple(a.shape) for a in arrays if not is_var(a)]) if any(
            not is_var(a) for a in arrays) else ()
        return tuple(a if is_var(a) else paddle.to_tensor(np.broadcast_to(a, shape).copy(), dtype='float32')
                     for a in arrays)

    def _check_values_dtype_in_probs(self, param, value):
        """``value`` cast to the parameter's dtype (with Paddle's warning) when both are floating."""
        if param.dtype.np.kind == 'c':
            return value.astype(param.dtype)
        if dtype_name(value.dtype) not in ('float32', 'float64') and not in_dynamic_mode():
            raise TypeError(f"The data type of 'value' in log_prob must be float32 or float64, but received "
                            f"{dtype_name(value.dtype)}.")
        if value.dtype != param.dtype and dtype_name(value.dtype) in ('float32', 'float64'):
            warnings.warn("dtype of input 'value' needs to be the same as parameters of distribution class. "
                          "dtype of 'value' will be converted.")
            return paddle.cast(value, param.dtype)
        return value

    def _probs_to_logits(self, probs, is_binary=False):
        return (paddle.log(probs) - paddle.log1p(-probs)) if is_binary else paddle.log(probs)

    def _logits_to_probs(self, logits, is_binary=False):
        F = paddle.nn.functional
        return F.sigmoid(logits) if is_binary else F.softmax(logits, axis=-1)

    def _broadcast_all(self, *args):
        """The arguments as tensors of one shape; numbers take the dtype of the first tensor (or the default)."""
        for arg in args:
            if not isinstance(arg, (float, list, tuple, np.ndarray)) and not is_var(arg):
                raise TypeError('Type of input args must be float, list, tuple, numpy.ndarray or Tensor, '
                                f'but received type {type(arg)}')
        if not all(is_var(a) for a in args):
            dtype = paddle.get_default_dtype()
            for arg in args:
                if is_var(arg):
                    dtype = arg.dtype
                    break
            args = [a if is_var(a) else paddle.to_tensor(a, dtype=dtype) for a in args]
        return tuple(paddle.broadcast_tensors(list(args)))


def noise_shape(ref, sample_shape=()):
    """The shape ``sample_shape + ref.shape`` for a random op: a list, or (when a static dimension is
    unknown, -1) the run-time shape tensor of ``ref`` expanded to it."""
    out = [int(d) for d in sample_shape] + list(ref.shape)
    if -1 not in out:
        return out
    return paddle.shape(paddle.expand(ref, out) if sample_shape else ref)
