"""paddle.vision.ops: the building blocks Paddle's vision models use.

``ConvNormActivation`` lives here; the detection operators (roi_align, box_coder, nms, yolo_box,
deform_conv2d, ...) live in ``ops_*.py`` beside it and are re-exported. ConvNormActivation is a
`Sequential` so its sublayers are named ``0`` (the convolution), ``1`` (the norm) and ``2`` (the
activation), which is what state_dict keys of Paddle's MobileNet / ShuffleNet / InceptionV3 weights spell.
"""
from __future__ import annotations

from ..nn import BatchNorm2D, Conv2D, ReLU, Sequential
from . import ops_deform, ops_postprocess, ops_roi_box
from .ops_deform import *  # noqa: F401,F403
from .ops_postprocess import *  # noqa: F401,F403
from .ops_roi_box import *  # noqa: F401,F403

__all__ = ["ConvNormActivation"] + ops_roi_box.__all__ + ops_postprocess.__all__ + ops_deform.__all__


class ConvNormActivation(Sequential):
    """Conv2D, then ``norm_layer(out_channels)``, then ``activation_layer()``; either may be None.

    ``padding=None`` keeps the spatial size at stride 1 (``(kernel_size - 1) // 2 * dilation``);
    ``bias=None`` gives the convolution a bias only when there is no norm layer to absorb it.
    """

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=BatchNorm2D, activation_layer=ReLU, dilation=1, bias=None):
        if padding is None:
            # Paddle computes this from an int kernel size; a tuple kernel must come with its padding
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        # bias_attr None means a default bias (the same parameter Paddle creates for True)
        layers = [Conv2D(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation, groups=groups,
                         bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
