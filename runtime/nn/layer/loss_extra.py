"""Layers over the margin, embedding and likelihood losses of ``functional/loss_extra.py``."""
from __future__ import annotations

from .. import functional as F
from .layers import Layer

__all__ = ["HingeEmbeddingLoss", "CosineEmbeddingLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
           "MultiMarginLoss", "MultiLabelSoftMarginLoss", "MultiLabelMarginLoss", "SoftMarginLoss", "PoissonNLLLoss",
           "GaussianNLLLoss"]


def _check_reduction(reduction, cls):
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(f"{cls}: reduction must be 'sum', 'mean' or 'none', got {reduction!r}")


class HingeEmbeddingLoss(Layer):
    def __init__(self, margin=1.0, reduction="mean", name=None):
        super().__init__()
        self.margin = margin
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.hinge_embedding_loss(input, label, reduction=self.reduction, margin=self.margin, name=self.name)


class CosineEmbeddingLoss(Layer):
    def __init__(self, margin=0, reduction="mean", name=None):
        if margin > 1 or margin < -1:
            raise ValueError(f"CosineEmbeddingLoss: margin must be in [-1, 1], got {margin}")
        _check_reduction(reduction, "CosineEmbeddingLoss")
        super().__init__()
        self.margin = margin
        self.reduction = reduction
        self.name = name

    def forward(self, input1, input2, label):
        return F.cosine_embedding_loss(input1, input2, label, margin=self.margin, reduction=self.reduction,
                                       name=self.name)


class TripletMarginLoss(Layer):
    def __init__(self, margin=1.0, p=2.0, epsilon=1e-6, swap=False, reduction="mean", name=None):
        super().__init__()
        _check_reduction(reduction, "TripletMarginLoss")
        self.margin = margin
        self.p = p
        self.epsilon = epsilon
        self.swap = swap
        self.reduction = reduction
        self.name = name

    def forward(self, input, positive, negative):
        return F.triplet_margin_loss(input, positive, negative, margin=self.margin, p=self.p, epsilon=self.epsilon,
                                     swap=self.swap, reduction=self.reduction, name=self.name)


class TripletMarginWithDistanceLoss(Layer):
    """As Paddle 3.3.1's layer, forward does not pass ``distance_function`` on: the loss always uses
    the Euclidean pairwise distance (call the functional form for another distance)."""

    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction="mean", name=None):
        super().__init__()
        _check_reduction(reduction, "TripletMarginWithDistanceLoss")
        self.distance_function = distance_function
        self.margin = margin
        self.swap = swap
        self.reduction = reduction
        self.name = name

    def forward(self, input, positive, negative):
        return F.triplet_margin_with_distance_loss(input, positive, negative, margin=self.margin, swap=self.swap,
                                                   reduction=self.reduction, name=self.name)


class MultiMarginLoss(Layer):
    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean", name=None):
        super().__init__()
        _check_reduction(reduction, "MultiMarginLoss")
        self.p = p
        self.margin = margin
        self.weight = weight
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.multi_margin_loss(input, label, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction, name=self.name)


class MultiLabelSoftMarginLoss(Layer):
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__()
        _check_reduction(reduction, "MultiLabelSoftMarginLoss")
        self.weight = weight
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.multi_label_soft_margin_loss(input, label, weight=self.weight, reduction=self.reduction,
                                              name=self.name)


class MultiLabelMarginLoss(Layer):
    def __init__(self, reduction="mean", name=None):
        super().__init__()
        _check_reduction(reduction, "MultiLabelMarginLoss")
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.multi_label_margin_loss(input, label, reduction=self.reduction, name=self.name)


class SoftMarginLoss(Layer):
    def __init__(self, reduction="mean", name=None):
        _check_reduction(reduction, "SoftMarginLoss")
        super().__init__()
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.soft_margin_loss(input, label, self.reduction, self.name)


class PoissonNLLLoss(Layer):
    def __init__(self, log_input=True, full=False, epsilon=1e-8, reduction="mean", name=None):
        if epsilon <= 0:
            raise ValueError(f"PoissonNLLLoss: epsilon must be positive, got {epsilon}")
        _check_reduction(reduction, "PoissonNLLLoss")
        super().__init__()
        self._log_input = log_input
        self._full = full
        self._epsilon = epsilon
        self._reduction = reduction
        self._name = name

    def forward(self, input, label):
        return F.poisson_nll_loss(input, label, log_input=self._log_input, full=self._full, epsilon=self._epsilon,
                                  reduction=self._reduction, name=self._name)


class GaussianNLLLoss(Layer):
    def __init__(self, full=False, epsilon=1e-6, reduction="mean", name=None):
        if reduction not in ("sum", "mean", "none"):
            raise ValueError(f"GaussianNLLLoss: reduction must be 'sum', 'mean' or 'none', got {reduction!r}")
        super().__init__()
        self.full = full
        self.epsilon = epsilon
        self.reduction = reduction
        self.name = name

    def forward(self, input, label, variance):
        return F.gaussian_nll_loss(input, label, variance, self.full, self.epsilon, self.reduction, self.name)
