"""paddle.optimizer.Lamb (the ``lamb`` op): Adam moments with a layer-wise trust ratio."""
from __future__ import annotations

import numpy as np

from ..dispatch import run_op
from ..tensor import Tensor
from ._update import check_master_weights
from .optimizer import Optimizer, _as_float

__all__ = ["Lamb"]


class Lamb(Optimizer):
    """``r = m_hat / (sqrt(v_hat) + eps) + lamb_weight_decay * w``;
    ``w -= lr * ||w|| / ||r|| * r`` (the ratio is 1 when either norm is 0, or when the decay is 0 and
    ``always_adapt`` is False). ``weight_decay`` regularisers are not taken: use ``lamb_weight_decay``."""

    _moment1_acc_str = "moment1"
    _moment2_acc_str = "moment2"
    _beta1_pow_acc_str = "beta1_pow_acc"
    _beta2_pow_acc_str = "beta2_pow_acc"

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999, epsilon=1e-06,
                 parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None, multi_precision=False,
                 always_adapt=False, name=None):
        for what, v in (("learning_rate", learning_rate), ("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)):
            if v is None:
                raise ValueError(f"Lamb: {what} is not set.")
        if exclude_from_weight_decay_fn is not None and not callable(exclude_from_weight_decay_fn):
            raise TypeError("Lamb: exclude_from_weight_decay_fn must be a function of the parameter, got "
                            f"{type(exclude_from_weight_decay_fn).__name__}")
        self._beta1 = beta1 if isinstance(beta1, Tensor) else _as_float(beta1, "beta1", "Lamb")
        self._beta2 = beta2 if isinstance(beta2, Tensor) else _as_float(beta2, "beta2", "Lamb")
        self._epsilon = epsilon if isinstance(epsilon, Tensor) else _as_float(epsilon, "epsilon", "Lamb")
        self._lamb_weight_decay = _as_float(lamb_weight_decay, "lamb_weight_decay", "Lamb")
        self._exclude_from_weight_decay_fn = exclude_from_weight_decay_fn
        self._multi_precision = bool(multi_precision)
        self.always_adapt = bool(always_adapt)
        self._default_dict = {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon,
                              "lamb_weight_decay": self._lamb_weight_decay,
                              "exclude_from_weight_decay_fn": exclude_from_weight_decay_fn}
        self.type = "lamb"
        super().__init__(learning_rate, parameters, None, grad_clip, name)

    @staticmethod
    def _value(v):
        return float(v.item()) if isinstance(v, Tensor) else float(v)

    def _create_accumulators(self, params, group):
        check_master_weights(self, params)
        for p in params:
            dt = np.float64 if p._data.dtype == np.float64 else np.float32
            self._add_accumulator(self._moment1_acc_str, p, dtype=dt)
            self._add_accumulator(self._moment2_acc_str, p, dtype=dt)
            # the powers start at the parameter group's betas (0.9 / 0.999 when a beta is a Tensor), as Paddle
            b1 = 0.9 if isinstance(group["beta1"], Tensor) else float(group["beta1"])
            b2 = 0.999 if isinstance(group["beta2"], Tensor) else float(group["beta2"])
            self._add_accumulator(self._beta1_pow_acc_str, p, fill_value=b1, shape=[1], dtype=dt)
            self._add_accumulator(self._beta2_pow_acc_str, p, fill_value=b2, shape=[1], dtype=dt)

    def _append_optimize_op(self, group, param, grad):
        m1 = self._get_accumulator(self._moment1_acc_str, param)
        m2 = self._get_accumulator(self._moment2_acc_str, param)
        b1p = self._get_accumulator(self._beta1_pow_acc_str, param)
        b2p = self._get_accumulator(self._beta2_pow_acc_str, param)
        exclude = group.get("exclude_from_weight_decay_fn")
        wd = 0.0 if exclude is not None and exclude(param) else float(group["lamb_weight_decay"])
        p_out, m1_out, m2_out, b1p_out, b2p_out, _ = run_op(
            "lamb", param, grad, self._param_lr(param), m1, m2, b1p, b2p, None, None,
            weight_decay=wd, beta1=self._value(group["beta1"]), beta2=self._value(group["beta2"]),
            epsilon=self._value(group["epsilon"]), always_adapt=self.always_adapt, multi_precision=False)
        self._write(param, p_out)
        self._write(m1, m1_out)
        self._write(m2, m2_out)
        self._write(b1p, b1p_out)
        self._write(b2p, b2p_out)
