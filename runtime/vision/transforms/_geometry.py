"""Geometric kernels in numpy: padding, OpenCV-style warps (affine, perspective) for numpy images,
and Paddle-style ``grid_sample`` warps for Tensor images.

numpy images follow what Paddle's numpy backend gets from OpenCV: ``cv2.warpAffine`` /
``cv2.warpPerspective`` map destination pixel ``(x, y)`` (integer pixel centres) to the source
through the inverse matrix; nearest rounds the source position, bilinear quantises it to 1/32 of a
pixel as OpenCV does (``INTER_TAB_SIZE``) and, for uint8, uses OpenCV's 15-bit fixed-point
weights, so those results are exact; bicubic uses float weights (uint8 can differ by 1).
Pixels sampled from outside the image take the border value.

Tensor images follow ``paddle.vision.transforms.functional_tensor``: a normalised affine grid
with half-pixel centres sampled by ``grid_sample(padding_mode='zeros', align_corners=False)``,
and the fill blended in through a sampled mask of ones.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ._common import cast_back, scalar_fill

PAD_MODES = {"constant": "constant", "edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}


def parse_padding(padding):
    """Paddle's padding (int, (lr, tb) or (left, top, right, bottom)) -> (left, top, right, bottom)."""
    if isinstance(padding, int):
        return padding, padding, padding, padding
    if len(padding) == 2:
        return padding[0], padding[1], padding[0], padding[1]
    return tuple(padding)


def check_pad_args(padding, fill, padding_mode):
    if not isinstance(padding, (numbers.Number, list, tuple)):
        raise TypeError(f"pad: Got inappropriate padding arg {padding!r} "
                        "(expected an int or a sequence of 2 or 4 ints)")
    if not isinstance(fill, (numbers.Number, str, list, tuple)):
        raise TypeError(f"pad: Got inappropriate fill arg {fill!r}")
    if not isinstance(padding_mode, str):
        raise TypeError(f"pad: Got inappropriate padding_mode arg {padding_mode!r}")
    if isinstance(padding, (list, tuple)) and len(padding) not in (2, 4):
        raise ValueError("Padding must be an int or a 2, or 4 element tuple, not a "
                         f"{len(padding)} element tuple")
    if padding_mode not in PAD_MODES:
        raise AssertionError("Padding mode should be either constant, edge, reflect or symmetric, "
                             f"got {padding_mode!r}")


def pad_array(img, padding, fill=0, padding_mode="constant"):
    """Pad an HW/HWC ndarray like ``cv2.copyMakeBorder`` (reflect = BORDER_REFLECT_101,
    symmetric = BORDER_REFLECT, edge = BORDER_REPLICATE)."""
    left, top, right, bottom = parse_padding(padding)
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (img.ndim - 2)
    if padding_mode != "constant":
        return np.pad(img, widths, PAD_MODES[padding_mode])
    channels = img.shape[2] if img.ndim == 3 else 1
    values = cast_back(scalar_fill(fill, channels), img.dtype)
    out = np.empty((img.shape[0] + top + bottom, img.shape[1] + left + right) + img.shape[2:], img.dtype)
    out[...] = values[:channels] if img.ndim == 3 else values[0]
    out[top:top + img.shape[0], left:left + img.shape[1]] = img
    return out


# -- OpenCV-style warps (numpy images) --------------------------------------------------------------

def rotation_matrix_2d(center, angle, scale):
    """``cv2.getRotationMatrix2D``: rotate by ``angle`` degrees (counter-clockwise) about ``center``."""
    a = math.radians(angle)
    alpha, beta = scale * math.cos(a), scale * math.sin(a)
    cx, cy = center
    return np.array([[alpha, beta, (1 - alpha) * cx - beta * cy],
                     [-beta, alpha, beta * cx + (1 - alpha) * cy]], np.float64)


def perspective_matrix(src, dst):
    """``cv2.getPerspectiveTransform``: the 3x3 matrix mapping the 4 ``src`` points to ``dst``."""
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for i, ((x, y), (u, v)) in enumerate(zip(np.asarray(src, np.float64), np.asarray(dst, np.float64))):
        a[i] = [x, y, 1, 0, 0, 0, -x * u, -y * u]
        a[i + 4] = [0, 0, 0, x, y, 1, -x * v, -y * v]
        b[i], b[i + 4] = u, v
    m = np.linalg.solve(a, b)
    return np.append(m, 1.0).reshape(3, 3)


_AB_BITS, _INTER_BITS = 10, 5
_AB_SCALE, _TAB = 1 << _AB_BITS, 1 << _INTER_BITS


