"""paddle.optimizer.SGD: ``param -= lr * grad``."""
from __future__ import annotations

from ..dispatch import run_op
from . import multi_tensor
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (the ``sgd`` op)."""

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("SGD: learning_rate is not set")
        self._multi_precision = multi_precision
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _append_optimize_op(self, group, param, grad):
        out, _ = run_op("sgd", param, self._param_lr(param), grad, None)
        self._write(param, out)


multi_tensor.register(SGD, multi_tensor.sgd)
