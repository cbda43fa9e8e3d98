"""paddle.optimizer.RMSProp (the ``rmsprop`` op), optionally centered and with momentum."""
from __future__ import annotations

from ..dispatch import run_op
from .optimizer import Optimizer, _as_float

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """``ms = rho * ms + (1 - rho) * g^2``; ``mom = momentum * mom + lr * g / sqrt(ms + epsilon)``
    (centered: ``sqrt(ms - mg^2 + epsilon)`` with ``mg = rho * mg + (1 - rho) * g``); ``param -= mom``."""

    _momentum_acc_str = "momentum"
    _mean_square_acc_str = "mean_square"
    _mean_grad_acc_str = "mean_grad"

    def __init__(self, learning_rate, rho=0.95, epsilon=1e-06, momentum=0.0, centered=False, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        for what, v in (("learning_rate", learning_rate), ("rho", rho), ("epsilon", epsilon),
                        ("momentum", momentum)):
            if v is None:
                raise ValueError(f"RMSProp: {what} is not set")
        rho = _as_float(rho, "rho", "RMSProp")
        epsilon = _as_float(epsilon, "epsilon", "RMSProp")
        momentum = _as_float(momentum, "momentum", "RMSProp")
        for what, v in (("rho", rho), ("epsilon", epsilon), ("momentum", momentum)):
            if v < 0:
                raise ValueError(f"RMSProp: {what} must be >= 0, got {v}")
        self._rho, self._epsilon, self._momentum, self._centered = rho, epsilon, momentum, bool(centered)
        self._default_dict = {"rho": rho, "epsilon": epsilon, "momentum": momentum, "centered": self._centered}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, params, group):
        for p in params:
            self._add_accumulator(self._momentum_acc_str, p)
            self._add_accumulator(self._mean_square_acc_str, p)
            self._add_accumulator(self._mean_grad_acc_str, p)

    def _append_optimize_op(self, group, param, grad):
        mom = self._get_accumulator(self._momentum_acc_str, param)
        ms = self._get_accumulator(self._mean_square_acc_str, param)
        mg = self._get_accumulator(self._mean_grad_acc_str, param)
        p_out, mom_out, ms_out, mg_out, _ = run_op(
            "rmsprop", param, ms, grad, mom, self._param_lr(param), mg, None,
            epsilon=float(group["epsilon"]), decay=float(group["rho"]), momentum=float(group["momentum"]),
            centered=bool(group["centered"]))
        self._write(param, p_out)
        self._write(mom, mom_out)
        self._write(ms, ms_out)
        self._write(mg, mg_out)