def _sample(img, sx, sy, mode, border):
    """Sample ``img`` (H, W, C) at integer positions (nearest) or 1/32-quantised positions given as
    ints in units of 1/32 pixel (bilinear, bicubic); outside pixels read ``border`` (C,)."""
    h, w, c = img.shape
    if mode == "nearest":
        inside = (sx >= 0) & (sx < w) & (sy >= 0) & (sy < h)
        out = np.empty(sx.shape + (c,), img.dtype)
        out[...] = cast_back(border, img.dtype)
        out[inside] = img[sy[inside], sx[inside]]
        return out
    ix, fx = sx >> _INTER_BITS, (sx & (_TAB - 1)) / _TAB
    iy, fy = sy >> _INTER_BITS, (sy & (_TAB - 1)) / _TAB
    if mode == "bilinear":
        taps, wx, wy = range(0, 2), [1 - fx, fx], [1 - fy, fy]
    elif mode == "bicubic":
        from ._resize import _cubic
        taps = range(-1, 3)
        wx = [_cubic(k - fx) for k in taps]
        wy = [_cubic(k - fy) for k in taps]
    else:
        raise ValueError(f"warp: unsupported interpolation {mode!r} (expected 'nearest', 'bilinear' or 'bicubic')")
    integer = img.dtype.kind in "iub" and mode == "bilinear"
    acc = np.zeros(sx.shape + (c,), np.int64 if integer else np.float64)
    src = img.astype(np.int64 if integer else np.float64)
    bval = np.rint(border).astype(np.int64) if integer else border
    for a, ky in enumerate(taps):
        for b, kx in enumerate(taps):
            yy, xx = iy + ky, ix + kx
            ok = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
            vals = np.where(ok[..., None], src[np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)], bval)
            wgt = wy[a] * wx[b]
            if integer:
                wgt = np.rint(wgt * 32768).astype(np.int64)  # exact: products of multiples of 1/32
            acc += vals * wgt[..., None]
    if integer:
        out = (acc + (1 << 14)) >> 15
        info = np.iinfo(img.dtype) if img.dtype.kind != "b" else None
        return np.clip(out, info.min, info.max).astype(img.dtype) if info else out.astype(img.dtype)
    return cast_back(acc, img.dtype)


def warp_affine(img, m, dsize, mode="nearest", fill=0):
    """``cv2.warpAffine(img, m, dsize, flags=mode, borderValue=fill)`` for an HW/HWC ndarray."""
    squeeze = img.ndim == 2
    arr = img[:, :, None] if squeeze else img
    ow, oh = int(dsize[0]), int(dsize[1])
    full = np.vstack([np.asarray(m, np.float64), [0, 0, 1]])
    inv = np.linalg.inv(full)[:2]
    xs, ys = np.arange(ow, dtype=np.float64), np.arange(oh, dtype=np.float64)
    # OpenCV's fixed point: the x term and the (y, offset) term are each rounded to 1/1024 px
    round_delta = _AB_SCALE // 2 if mode == "nearest" else _AB_SCALE // _TAB // 2
    shift = _AB_BITS if mode == "nearest" else _AB_BITS - _INTER_BITS
    ax = np.rint(inv[0, 0] * xs * _AB_SCALE).astype(np.int64)
    ay = np.rint(inv[1, 0] * xs * _AB_SCALE).astype(np.int64)
    bx = np.rint((inv[0, 1] * ys + inv[0, 2]) * _AB_SCALE).astype(np.int64) + round_delta
    by = np.rint((inv[1, 1] * ys + inv[1, 2]) * _AB_SCALE).astype(np.int64) + round_delta
    sx = (bx[:, None] + ax[None, :]) >> shift
    sy = (by[:, None] + ay[None, :]) >> shift
    out = _sample(arr, sx, sy, mode, scalar_fill(fill, arr.shape[2])[:arr.shape[2]])
    return out[:, :, 0] if squeeze else out


def warp_perspective(img, m, dsize, mode="nearest", fill=0):
    """``cv2.warpPerspective(img, m, dsize, flags=mode, borderValue=fill)`` for an HW/HWC ndarray."""
    squeeze = img.ndim == 2
    arr = img[:, :, None] if squeeze else img
    ow, oh = int(dsize[0]), int(dsize[1])
    inv = np.linalg.inv(np.asarray(m, np.float64))
    xs, ys = np.meshgrid(np.arange(ow, dtype=np.float64), np.arange(oh, dtype=np.float64))
    wq = inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2]
    wq = np.where(wq != 0, 1.0 / np.where(wq != 0, wq, 1.0), 0.0)
    fx = (inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]) * wq
    fy = (inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]) * wq
    scale = 1 if mode == "nearest" else _TAB
    lim = float(np.iinfo(np.int32).max)
    sx = np.rint(np.clip(fx * scale, -lim, lim)).astype(np.int64)
    sy = np.rint(np.clip(fy * scale, -lim, lim)).astype(np.int64)
    out = _sample(arr, sx, sy, mode, scalar_fill(fill, arr.shape[2])[:arr.shape[2]])
    return out[:, :, 0] if squeeze else out


