"""paddle.vision.ops deformable convolution: deform_conv2d and the DeformConv2D layer (weight [out,
in/groups, kh, kw] and bias [out] as Conv2D's). Eager calls use Paddle's deformable_conv op; a static
Program without a mask records deformable_conv_v1, as Paddle does."""
from __future__ import annotations

import numpy as np

from ..dispatch import run_op
from ..framework import in_dynamic_mode
from ..nn.functional.conv import _ints
from ..nn.initializer import Normal
from ..nn.layer.layers import Layer
from .ops_roi_box import _check_dtype

__all__ = ["deform_conv2d", "DeformConv2D"]


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1, deformable_groups=1, groups=1,
                  mask=None, name=None):
    """Deformable convolution v1 (``mask=None``) or v2 (modulated by ``mask``) of x [N, C, H, W].

    ``offset`` is [N, 2 * deformable_groups * kh * kw, out_h, out_w] (dy, dx per tap), ``mask``
    [N, deformable_groups * kh * kw, out_h, out_w]."""
    fn = "deform_conv2d"
    stride = _ints(stride, 2, "stride", fn)
    padding = _ints(padding, 2, "padding", fn)
    dilation = _ints(dilation, 2, "dilation", fn)
    _check_dtype(fn, "x", x, ("float32", "float64"))
    _check_dtype(fn, "offset", offset, ("float32", "float64"))
    attrs = dict(strides=stride, paddings=padding, dilations=dilation, deformable_groups=int(deformable_groups),
                 groups=int(groups), im2col_step=1)
    if mask is None and not in_dynamic_mode():
        pre_bias = run_op("deformable_conv_v1", x, offset, weight, **attrs)
    else:
        pre_bias = run_op("deformable_conv", x, offset, weight, mask, **attrs)
    if bias is None:
        return pre_bias
    return run_op("elementwise_add", pre_bias, bias, axis=1)


class DeformConv2D(Layer):
    """Layer form of `deform_conv2d`; call it as ``layer(x, offset, mask=None)``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, deformable_groups=1,
                 groups=1, weight_attr=None, bias_attr=None):
        super().__init__()
        if weight_attr is False:
            raise AssertionError("weight_attr should not be False in Conv.")
        fn = "DeformConv2D"
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self._deformable_groups = deformable_groups
        self._groups = groups
        self._in_channels = in_channels
        self._out_channels = out_channels
        self._channel_dim = 1
        self._stride = _ints(stride, 2, "stride", fn)
        self._dilation = _ints(dilation, 2, "dilation", fn)
        self._kernel_size = _ints(kernel_size, 2, "kernel_size", fn)
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups.")
        self._padding = _ints(padding, 2, "padding", fn)
        filter_shape = [out_channels, in_channels // groups, *self._kernel_size]
        std = (2.0 / (np.prod(self._kernel_size) * self._in_channels)) ** 0.5
        self.weight = self.create_parameter(shape=filter_shape, attr=self._weight_attr,
                                            default_initializer=Normal(0.0, float(std)))
        self.bias = self.create_parameter(attr=self._bias_attr, shape=[self._out_channels], is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, bias=self.bias, stride=self._stride, padding=self._padding,
                             dilation=self._dilation, deformable_groups=self._deformable_groups, groups=self._groups,
                             mask=mask)
