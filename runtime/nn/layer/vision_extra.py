"""Layers over the sliding-block, channel-rearranging and unpooling functionals: Unfold, Fold,
PixelUnshuffle, ChannelShuffle, MaxUnPool1D/2D/3D (and Paddle's lower-case aliases of those and of
UpsamplingNearest2D / UpsamplingBilinear2D)."""
from __future__ import annotations

from .. import functional as F
from .common import UpsamplingBilinear2D, UpsamplingNearest2D
from .layers import Layer

__all__ = ["Unfold", "Fold", "PixelUnshuffle", "ChannelShuffle", "UpsamplingNearest2d", "UpsamplingBilinear2d"]

# Paddle's lower-case aliases are the same classes
UpsamplingNearest2d = UpsamplingNearest2D
UpsamplingBilinear2d = UpsamplingBilinear2D


class Unfold(Layer):
    """``F.unfold`` as a layer: [N, C, H, W] -> [N, C*kh*kw, L]."""

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.kernel_sizes = kernel_sizes
        self.dilations = dilations
        self.paddings = paddings
        self.strides = strides
        self.name = name

    def forward(self, input):
        return F.unfold(input, kernel_sizes=self.kernel_sizes, strides=self.strides, paddings=self.paddings,
                        dilations=self.dilations, name=self.name)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, padding={self.paddings}, "
                f"stride={self.strides}{name_str}")


class Fold(Layer):
    """``F.fold`` as a layer: [N, C*kh*kw, L] -> [N, C, H, W]."""

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.output_sizes = output_sizes
        self.kernel_sizes = kernel_sizes
        self.dilations = dilations
        self.paddings = paddings
        self.strides = strides
        self.name = name

    def forward(self, input):
        return F.fold(input, output_sizes=self.output_sizes, kernel_sizes=self.kernel_sizes, strides=self.strides,
                      paddings=self.paddings, dilations=self.dilations, name=self.name)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, padding={self.paddings}, "
                f"stride={self.strides}{name_str}")


class PixelUnshuffle(Layer):
    """``F.pixel_unshuffle`` as a layer."""

    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__()
        if not isinstance(downscale_factor, int) or isinstance(downscale_factor, bool):
            raise TypeError(f"PixelUnshuffle: downscale_factor must be an int, got {downscale_factor!r}")
        if downscale_factor <= 0:
            raise ValueError(f"PixelUnshuffle: downscale_factor must be positive, got {downscale_factor}")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"PixelUnshuffle: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        self._downscale_factor = downscale_factor
        self._data_format = data_format
        self._name = name

    def forward(self, x):
        return F.pixel_unshuffle(x, self._downscale_factor, self._data_format, self._name)

    def extra_repr(self):
        main_str = f"downscale_factor={self._downscale_factor}"
        if self._data_format != "NCHW":
            main_str += f", data_format={self._data_format}"
        if self._name is not None:
            main_str += f", name={self._name}"
        return main_str


class ChannelShuffle(Layer):
    """``F.channel_shuffle`` as a layer."""

    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__()
        if not isinstance(groups, int) or isinstance(groups, bool):
            raise TypeError(f"ChannelShuffle: groups must be an int, got {groups!r}")
        if groups <= 0:
            raise ValueError(f"ChannelShuffle: groups must be positive, got {groups}")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"ChannelShuffle: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        self._groups = groups
        self._data_format = data_format
        self._name = name

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format, self._name)

    def extra_repr(self):
        main_str = f"groups={self._groups}"
        if self._data_format != "NCHW":
            main_str += f", data_format={self._data_format}"
        if self._name is not None:
            main_str += f", name={self._name}"
        return main_str


class _MaxUnPoolNd(Layer):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, data_format=None, output_size=None, name=None):
        super().__init__()
        self.ksize = kernel_size
        self.stride = stride
        self.padding = padding
        self.data_format = data_format
        self.output_size = output_size
        self.name = name

    def forward(self, x, indices):
        return type(self)._fn(x, indices, kernel_size=self.ksize, stride=self.stride, padding=self.padding,
                              data_format=self.data_format, output_size=self.output_size, name=self.name)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class MaxUnPool1D(_MaxUnPoolNd):
    """``F.max_unpool1d`` as a layer."""
    _fn = staticmethod(F.max_unpool1d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCL", output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool2D(_MaxUnPoolNd):
    """``F.max_unpool2d`` as a layer."""
    _fn = staticmethod(F.max_unpool2d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCHW", output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool3D(_MaxUnPoolNd):
    """``F.max_unpool3d`` as a layer."""
    _fn = staticmethod(F.max_unpool3d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCDHW", output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = MaxUnPool1D, MaxUnPool2D, MaxUnPool3D
__all__ += ["MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]
