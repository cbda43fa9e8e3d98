"""paddle.sparse.nn Conv2D, Conv3D, SubmConv2D, SubmConv3D: Paddle's arguments, weight layout
[*kernel, in, out] and initialiser (Normal with std sqrt(2 / fan_in))."""
from __future__ import annotations

import numpy as np

from ....nn.initializer import Normal
from ....nn.layer.layers import Layer
from .. import functional as F
from ..functional import _rulebook as R

__all__ = ["Conv2D", "Conv3D", "SubmConv2D", "SubmConv3D"]


class _Conv(Layer):
    _dims = 3
    _subm = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", key=None, weight_attr=None, bias_attr=None, data_format=None, backend=None):
        super().__init__()
        dims = self._dims
        fmt = "NDHWC" if dims == 3 else "NHWC"
        data_format = fmt if data_format is None else data_format
        if weight_attr is False:
            raise AssertionError("weight_attr should not be False in Conv.")
        if padding_mode != "zeros":
            raise AssertionError("Currently, only support padding_mode='zeros'")
        if groups != 1:
            raise AssertionError("Currently, only support groups=1")
        if backend not in (None, "igemm"):
            raise AssertionError(f"The value of 'backend' in Conv{dims}D should be None or 'igemm'.")
        if data_format != fmt:
            raise ValueError(f"data_format must be one of {{'{fmt}'}}, but got data_format='{data_format}'")
        self._in_channels, self._out_channels = in_channels, out_channels
        self._groups, self._key, self._backend = groups, key, backend
        self._data_format = data_format
        self._stride = R.as_list(stride, dims, "stride")
        self._dilation = R.as_list(dilation, dims, "dilation")
        self._kernel_size = R.as_list(kernel_size, dims, "kernel_size")
        self._padding = padding
        self._padding_mode = padding_mode
        self._updated_padding = R.conv_padding(padding, dims)
        std = (2.0 / (np.prod(self._kernel_size) * in_channels)) ** 0.5
        self.weight = self.create_parameter(shape=[*self._kernel_size, in_channels, out_channels],
                                            attr=weight_attr, default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter(attr=bias_attr, shape=[out_channels], is_bias=True)

    def forward(self, x):
        if self._backend == "igemm":
            raise F.conv.igemm_unavailable()
        fn = {(3, False): F.conv3d, (3, True): F.subm_conv3d, (2, False): F.conv2d, (2, True): F.subm_conv2d}
        return fn[(self._dims, self._subm)](x, self.weight, self.bias, self._stride, self._updated_padding,
                                            self._dilation, self._groups, data_format=self._data_format)

    def extra_repr(self):
        s = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1] * self._dims:
            s += f", stride={self._stride}"
        if self._padding != 0:
            s += f", padding={self._padding}"
        if self._dilation != [1] * self._dims:
            s += f", dilation={self._dilation}"
        return s + f", data_format={self._data_format}"


class Conv3D(_Conv):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NDHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         None, weight_attr, bias_attr, data_format)


class Conv2D(_Conv):
    _dims = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         None, weight_attr, bias_attr, data_format)


class SubmConv3D(_Conv):
    _subm = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", key=None, weight_attr=None, bias_attr=None, data_format="NDHWC", backend=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         key, weight_attr, bias_attr, data_format, backend)


class SubmConv2D(_Conv):
    _dims = 2
    _subm = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", key=None, weight_attr=None, bias_attr=None, data_format="NHWC", backend=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         key, weight_attr, bias_attr, data_format, backend)
