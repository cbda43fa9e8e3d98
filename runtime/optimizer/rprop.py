"""paddle.optimizer.Rprop (the ``rprop`` op): sign-based steps with per-element adaptive step sizes."""
from __future__ import annotations

import numbers

import numpy as np

from ..dispatch import run_op
from ..dtype import from_numpy_dtype
from ..framework import state
from ._update import check_master_weights
from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Per element: if ``g * g_prev > 0`` the step grows by ``etas[1]``, if ``< 0`` it shrinks by ``etas[0]``
    and the gradient is taken as 0; the step is clipped to ``learning_rate_range``;
    ``param -= sign(g) * step``. ``learning_rate`` is the initial step size (full-batch training only)."""

    _prevs_acc_str = "prevs"
    _learning_rates_acc_str = "learning_rates"

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-05, 50), parameters=None, etas=(0.5, 1.2),
                 grad_clip=None, multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if not isinstance(learning_rate, numbers.Real) or isinstance(learning_rate, bool):
            raise TypeError(f"Rprop: learning_rate must be a float (the initial step size), "
                            f"got {type(learning_rate).__name__}")
        lo, hi = (float(v) for v in learning_rate_range)
        if not 0.0 < lo <= learning_rate <= hi:
            raise ValueError("'0.0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1]' must be true")
        eta_minus, eta_plus = (float(v) for v in etas)
        if not 0.0 < eta_minus < 1.0 < eta_plus:
            raise ValueError("'0.0 < etas[0] < 1.0 < etas[1]' must be true")
        self._initial_learning_rate = float(learning_rate)
        self._learning_rate_range = (lo, hi)
        self._etas = (eta_minus, eta_plus)
        self._multi_precision = bool(multi_precision)
        self.type = "rprop"
        super().__init__(learning_rate, parameters, None, grad_clip, name)

    def _create_accumulators(self, params, group):
        check_master_weights(self, params)
        for p in params:
            self._add_accumulator(self._prevs_acc_str, p)
            self._add_accumulator(self._learning_rates_acc_str, p, fill_value=self._initial_learning_rate)

    def _pair(self, values, dtype):
        if state.static:
            return run_op("assign_value", None, shape=[1, 2], dtype=from_numpy_dtype(np.dtype(dtype)).proto,
                          values=[float(v) for v in values])
        return np.asarray([values], dtype=dtype)

    def _append_optimize_op(self, group, param, grad):
        prev = self._get_accumulator(self._prevs_acc_str, param)
        lrs = self._get_accumulator(self._learning_rates_acc_str, param)
        dt = np.float64 if np.dtype(param.dtype.np if state.static else param._data.dtype) == np.float64 \
            else np.float32
        p_out, prev_out, lr_out, _ = run_op(
            "rprop", param, grad, prev, lrs, None, self._pair(self._learning_rate_range, dt),
            self._pair(self._etas, dt))
        self._write(param, p_out)
        self._write(prev, prev_out)
        self._write(lrs, lr_out)
