"""paddle.vision.transforms: Compose, ToTensor, Normalize, Resize (numpy images, Tensors, PIL images).

Images are ndarrays laid out HWC (or HW for grayscale), PIL images when Pillow is installed,
or CHW Tensors. Transforms prepare data before it reaches the model; they run eagerly.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..tensor import Tensor

__all__ = ["BaseTransform", "Compose", "ToTensor", "Normalize", "Resize", "to_tensor", "normalize", "resize"]


def _is_pil(img):
    try:
        from PIL import Image
    except ImportError:
        return False
    return isinstance(img, Image.Image)


def _check_format(data_format, who):
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"{who}: data_format should be 'CHW' or 'HWC', got {data_format!r}")
    return data_format


class BaseTransform:
    """Base of the transforms: ``__call__`` applies ``_apply_image`` to the image.

    With ``keys`` (e.g. ``("image", "label")``) the input is a tuple with one entry per key;
    entries named ``"image"`` are transformed and the others passed through unchanged.
    """

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif not isinstance(keys, (list, tuple)):
            raise TypeError(f"{type(self).__name__}: keys should be a list or tuple of names, got {keys!r}")
        self.keys = tuple(keys)

    def _apply_image(self, image):
        raise NotImplementedError(f"{type(self).__name__} must define _apply_image(image)")

    def __call__(self, inputs):
        if self.keys == ("image",):
            return self._apply_image(inputs)
        if not isinstance(inputs, (list, tuple)) or len(inputs) != len(self.keys):
            raise ValueError(f"{type(self).__name__}: with keys {self.keys} the input should be a tuple of "
                             f"{len(self.keys)} items, got {type(inputs).__name__}")
        out = [self._apply_image(x) if k == "image" else x for k, x in zip(self.keys, inputs)]
        return tuple(out)

    def __repr__(self):
        return f"{type(self).__name__}()"


class Compose:
    """Apply several transforms one after another."""

    def __init__(self, transforms):
        self.transforms = list(transforms)
        for i, t in enumerate(self.transforms):
            if not callable(t):
                raise TypeError(f"Compose: transforms[{i}] should be callable, got {type(t).__name__}")

    def __call__(self, data):
        for t in self.transforms:
            data = t(data)
        return data

    def __repr__(self):
        body = "".join(f"\n    {t!r}" for t in self.transforms)
        return f"{type(self).__name__}({body}\n)"


# -- ToTensor ------------------------------------------------------------------------------

def to_tensor(pic, data_format="CHW"):
    """An HWC/HW image (ndarray or PIL) as a Tensor in ``data_format``; uint8 is scaled to float32 in [0, 1].

    Other dtypes keep their values and dtype. A Tensor is returned unchanged.
    """
    _check_format(data_format, "to_tensor")
    if isinstance(pic, Tensor):
        return pic
    if _is_pil(pic):
        arr = np.asarray(pic)
        if pic.mode == "1":
            arr = arr.astype(np.uint8) * 255
    elif isinstance(pic, np.ndarray):
        arr = pic
    else:
        raise TypeError(f"to_tensor: pic should be a PIL Image or numpy.ndarray, got {type(pic).__name__}")
    if arr.ndim == 2:
        arr = arr[:, :, None]
    elif arr.ndim != 3:
        raise ValueError(f"to_tensor: pic should be 2-D (HW) or 3-D (HWC), got shape {list(arr.shape)}")
    if data_format == "CHW":
        arr = arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        arr = arr.astype(np.float32) / np.float32(255)
    return Tensor._wrap(np.ascontiguousarray(arr))


class ToTensor(BaseTransform):
    """HWC uint8 image (ndarray or PIL) -> CHW float32 Tensor in [0, 1] (see `to_tensor`)."""

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        self.data_format = _check_format(data_format, "ToTensor")

    def _apply_image(self, img):
        return to_tensor(img, self.data_format)


# -- Normalize -----------------------------------------------------------------------------

def _channel_shape(data_format):
    # Always 3-D, so a 2-D (HW) image broadcasts to [1, H, W] as in Paddle.
    return (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """``(img - mean) / std`` per channel. ndarrays: uint8/integer input gives float32, floats keep
    their dtype. Tensors: computed with tensor ops in the tensor's dtype."""
    _check_format(data_format, "normalize")
    if _is_pil(img):
        img = np.asarray(img)
        data_format = "HWC"  # a PIL image is always height x width x channels
    mean_a = np.asarray(mean, dtype=np.float64).reshape(-1)
    std_a = np.asarray(std, dtype=np.float64).reshape(-1)
    if (std_a == 0).any():
        raise ValueError(f"normalize: std must not contain zeros, got {std!r}")
    if isinstance(img, Tensor):
        nch = img.shape[0] if data_format == "CHW" else img.shape[-1]
        dt = img.dtype.np if img.dtype.np.kind == "f" else np.dtype(np.float32)
    elif isinstance(img, np.ndarray):
        if img.ndim not in (2, 3):
            raise ValueError(f"normalize: img should be 2-D or 3-D, got shape {list(img.shape)}")
        nch = 1 if img.ndim == 2 else (img.shape[0] if data_format == "CHW" else img.shape[-1])
        dt = img.dtype if img.dtype.kind == "f" else np.dtype(np.float32)
    else:
        raise TypeError(f"normalize: img should be a numpy.ndarray, Tensor or PIL Image, got {type(img).__name__}")
    for name, a in (("mean", mean_a), ("std", std_a)):
        if a.size not in (1, nch):
            raise ValueError(f"normalize: {name} has {a.size} values but the image has {nch} channels "
                             f"(data_format={data_format!r})")
    ndim = len(img.shape)
    shape = _channel_shape(data_format)
    m = mean_a.astype(dt).reshape(shape)
    s = std_a.astype(dt).reshape(shape)
    if isinstance(img, Tensor):
        if to_rgb:
            from ..dispatch import run_op
            axis = 0 if data_format == "CHW" else ndim - 1
            img = run_op("flip", img, axis=[axis])
        if img.dtype.np != dt:
            img = img.astype(dt)
        return (img - Tensor._wrap(m)) / Tensor._wrap(s)
    arr = img.astype(dt, copy=False)
    if to_rgb:
        arr = arr[::-1] if data_format == "CHW" and ndim == 3 else arr[..., ::-1]
    return ((arr - m) / s).astype(dt, copy=False)


