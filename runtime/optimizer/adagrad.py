"""paddle.optimizer.Adagrad (the ``adagrad`` op)."""
from __future__ import annotations

from ..dispatch import run_op
from .optimizer import Optimizer, _as_float

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """``moment += g^2``; ``param -= lr * g / (sqrt(moment) + epsilon)``."""

    _moment_acc_str = "moment"

    def __init__(self, learning_rate, epsilon=1e-06, parameters=None, weight_decay=None, grad_clip=None, name=None,
                 initial_accumulator_value=0.0):
        if learning_rate is None:
            raise ValueError("Adagrad: learning_rate is not set")
        if epsilon is None:
            raise ValueError("Adagrad: epsilon is not set")
        self._epsilon = _as_float(epsilon, "epsilon", "Adagrad")
        self._initial_accumulator_value = _as_float(initial_accumulator_value, "initial_accumulator_value", "Adagrad")
        self._default_dict = {"epsilon": self._epsilon,
                              "initial_accumulator_value": self._initial_accumulator_value}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, params, group):
        for p in params:
            self._add_accumulator(self._moment_acc_str, p, fill_value=self._initial_accumulator_value)

    def _append_optimize_op(self, group, param, grad):
        moment = self._get_accumulator(self._moment_acc_str, param)
        p_out, m_out, _ = run_op("adagrad", param, grad, moment, self._param_lr(param), None,
                                 epsilon=float(group["epsilon"]))
        self._write(param, p_out)
        self._write(moment, m_out)
