"""Colour kernels in numpy: brightness, contrast, saturation, hue and grayscale.

numpy images reproduce Paddle's numpy backend (``functional_cv2``), including its quirks, so a
seeded script gives Paddle's numbers: brightness and contrast go through a 256-entry uint8
lookup table (values truncated), contrast pivots on the constant 74, saturation blends with the
gray image using a factor drawn from ``np.random.uniform(max(0, 1 - f), 1 + f)`` (Paddle's cv2
code draws it even in the functional form), hue shifts OpenCV's 8-bit full-range HSV (channel 0
read as blue, as ``COLOR_BGR2HSV_FULL``) with OpenCV's integer conversion formulas.

Tensor images reproduce ``functional_tensor``: blends with ``lerp`` and clipping to [0, 1] for
floats (255 for integers), gray weights (0.2989, 0.587, 0.114), the float RGB<->HSV formulas.
"""
from __future__ import annotations

import numpy as np

# -- numpy images (OpenCV semantics) ----------------------------------------------------------------


def _lut(img, table, who):
    if img.dtype != np.uint8:
        raise TypeError(f"{who}: a numpy image must be uint8 here (Paddle applies cv2.LUT, which needs 8-bit "
                        f"pixels), got dtype {img.dtype}; convert with img.astype('uint8') first")
    return table[img]


def brightness_cv2(img, factor):
    table = np.clip(np.arange(256, dtype=np.float64) * factor, 0, 255).astype(np.uint8)
    return _lut(img.astype(np.uint8), table, "adjust_brightness")


def contrast_cv2(img, factor):
    table = np.clip((np.arange(256, dtype=np.float64) - 74) * factor + 74, 0, 255).astype(np.uint8)
    return _lut(img, table, "adjust_contrast")


def gray_cv2(img, bgr=False):
    """``cv2.cvtColor(img, COLOR_RGB2GRAY)`` (or BGR2GRAY) -> HW. uint8 uses OpenCV's 14-bit fixed point."""
    if img.ndim != 3 or img.shape[2] not in (3, 4):
        raise ValueError("to_grayscale: a numpy image needs 3 (or 4) channels in HWC layout, "
                         f"got shape {list(img.shape)}")
    r, g, b = (img[..., 2], img[..., 1], img[..., 0]) if bgr else (img[..., 0], img[..., 1], img[..., 2])
    if img.dtype == np.uint8:
        y = (r.astype(np.int64) * 4899 + g.astype(np.int64) * 9617 + b.astype(np.int64) * 1868 + (1 << 13)) >> 14
        return y.astype(np.uint8)
    if img.dtype == np.uint16:
        y = (r.astype(np.int64) * 4899 + g.astype(np.int64) * 9617 + b.astype(np.int64) * 1868 + (1 << 13)) >> 14
        return y.astype(np.uint16)
    if img.dtype.kind != "f":
        raise TypeError(f"to_grayscale: OpenCV converts uint8, uint16 or float images, got dtype {img.dtype}")
    x = img.astype(np.float32)
    r, g, b = (x[..., 2], x[..., 1], x[..., 0]) if bgr else (x[..., 0], x[..., 1], x[..., 2])
    return (np.float32(0.299) * r + np.float32(0.587) * g + np.float32(0.114) * b).astype(img.dtype)


def saturation_cv2(img, factor):
    dtype = img.dtype
    x = img.astype(np.float32)
    alpha = np.random.uniform(max(0, 1 - factor), 1 + factor)
    gray = gray_cv2(x, bgr=True)[..., None]
    out = x * alpha + gray * (1 - alpha)
    return out.clip(0, 255).astype(dtype)


_SHIFT = 12


def _div_tables():
    i = np.arange(256, dtype=np.float64)
    with np.errstate(divide="ignore"):
        sdiv = np.where(i > 0, np.rint((255 << _SHIFT) / np.where(i > 0, i, 1)), 0).astype(np.int64)
        hdiv = np.where(i > 0, np.rint((256 << _SHIFT) / (6.0 * np.where(i > 0, i, 1))), 0).astype(np.int64)
    return sdiv, hdiv


_SDIV, _HDIV = _div_tables()


def bgr_to_hsv_full(img):
    """OpenCV's 8-bit ``COLOR_BGR2HSV_FULL`` (hue in 0..255)."""
    b, g, r = (img[..., k].astype(np.int64) for k in range(3))
    v = np.maximum(np.maximum(b, g), r)
    vmin = np.minimum(np.minimum(b, g), r)
    diff = v - vmin
    s = (diff * _SDIV[v] + (1 << (_SHIFT - 1))) >> _SHIFT
    h = np.where(v == r, g - b, np.where(v == g, b - r + 2 * diff, r - g + 4 * diff))
    h = (h * _HDIV[diff] + (1 << (_SHIFT - 1))) >> _SHIFT
    h = np.where(h < 0, h + 256, h)
    return np.stack([h, s, v], axis=-1).clip(0, 255).astype(np.uint8)


_SECTORS = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])