class Normalize(BaseTransform):
    """Normalise each channel: ``(img - mean) / std``; ``to_rgb`` first reverses the channel order (BGR -> RGB)."""

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        if isinstance(mean, numbers.Number):
            mean = [mean]
        if isinstance(std, numbers.Number):
            std = [std]
        self.mean = list(mean)
        self.std = list(std)
        self.data_format = _check_format(data_format, "Normalize")
        self.to_rgb = to_rgb

    def _apply_image(self, img):
        return normalize(img, self.mean, self.std, self.data_format, self.to_rgb)

    def __repr__(self):
        return f"Normalize(mean={self.mean}, std={self.std}, data_format={self.data_format!r})"


# -- Resize --------------------------------------------------------------------------------

def _target_size(h, w, size):
    if isinstance(size, numbers.Integral):
        # Shorter side becomes `size`, the longer keeps the aspect ratio.
        if h <= w:
            return int(size), int(size * w / h)
        return int(size * h / w), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise ValueError(f"resize: size should be an int or a (height, width) pair, got {size!r}")


def _linear_weights(n_in, n_out):
    # Half-pixel centres (align_corners=False), as cv2 INTER_LINEAR and Paddle's bilinear interp.
    src = (np.arange(n_out, dtype=np.float64) + 0.5) * (n_in / n_out) - 0.5
    src = np.clip(src, 0, None)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    frac = src - i0
    return i0, i1, frac


def _resize_hw(arr, oh, ow, interpolation):
    """Resize axes 0 and 1 of an (H, W, ...) array."""
    h, w = arr.shape[:2]
    if interpolation == "nearest":
        ri = np.minimum(np.floor(np.arange(oh) * (h / oh)).astype(np.int64), h - 1)
        ci = np.minimum(np.floor(np.arange(ow) * (w / ow)).astype(np.int64), w - 1)
        return arr[ri][:, ci]
    x = arr.astype(np.float64)
    r0, r1, rf = _linear_weights(h, oh)
    c0, c1, cf = _linear_weights(w, ow)
    extra = (1,) * (arr.ndim - 2)
    rf = rf.reshape((-1, 1) + extra)
    cf = cf.reshape((1, -1) + extra)
    top = x[r0][:, c0] * (1 - cf) + x[r0][:, c1] * cf
    bot = x[r1][:, c0] * (1 - cf) + x[r1][:, c1] * cf
    out = top * (1 - rf) + bot * rf
    if arr.dtype.kind in "iub":
        info = np.iinfo(arr.dtype) if arr.dtype.kind != "b" else None
        out = np.rint(out)
        if info is not None:
            out = np.clip(out, info.min, info.max)
    return out.astype(arr.dtype)


def resize(img, size, interpolation="bilinear"):
    """Resize an HWC/HW ndarray, a PIL image or a CHW Tensor to ``size`` ((h, w), or an int for the shorter side).

    ``interpolation`` is ``'bilinear'`` or ``'nearest'`` (``'linear'`` is accepted for bilinear).
    """
    interp = {"bilinear": "bilinear", "linear": "bilinear", "nearest": "nearest"}.get(interpolation)
    if interp is None:
        raise ValueError(f"resize: interpolation should be 'bilinear' or 'nearest', got {interpolation!r}")
    if _is_pil(img):
        from PIL import Image
        oh, ow = _target_size(img.size[1], img.size[0], size)
        return img.resize((ow, oh), Image.BILINEAR if interp == "bilinear" else Image.NEAREST)
    if isinstance(img, Tensor):
        arr = img.numpy()
        if arr.ndim not in (3, 4):
            raise ValueError(f"resize: a Tensor image should be CHW or NCHW, got shape {list(arr.shape)}")
        oh, ow = _target_size(arr.shape[-2], arr.shape[-1], size)
        hw_first = np.moveaxis(arr, (-2, -1), (0, 1))
        out = np.moveaxis(_resize_hw(hw_first, oh, ow, interp), (0, 1), (-2, -1))
        return Tensor._wrap(np.ascontiguousarray(out))
    if not isinstance(img, np.ndarray):
        raise TypeError(f"resize: img should be a numpy.ndarray, Tensor or PIL Image, got {type(img).__name__}")
    if img.ndim not in (2, 3):
        raise ValueError(f"resize: img should be HW or HWC, got shape {list(img.shape)}")
    oh, ow = _target_size(img.shape[0], img.shape[1], size)
    return _resize_hw(img, oh, ow, interp)


class Resize(BaseTransform):
    """Resize to ``size``: ``(h, w)``, or an int to which the shorter side is scaled (aspect ratio kept)."""

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        if not (isinstance(size, numbers.Integral) or (isinstance(size, (list, tuple)) and len(size) == 2)):
            raise ValueError(f"Resize: size should be an int or a (height, width) pair, got {size!r}")
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, img):
        return resize(img, self.size, self.interpolation)

    def __repr__(self):
        return f"Resize(size={self.size}, interpolation={self.interpolation!r})"
