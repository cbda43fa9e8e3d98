"""Convolution layers: Conv1D/2D/3D and their transposes.

Weights are ``[out, in/groups, *kernel]`` (transposed: ``[in, out/groups, *kernel]``). The
default weight initializer of the plain convolutions is Paddle's Normal(0, sqrt(2/fan_in))
with fan_in = in_channels * prod(kernel); transposed convolutions use XavierUniform.
"""
from __future__ import annotations

import math

import numpy as np

from ...dtype import get_default_dtype
from .. import functional as F
from ..initializer import Normal
from .layers import Layer
from ...api.param_alias import forward_alias

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _to_list(value, n, name, where):
    if isinstance(value, (int, np.integer)):
        return [int(value)] * n
    try:
        items = [int(v) for v in value]
    except TypeError:
        raise TypeError(f"{where}: {name} must be an int or a list of {n} ints, got {value!r}") from None
    if len(items) != n:
        raise ValueError(f"{where}: {name} must be an int or a list of {n} ints, got {list(value)}")
    return items


class _ConvNd(Layer):
    _dims = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format=None, bias=True, dtype=None):
        super().__init__()
        where = type(self).__name__
        n = self._dims
        if data_format is None:
            data_format = _FORMATS[n][0]
        if data_format not in _FORMATS[n]:
            raise ValueError(f"{where}: data_format must be one of {list(_FORMATS[n])}, got {data_format!r}")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"{where}: padding_mode must be one of {list(_PADDING_MODES)}, "
                             f"but got padding_mode='{padding_mode}'")
        for name, v in (("in_channels", in_channels), ("out_channels", out_channels), ("groups", groups)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
                raise ValueError(f"{where}: {name} must be a positive int, got {v!r}")
        if in_channels % groups != 0:
            raise ValueError(f"{where}: in_channels must be divisible by groups (in_channels={in_channels}, "
                             f"groups={groups})")
        if self._transposed and out_channels % groups != 0:
            raise ValueError(f"{where}: out_channels must be divisible by groups (out_channels={out_channels}, "
                             f"groups={groups})")
        if padding_mode != "zeros" and isinstance(padding, str):
            raise ValueError(f"{where}: padding_mode='{padding_mode}' needs numeric padding, got {padding!r}")
        self._in_channels = int(in_channels)
        self._out_channels = int(out_channels)
        self._groups = int(groups)
        self._data_format = data_format
        self._padding_mode = padding_mode
        self._padding = padding
        self.output_padding = output_padding
        self._kernel_size = _to_list(kernel_size, n, "kernel_size", where)
        self._stride = _to_list(stride, n, "stride", where)
        self._dilation = _to_list(dilation, n, "dilation", where)
        self._dtype = get_default_dtype() if dtype is None else dtype
        self._param_attr = weight_attr
        self._bias_attr = bias_attr

        if padding_mode != "zeros":
            pads = _to_list(padding, n, "padding", where)
            # F.pad takes pairs for the last dimension first
            self._reversed_padding_repeated_twice = [p for p in reversed(pads) for _ in range(2)]
            self._conv_padding = 0
        else:
            self._conv_padding = padding

        if self._transposed:
            filter_shape = [self._in_channels, self._out_channels // self._groups] + self._kernel_size
            default_init = None
        else:
            filter_shape = [self._out_channels, self._in_channels // self._groups] + self._kernel_size
            fan_in = self._in_channels * int(np.prod(self._kernel_size))
            default_init = Normal(0.0, math.sqrt(2.0 / fan_in))
        self.weight = self.create_parameter(filter_shape, attr=weight_attr, dtype=self._dtype,
                                            default_initializer=default_init)
        if bias is False:
            bias_attr = False
        self.bias = self.create_parameter([self._out_channels], attr=bias_attr, dtype=self._dtype, is_bias=True)

    def _pad_input(self, x):
        if self._padding_mode == "zeros":
            return x
        return F.pad(x, self._reversed_padding_repeated_twice, mode=self._padding_mode,
                     data_format=self._data_format)

    def extra_repr(self):
        s = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1] * len(self._stride):
            s += f", stride={self._stride}"
        if self._padding != 0:
            s += f", padding={self._padding}"
        if self._padding_mode != "zeros":
            s += f", padding_mode={self._padding_mode}"
        if self.output_padding != 0:
            s += f", output_padding={self.output_padding}"
        if self._dilation != [1] * len(self._dilation):
            s += f", dilation={self._dilation}"
        if self._groups != 1:
            s += f", groups={self._groups}"
        return s + f", data_format={self._data_format}"


class Conv1D(_ConvNd):
    """1-D convolution over ``[N, C, L]`` (or NLC) input."""
    _dims = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NCL", *, bias=True,
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, 0, dilation, groups,
                         padding_mode, weight_attr, bias_attr, data_format, bias, dtype)

    @forward_alias(x="input")
    def forward(self, x):
        return F.conv1d(self._pad_input(x), self.weight, bias=self.bias, stride=self._stride,
                        padding=self._conv_padding, dilation=self._dilation, groups=self._groups,
                        data_format=self._data_format)


class Conv2D(_ConvNd):
    """2-D convolution over ``[N, C, H, W]`` (or NHWC) input; weight ``[out, in/groups, kh, kw]``."""
    _dims = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NCHW", *, bias=True,
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, 0, dilation, groups,
                         padding_mode, weight_attr, bias_attr, data_format, bias, dtype)

    @forward_alias(x="input")
    def forward(self, x):
        return F.conv2d(self._pad_input(x), self.weight, bias=self.bias, stride=self._stride,
                        padding=self._conv_padding, dilation=self._dilation, groups=self._groups,
                        data_format=self._data_format)


