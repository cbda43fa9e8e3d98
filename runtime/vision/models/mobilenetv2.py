"""MobileNet v2 (paddle.vision.models.mobilenetv2): inverted residuals with linear bottlenecks.

``features`` is a Sequential (stem, 17 InvertedResidual blocks, 1x1 head conv), each block's
layers in ``conv``; the classifier is ``classifier.1`` after a Dropout, as in Paddle.
"""
from __future__ import annotations

from ... import nn
from ...api.manipulation import flatten
from ..ops import ConvNormActivation
from ._pretrained import load_pretrained
from ._utils import _make_divisible

__all__ = ["MobileNetV2", "InvertedResidual", "mobilenet_v2"]

model_urls = {
    "mobilenetv2_1.0": ("https://paddle-hapi.bj.bcebos.com/models/mobilenet_v2_x1.0.pdparams",
                        "0340af0a901346c8d46f4529882fb63d"),
}


class InvertedResidual(nn.Layer):
    """1x1 expand (unless ``expand_ratio`` is 1), 3x3 depthwise, 1x1 linear projection; the input
    is added back when the shape is kept (stride 1, same channels)."""

    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=nn.BatchNorm2D):
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"InvertedResidual: stride must be 1 or 2, got {stride}")
        self.stride = stride
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvNormActivation(inp, hidden_dim, kernel_size=1, norm_layer=norm_layer,
                                             activation_layer=nn.ReLU6))
        layers += [ConvNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim, norm_layer=norm_layer,
                                      activation_layer=nn.ReLU6),
                   nn.Conv2D(hidden_dim, oup, 1, 1, 0, bias_attr=False),
                   norm_layer(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


# (expansion t, channels c, repeats n, first stride s), the paper's table 2
_SETTING = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2],
            [6, 320, 1, 1]]


class MobileNetV2(nn.Layer):
    """MobileNet v2 with width multiplier ``scale`` (channels rounded to multiples of 8)."""

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        norm_layer = nn.BatchNorm2D
        input_channel = _make_divisible(32 * scale, 8)
        # the head never shrinks below 1280 channels when scale < 1
        self.last_channel = _make_divisible(1280 * max(1.0, scale), 8)
        features = [ConvNormActivation(3, input_channel, stride=2, norm_layer=norm_layer, activation_layer=nn.ReLU6)]
        for t, c, n, s in _SETTING:
            output_channel = _make_divisible(c * scale, 8)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel, s if i == 0 else 1, expand_ratio=t,
                                                 norm_layer=norm_layer))
                input_channel = output_channel
        features.append(ConvNormActivation(input_channel, self.last_channel, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if self.num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


def mobilenet_v2(pretrained=False, scale=1.0, **kwargs):
    """MobileNet v2; pretrained weights exist for ``scale=1.0``."""
    model = MobileNetV2(scale=scale, **kwargs)
    if pretrained:
        load_pretrained(model, "mobilenetv2_" + str(scale), model_urls)
    return model
