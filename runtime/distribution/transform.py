"""Invertible transforms of random variables (paddle.distribution.transform) and their log-det-Jacobians."""
from __future__ import annotations

import enum
import math
import typing

import runtime as paddle

from ..api._helpers import is_var
from . import constraint, variable

__all__ = ['Transform', 'AbsTransform', 'AffineTransform', 'ChainTransform', 'ExpTransform',
           'IndependentTransform', 'PowerTransform', 'ReshapeTransform', 'SigmoidTransform', 'SoftmaxTransform',
           'StackTransform', 'StickBreakingTransform', 'TanhTransform']


class Type(enum.Enum):
    """How a transform maps its domain: bijection, injection, surjection or other."""
    BIJECTION = 'bijection'
    INJECTION = 'injection'
    SURJECTION = 'surjection'
    OTHER = 'other'

    @classmethod
    def is_injective(cls, _type):
        return _type in (cls.BIJECTION, cls.INJECTION)


def _sum_rightmost(value, n):
    return value.sum(list(range(-n, 0))) if n > 0 else value


class Transform:
    """Base class of transforms ``y = f(x)``: forward, inverse, log-det-Jacobians and shape maps.

    Calling a transform on a Tensor applies it, on a Distribution makes a TransformedDistribution,
    on another Transform chains the two.
    """
    _type = Type.INJECTION

    def __init__(self):
        super().__init__()

    @classmethod
    def _is_injective(cls):
        return Type.is_injective(cls._type)

    def __call__(self, input):
        from . import distribution, transformed_distribution
        if isinstance(input, distribution.Distribution):
            return transformed_distribution.TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def forward(self, x):
        """y = f(x)."""
        if not is_var(x):
            raise TypeError(f"Expected 'x' is a Tensor or Real, but got {type(x)}.")
        if x.dim() < self._domain.event_rank:
            raise ValueError(f'The dimensions of x({x.dim()}) should be grater than or equal to '
                             f'{self._domain.event_rank}')
        return self._forward(x)

    def inverse(self, y):
        """x = f^-1(y)."""
        if not is_var(y):
            raise TypeError(f"Expected 'y' is a Tensor or Real, but got {type(y)}.")
        if y.dim() < self._codomain.event_rank:
            raise ValueError(f'The dimensions of y({y.dim()}) should be grater than or equal to '
                             f'{self._codomain.event_rank}')
        return self._inverse(y)

    def forward_log_det_jacobian(self, x):
        """log|det J_f(x)|."""
        if not is_var(x):
            raise TypeError(f"Expected 'y' is a Tensor or Real, but got {type(x)}.")
        if x.dim() < self._domain.event_rank:
            raise ValueError(f'The dimensions of x({x.dim()}) should be grater than or equal to '
                             f'{self._domain.event_rank}')
        if not self._is_injective():
            raise NotImplementedError("forward_log_det_jacobian can't be implemented for non-injective"
                                      "transforms.")
        return self._call_forward_log_det_jacobian(x)

    def inverse_log_det_jacobian(self, y):
        """log|det J_f^-1(y)|."""
        if not is_var(y):
            raise TypeError(f"Expected 'y' is a Tensor, but got {type(y)}.")
        if y.dim() < self._codomain.event_rank:
            raise ValueError(f'The dimensions of y({y.dim()}) should be grater than or equal to '
                             f'{self._codomain.event_rank}')
        return self._call_inverse_log_det_jacobian(y)

    def forward_shape(self, shape):
        """The shape of f(x) for x of ``shape``."""
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f'Expected shape is Sequence[int] type, but got {type(shape)}.')
        return self._forward_shape(shape)

    def inverse_shape(self, shape):
        """The shape of f^-1(y) for y of ``shape``."""
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f'Expected shape is Sequence[int] type, but got {type(shape)}.')
        return self._inverse_shape(shape)

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.real

    def _forward(self, x):
        raise NotImplementedError('Forward not implemented')

    def _inverse(self, y):
        raise NotImplementedError('Inverse not implemented')

    def _call_forward_log_det_jacobian(self, x):
        if hasattr(self, '_forward_log_det_jacobian'):
            return self._forward_log_det_jacobian(x)
        if hasattr(self, '_inverse_log_det_jacobian'):
            return -self._inverse_log_det_jacobian(self.forward(x))
        raise NotImplementedError('Neither _forward_log_det_jacobian nor _inverse_log_det_jacobian'
                                  'is implemented. One of them is required.')

    def _call_inverse_log_det_jacobian(self, y):
        if hasattr(self, '_inverse_log_det_jacobian'):
            return self._inverse_log_det_jacobian(y)
        if hasattr(self, '_forward_log_det_jacobian'):
            return -self._forward_log_det_jacobian(self._inverse(y))
        raise NotImplementedError('Neither _forward_log_det_jacobian nor _inverse_log_det_jacobian '
                                  'is implemented. One of them is required')

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


