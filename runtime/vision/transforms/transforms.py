"""paddle.vision.transforms: the transform classes (Compose, Resize, random crops and flips,
colour jitter, affine, rotation, perspective, erasing, ...).

Each transform is a callable built on `functional`. Random transforms draw from Python's
``random`` and numpy's global generator exactly where Paddle draws, so ``random.seed`` /
``np.random.seed`` make a pipeline reproducible (and give Paddle's parameters for the same seeds).
"""
from __future__ import annotations

import math
import numbers
import random
from collections.abc import Sequence

import numpy as np

from . import functional as F
from ._common import _is_numpy_image, _is_pil_image, _is_tensor_image, is_static_variable

__all__ = ["BaseTransform", "Compose", "Resize", "RandomResizedCrop", "CenterCrop", "RandomHorizontalFlip",
           "RandomVerticalFlip", "Transpose", "Normalize", "BrightnessTransform", "SaturationTransform",
           "ContrastTransform", "HueTransform", "ColorJitter", "RandomCrop", "Pad", "RandomAffine",
           "RandomRotation", "RandomPerspective", "Grayscale", "ToTensor", "RandomErasing"]


def _no_static_draw(img, who):
    """Paddle draws ``who``'s random parameters inside a static graph (new ones on every run); dy2st
    does not, and refuses a static Variable rather than fix one build-time draw into the Program."""
    if is_static_variable(img):
        raise NotImplementedError(f"{who}: random parameters drawn inside a static-graph Program are not "
                                  "implemented in dy2st; apply this transform in dynamic mode "
                                  "(paddle.disable_static()) or to the data before feeding it")


def _static_maybe(img, prob, fn):
    """``fn(img)`` with probability ``prob``, drawn on every run of the Program (Paddle's static
    RandomHorizontalFlip / RandomVerticalFlip: cond(rand([1]) < prob, ...))."""
    from ...api.random import rand
    from ...static.control_flow import cond
    return cond(rand(shape=(1,)) < prob, lambda: fn(img), lambda: img)


def _get_image_size(img):
    """(width, height) of any image kind."""
    if _is_pil_image(img):
        return img.size
    if _is_numpy_image(img):
        return img.shape[:2][::-1]
    if _is_tensor_image(img):
        if img.ndim in (3, 4):
            return tuple(img.shape[-2:][::-1])
        raise ValueError(f"The dim for input Tensor should be 3-D or 4-D, but received {img.ndim}")
    raise TypeError(f"Unexpected type {type(img)}")


def _check_input(value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        value = [center - value, center + value]
        if clip_first_on_zero:
            value[0] = max(value[0], 0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}")
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
    if value[0] == value[1] == center:
        return None
    return value


class Compose:
    """Apply ``transforms`` one after another."""

    def __init__(self, transforms):
        for i, t in enumerate(transforms):
            if not callable(t):
                raise TypeError(f"Compose: transforms[{i}] should be callable, got {type(t).__name__}")
        self.transforms = transforms

    def __call__(self, data):
        for f in self.transforms:
            data = f(data)
        return data

    def __repr__(self):
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{type(self).__name__}({body}\n)"


class BaseTransform:
    """Base of the transforms. ``keys`` names the inputs when a tuple is passed: each entry is
    handled by ``_apply_<key>`` ('image', 'boxes', 'mask', 'coords'); inputs beyond ``keys`` pass
    through unchanged. ``_get_params(inputs)`` runs once per call (shared by all keys) and its
    result is ``self.params``."""

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif not isinstance(keys, Sequence):
            raise ValueError(f"keys should be a sequence, but got keys={keys}")
        for k in keys:
            if self._get_apply(k) is None:
                raise NotImplementedError(f"{k} is unsupported data structure")
        self.keys = keys
        self.params = None

    def _get_params(self, inputs):
        pass

    def __call__(self, inputs):
        if not isinstance(inputs, tuple):
            inputs = (inputs,)
        self.params = self._get_params(inputs)
        outputs = []
        for i in range(min(len(inputs), len(self.keys))):
            fn = self._get_apply(self.keys[i])
            outputs.append(inputs[i] if fn is None else fn(inputs[i]))
        outputs.extend(inputs[len(self.keys):])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _get_apply(self, key):
        return getattr(self, f"_apply_{key}", None)

    def _apply_image(self, image):
        raise NotImplementedError(f"{type(self).__name__} does not define _apply_image")

    def _apply_boxes(self, boxes):
        raise NotImplementedError(f"{type(self).__name__} does not define _apply_boxes")

    def _apply_mask(self, mask):
        raise NotImplementedError(f"{type(self).__name__} does not define _apply_mask")

    def _apply_coords(self, coords):
        raise NotImplementedError(f"{type(self).__name__} does not define _apply_coords")

    def __repr__(self):
        return f"{type(self).__name__}()"


class ToTensor(BaseTransform):
    """PIL image or ndarray (HWC/HW) -> Tensor in ``data_format``; uint8 becomes float32 in [0, 1]."""

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Resize(BaseTransform):
    """Resize to ``size``: (h, w), or an int for the shorter side (aspect ratio kept)."""

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        if not (isinstance(size, int) or (isinstance(size, Sequence) and len(size) == 2)):
            raise ValueError(f"Resize: size should be an int or a (height, width) pair, got {size!r}")
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)

    def __repr__(self):
        return f"Resize(size={self.size}, interpolation={self.interpolation!r})"


