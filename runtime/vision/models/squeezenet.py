"""SqueezeNet 1.0 and 1.1 (paddle.vision.models.squeezenet): fire modules of a 1x1 squeeze and
parallel 1x1 / 3x3 expands. The classifier is a 1x1 convolution (``_conv9``) to ``num_classes``."""
from __future__ import annotations

from ...api.manipulation import concat, squeeze
from ...nn import AdaptiveAvgPool2D, Conv2D, Dropout, Layer, MaxPool2D
from ...nn import functional as F
from ...nn.param_attr import ParamAttr
from ._pretrained import load_pretrained

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]

_DYGRAPH = "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/"
model_urls = {
    "squeezenet1_0": (_DYGRAPH + "SqueezeNet1_0_pretrained.pdparams", "30b95af60a2178f03cf9b66cd77e1db1"),
    "squeezenet1_1": (_DYGRAPH + "SqueezeNet1_1_pretrained.pdparams", "a11250d3a1f91d7131fd095ebbf09eee"),
}


class MakeFireConv(Layer):
    """Conv + ReLU."""

    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = Conv2D(input_channels, output_channels, filter_size, padding=padding, weight_attr=ParamAttr(),
                            bias_attr=ParamAttr())

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(Layer):
    """A fire module: squeeze (``_conv``), then the 1x1 and 3x3 expands concatenated."""

    def __init__(self, input_channels, squeeze_channels, expand1x1_channels, expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


# fire modules (in, squeeze, expand1x1, expand3x3), the same for both versions after the stem
_FIRES = [(128, 16, 64, 64), (128, 32, 128, 128), (256, 32, 128, 128), (256, 48, 192, 192), (384, 48, 192, 192),
          (384, 64, 256, 256), (512, 64, 256, 256)]


class SqueezeNet(Layer):
    """SqueezeNet ``version`` '1.0' or '1.1'. ``with_pool`` applies ReLU, the global average pool
    and squeezes the spatial axes; ``num_classes <= 0`` skips the classifier conv in forward
    (it is still built, as in Paddle, so the parameters match)."""

    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        self.version = version
        self.num_classes = num_classes
        self.with_pool = with_pool
        supported = ["1.0", "1.1"]
        if version not in supported:
            raise ValueError(f"supported versions are {supported} but input version is {version}")
        if version == "1.0":
            self._conv = Conv2D(3, 96, 7, stride=2, weight_attr=ParamAttr(), bias_attr=ParamAttr())
            first = 96
        else:
            self._conv = Conv2D(3, 64, 3, stride=2, padding=1, weight_attr=ParamAttr(), bias_attr=ParamAttr())
            first = 64
        self._pool = MaxPool2D(kernel_size=3, stride=2, padding=0)
        self._conv1 = MakeFire(first, 16, 64, 64)
        for k, cfg in enumerate(_FIRES, start=2):
            setattr(self, f"_conv{k}", MakeFire(*cfg))
        self._drop = Dropout(p=0.5, mode="downscale_in_infer")
        self._conv9 = Conv2D(512, num_classes, 1, weight_attr=ParamAttr(), bias_attr=ParamAttr())
        self._avg_pool = AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        # the versions differ in where the two inner max-pools sit
        pool_after = (3, 7) if self.version == "1.0" else (2, 4)
        for k in range(1, 9):
            x = getattr(self, f"_conv{k}")(x)
            if k in pool_after:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = self._avg_pool(F.relu(x))
            x = squeeze(x, axis=[2, 3])
        return x


def squeezenet1_0(pretrained=False, **kwargs):
    """SqueezeNet 1.0."""
    model = SqueezeNet("1.0", **kwargs)
    if pretrained:
        load_pretrained(model, "squeezenet1_0", model_urls)
    return model


def squeezenet1_1(pretrained=False, **kwargs):
    """SqueezeNet 1.1 (fewer FLOPs: a 3x3 stem and earlier pooling)."""
    model = SqueezeNet("1.1", **kwargs)
    if pretrained:
        load_pretrained(model, "squeezenet1_1", model_urls)
    return model