class AbsTransform(Transform):
    """y = |x|; its inverse returns both preimages (-y, y)."""
    _type = Type.SURJECTION

    def _forward(self, x):
        return x.abs()

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = paddle.zeros([], dtype=y.dtype)
        return zero, zero

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.positive


class AffineTransform(Transform):
    """y = loc + scale * x."""
    _type = Type.BIJECTION

    def __init__(self, loc, scale):
        if not is_var(loc):
            raise TypeError(f"Expected 'loc' is a Tensor, but got {type(loc)}")
        if not is_var(scale):
            raise TypeError(f'Expected scale is a Tensor, but got {type(scale)}')
        self._loc = loc
        self._scale = scale
        super().__init__()

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _forward(self, x):
        return self._loc + self._scale * x

    def _inverse(self, y):
        return (y - self._loc) / self._scale

    def _forward_log_det_jacobian(self, x):
        return paddle.abs(self._scale).log()

    def _forward_shape(self, shape):
        return tuple(paddle.broadcast_shape(paddle.broadcast_shape(list(shape), list(self._loc.shape)),
                                            list(self._scale.shape)))

    _inverse_shape = _forward_shape


class ChainTransform(Transform):
    """The composition of ``transforms``, applied first to last."""

    def __init__(self, transforms):
        if not isinstance(transforms, typing.Sequence):
            raise TypeError(f"Expected type of 'transforms' is Sequence, but got {type(transforms)}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError('All elements of transforms should be Transform type.')
        self.transforms = transforms
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self.transforms)

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        value = 0.0
        event_rank = self._domain.event_rank
        for t in self.transforms:
            value += _sum_rightmost(t.forward_log_det_jacobian(x), event_rank - t._domain.event_rank)
            x = t.forward(x)
            event_rank += t._codomain.event_rank - t._domain.event_rank
        return value

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in self.transforms:     # Paddle walks them in forward order here too
            shape = t.inverse_shape(shape)
        return shape

    def _sum_rightmost(self, value, n):
        return _sum_rightmost(value, n)

    @property
    def _domain(self):
        domain = self.transforms[0]._domain
        event_rank = self.transforms[-1]._codomain.event_rank
        for t in reversed(self.transforms):
            event_rank -= t._codomain.event_rank - t._domain.event_rank
            event_rank = max(event_rank, t._domain.event_rank)
        return variable.Independent(domain, event_rank - domain.event_rank)

    @property
    def _codomain(self):
        codomain = self.transforms[-1]._codomain
        event_rank = self.transforms[0]._domain.event_rank
        for t in self.transforms:
            event_rank += t._codomain.event_rank - t._domain.event_rank
            event_rank = max(event_rank, t._codomain.event_rank)
        return variable.Independent(codomain, event_rank - codomain.event_rank)


class ExpTransform(Transform):
    """y = exp(x)."""
    _type = Type.BIJECTION

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def _forward_log_det_jacobian(self, x):
        return x


