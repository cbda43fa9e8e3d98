"""paddle.optimizer.Adam (the ``adam`` op, with Paddle's bias correction through Beta1Pow/Beta2Pow)."""
from __future__ import annotations

import numpy as np

from ..dispatch import run_op
from ..tensor import Tensor
from . import multi_tensor
from .optimizer import Optimizer, _as_float

__all__ = ["Adam"]


def _check_beta(value, what, cls):
    if isinstance(value, Tensor):
        return value
    value = _as_float(value, what, cls)
    if not 0 <= value < 1:
        raise ValueError(f"{cls}: {what} must be in [0, 1), got {value}")
    return value


def _check_epsilon(value, cls):
    if isinstance(value, Tensor):
        return value
    value = _as_float(value, "epsilon", cls)
    if value < 0:
        raise ValueError(f"{cls}: epsilon must be >= 0, got {value}")
    return value


class Adam(Optimizer):
    """Adam: moment estimates with bias correction
    ``lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``,
    ``param -= lr_t * m / (sqrt(v) + epsilon * sqrt(1 - beta2^t))``."""

    _moment1_acc_str = "moment1"
    _moment2_acc_str = "moment2"
    _moment2_acc_max_str = "moment2_max"
    _beta1_pow_acc_str = "beta1_pow_acc"
    _beta2_pow_acc_str = "beta2_pow_acc"
    _op_type = "adam"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=None, grad_clip=None, lazy_mode=False, multi_precision=False, use_multi_tensor=False,
                 amsgrad=False, name=None):
        cls = type(self).__name__
        if learning_rate is None:
            raise ValueError(f"{cls}: learning_rate is not set")
        self._beta1 = _check_beta(beta1, "beta1", cls)
        self._beta2 = _check_beta(beta2, "beta2", cls)
        self._epsilon = _check_epsilon(epsilon, cls)
        self._lazy_mode = bool(lazy_mode)
        self._amsgrad = bool(amsgrad)
        self._multi_precision = multi_precision
        self._default_dict = {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon,
                              "lazy_mode": self._lazy_mode}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    @staticmethod
    def _pow_init(beta, default):
        # Paddle starts the beta-power accumulators at the default betas when beta is a Tensor
        return default if isinstance(beta, Tensor) else float(beta)

    def _create_accumulators(self, params, group):
        created = self._accumulators.get(self._beta2_pow_acc_str, {})
        for p in params:
            if p.name in created:
                continue
            self._add_accumulator(self._moment1_acc_str, p)
            self._add_accumulator(self._moment2_acc_str, p)
            if self._amsgrad:
                self._add_accumulator(self._moment2_acc_max_str, p)
            pow_dtype = np.float64 if p._data.dtype == np.float64 else np.float32
            self._add_accumulator(self._beta1_pow_acc_str, p, fill_value=self._pow_init(group["beta1"], 0.9),
                                  shape=[1], dtype=pow_dtype)
            self._add_accumulator(self._beta2_pow_acc_str, p, fill_value=self._pow_init(group["beta2"], 0.999),
                                  shape=[1], dtype=pow_dtype)

    def _extra_attrs(self, group, param):
        return {}

    def _append_optimize_op(self, group, param, grad):
        m1 = self._get_accumulator(self._moment1_acc_str, param)
        m2 = self._get_accumulator(self._moment2_acc_str, param)
        m2max = self._get_accumulator(self._moment2_acc_max_str, param) if self._amsgrad else None
        b1p = self._get_accumulator(self._beta1_pow_acc_str, param)
        b2p = self._get_accumulator(self._beta2_pow_acc_str, param)
        beta1, beta2, eps = group["beta1"], group["beta2"], group["epsilon"]
        attrs = dict(lazy_mode=bool(group.get("lazy_mode", False)), amsgrad=self._amsgrad,
                     multi_precision=False)
        tensors = []
        for key, v in (("beta1", beta1), ("beta2", beta2), ("epsilon", eps)):
            if isinstance(v, Tensor):
                tensors.append(v)
            else:
                tensors.append(None)
                attrs[key] = float(v)
        attrs.update(self._extra_attrs(group, param))
        outs = run_op(self._op_type, param, grad, self._param_lr(param), m1, m2, m2max, b1p, b2p, None, None,
                      *tensors, **attrs)
        p_out, m1_out, m2_out, m2max_out, b1p_out, b2p_out, _ = outs
        self._write(param, p_out)
        self._write(m1, m1_out)
        self._write(m2, m2_out)
        if m2max is not None:
            self._write(m2max, m2max_out)
        self._write(b1p, b1p_out)
        self._write(b2p, b2p_out)


multi_tensor.register(Adam, multi_tensor.adam)
