"""paddle.vision.transforms: image transforms and their functional forms.

Images are numpy arrays (HWC or HW; Paddle's OpenCV-backend semantics, computed in numpy),
PIL images (when Pillow is installed; Pillow computes them) or CHW Tensors.
"""
from . import functional  # noqa: F401
from .functional import (  # noqa: F401
    adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation, affine, center_crop, crop, erase, hflip,
    normalize, pad, perspective, resize, rotate, to_grayscale, to_tensor, vflip,
)
from .transforms import (  # noqa: F401
    BaseTransform, BrightnessTransform, CenterCrop, ColorJitter, Compose, ContrastTransform, Grayscale, HueTransform,
    Normalize, Pad, RandomAffine, RandomCrop, RandomErasing, RandomHorizontalFlip, RandomPerspective,
    RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize, SaturationTransform, ToTensor, Transpose,
)

__all__ = [
    "BaseTransform", "Compose", "Resize", "RandomResizedCrop", "CenterCrop", "RandomHorizontalFlip",
    "RandomVerticalFlip", "Transpose", "Normalize", "BrightnessTransform", "SaturationTransform",
    "ContrastTransform", "HueTransform", "ColorJitter", "RandomCrop", "Pad", "RandomAffine", "RandomRotation",
    "RandomPerspective", "Grayscale", "ToTensor", "RandomErasing",
    "to_tensor", "hflip", "vflip", "resize", "pad", "affine", "rotate", "perspective", "to_grayscale", "crop",
    "center_crop", "adjust_brightness", "adjust_contrast", "adjust_hue", "adjust_saturation", "normalize", "erase",
]