class IndependentTransform(Transform):
    """``base`` with its ``reinterpreted_batch_rank`` rightmost batch axes treated as event axes."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError(f"Expected 'base' is Transform type, but get {type(base)}")
        if reinterpreted_batch_rank <= 0:
            raise ValueError(f"Expected 'reinterpreted_batch_rank' is grater than zero, but got "
                             f"{reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__()

    def _is_injective(self):
        return self._base._is_injective()

    def _forward(self, x):
        if x.dim() < self._domain.event_rank:
            raise ValueError('Input dimensions is less than event dimensions.')
        return self._base.forward(x)

    def _inverse(self, y):
        if y.dim() < self._codomain.event_rank:
            raise ValueError('Input dimensions is less than event dimensions.')
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return self._base.forward_log_det_jacobian(x).sum(list(range(-self._reinterpreted_batch_rank, 0)))

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)

    @property
    def _domain(self):
        return variable.Independent(self._base._domain, self._reinterpreted_batch_rank)

    @property
    def _codomain(self):
        return variable.Independent(self._base._codomain, self._reinterpreted_batch_rank)


class PowerTransform(Transform):
    """y = x ** power."""
    _type = Type.BIJECTION

    def __init__(self, power):
        if not is_var(power):
            raise TypeError(f"Expected 'power' is a tensor, but got {type(power)}")
        self._power = power
        super().__init__()

    @property
    def power(self):
        return self._power

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return x.pow(self._power)

    def _inverse(self, y):
        return y.pow(1 / self._power)

    def _forward_log_det_jacobian(self, x):
        return (self._power * x.pow(self._power - 1)).abs().log()

    def _forward_shape(self, shape):
        return tuple(paddle.broadcast_shape(list(shape), list(self._power.shape)))

    _inverse_shape = _forward_shape


class ReshapeTransform(Transform):
    """Reshape the event part of a value from ``in_event_shape`` to ``out_event_shape``."""
    _type = Type.BIJECTION

    def __init__(self, in_event_shape, out_event_shape):
        if not isinstance(in_event_shape, typing.Sequence) or not isinstance(out_event_shape, typing.Sequence):
            raise TypeError(f"Expected type of 'in_event_shape' and 'out_event_shape' is Sequence[int], but got "
                            f"'in_event_shape': {in_event_shape}, 'out_event_shape': {out_event_shape}")
        in_size = math.prod(in_event_shape)
        out_size = math.prod(out_event_shape)
        if in_size != out_size:
            raise ValueError(f"The numel of 'in_event_shape' should be 'out_event_shape', but got "
                             f"{in_size}!={out_size}")
        self._in_event_shape = tuple(in_event_shape)
        self._out_event_shape = tuple(out_event_shape)
        super().__init__()

    @property
    def in_event_shape(self):
        return self._in_event_shape

    @property
    def out_event_shape(self):
        return self._out_event_shape

    @property
    def _domain(self):
        return variable.Independent(variable.real, len(self._in_event_shape))

    @property
    def _codomain(self):
        return variable.Independent(variable.real, len(self._out_event_shape))

    def _forward(self, x):
        return x.reshape(tuple(x.shape)[:x.dim() - len(self._in_event_shape)] + self._out_event_shape)

    def _inverse(self, y):
        return y.reshape(tuple(y.shape)[:y.dim() - len(self._out_event_shape)] + self._in_event_shape)

    def _forward_shape(self, shape):
        return self._map_shape(shape, self._in_event_shape, self._out_event_shape, 'not less than')

    def _inverse_shape(self, shape):
        return self._map_shape(shape, self._out_event_shape, self._in_event_shape, 'not less than')

    @staticmethod
    def _map_shape(shape, src, dst, _):
        if len(shape) < len(src):
            raise ValueError(f"Expected length of 'shape' is not less than {len(src)}, but got {len(shape)}")
        if tuple(shape[len(shape) - len(src):]) != tuple(src):
            raise ValueError(f'Event shape mismatch, expected: {src}, but got {shape[len(shape) - len(src):]}')
        return tuple(shape[:len(shape) - len(src)]) + tuple(dst)

    def _forward_log_det_jacobian(self, x):
        shape = x.shape[:x.dim() - len(self._in_event_shape)]
        return paddle.zeros(shape, dtype=x.dtype)


class SigmoidTransform(Transform):
    """y = sigmoid(x)."""

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(0.0, 1.0))

    def _forward(self, x):
        return paddle.nn.functional.sigmoid(x)

    def _inverse(self, y):
        return y.log() - (-y).log1p()

    def _forward_log_det_jacobian(self, x):
        F = paddle.nn.functional
        return -F.softplus(-x) - F.softplus(x)


class SoftmaxTransform(Transform):
    """y = softmax(x) along the last axis; not injective, so it has no log-det-Jacobian."""
    _type = Type.OTHER

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)

    def _forward(self, x):
        x = (x - x.max(-1, keepdim=True)).exp()
        return x / x.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(f'Expected length of shape is grater than 1, but got {len(shape)}')
        return shape

    _inverse_shape = _forward_shape


class StackTransform(Transform):
    """Apply ``transforms[i]`` to slice i of the input along ``axis``."""

    def __init__(self, transforms, axis=0):
        if not transforms or not isinstance(transforms, typing.Sequence):
            raise TypeError(f"Expected 'transforms' is Sequence[Transform], but got {type(transforms)}.")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError('Expected all element in transforms is Transform Type.')
        if not isinstance(axis, int):
            raise TypeError(f"Expected 'axis' is int, but got{type(axis)}.")
        self._transforms = transforms
        self._axis = axis

    def _is_injective(self):
        return all(t._is_injective() for t in self._transforms)

    @property
    def transforms(self):
        return self._transforms

    @property
    def axis(self):
        return self._axis

    def _map(self, v, method):
        self._check_size(v)
        return paddle.stack([getattr(t, method)(s) for s, t in zip(paddle.unstack(v, self._axis), self._transforms)],
                            self._axis)

    def _forward(self, x):
        return self._map(x, 'forward')

    def _inverse(self, y):
        return self._map(y, 'inverse')

    def _forward_log_det_jacobian(self, x):
        return self._map(x, 'forward_log_det_jacobian')

    def _check_size(self, v):
        if not -v.dim() <= self._axis < v.dim():
            raise ValueError(f'Input dimensions {v.dim()} should be grater than stack transform axis {self._axis}.')
        if v.shape[self._axis] != len(self._transforms):
            raise ValueError(f'Input size along {self._axis} should be equal to the length of transforms.')

    @property
    def _domain(self):
        return variable.Stack([t._domain for t in self._transforms], self._axis)

    @property
    def _codomain(self):
        return variable.Stack([t._codomain for t in self._transforms], self._axis)


class StickBreakingTransform(Transform):
    """Unconstrained vectors of length K to points of the K+1 simplex by stick breaking."""
    _type = Type.BIJECTION

    @staticmethod
    def _offset(n, total, dtype):
        # in the default dtype, as Paddle (a float64 x then sees float32-rounded log offsets)
        return total - paddle.ones([n]).cumsum(-1)

    def _forward(self, x):
        F = paddle.nn.functional
        offset = self._offset(x.shape[-1], x.shape[-1] + 1, x.dtype)
        z = F.sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        lead = [0] * 2 * (len(x.shape) - 1)
        return F.pad(z, lead + [0, 1], value=1) * F.pad(z_cumprod, lead + [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = self._offset(y_crop.shape[-1], y.shape[-1], y.dtype)
        sf = 1 - y_crop.cumsum(-1)
        return y_crop.log() - sf.log() + offset.log()

    def _forward_log_det_jacobian(self, x):
        F = paddle.nn.functional
        y = self.forward(x)
        offset = self._offset(x.shape[-1], x.shape[-1] + 1, x.dtype)
        x = x - offset.log()
        return (-x + F.log_sigmoid(x) + y[..., :-1].log()).sum(-1)

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return (*shape[:-1], shape[-1] + 1)

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return (*shape[:-1], shape[-1] - 1)

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)


class TanhTransform(Transform):
    """y = tanh(x)."""
    _type = Type.BIJECTION

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(-1.0, 1.0))

    def _forward(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def _forward_log_det_jacobian(self, x):
        # log(1 - tanh(x)^2) written stably: 2 * (log 2 - x - softplus(-2x))
        return 2.0 * (math.log(2.0) - x - paddle.nn.functional.softplus(-2.0 * x))