def hsv_full_to_bgr(hsv):
    """OpenCV's 8-bit ``COLOR_HSV2BGR_FULL`` (float32 arithmetic, rounded to uint8)."""
    h = hsv[..., 0].astype(np.float32) * np.float32(6.0 / 256)
    s = hsv[..., 1].astype(np.float32) * np.float32(1.0 / 255)
    v = hsv[..., 2].astype(np.float32) * np.float32(1.0 / 255)
    h = np.mod(h, np.float32(6))
    sector = np.floor(h).astype(np.int64)
    f = h - sector
    bad = (sector < 0) | (sector >= 6)
    sector = np.where(bad, 0, sector)
    f = np.where(bad, np.float32(0), f).astype(np.float32)
    one = np.float32(1)
    tab = np.stack([v, v * (one - s), v * (one - s * f), v * (one - s * (one - f))], axis=-1)
    idx = _SECTORS[sector]                                   # (..., 3): which tab entry gives b, g, r
    bgr = np.take_along_axis(tab, idx, axis=-1)
    bgr = np.where((s == 0)[..., None], v[..., None], bgr)
    return np.clip(np.rint(bgr * np.float32(255)), 0, 255).astype(np.uint8)


def hue_cv2(img, factor):
    if not -0.5 <= factor <= 0.5:
        raise ValueError(f"hue_factor:{factor} is not in [-0.5, 0.5].")
    dtype = img.dtype
    u8 = img.astype(np.uint8)
    if u8.ndim != 3 or u8.shape[2] != 3:
        raise ValueError(f"adjust_hue: a numpy image needs 3 channels (HWC), got shape {list(img.shape)}")
    hsv = bgr_to_hsv_full(u8)
    hsv[..., 0] = ((hsv[..., 0].astype(np.int32) + int(factor * 255)) % 256).astype(np.uint8)
    return hsv_full_to_bgr(hsv).astype(dtype)


# -- Tensor images (functional_tensor semantics, computed on the CHW array) ------------------------

_GRAY_WEIGHTS = (0.2989, 0.587, 0.114)


def gray_chw(arr, num_output_channels=1):
    w = np.asarray(_GRAY_WEIGHTS, np.float32).astype(arr.dtype).reshape(-1, 1, 1)
    y = (arr * w).sum(axis=-3, keepdims=True).astype(arr.dtype)
    shape = list(y.shape)
    shape[-3] = num_output_channels
    return np.broadcast_to(y, shape).copy()


def blend(img1, img2, ratio):
    """lerp(img2, img1, ratio) clipped to the image range, in img1's dtype."""
    max_value = 1.0 if img1.dtype.kind == "f" else 255.0
    x1 = img1.astype(np.float32) if img1.dtype.kind != "f" else img1
    x2 = np.asarray(img2).astype(x1.dtype)
    out = x2 + np.asarray(ratio, x1.dtype) * (x1 - x2)
    return out.clip(0, max_value).astype(img1.dtype)


def rgb_to_hsv_chw(img):
    maxc, minc = img.max(axis=-3), img.min(axis=-3)
    eq = maxc == minc
    one = np.ones_like(maxc)
    delta = maxc - minc
    s = delta / np.where(eq, one, maxc)
    r, g, b = img[..., 0, :, :], img[..., 1, :, :], img[..., 2, :, :]
    dd = np.where(eq, one, delta)
    rc, gc, bc = (maxc - r) / dd, (maxc - g) / dd, (maxc - b) / dd
    dt = maxc.dtype
    hr = (maxc == r).astype(dt) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)).astype(dt) * (rc - bc + 2.0)
    hb = ((maxc != r) & (maxc != g)).astype(dt) * (gc - rc + 4.0)
    h = (hr + hg + hb) / 6.0 + 1.0
    h = h - np.trunc(h)
    return np.stack([h, s, maxc], axis=-3).astype(dt)


def hsv_to_rgb_chw(img):
    h, s, v = img[..., 0, :, :], img[..., 1, :, :], img[..., 2, :, :]
    f = h * 6.0
    i = np.floor(f)
    f = f - i
    i = i.astype(np.int32) % 6
    p = np.clip(v * (1.0 - s), 0.0, 1.0)
    q = np.clip(v * (1.0 - s * f), 0.0, 1.0)
    t = np.clip(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    choices = [np.stack(c, axis=-3) for c in ([v, q, p, p, t, v], [t, v, v, q, p, p], [p, p, t, v, v, q])]
    out = [np.take_along_axis(c, i[..., None, :, :], axis=-3)[..., 0, :, :] for c in choices]
    return np.stack(out, axis=-3).astype(img.dtype)


def hue_chw(arr, factor):
    if not -0.5 <= factor <= 0.5:
        raise AssertionError("hue_factor should be in range [-0.5, 0.5]")
    if arr.shape[-3] == 1:
        return arr
    if arr.shape[-3] != 3:
        raise ValueError("channels of input should be either 1 or 3.")
    dtype = arr.dtype
    x = arr.astype(np.float32) / np.float32(255.0) if dtype == np.uint8 else arr
    hsv = rgb_to_hsv_chw(x)
    h = hsv[..., 0, :, :] + np.asarray(factor, hsv.dtype)
    h = h - np.floor(h)
    out = hsv_to_rgb_chw(np.stack([h, hsv[..., 1, :, :], hsv[..., 2, :, :]], axis=-3))
    if dtype == np.uint8:
        out = (out * np.float32(255.0)).astype(dtype)
    return out
