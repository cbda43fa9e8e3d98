"""paddle.optimizer.RAdam (the ``radam`` op): Adam with a rectified adaptive learning rate."""
from __future__ import annotations

from ..dispatch import run_op
from .optimizer import Optimizer
from .nadam import check_adam_family_args

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """``rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)``; when ``rho_t > 5`` the Adam step is scaled by the
    rectification ``r_t`` and ``l_t = sqrt(1 - beta2^t) / (sqrt(v) + eps)``, else ``param -= lr * m_hat``."""

    _beta1_pow_acc_str = "beta1_pow"
    _beta2_pow_acc_str = "beta2_pow"
    _rho_acc_str = "rho"
    _moment1_acc_str = "moment1"
    _moment2_acc_str = "moment2"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        epsilon, beta1, beta2 = check_adam_family_args("RAdam", learning_rate, epsilon, beta1, beta2)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._default_dict = {"beta1": beta1, "beta2": beta2, "epsilon": epsilon}
        self.type = "radam"
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, params, group):
        for p in params:
            self._add_accumulator(self._beta1_pow_acc_str, p, fill_value=1.0)
            self._add_accumulator(self._beta2_pow_acc_str, p, fill_value=1.0)
            self._add_accumulator(self._rho_acc_str, p, fill_value=1.0)
            self._add_accumulator(self._moment1_acc_str, p)
            self._add_accumulator(self._moment2_acc_str, p)

    def _append_optimize_op(self, group, param, grad):
        accs = [self._get_accumulator(n, param) for n in (
            self._beta1_pow_acc_str, self._beta2_pow_acc_str, self._rho_acc_str,
            self._moment1_acc_str, self._moment2_acc_str)]
        outs = run_op("radam", param, grad, self._param_lr(param), *accs, None,
                          beta1=float(group["beta1"]), beta2=float(group["beta2"]), epsilon=float(group["epsilon"]))
        self._write(param, outs[0])
        for acc, out in zip(accs, outs[1:6]):
            self._write(acc, out)
