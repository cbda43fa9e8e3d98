"""paddle.optimizer.Momentum: heavy-ball or Nesterov momentum (the ``momentum`` op)."""
from __future__ import annotations

from ..dispatch import run_op
from ..regularizer import L2Decay
from . import multi_tensor
from .optimizer import Optimizer, _as_float

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """``velocity = momentum * velocity + grad``; ``param -= lr * velocity`` (Nesterov:
    ``param -= lr * (grad + momentum * velocity)``). L2Decay is folded into the op."""

    _velocity_acc_str = "velocity"
    _l2_in_op = True

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False, weight_decay=None,
                 grad_clip=None, multi_precision=False, rescale_grad=1.0, use_multi_tensor=False, name=None):
        if learning_rate is None:
            raise ValueError("Momentum: learning_rate is not set")
        if momentum is None:
            raise ValueError("Momentum: momentum is not set")
        self._momentum = _as_float(momentum, "momentum", "Momentum")
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = float(rescale_grad)
        self._multi_precision = multi_precision
        self._default_dict = {"momentum": self._momentum, "use_nesterov": self._use_nesterov,
                              "rescale_grad": self._rescale_grad}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, params, group):
        for p in params:
            self._add_accumulator(self._velocity_acc_str, p)

    def _append_optimize_op(self, group, param, grad):
        reg = self._regularizer_for(param, group)
        method, coeff = ("l2_decay", reg.coeff) if isinstance(reg, L2Decay) else ("", 0.0)
        velocity = self._get_accumulator(self._velocity_acc_str, param)
        p_out, v_out, _ = run_op("momentum", param, grad, velocity, self._param_lr(param), None,
                                 mu=float(group["momentum"]), use_nesterov=bool(group["use_nesterov"]),
                                 regularization_method=method, regularization_coeff=coeff,
                                 rescale_grad=float(group["rescale_grad"]))
        self._write(param, p_out)
        self._write(velocity, v_out)


multi_tensor.register(Momentum, multi_tensor.momentum)