# -- Paddle's grid-sample warps (Tensor images) -----------------------------------------------------

def _dot3(a, b):
    """``a @ b`` for [n, 3] x [3, k] float32, summed left to right in float32 like Paddle's bmm
    (BLAS orders the sums differently; a 1-ulp change moves nearest-neighbour ties)."""
    return (a[:, 0:1] * b[0] + a[:, 1:2] * b[1]) + a[:, 2:3] * b[2]


def affine_grid(theta, w, h, ow, oh):
    """functional_tensor._affine_grid: output pixel centres (half-pixel, centred) through ``theta``
    (2x3) to grid_sample's normalised [-1, 1] coordinates; shape [oh, ow, 2]."""
    theta = np.asarray(theta, np.float32).reshape(2, 3)
    xg = np.linspace(-ow * 0.5 + 0.5, ow * 0.5 + 0.5 - 1, ow, dtype=np.float32)
    yg = np.linspace(-oh * 0.5 + 0.5, oh * 0.5 + 0.5 - 1, oh, dtype=np.float32)
    base = np.ones((oh, ow, 3), np.float32)
    base[..., 0] = xg[None, :]
    base[..., 1] = yg[:, None]
    scaled = theta.T / np.array([0.5 * w, 0.5 * h], np.float32)
    return _dot3(base.reshape(-1, 3), scaled).reshape(oh, ow, 2)


def perspective_grid(coeffs, ow, oh):
    """functional_tensor._perspective_grid for the 8 perspective coefficients; shape [oh, ow, 2]."""
    c = np.asarray(coeffs, np.float32)
    theta1 = c[:6].reshape(2, 3)
    theta2 = np.concatenate([np.tile(c[6:].reshape(1, 2), (2, 1)), np.ones((2, 1), np.float32)], axis=1)
    base = np.ones((oh, ow, 3), np.float32)
    base[..., 0] = np.linspace(0.5, ow + 0.5 - 1.0, ow, dtype=np.float32)[None, :]
    base[..., 1] = np.linspace(0.5, oh + 0.5 - 1.0, oh, dtype=np.float32)[:, None]
    flat = base.reshape(-1, 3)
    g1 = _dot3(flat, theta1.T / np.array([0.5 * ow, 0.5 * oh], np.float32))
    g2 = _dot3(flat, theta2.T)
    return (g1 / g2 - 1.0).reshape(oh, ow, 2)


def grid_sample(img, grid, mode):
    """``F.grid_sample(img, grid, mode, padding_mode='zeros', align_corners=False)`` for one CHW
    float image and one [oh, ow, 2] grid."""
    c, h, w = img.shape
    # unnormalised in float32, as Paddle's kernel does: nearest rounds these (half to even)
    g = grid.astype(np.float32)
    x = (((g[..., 0] + 1) * np.float32(w) - 1) * np.float32(0.5)).astype(np.float64)
    y = (((g[..., 1] + 1) * np.float32(h) - 1) * np.float32(0.5)).astype(np.float64)
    src = img.astype(np.float64)

    def read(yy, xx):
        ok = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
        vals = src[:, np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)]
        return vals * ok[None]

    if mode == "nearest":
        out = read(np.rint(y).astype(np.int64), np.rint(x).astype(np.int64))
    elif mode == "bilinear":
        x0, y0 = np.floor(x).astype(np.int64), np.floor(y).astype(np.int64)
        fx, fy = x - x0, y - y0
        out = (read(y0, x0) * ((1 - fx) * (1 - fy))[None] + read(y0, x0 + 1) * (fx * (1 - fy))[None]
               + read(y0 + 1, x0) * ((1 - fx) * fy)[None] + read(y0 + 1, x0 + 1) * (fx * fy)[None])
    else:
        raise ValueError(f"grid_sample: mode should be 'bilinear' or 'nearest' for Tensor images, got {mode!r}")
    return out.astype(img.dtype)


def grid_transform(img, grid, mode, fill):
    """functional_tensor._grid_transform for one CHW image: sample, then blend ``fill`` where the
    sampled mask of ones says the pixel came from outside."""
    if fill is None:
        return grid_sample(img, grid, mode)
    both = np.concatenate([img, np.ones((1,) + img.shape[1:], img.dtype)], axis=0)
    out = grid_sample(both, grid, mode)
    mask = np.broadcast_to(out[-1:], out[:-1].shape)
    out = out[:-1]
    fill_arr = np.asarray(fill, np.float64).reshape(-1, 1, 1).astype(img.dtype)
    if mode == "nearest":
        m = (mask < 0.5).astype(img.dtype)
        return out * (1.0 - m) + m * fill_arr
    return out * mask + (1.0 - mask) * fill_arr

