"""LeNet (paddle.vision.models.lenet) for 1x28x28 inputs (MNIST)."""
from __future__ import annotations

from ... import nn
from ...api.manipulation import flatten

__all__ = ["LeNet"]


class LeNet(nn.Layer):
    """Two conv-relu-pool stages (``features``) and three Linear layers (``fc``, no activations
    between them, as in Paddle); ``num_classes <= 0`` returns the features."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        if num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x
