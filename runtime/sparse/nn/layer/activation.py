"""paddle.sparse.nn activation layers: ReLU, ReLU6, LeakyReLU, Softmax."""
from __future__ import annotations

from ....nn.layer.layers import Layer
from .. import functional as F

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax"]


class ReLU(Layer):
    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.relu(x, self._name)

    def extra_repr(self):
        return f"name={self._name}" if self._name else ""


class ReLU6(ReLU):
    def forward(self, x):
        return F.relu6(x, self._name)


class LeakyReLU(Layer):
    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._negative_slope = negative_slope
        self._name = name

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope, self._name)

    def extra_repr(self):
        return f"name={self._name}" if self._name else ""


class Softmax(Layer):
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis
        self._name = name

    def forward(self, x):
        return F.softmax(x, self._axis, self._name)

    def extra_repr(self):
        return f"name={self._name}" if self._name else ""
