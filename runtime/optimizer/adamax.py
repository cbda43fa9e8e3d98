"""paddle.optimizer.Adamax (the ``adamax`` op, then ``beta1_pow *= beta1`` as a ``scale`` op, like Paddle)."""
from __future__ import annotations

import numpy as np

from ..dispatch import run_op
from .optimizer import Optimizer, _as_float
from ._update import scale_accumulator

__all__ = ["Adamax"]


def _beta(value, what):
    value = _as_float(value, what, "Adamax")
    if not 0 <= value < 1:
        raise ValueError(f"Invalid value of {what}, expect {what} in [0,1).")
    return value


class Adamax(Optimizer):
    """``m = beta1 m + (1 - beta1) g``; ``u = max(|g|, beta2 u + epsilon)``;
    ``param -= lr / (1 - beta1^t) * m / u``."""

    _moment_acc_str = "moment"
    _inf_norm_acc_str = "inf_norm"
    _beta1_pow_acc_str = "beta1_pow_acc"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        for what, v in (("learning_rate", learning_rate), ("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)):
            if v is None:
                raise ValueError(f"Adamax: {what} is not set.")
        self._beta1 = _beta(beta1, "beta1")
        self._beta2 = _beta(beta2, "beta2")
        self._epsilon = _as_float(epsilon, "epsilon", "Adamax")
        if self._epsilon < 0:
            raise ValueError("Invalid value of epsilon, expect epsilon >= 0.")
        self._default_dict = {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon}
        self.type = "adamax"
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, params, group):
        for p in params:
            self._add_accumulator(self._moment_acc_str, p)
            self._add_accumulator(self._inf_norm_acc_str, p)
            # beta1_pow starts at the parameter group's beta1 (Paddle's _update_param_group sets it first)
            self._add_accumulator(self._beta1_pow_acc_str, p, fill_value=float(group["beta1"]), shape=[1],
                                  dtype=np.float64 if p._data.dtype == np.float64 else np.float32)

    def _append_optimize_op(self, group, param, grad):
        moment = self._get_accumulator(self._moment_acc_str, param)
        inf_norm = self._get_accumulator(self._inf_norm_acc_str, param)
        b1p = self._get_accumulator(self._beta1_pow_acc_str, param)
        p_out, m_out, u_out, _ = run_op(
            "adamax", param, grad, self._param_lr(param), moment, inf_norm, b1p, None,
            beta1=float(group["beta1"]), beta2=float(group["beta2"]), epsilon=float(group["epsilon"]))
        self._write(param, p_out)
        self._write(moment, m_out)
        self._write(inf_norm, u_out)
        scale_accumulator(b1p, group["beta1"])
