"""Power-average pooling layers: LPPool1D / LPPool2D (and Paddle's LPPool1d / LPPool2d aliases)."""
from __future__ import annotations

from .. import functional as F
from .layers import Layer

__all__ = ["LPPool1D", "LPPool2D", "LPPool1d", "LPPool2d"]


class LPPool1D(Layer):
    """``F.lp_pool1d`` as a layer."""

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCL",
                 name=None):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.data_format = data_format
        self.name = name

    def forward(self, x):
        return F.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                           self.data_format, self.name)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}")


class LPPool2D(Layer):
    """``F.lp_pool2d`` as a layer."""

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCHW",
                 name=None):
        super().__init__()
        self.norm_type = norm_type
        self.ksize = kernel_size
        self.stride = stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.data_format = data_format
        self.name = name

    def forward(self, x):
        return F.lp_pool2d(x, norm_type=self.norm_type, kernel_size=self.ksize, stride=self.stride,
                           padding=self.padding, ceil_mode=self.ceil_mode, data_format=self.data_format,
                           name=self.name)

    def extra_repr(self):
        return f"norm_type={self.norm_type}, kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


LPPool1d, LPPool2d = LPPool1D, LPPool2D
