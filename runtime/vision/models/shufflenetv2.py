"""ShuffleNet v2 (paddle.vision.models.shufflenetv2) at widths x0.25 ... x2.0, ReLU or Swish.

Blocks are registered as ``2_1`` ... ``4_4`` (stage, index) as in Paddle; each block splits or
duplicates the channels, runs a pointwise-depthwise-pointwise branch, concatenates and shuffles
the channels between the two halves.
"""
from __future__ import annotations

from ... import nn
from ...api.manipulation import concat, flatten, reshape, split, transpose
from ...nn import AdaptiveAvgPool2D, Linear, MaxPool2D
from ..ops import ConvNormActivation
from ._pretrained import load_pretrained

__all__ = ["ShuffleNetV2", "shufflenet_v2_x0_25", "shufflenet_v2_x0_33", "shufflenet_v2_x0_5",
           "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0", "shufflenet_v2_swish"]

_HAPI = "https://paddle-hapi.bj.bcebos.com/models/"
model_urls = {
    "shufflenet_v2_x0_25": (_HAPI + "shufflenet_v2_x0_25.pdparams", "1e509b4c140eeb096bb16e214796d03b"),
    "shufflenet_v2_x0_33": (_HAPI + "shufflenet_v2_x0_33.pdparams", "3d7b3ab0eaa5c0927ff1026d31b729bd"),
    "shufflenet_v2_x0_5": (_HAPI + "shufflenet_v2_x0_5.pdparams", "5e5cee182a7793c4e4c73949b1a71bd4"),
    "shufflenet_v2_x1_0": (_HAPI + "shufflenet_v2_x1_0.pdparams", "122d42478b9e81eb49f8a9ede327b1a4"),
    "shufflenet_v2_x1_5": (_HAPI + "shufflenet_v2_x1_5.pdparams", "faced5827380d73531d0ee027c67826d"),
    "shufflenet_v2_x2_0": (_HAPI + "shufflenet_v2_x2_0.pdparams", "cd3dddcd8305e7bcd8ad14d1c69a5784"),
    "shufflenet_v2_swish": (_HAPI + "shufflenet_v2_swish.pdparams", "adde0aa3b023e5b0c94a68be1c394b84"),
}

# stage output channels per width multiplier: [-, stem, stage2, stage3, stage4, last conv]
_CHANNELS = {0.25: [-1, 24, 24, 48, 96, 512], 0.33: [-1, 24, 32, 64, 128, 512], 0.5: [-1, 24, 48, 96, 192, 1024],
             1.0: [-1, 24, 116, 232, 464, 1024], 1.5: [-1, 24, 176, 352, 704, 1024],
             2.0: [-1, 24, 224, 488, 976, 2048]}


def create_activation_layer(act):
    """The activation class for 'relu' / 'swish' (None for no activation)."""
    if act is None:
        return None
    acts = {"relu": nn.ReLU, "swish": nn.Swish}
    if act not in acts:
        raise RuntimeError(f"The activation function is not supported: {act}")
    return acts[act]


