"""paddle.regularizer: L1Decay and L2Decay, the weight-decay terms optimizers add to gradients.

A regularizer set on a parameter (``ParamAttr(regularizer=...)``) takes precedence over the
optimizer's ``weight_decay``, as in Paddle.
"""
from __future__ import annotations

import numpy as np

__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]


def _const(value, like):
    """A 0-D constant in the dtype of tensor ``like`` (a run_op input that broadcasts)."""
    return np.asarray(value, dtype=like._data.dtype)


def _check_coeff(coeff, cls):
    from .tensor import Tensor
    if isinstance(coeff, Tensor):
        coeff = float(coeff.item())
    if isinstance(coeff, bool) or not isinstance(coeff, (int, float, np.floating, np.integer)):
        raise TypeError(f"{cls}: coeff must be a float, got {type(coeff).__name__}")
    return float(coeff)


class WeightDecayRegularizer:
    """Base class: ``__call__(param, grad)`` returns the decay term to add to ``grad``."""

    def __init__(self, coeff=0.0):
        self._coeff = _check_coeff(coeff, type(self).__name__)

    @property
    def coeff(self):
        return self._coeff

    def __call__(self, param, grad, block=None):
        raise NotImplementedError

    def _apply(self, param, grad):
        """``grad`` plus this regularizer's term (what the optimizer feeds to the update op)."""
        from .dispatch import run_op
        return run_op("elementwise_add", grad, self(param, grad))

    def __str__(self):
        return f"{type(self).__name__}, coeff={self._coeff:f}"

    __repr__ = __str__


class L2Decay(WeightDecayRegularizer):
    """L2 weight decay: adds ``coeff * param`` to the gradient (loss term ``coeff/2 * sum(param**2)``)."""

    def __call__(self, param, grad, block=None):
        from .dispatch import run_op
        return run_op("elementwise_mul", param, _const(self._coeff, param))


class L1Decay(WeightDecayRegularizer):
    """L1 weight decay: adds ``coeff * sign(param)`` to the gradient."""

    def __call__(self, param, grad, block=None):
        from .dispatch import run_op
        return run_op("elementwise_mul", _sign(param), _const(self._coeff, param))


def _sign(x):
    """sign(x) from registered ops: x / max(|x|, tiny) is exactly -1, 0 or 1 (tiny is the smallest
    subnormal, so every nonzero |x| is at least tiny and x / |x| is exact)."""
    from .dispatch import run_op
    from .ops.registry import _OPS
    if "sign" in _OPS:
        return run_op("sign", x)
    dt = x._data.dtype
    absx = run_op("elementwise_max", x, run_op("elementwise_mul", x, np.asarray(-1, dtype=dt)))
    tiny = np.asarray(np.nextafter(dt.type(0), dt.type(1)), dtype=dt)
    return run_op("elementwise_div", x, run_op("elementwise_max", absx, tiny))
