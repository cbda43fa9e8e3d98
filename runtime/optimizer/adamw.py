"""paddle.optimizer.AdamW: Adam with decoupled weight decay (``param *= 1 - lr * coeff`` before the Adam step)."""
from __future__ import annotations

import numbers

from ..tensor import Tensor
from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam with decoupled weight decay (the ``adamw`` op). ``weight_decay`` is the decay coefficient;
    ``apply_decay_param_fun(name)`` selects the parameters it applies to; ``lr_ratio(param)`` scales
    the learning rate per parameter. A regulariser set on a parameter still adds to its gradient."""

    _op_type = "adamw"
    _decoupled_weight_decay = True

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=0.01, lr_ratio=None, apply_decay_param_fun=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, amsgrad=False, name=None):
        if weight_decay is None:
            weight_decay = 0.0
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, (numbers.Real, Tensor)):
            raise TypeError(f"AdamW: weight_decay must be a float or a Tensor, got {type(weight_decay).__name__}")
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError(f"AdamW: lr_ratio must be a function of the parameter, got {type(lr_ratio).__name__}")
        if apply_decay_param_fun is not None and not callable(apply_decay_param_fun):
            raise TypeError("AdamW: apply_decay_param_fun must be a function of the parameter name, "
                            f"got {type(apply_decay_param_fun).__name__}")
        self._coeff = weight_decay
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, weight_decay=weight_decay,
                         grad_clip=grad_clip, lazy_mode=lazy_mode, multi_precision=multi_precision,
                         amsgrad=amsgrad, name=name)

    def _extra_attrs(self, group, param):
        coeff = group.get("weight_decay", self._coeff)
        coeff = float(coeff.item()) if isinstance(coeff, Tensor) else float(coeff)
        with_decay = self._apply_decay_param_fun is None or bool(self._apply_decay_param_fun(param.name))
        ratio = 1.0 if self._lr_ratio is None else float(self._lr_ratio(param))
        return {"coeff": coeff, "with_decay": with_decay, "lr_ratio": ratio}