class RandomResizedCrop(BaseTransform):
    """Crop a random area (``scale`` of the image) with a random aspect ratio (``ratio``), then resize to ``size``."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3), interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size = (size, size) if isinstance(size, int) else size
        if not scale[0] <= scale[1]:
            raise AssertionError("scale should be of kind (min, max)")
        if not ratio[0] <= ratio[1]:
            raise AssertionError("ratio should be of kind (min, max)")
        self.scale = scale
        self.ratio = ratio
        self.interpolation = interpolation

    def _dynamic_get_param(self, image, attempts=10):
        width, height = _get_image_size(image)
        area = height * width
        for _ in range(attempts):
            target_area = np.random.uniform(*self.scale) * area
            log_ratio = tuple(math.log(x) for x in self.ratio)
            aspect_ratio = math.exp(np.random.uniform(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                return random.randint(0, height - h), random.randint(0, width - w), h, w
        in_ratio = float(width) / float(height)
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            h, w = height, int(round(height * max(self.ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img):
        _no_static_draw(img, "RandomResizedCrop")
        i, j, h, w = self._dynamic_get_param(img)
        return F.resize(F.crop(img, i, j, h, w), self.size, self.interpolation)


class CenterCrop(BaseTransform):
    """Crop the centre ``size`` ((h, w) or an int)."""

    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size

    def _apply_image(self, img):
        return F.center_crop(img, self.size)


class RandomHorizontalFlip(BaseTransform):
    """Mirror left-right with probability ``prob`` (one ``random.random()`` draw per call)."""

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise AssertionError("probability must be between 0 and 1")
        self.prob = prob

    def _apply_image(self, img):
        if is_static_variable(img):
            return _static_maybe(img, self.prob, F.hflip)
        return F.hflip(img) if random.random() < self.prob else img


class RandomVerticalFlip(BaseTransform):
    """Mirror top-bottom with probability ``prob``."""

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise AssertionError("probability must be between 0 and 1")
        self.prob = prob

    def _apply_image(self, img):
        if is_static_variable(img):
            return _static_maybe(img, self.prob, F.vflip)
        return F.vflip(img) if random.random() < self.prob else img


class Normalize(BaseTransform):
    """``(img - mean) / std`` per channel; a number means the same value for 3 channels."""

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        if isinstance(mean, numbers.Number):
            mean = [mean, mean, mean]
        if isinstance(std, numbers.Number):
            std = [std, std, std]
        self.mean = mean
        self.std = std
        self.data_format = data_format
        self.to_rgb = to_rgb

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)

    def __repr__(self):
        return f"Normalize(mean={self.mean}, std={self.std}, data_format={self.data_format!r})"


class Transpose(BaseTransform):
    """Permute the axes (default HWC -> CHW); PIL images become ndarrays, HW gets a channel axis."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = order

    def _apply_image(self, img):
        if _is_tensor_image(img):
            return img.transpose(list(self.order))
        if _is_pil_image(img):
            img = np.asarray(img)
        if img.ndim == 2:
            img = img[..., np.newaxis]
        return img.transpose(self.order)


