"""The Pillow backend of the functional transforms (Paddle's ``functional_pil``): PIL images in,
PIL images out, computed by Pillow itself so results equal Paddle's bit for bit."""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor
from ._geometry import parse_padding


def _Image():
    from PIL import Image
    return Image


def interp(name):
    """Pillow's resampling filter for Paddle's interpolation name."""
    R = getattr(_Image(), "Resampling", _Image())
    table = {"nearest": R.NEAREST, "bilinear": R.BILINEAR, "bicubic": R.BICUBIC, "box": R.BOX,
             "lanczos": R.LANCZOS, "hamming": R.HAMMING}
    if name not in table:
        raise ValueError(f"interpolation {name!r} is not supported for PIL images; expected one of {sorted(table)}")
    return table[name]


def to_tensor(pic, data_format="CHW"):
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"data_format should be CHW or HWC. Got {data_format}")
    mode = pic.mode
    if mode in ("I", "I;16"):
        arr = np.asarray(pic, np.int32)
    elif mode == "F":
        arr = np.asarray(pic, np.float32)
    elif mode == "1":
        arr = 255 * np.asarray(pic, np.uint8)
    else:
        arr = np.asarray(pic)
    nch = 3 if mode == "YCbCr" else 1 if mode == "I;16" else len(mode)
    if arr.dtype == np.uint8:
        arr = arr.astype(np.float32) / np.float32(255.0)
    arr = arr.reshape(pic.size[1], pic.size[0], nch)
    if data_format == "CHW":
        arr = arr.transpose(2, 0, 1)
    return Tensor._wrap(np.ascontiguousarray(arr))


def resize(img, size, interpolation="bilinear"):
    from ._resize import target_size
    w, h = img.size
    hw = target_size(h, w, size)
    if hw is None:
        return img
    return img.resize((hw[1], hw[0]), interp(interpolation))


def pad(img, padding, fill=0, padding_mode="constant"):
    from PIL import ImageOps
    Image = _Image()
    if isinstance(padding, list):
        padding = tuple(padding)
    if isinstance(fill, list):
        fill = tuple(fill)
    left, top, right, bottom = parse_padding(padding)
    palette = img.getpalette() if img.mode == "P" else None
    if padding_mode == "constant":
        out = ImageOps.expand(img, border=padding, fill=fill)
    else:
        arr = np.asarray(img)
        widths = ((top, bottom), (left, right)) + (((0, 0),) if arr.ndim == 3 else ())
        out = Image.fromarray(np.pad(arr, widths, padding_mode))
    if palette is not None:
        out.putpalette(palette)
    return out


def crop(img, top, left, height, width):
    return img.crop((left, top, left + width, top + height))


def hflip(img):
    return img.transpose(_Image().FLIP_LEFT_RIGHT)


def vflip(img):
    return img.transpose(_Image().FLIP_TOP_BOTTOM)


def enhance(img, kind, factor):
    from PIL import ImageEnhance
    return getattr(ImageEnhance, kind)(img).enhance(factor)


def adjust_hue(img, hue_factor):
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor:{hue_factor} is not in [-0.5, 0.5].")
    Image = _Image()
    mode = img.mode
    if mode in {"L", "1", "I", "F"}:
        return img
    h, s, v = img.convert("HSV").split()
    np_h = (np.array(h, dtype=np.uint8).astype(np.int16) + int(hue_factor * 255)) % 256
    h = Image.fromarray(np_h.astype(np.uint8), "L")
    return Image.merge("HSV", (h, s, v)).convert(mode)


def _fill3(fill):
    return tuple([fill] * 3) if isinstance(fill, int) else fill


def affine(img, matrix, interpolation="nearest", fill=0):
    Image = _Image()
    return img.transform(img.size, Image.AFFINE, matrix, interp(interpolation), fillcolor=_fill3(fill))


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    return img.rotate(angle, interp(interpolation), expand, center, fillcolor=_fill3(fill))


def perspective(img, coeffs, interpolation="nearest", fill=0):
    Image = _Image()
    return img.transform(img.size, Image.PERSPECTIVE, coeffs, interp(interpolation), fillcolor=_fill3(fill))


def to_grayscale(img, num_output_channels=1):
    Image = _Image()
    if num_output_channels == 1:
        return img.convert("L")
    if num_output_channels == 3:
        g = np.array(img.convert("L"), dtype=np.uint8)
        return Image.fromarray(np.dstack([g, g, g]), "RGB")
    raise ValueError("num_output_channels should be either 1 or 3")


def erase(img, i, j, h, w, v, inplace=False):
    arr = np.array(img, dtype=np.uint8)
    arr[i:i + h, j:j + w, ...] = v
    return _Image().fromarray(arr, "RGB")
