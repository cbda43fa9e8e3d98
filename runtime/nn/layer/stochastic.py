"""Layers over the distance and randomised functionals: PairwiseDistance, RReLU, FeatureAlphaDropout."""
from __future__ import annotations

from .. import functional as F
from ...dtype import get_default_dtype
from .layers import Layer

__all__ = ["PairwiseDistance", "RReLU", "FeatureAlphaDropout"]


class PairwiseDistance(Layer):
    """``F.pairwise_distance`` as a layer."""

    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self.p = p
        self.epsilon = epsilon
        self.keepdim = keepdim
        self.name = name

    def forward(self, x, y):
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim, self.name)

    def extra_repr(self):
        main_str = f"p={self.p}"
        if self.epsilon != 1e-6:
            main_str += f", epsilon={self.epsilon}"
        if self.keepdim is not False:
            main_str += f", keepdim={self.keepdim}"
        if self.name is not None:
            main_str += f", name={self.name}"
        return main_str


class RReLU(Layer):
    """``F.rrelu`` as a layer: random slopes while training, their mean in eval mode."""

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower = lower
        self._upper = upper
        self._name = name
        self._dtype = get_default_dtype()

    def forward(self, x):
        return F.rrelu(x, lower=self._lower, upper=self._upper, training=self.training)

    def extra_repr(self):
        name_str = f", name={self._name}" if self._name else ""
        return f"lower={self._lower}, upper={self._upper}, training={self.training}, dtype={self._dtype}{name_str}"


class FeatureAlphaDropout(Layer):
    """``F.feature_alpha_dropout`` as a layer (identity in eval mode)."""

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p = p
        self.name = name

    def forward(self, input):
        return F.feature_alpha_dropout(input, p=self.p, training=self.training, name=self.name)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"p={self.p}{name_str}"