class BrightnessTransform(BaseTransform):
    """Brightness scaled by a factor drawn uniformly from [max(0, 1 - value), 1 + value]."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, "brightness")

    def _apply_image(self, img):
        if self.value is None:
            return img
        return F.adjust_brightness(img, random.uniform(self.value[0], self.value[1]))


class ContrastTransform(BaseTransform):
    """Contrast scaled by a factor drawn uniformly from [max(0, 1 - value), 1 + value]."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        if value < 0:
            raise ValueError("contrast value should be non-negative")
        self.value = _check_input(value, "contrast")

    def _apply_image(self, img):
        if self.value is None:
            return img
        return F.adjust_contrast(img, random.uniform(self.value[0], self.value[1]))


class SaturationTransform(BaseTransform):
    """Saturation scaled by a factor drawn uniformly from [max(0, 1 - value), 1 + value]."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, "saturation")

    def _apply_image(self, img):
        if self.value is None:
            return img
        return F.adjust_saturation(img, random.uniform(self.value[0], self.value[1]))


class HueTransform(BaseTransform):
    """Hue shifted by a factor drawn uniformly from [-value, value] (value in [0, 0.5])."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    def _apply_image(self, img):
        if self.value is None:
            return img
        return F.adjust_hue(img, random.uniform(self.value[0], self.value[1]))


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue jitter, applied in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness = brightness
        self.contrast = contrast
        self.saturation = saturation
        self.hue = hue

    def _get_param(self, brightness, contrast, saturation, hue):
        ts = []
        if brightness is not None:
            ts.append(BrightnessTransform(brightness, self.keys))
        if contrast is not None:
            ts.append(ContrastTransform(contrast, self.keys))
        if saturation is not None:
            ts.append(SaturationTransform(saturation, self.keys))
        if hue is not None:
            ts.append(HueTransform(hue, self.keys))
        random.shuffle(ts)
        return Compose(ts)

    def _apply_image(self, img):
        return self._get_param(self.brightness, self.contrast, self.saturation, self.hue)(img)