class Conv3D(_ConvNd):
    _dims = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NCDHW", *, bias=True,
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, 0, dilation, groups,
                         padding_mode, weight_attr, bias_attr, data_format, bias, dtype)

    @forward_alias(x="input")
    def forward(self, x):
        return F.conv3d(self._pad_input(x), self.weight, bias=self.bias, stride=self._stride,
                        padding=self._conv_padding, dilation=self._dilation, groups=self._groups,
                        data_format=self._data_format)


class Conv1DTranspose(_ConvNd):
    _dims = 1
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 dilation=1, weight_attr=None, bias_attr=None, data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding, dilation,
                         groups, "zeros", weight_attr, bias_attr, data_format)

    def forward(self, x, output_size=None):
        return F.conv1d_transpose(x, self.weight, bias=self.bias, stride=self._stride, padding=self._padding,
                                  output_padding=self.output_padding, groups=self._groups,
                                  dilation=self._dilation, output_size=output_size, data_format=self._data_format)


class Conv2DTranspose(_ConvNd):
    """Transposed 2-D convolution; weight ``[in, out/groups, kh, kw]``."""
    _dims = 2
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, dilation=1,
                 groups=1, weight_attr=None, bias_attr=None, data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding, dilation,
                         groups, "zeros", weight_attr, bias_attr, data_format)

    def forward(self, x, output_size=None):
        return F.conv2d_transpose(x, self.weight, bias=self.bias, stride=self._stride, padding=self._padding,
                                  output_padding=self.output_padding, dilation=self._dilation,
                                  groups=self._groups, output_size=output_size, data_format=self._data_format)


class Conv3DTranspose(_ConvNd):
    _dims = 3
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, dilation=1,
                 groups=1, weight_attr=None, bias_attr=None, data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding, dilation,
                         groups, "zeros", weight_attr, bias_attr, data_format)

    def forward(self, x, output_size=None):
        return F.conv3d_transpose(x, self.weight, bias=self.bias, stride=self._stride, padding=self._padding,
                                  output_padding=self.output_padding, groups=self._groups,
                                  dilation=self._dilation, output_size=output_size, data_format=self._data_format)