def channel_shuffle(x, groups):
    """Interleave the channels of ``groups`` equal groups (N, C, H, W)."""
    n, c, h, w = x.shape[0:4]
    x = reshape(x, shape=[n, groups, c // groups, h, w])
    x = transpose(x, perm=[0, 2, 1, 3, 4])
    return reshape(x, shape=[n, c, h, w])


class InvertedResidual(nn.Layer):
    """Stride-1 block: half the channels pass through, the other half is transformed."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_pw = ConvNormActivation(in_channels // 2, half, kernel_size=1, stride=1, padding=0, groups=1,
                                           activation_layer=activation_layer)
        self._conv_dw = ConvNormActivation(half, half, kernel_size=3, stride=stride, padding=1, groups=half,
                                           activation_layer=None)
        self._conv_linear = ConvNormActivation(half, half, kernel_size=1, stride=1, padding=0, groups=1,
                                               activation_layer=activation_layer)

    def forward(self, inputs):
        c = inputs.shape[1]
        x1, x2 = split(inputs, num_or_sections=[c // 2, c // 2], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """Downsampling block: both branches see the whole input, each with stride ``stride``."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = ConvNormActivation(in_channels, in_channels, kernel_size=3, stride=stride, padding=1,
                                             groups=in_channels, activation_layer=None)
        self._conv_linear_1 = ConvNormActivation(in_channels, half, kernel_size=1, stride=1, padding=0, groups=1,
                                                 activation_layer=activation_layer)
        self._conv_pw_2 = ConvNormActivation(in_channels, half, kernel_size=1, stride=1, padding=0, groups=1,
                                             activation_layer=activation_layer)
        self._conv_dw_2 = ConvNormActivation(half, half, kernel_size=3, stride=stride, padding=1, groups=half,
                                             activation_layer=None)
        self._conv_linear_2 = ConvNormActivation(half, half, kernel_size=1, stride=1, padding=0, groups=1,
                                                 activation_layer=activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNet v2 with width ``scale`` (0.25, 0.33, 0.5, 1.0, 1.5, 2.0) and activation ``act``."""

    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        if scale not in _CHANNELS:
            raise NotImplementedError("This scale size:[" + str(scale) + "] is not implemented!")
        channels = _CHANNELS[scale]
        activation_layer = create_activation_layer(act)
        self._conv1 = ConvNormActivation(3, channels[1], kernel_size=3, stride=2, padding=1,
                                         activation_layer=activation_layer)
        self._max_pool = MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage, repeats in enumerate([4, 8, 4]):
            for i in range(repeats):
                if i == 0:
                    block = InvertedResidualDS(channels[stage + 1], channels[stage + 2], stride=2,
                                               activation_layer=activation_layer)
                else:
                    block = InvertedResidual(channels[stage + 2], channels[stage + 2], stride=1,
                                             activation_layer=activation_layer)
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", block))
        self._last_conv = ConvNormActivation(channels[-2], channels[-1], kernel_size=1, stride=1, padding=0,
                                             activation_layer=activation_layer)
        if with_pool:
            self._pool2d_avg = AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = channels[-1]
            self._fc = Linear(channels[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(flatten(x, start_axis=1, stop_axis=-1))
        return x


def _shufflenet_v2(arch, pretrained=False, scale=1.0, **kwargs):
    model = ShuffleNetV2(scale=scale, **kwargs)
    if pretrained:
        load_pretrained(model, arch, model_urls)
    return model


def shufflenet_v2_x0_25(pretrained=False, **kwargs):
    """ShuffleNet v2 x0.25."""
    return _shufflenet_v2("shufflenet_v2_x0_25", scale=0.25, pretrained=pretrained, **kwargs)


def shufflenet_v2_x0_33(pretrained=False, **kwargs):
    """ShuffleNet v2 x0.33."""
    return _shufflenet_v2("shufflenet_v2_x0_33", scale=0.33, pretrained=pretrained, **kwargs)


def shufflenet_v2_x0_5(pretrained=False, **kwargs):
    """ShuffleNet v2 x0.5."""
    return _shufflenet_v2("shufflenet_v2_x0_5", scale=0.5, pretrained=pretrained, **kwargs)


def shufflenet_v2_x1_0(pretrained=False, **kwargs):
    """ShuffleNet v2 x1.0."""
    return _shufflenet_v2("shufflenet_v2_x1_0", scale=1.0, pretrained=pretrained, **kwargs)


def shufflenet_v2_x1_5(pretrained=False, **kwargs):
    """ShuffleNet v2 x1.5."""
    return _shufflenet_v2("shufflenet_v2_x1_5", scale=1.5, pretrained=pretrained, **kwargs)


def shufflenet_v2_x2_0(pretrained=False, **kwargs):
    """ShuffleNet v2 x2.0."""
    return _shufflenet_v2("shufflenet_v2_x2_0", scale=2.0, pretrained=pretrained, **kwargs)


def shufflenet_v2_swish(pretrained=False, **kwargs):
    """ShuffleNet v2 x1.0 with Swish activations."""
    return _shufflenet_v2("shufflenet_v2_swish", scale=1.0, act="swish", pretrained=pretrained, **kwargs)