class RandomCrop(BaseTransform):
    """Crop a random ``size`` box, after optional ``padding`` (and padding up to ``size`` if ``pad_if_needed``)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant", keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def _get_param(self, img, output_size):
        w, h = _get_image_size(img)
        th, tw = output_size
        if w == tw and h == th:
            return 0, 0, h, w
        if h < th or w < tw:
            raise ValueError(f"RandomCrop: the image ({h}x{w}) is smaller than the crop size {th}x{tw}; pass "
                             "pad_if_needed=True or padding")
        if is_static_variable(img):
            # Paddle's static draw: paddle.randint in the Program (its high is exclusive, so the last offset
            # is never drawn -- as in Paddle), a new box on every run
            from ...api.random import randint
            return randint(low=0, high=h - th), randint(low=0, high=w - tw), th, tw
        return random.randint(0, h - th), random.randint(0, w - tw), th, tw

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        w, h = _get_image_size(img)
        if self.pad_if_needed and w < self.size[1]:
            img = F.pad(img, (self.size[1] - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = F.pad(img, (0, self.size[0] - h), self.fill, self.padding_mode)
        i, j, h, w = self._get_param(img, self.size)
        return F.crop(img, i, j, h, w)


class Pad(BaseTransform):
    """Pad the borders (see `functional.pad`)."""

    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        if not isinstance(padding, (numbers.Number, list, tuple)):
            raise AssertionError(f"Pad: padding should be a number or a sequence, got {padding!r}")
        if not isinstance(fill, (numbers.Number, str, list, tuple)):
            raise AssertionError(f"Pad: fill should be a number, str or sequence, got {fill!r}")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise AssertionError("Pad: padding_mode should be constant, edge, reflect or symmetric, "
                                 f"got {padding_mode!r}")
        if isinstance(padding, list):
            padding = tuple(padding)
        if isinstance(fill, list):
            fill = tuple(fill)
        if isinstance(padding, Sequence) and len(padding) not in (2, 4):
            raise ValueError("Padding must be an int or a 2, or 4 element tuple, not a "
                             f"{len(padding)} element tuple")
        super().__init__(keys)
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


def _check_sequence_input(x, name, req_sizes):
    msg = req_sizes[0] if len(req_sizes) < 2 else " or ".join(str(s) for s in req_sizes)
    if not isinstance(x, Sequence):
        raise TypeError(f"{name} should be a sequence of length {msg}.")
    if len(x) not in req_sizes:
        raise ValueError(f"{name} should be sequence of length {msg}.")


def _setup_angle(x, name, req_sizes=(2,)):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        x = [-x, x]
    else:
        _check_sequence_input(x, name, req_sizes)
    return [float(d) for d in x]


class RandomAffine(BaseTransform):
    """Random rotation (``degrees``), translation (fractions of the size), scale and shear."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation="nearest", fill=0,
                 center=None, keys=None):
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        super().__init__(keys)
        if interpolation not in ("nearest", "bilinear", "bicubic"):
            raise AssertionError("RandomAffine: interpolation should be nearest, bilinear or bicubic, "
                                 f"got {interpolation!r}")
        self.interpolation = interpolation
        if translate is not None:
            _check_sequence_input(translate, "translate", req_sizes=(2,))
            for t in translate:
                if not 0.0 <= t <= 1.0:
                    raise ValueError("translation values should be between 0 and 1")
        self.translate = translate
        if scale is not None:
            _check_sequence_input(scale, "scale", req_sizes=(2,))
            for s in scale:
                if s <= 0:
                    raise ValueError("scale values should be positive")
        self.scale = scale
        self.shear = _setup_angle(shear, name="shear", req_sizes=(2, 4)) if shear is not None else None
        if fill is None:
            fill = 0
        elif not isinstance(fill, (Sequence, numbers.Number)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.fill = fill
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    def _get_param(self, img_size, degrees, translate=None, scale_ranges=None, shears=None):
        angle = random.uniform(degrees[0], degrees[1])
        if translate is not None:
            max_dx = float(translate[0] * img_size[0])
            max_dy = float(translate[1] * img_size[1])
            translations = (int(random.uniform(-max_dx, max_dx)), int(random.uniform(-max_dy, max_dy)))
        else:
            translations = (0, 0)
        scale = random.uniform(scale_ranges[0], scale_ranges[1]) if scale_ranges is not None else 1.0
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = random.uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = random.uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def _apply_image(self, img):
        _no_static_draw(img, "RandomAffine")
        w, h = _get_image_size(img)
        ret = self._get_param([w, h], self.degrees, self.translate, self.scale, self.shear)
        return F.affine(img, *ret, interpolation=self.interpolation, fill=self.fill, center=self.center)


class RandomRotation(BaseTransform):
    """Rotate by an angle drawn uniformly from ``degrees`` ((min, max), or a number d for (-d, d))."""

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0, keys=None):
        if isinstance(degrees, numbers.Number):
            if degrees < 0:
                raise ValueError("If degrees is a single number, it must be positive.")
            self.degrees = (-degrees, degrees)
        else:
            if len(degrees) != 2:
                raise ValueError("If degrees is a sequence, it must be of len 2.")
            self.degrees = degrees
        super().__init__(keys)
        self.interpolation = interpolation
        self.expand = expand
        self.center = center
        self.fill = fill

    def _get_param(self, degrees):
        return random.uniform(degrees[0], degrees[1])

    def _apply_image(self, img):
        if is_static_variable(img) and self.degrees[0] != self.degrees[1]:
            if self.expand:     # the output size would depend on the angle drawn at run time
                _no_static_draw(img, "RandomRotation(expand=True)")
            # Paddle's static draw: paddle.uniform in the Program, a new angle on every run
            from ...api.random import uniform
            angle = uniform([1], dtype="float32", min=self.degrees[0], max=self.degrees[1])
            return F._rotate_static_angle(img, angle, self.interpolation, self.center, self.fill)
        angle = self._get_param(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class RandomPerspective(BaseTransform):
    """With probability ``prob``, move each corner inwards by up to ``distortion_scale`` of half the size."""

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation="nearest", fill=0, keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise AssertionError("probability must be between 0 and 1")
        if not 0 <= distortion_scale <= 1:
            raise AssertionError("distortion_scale must be between 0 and 1")
        if interpolation not in ("nearest", "bilinear", "bicubic"):
            raise AssertionError("RandomPerspective: interpolation should be nearest, bilinear or bicubic, "
                                 f"got {interpolation!r}")
        if not isinstance(fill, (numbers.Number, str, list, tuple)):
            raise AssertionError(f"RandomPerspective: fill should be a number or a sequence, got {fill!r}")
        self.prob = prob
        self.distortion_scale = distortion_scale
        self.interpolation = interpolation
        self.fill = fill

    def get_params(self, width, height, distortion_scale):
        """The start points (the corners) and random end points of a perspective warp."""
        hh, hw = height // 2, width // 2
        dx, dy = int(distortion_scale * hw), int(distortion_scale * hh)
        topleft = [int(random.uniform(0, dx + 1)), int(random.uniform(0, dy + 1))]
        topright = [int(random.uniform(width - dx - 1, width)), int(random.uniform(0, dy + 1))]
        botright = [int(random.uniform(width - dx - 1, width)), int(random.uniform(height - dy - 1, height))]
        botleft = [int(random.uniform(0, dx + 1)), int(random.uniform(height - dy - 1, height))]
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return start, [topleft, topright, botright, botleft]

    def _apply_image(self, img):
        _no_static_draw(img, "RandomPerspective")
        width, height = _get_image_size(img)
        if random.random() < self.prob:
            start, end = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, start, end, self.interpolation, self.fill)
        return img


