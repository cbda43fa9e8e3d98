"""Pooling layers: max/avg pooling and adaptive pooling in 1, 2 and 3 dimensions (thin wrappers on F)."""
from __future__ import annotations

from .. import functional as F
from .layers import Layer
from ...api.param_alias import forward_alias

__all__ = ["MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D",
           "AdaptiveMaxPool1D", "AdaptiveMaxPool2D", "AdaptiveMaxPool3D"]


class _MaxPoolNd(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format=None, name=None):
        super().__init__()
        self.ksize = kernel_size
        self.stride = stride
        self.padding = padding
        self.return_mask = return_mask
        self.ceil_mode = ceil_mode
        self.data_format = data_format
        self.name = name

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxPool1D(_MaxPoolNd):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, None, name)

    def forward(self, input):
        return F.max_pool1d(input, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode,
                            name=self.name)


class MaxPool2D(_MaxPoolNd):
    """Max pooling over the spatial dimensions of NCHW/NHWC input (``stride`` defaults to ``kernel_size``)."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW",
                 name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format, name)

    def forward(self, x):
        return F.max_pool2d(x, kernel_size=self.ksize, stride=self.stride, padding=self.padding,
                            return_mask=self.return_mask, ceil_mode=self.ceil_mode, data_format=self.data_format,
                            name=self.name)


class MaxPool3D(_MaxPoolNd):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format, name)

    def forward(self, x):
        return F.max_pool3d(x, kernel_size=self.ksize, stride=self.stride, padding=self.padding,
                            return_mask=self.return_mask, ceil_mode=self.ceil_mode, data_format=self.data_format,
                            name=self.name)


class _AvgPoolNd(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format=None, name=None):
        super().__init__()
        self.ksize = kernel_size
        self.stride = stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.exclusive = exclusive
        self.divisor = divisor_override
        self.data_format = data_format
        self.name = name

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AvgPool1D(_AvgPoolNd):
    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, None, None, name)

    def forward(self, x):
        return F.avg_pool1d(x, self.ksize, self.stride, self.padding, self.exclusive, self.ceil_mode,
                            name=self.name)


class AvgPool2D(_AvgPoolNd):
    """Average pooling; ``exclusive`` leaves zero padding out of the average."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format, name)

    def forward(self, x):
        return F.avg_pool2d(x, kernel_size=self.ksize, stride=self.stride, padding=self.padding,
                            ceil_mode=self.ceil_mode, exclusive=self.exclusive, divisor_override=self.divisor,
                            data_format=self.data_format, name=self.name)


class AvgPool3D(_AvgPoolNd):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format, name)

    def forward(self, x):
        return F.avg_pool3d(x, kernel_size=self.ksize, stride=self.stride, padding=self.padding,
                            ceil_mode=self.ceil_mode, exclusive=self.exclusive, divisor_override=self.divisor,
                            data_format=self.data_format, name=self.name)


class AdaptiveAvgPool1D(Layer):
    def __init__(self, output_size, name=None):
        super().__init__()
        self._output_size = output_size
        self._name = name

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self._output_size, self._name)

    def extra_repr(self):
        return f"output_size={self._output_size}"


class AdaptiveAvgPool2D(Layer):
    """Average pooling to a fixed ``output_size`` whatever the input size."""

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__()
        self._output_size = output_size
        self._data_format = data_format
        self._name = name

    @forward_alias(x="input")
    def forward(self, x):
        return F.adaptive_avg_pool2d(x, output_size=self._output_size, data_format=self._data_format, name=self._name)

    def extra_repr(self):
        return f"output_size={self._output_size}"


class AdaptiveAvgPool3D(Layer):
    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__()
        self._output_size = output_size
        self._data_format = data_format
        self._name = name

    @forward_alias(x="input")
    def forward(self, x):
        return F.adaptive_avg_pool3d(x, output_size=self._output_size, data_format=self._data_format, name=self._name)

    def extra_repr(self):
        return f"output_size={self._output_size}"


class _AdaptiveMaxPoolNd(Layer):
    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__()
        self._output_size = output_size
        self._return_mask = return_mask
        self._name = name

    def extra_repr(self):
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class AdaptiveMaxPool1D(_AdaptiveMaxPoolNd):
    def forward(self, input):
        return F.adaptive_max_pool1d(input, self._output_size, self._return_mask, self._name)


class AdaptiveMaxPool2D(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed ``output_size`` (optionally returning the argmax mask)."""

    @forward_alias(x="input")
    def forward(self, x):
        return F.adaptive_max_pool2d(x, output_size=self._output_size, return_mask=self._return_mask, name=self._name)


class AdaptiveMaxPool3D(_AdaptiveMaxPoolNd):
    @forward_alias(x="input")
    def forward(self, x):
        return F.adaptive_max_pool3d(x, output_size=self._output_size, return_mask=self._return_mask, name=self._name)
