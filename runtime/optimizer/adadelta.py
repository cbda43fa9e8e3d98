"""paddle.optimizer.Adadelta (the ``adadelta`` op)."""
from __future__ import annotations

from ..dispatch import run_op
from .optimizer import Optimizer, _as_float

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """``E[g^2] = rho E[g^2] + (1 - rho) g^2``;
    ``update = -sqrt(E[dx^2] + eps) / sqrt(E[g^2] + eps) * g``; ``param += lr * update``;
    ``E[dx^2] = rho E[dx^2] + (1 - rho) update^2``."""

    _avg_squared_grad_acc_str = "_avg_squared_grad"
    _avg_squared_update_acc_str = "_avg_squared_update"

    def __init__(self, learning_rate=0.001, epsilon=1e-06, rho=0.95, parameters=None, weight_decay=None,
                 grad_clip=None, name=None):
        for what, v in (("learning_rate", learning_rate), ("epsilon", epsilon), ("rho", rho)):
            if v is None:
                raise ValueError(f"Adadelta: {what} is not set.")
        self._epsilon = _as_float(epsilon, "epsilon", "Adadelta")
        self._rho = _as_float(rho, "rho", "Adadelta")
        self._default_dict = {"epsilon": self._epsilon, "rho": self._rho}
        self.type = "adadelta"
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, params, group):
        for p in params:
            self._add_accumulator(self._avg_squared_grad_acc_str, p)
            self._add_accumulator(self._avg_squared_update_acc_str, p)

    def _append_optimize_op(self, group, param, grad):
        asg = self._get_accumulator(self._avg_squared_grad_acc_str, param)
        asu = self._get_accumulator(self._avg_squared_update_acc_str, param)
        p_out, asg_out, asu_out, _ = run_op(
            "adadelta", param, grad, asg, asu, self._param_lr(param), None,
            rho=float(group["rho"]), epsilon=float(group["epsilon"]))
        self._write(param, p_out)
        self._write(asg, asg_out)
        self._write(asu, asu_out)