class Grayscale(BaseTransform):
    """Convert to gray with ``num_output_channels`` (1 or 3) channels."""

    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)


class RandomErasing(BaseTransform):
    """With probability ``prob``, erase a random box (area ``scale`` of the image, aspect ``ratio``)
    with ``value`` (a number, one per channel, or 'random' for normal noise)."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, keys=None):
        super().__init__(keys)
        if not isinstance(scale, (tuple, list)):
            raise AssertionError("scale should be a tuple or list")
        if not (scale[0] >= 0 and scale[1] <= 1 and scale[0] <= scale[1]):
            raise AssertionError("scale should be of kind (min, max) and in range [0, 1]")
        if not isinstance(ratio, (tuple, list)):
            raise AssertionError("ratio should be a tuple or list")
        if not (ratio[0] >= 0 and ratio[0] <= ratio[1]):
            raise AssertionError("ratio should be of kind (min, max)")
        if not 0 <= prob <= 1:
            raise AssertionError("The probability should be in range [0, 1]")
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise AssertionError("value should be a number, tuple, list or str")
        if isinstance(value, str) and value != "random":
            raise ValueError("value must be 'random' when type is str")
        self.prob = prob
        self.scale = scale
        self.ratio = ratio
        self.value = value
        self.inplace = inplace

    def _dynamic_get_param(self, img, scale, ratio, value):
        if _is_pil_image(img):
            shape = np.asarray(img).astype(np.uint8).shape
            h, w, c = shape[-3], shape[-2], shape[-1]
        elif _is_numpy_image(img):
            h, w, c = img.shape[-3], img.shape[-2], img.shape[-1]
        else:
            c, h, w = img.shape[-3], img.shape[-2], img.shape[-1]
        img_area = h * w
        log_ratio = np.log(ratio)
        for _ in range(10):
            erase_area = np.random.uniform(*scale) * img_area
            aspect_ratio = np.exp(np.random.uniform(*log_ratio))
            erase_h = int(round(np.sqrt(erase_area * aspect_ratio)))
            erase_w = int(round(np.sqrt(erase_area / aspect_ratio)))
            if erase_h >= h or erase_w >= w:
                continue
            if _is_tensor_image(img):
                dt = img.numpy().dtype
                if value is None:
                    from ...api.random import normal
                    v = normal(shape=[c, erase_h, erase_w]).numpy().astype(dt)
                else:
                    v = np.asarray(value).astype(dt)[:, None, None]
            elif value is None:
                v = np.random.normal(size=[erase_h, erase_w, c]) * 255
            else:
                v = np.array(value)[None, None, :]
            top = np.random.randint(0, h - erase_h + 1)
            left = np.random.randint(0, w - erase_w + 1)
            return top, left, erase_h, erase_w, v
        return 0, 0, h, w, img

    def _apply_image(self, img):
        _no_static_draw(img, "RandomErasing")
        if random.random() < self.prob:
            if isinstance(self.value, numbers.Number):
                value = [self.value]
            elif isinstance(self.value, str):
                value = None
            else:
                value = self.value
            if value is not None and len(value) not in (1, 3):
                raise ValueError("Value should be a single number or a sequence with length equals to image's channel.")
            top, left, eh, ew, v = self._dynamic_get_param(img, self.scale, self.ratio, value)
            return F.erase(img, top, left, eh, ew, v, self.inplace)
        return img
