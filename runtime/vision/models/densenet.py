"""DenseNet 121/161/169/201/264 (paddle.vision.models.densenet).

Built, as in Paddle, from the legacy ``nn.BatchNorm`` with ``act='relu'`` (pre-activation
BN-ReLU-Conv units); its running statistics are what eval mode normalises with. Sublayer names
follow Paddle: ``conv1_func``, ``db_conv_2.conv2_1.bn_ac_func1``, ``tr_conv2_blk``, ``batch_norm``, ``out``.
"""
from __future__ import annotations

import math

from ...api.manipulation import concat, flatten
from ...nn import AdaptiveAvgPool2D, AvgPool2D, BatchNorm, Conv2D, Dropout, Layer, Linear, MaxPool2D
from ...nn.initializer import Uniform
from ...nn.param_attr import ParamAttr
from ._pretrained import load_pretrained

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201", "densenet264"]

_DYGRAPH = "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/"
model_urls = {
    "densenet121": (_DYGRAPH + "DenseNet121_pretrained.pdparams", "db1b239ed80a905290fd8b01d3af08e4"),
    "densenet161": (_DYGRAPH + "DenseNet161_pretrained.pdparams", "62158869cb315098bd25ddbfd308a853"),
    "densenet169": (_DYGRAPH + "DenseNet169_pretrained.pdparams", "82cc7c635c3f19098c748850efb2d796"),
    "densenet201": (_DYGRAPH + "DenseNet201_pretrained.pdparams", "16ca29565a7712329cf9e36e02caaf58"),
    "densenet264": (_DYGRAPH + "DenseNet264_pretrained.pdparams", "3270ce516b85370bba88cfdd9f60bff4"),
}

# layers -> (initial features, growth rate, layers per dense block)
_SPECS = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]), 169: (64, 32, [6, 12, 32, 32]),
          201: (64, 32, [6, 12, 48, 32]), 264: (64, 32, [6, 12, 64, 48])}


class BNACConvLayer(Layer):
    """BatchNorm + activation, then a bias-free convolution."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._batch_norm = BatchNorm(num_channels, act=act)
        self._conv = Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=pad, groups=groups,
                            weight_attr=ParamAttr(), bias_attr=False)

    def forward(self, input):
        return self._conv(self._batch_norm(input))


class DenseLayer(Layer):
    """Bottleneck (1x1 to ``bn_size * growth_rate``), 3x3 to ``growth_rate``; the result is
    concatenated to the input."""

    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1, pad=0, stride=1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1, stride=1)
        if dropout:
            self.dropout_func = Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input):
        y = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            y = self.dropout_func(y)
        return concat([input, y], axis=1)


class DenseBlock(Layer):
    """``num_layers`` DenseLayers named ``{name}_1`` ... (Paddle's names, e.g. ``conv2_1``)."""

    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        channels = num_channels
        for k in range(num_layers):
            layer = DenseLayer(channels, growth_rate=growth_rate, bn_size=bn_size, dropout=dropout)
            self.dense_layer_func.append(self.add_sublayer(f"{name}_{k + 1}", layer))
            channels += growth_rate

    def forward(self, input):
        y = input
        for layer in self.dense_layer_func:
            y = layer(y)
        return y


class TransitionLayer(Layer):
    """BN-ReLU-1x1 conv to ``num_output_features``, then 2x2 average pooling."""

    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1, pad=0, stride=1)
        self.pool2d_avg = AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input):
        return self.pool2d_avg(self.conv_ac_func(input))


class ConvBNLayer(Layer):
    """A bias-free convolution, then BatchNorm + activation (the stem)."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._conv = Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=pad, groups=groups,
                            weight_attr=ParamAttr(), bias_attr=False)
        self._batch_norm = BatchNorm(num_filters, act=act)

    def forward(self, input):
        return self._batch_norm(self._conv(input))


class DenseNet(Layer):
    """DenseNet with ``layers`` in 121/161/169/201/264; ``bn_size`` is the bottleneck factor,
    ``dropout`` the rate after each dense layer (0 = none)."""

    def __init__(self, layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        if layers not in _SPECS:
            raise ValueError(f"supported layers are {sorted(_SPECS)} but input layer is {layers}")
        num_init_features, growth_rate, block_config = _SPECS[layers]
        self.conv1_func = ConvBNLayer(3, num_init_features, 7, stride=2, pad=3, act="relu")
        self.pool2d_max = MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.block_config = block_config
        self.dense_block_func_list = []
        self.transition_func_list = []
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            block = DenseBlock(num_features, num_layers, bn_size=bn_size, growth_rate=growth_rate, dropout=dropout,
                               name="conv" + str(i + 2))
            self.dense_block_func_list.append(self.add_sublayer(f"db_conv_{i + 2}", block))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                transition = TransitionLayer(num_features, num_features // 2)
                self.transition_func_list.append(self.add_sublayer(f"tr_conv{i + 2}_blk", transition))
                num_features //= 2
        self.batch_norm = BatchNorm(num_features, act="relu")
        if with_pool:
            self.pool2d_avg = AdaptiveAvgPool2D(1)
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(num_features * 1.0)
            self.out = Linear(num_features, num_classes, weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)),
                              bias_attr=ParamAttr())

    def forward(self, input):
        y = self.pool2d_max(self.conv1_func(input))
        last = len(self.block_config) - 1
        for i in range(len(self.block_config)):
            y = self.dense_block_func_list[i](y)
            if i != last:
                y = self.transition_func_list[i](y)
        y = self.batch_norm(y)
        # Paddle fails (an unbound local) when with_pool=False; we return the feature map instead
        if self.with_pool:
            y = self.pool2d_avg(y)
        if self.num_classes > 0:
            y = self.out(flatten(y, start_axis=1, stop_axis=-1))
        return y


def _densenet(arch, layers, pretrained, **kwargs):
    model = DenseNet(layers=layers, **kwargs)
    if pretrained:
        load_pretrained(model, arch, model_urls)
    return model


def densenet121(pretrained=False, **kwargs):
    """DenseNet-121."""
    return _densenet("densenet121", 121, pretrained, **kwargs)


def densenet161(pretrained=False, **kwargs):
    """DenseNet-161 (growth rate 48)."""
    return _densenet("densenet161", 161, pretrained, **kwargs)


def densenet169(pretrained=False, **kwargs):
    """DenseNet-169."""
    return _densenet("densenet169", 169, pretrained, **kwargs)


def densenet201(pretrained=False, **kwargs):
    """DenseNet-201."""
    return _densenet("densenet201", 201, pretrained, **kwargs)


def densenet264(pretrained=False, **kwargs):
    """DenseNet-264."""
    return _densenet("densenet264", 264, pretrained, **kwargs)
