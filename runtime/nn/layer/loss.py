"""Loss layers: wrappers that hold a loss function's options and call it in forward."""
from __future__ import annotations

from .. import functional as F
from .layers import Layer
from ...api.param_alias import forward_alias

__all__ = ["CrossEntropyLoss", "MSELoss", "L1Loss", "BCEWithLogitsLoss", "BCELoss", "NLLLoss", "SmoothL1Loss",
           "KLDivLoss", "MarginRankingLoss"]


def _check_reduction(reduction, cls):
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(f"The value of 'reduction' in {cls} should be 'sum', 'mean' or 'none', but received "
                         f"{reduction}, which is not allowed.")
    return reduction


class CrossEntropyLoss(Layer):
    """Softmax (optional) + cross entropy; labels are class indices (``[N]`` or ``[N, 1]``) or,
    with ``soft_label``, distributions."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False, axis=-1,
                 use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__()
        self.weight = weight
        self.reduction = _check_reduction(reduction, "CrossEntropyLoss")
        self.ignore_index = ignore_index
        self.soft_label = soft_label
        self.axis = axis
        self.use_softmax = use_softmax
        self.label_smoothing = label_smoothing
        self.name = name

    def forward(self, input, label):
        kwargs = {}
        if self.label_smoothing:
            kwargs["label_smoothing"] = self.label_smoothing
        return F.cross_entropy(input, label, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, soft_label=self.soft_label, axis=self.axis,
                               use_softmax=self.use_softmax, name=self.name, **kwargs)


class MSELoss(Layer):
    """Mean squared error."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _check_reduction(reduction, "MSELoss")

    def forward(self, input, label):
        return F.mse_loss(input, label, reduction=self.reduction)


class L1Loss(Layer):
    """Mean absolute error."""

    def __init__(self, reduction="mean", name=None):
        super().__init__()
        self.reduction = _check_reduction(reduction, "L1Loss")
        self.name = name

    def forward(self, input, label):
        return F.l1_loss(input, label, reduction=self.reduction, name=self.name)


class BCEWithLogitsLoss(Layer):
    """Sigmoid + binary cross entropy, computed stably from logits."""

    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__()
        self.weight = weight
        self.reduction = _check_reduction(reduction, "BCEWithLogitsLoss")
        self.pos_weight = pos_weight
        self.name = name

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, weight=self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight, name=self.name)


class BCELoss(Layer):
    """Binary cross entropy on probabilities."""

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__()
        self.weight = weight
        self.reduction = _check_reduction(reduction, "BCELoss")
        self.name = name

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, weight=self.weight, reduction=self.reduction, name=self.name)


class NLLLoss(Layer):
    """Negative log likelihood on log-probabilities."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__()
        self._weight = weight
        self._ignore_index = ignore_index
        self._reduction = _check_reduction(reduction, "NLLLoss")
        self._name = name

    def forward(self, input, label):
        return F.nll_loss(input, label, weight=self._weight, ignore_index=self._ignore_index,
                          reduction=self._reduction, name=self._name)


class SmoothL1Loss(Layer):
    """Huber-style loss: quadratic below ``delta``, linear above."""

    def __init__(self, reduction="mean", delta=1.0, is_huber=True, name=None):
        super().__init__()
        self.reduction = _check_reduction(reduction, "SmoothL1Loss")
        self.delta = delta
        self.is_huber = is_huber
        self.name = name

    @forward_alias(label="target")
    def forward(self, input, label):
        kwargs = {} if self.is_huber else {"is_huber": False}
        return F.smooth_l1_loss(input, label, reduction=self.reduction, delta=self.delta, name=self.name, **kwargs)


class KLDivLoss(Layer):
    def __init__(self, reduction="mean", log_target=False):
        super().__init__()
        if reduction not in ("sum", "mean", "none", "batchmean"):
            raise ValueError(f"The value of 'reduction' in KLDivLoss should be 'sum', 'mean', 'batchmean' or "
                             f"'none', but received {reduction}, which is not allowed.")
        self.reduction = reduction
        self.log_target = log_target

    def forward(self, input, label):
        kwargs = {"log_target": True} if self.log_target else {}
        return F.kl_div(input, label, self.reduction, **kwargs)


class MarginRankingLoss(Layer):
    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__()
        self.margin = margin
        self.reduction = _check_reduction(reduction, "MarginRankingLoss")
        self.name = name

    def forward(self, input, other, label):
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction, self.name)
