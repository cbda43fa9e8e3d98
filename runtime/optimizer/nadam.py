"""paddle.optimizer.NAdam (the ``nadam`` op): Adam with Nesterov momentum and momentum decay."""
from __future__ import annotations

import numbers

from ..dispatch import run_op
from .optimizer import Optimizer, _as_float

__all__ = ["NAdam"]


def check_adam_family_args(cls, learning_rate, epsilon, beta1, beta2):
    """Paddle's argument checks shared by NAdam and RAdam (same messages)."""
    if isinstance(learning_rate, numbers.Real) and not isinstance(learning_rate, bool) and not 0.0 <= learning_rate:
        raise ValueError(f"Invalid learning rate: {learning_rate}, expect learning_rate >= 0.")
    epsilon = _as_float(epsilon, "epsilon", cls)
    beta1 = _as_float(beta1, "beta1", cls)
    beta2 = _as_float(beta2, "beta2", cls)
    if not 0.0 <= epsilon:
        raise ValueError(f"Invalid epsilon value: {epsilon}, expect epsilon >= 0.")
    if not 0.0 <= beta1 < 1.0:
        raise ValueError(f"Invalid beta1: {beta1}, expect 0. <= beta1 < 1.0.")
    if not 0.0 <= beta2 < 1.0:
        raise ValueError(f"Invalid beta2: {beta2}, expect 0. <= beta2 < 1.0.")
    return epsilon, beta1, beta2


class NAdam(Optimizer):
    """``mu_t = beta1 (1 - 0.5 * 0.96^(t psi))``; ``m_hat = mu_{t+1} m / (1 - prod mu_{1..t+1})
    + (1 - mu_t) g / (1 - prod mu_{1..t})``; ``param -= lr * m_hat / (sqrt(v / (1 - beta2^t)) + eps)``."""

    _momentum_decay_pow_acc_str = "momentum_decay_pow"
    _beta2_pow_acc_str = "beta2_pow"
    _mu_product_acc_str = "mu_product"
    _moment1_acc_str = "moment1"
    _moment2_acc_str = "moment2"

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1e-08, momentum_decay=0.004,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        epsilon, beta1, beta2 = check_adam_family_args("NAdam", learning_rate, epsilon, beta1, beta2)
        momentum_decay = _as_float(momentum_decay, "momentum_decay", "NAdam")
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}, expect momentum_decay >= 0.")
        self._beta1, self._beta2, self._epsilon, self._momentum_decay = beta1, beta2, epsilon, momentum_decay
        self._default_dict = {"beta1": beta1, "beta2": beta2, "epsilon": epsilon, "momentum_decay": momentum_decay}
        self.type = "nadam"
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, params, group):
        for p in params:
            self._add_accumulator(self._momentum_decay_pow_acc_str, p, fill_value=1.0)
            self._add_accumulator(self._beta2_pow_acc_str, p, fill_value=1.0)
            self._add_accumulator(self._mu_product_acc_str, p, fill_value=1.0)
            self._add_accumulator(self._moment1_acc_str, p)
            self._add_accumulator(self._moment2_acc_str, p)

    def _append_optimize_op(self, group, param, grad):
        accs = [self._get_accumulator(n, param) for n in (
            self._momentum_decay_pow_acc_str, self._beta2_pow_acc_str, self._mu_product_acc_str,
            self._moment1_acc_str, self._moment2_acc_str)]
        outs = run_op("nadam", param, grad, self._param_lr(param), *accs, None,
                          beta1=float(group["beta1"]), beta2=float(group["beta2"]),
                          epsilon=float(group["epsilon"]), momentum_decay=float(group["momentum_decay"]))
        self._write(param, outs[0])
        for acc, out in zip(accs, outs[1:6]):
            self._write(acc, out)
