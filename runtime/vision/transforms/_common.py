"""Image-type checks and small helpers shared by the transforms' backends (numpy, PIL, Tensor)."""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor


def pil_image_module():
    """``PIL.Image`` when Pillow is importable, else None."""
    try:
        from PIL import Image
    except ImportError:
        return None
    return Image


def _is_pil_image(img):
    Image = pil_image_module()
    return Image is not None and isinstance(img, Image.Image)


def _is_tensor_image(img):
    """A Tensor, or a static-graph Variable (Paddle's transforms accept both)."""
    return isinstance(img, Tensor) or is_static_variable(img)


def is_static_variable(img):
    from ...static.program import Variable      # runtime.static imports the transforms' users: import late
    return isinstance(img, Variable)


def _is_numpy_image(img):
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def check_image(img, who):
    """Raise Paddle's TypeError unless ``img`` is a PIL image, a Tensor or a 2-D/3-D ndarray."""
    if not (_is_pil_image(img) or _is_numpy_image(img) or _is_tensor_image(img)):
        shape = f" of shape {list(img.shape)}" if isinstance(img, np.ndarray) else ""
        raise TypeError(f"{who}: img should be PIL Image or Tensor Image or ndarray with dim=[2 or 3]. "
                        f"Got {type(img)}{shape}")


def wrap_like(arr, like):
    """``arr`` (ndarray) as a Tensor with ``like``'s stop_gradient flag."""
    return Tensor._wrap(np.ascontiguousarray(arr), stop_gradient=like.stop_gradient)


def cast_back(out, dtype):
    """A float result in the input's dtype: integers are rounded half to even and saturated (cv2's
    ``saturate_cast``), floats are cast."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(dtype)
    if dtype.kind == "b":
        return out != 0
    return out.astype(dtype)


def scalar_fill(fill, channels):
    """cv2's ``Scalar`` from Paddle's ``fill`` for an image with ``channels`` channels: a number
    fills channel 0 only (the others get 0), a sequence gives one value per channel (missing
    values are 0) -- OpenCV's Python binding converts a number to ``Scalar(v, 0, 0, 0)``."""
    if isinstance(fill, str):
        raise TypeError(f"fill should be a number or a sequence of numbers for a numpy image, got {fill!r}")
    vals = [float(fill)] if np.isscalar(fill) else [float(v) for v in fill]
    out = np.zeros(max(channels, 1), np.float64)
    n = min(len(vals), out.size, 4)
    out[:n] = vals[:n]
    return out
