"""paddle.vision.transforms.functional: the image operations behind the transforms.

Every function takes a numpy image (HW or HWC; Paddle's OpenCV backend semantics, computed
here in numpy -- OpenCV is not needed), a PIL image (Pillow, when installed) or a Tensor image
(CHW, Paddle's ``functional_tensor`` semantics) and returns the same kind.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ...tensor import Tensor
from . import _color, _geometry, _pil, _resize
from ._common import _is_numpy_image, _is_pil_image, _is_tensor_image, check_image, is_static_variable, wrap_like

__all__ = ["to_tensor", "hflip", "vflip", "resize", "pad", "affine", "rotate", "perspective", "to_grayscale",
           "crop", "center_crop", "adjust_brightness", "adjust_contrast", "adjust_hue", "adjust_saturation",
           "normalize", "erase"]


def _check_tensor_image(img, who, static_ok=False):
    if not static_ok and is_static_variable(img):
        raise NotImplementedError(f"{who}: dy2st applies this transform to Tensors only, not to static-graph "
                                  "Variables; apply it in dynamic mode (paddle.disable_static()) or to the data "
                                  "before feeding it")
    if img.ndim < 3 or img.ndim > 4:
        raise RuntimeError(f"{who}: not support [type={type(img)}, ndim={img.ndim}, data_format=CHW] paddle image "
                           "(a Tensor image must be CHW or NCHW)")


def _hwc(img):
    """An HWC view of a numpy image (HW gets a channel axis) and whether to drop it again."""
    return (img[:, :, None], True) if img.ndim == 2 else (img, False)


def to_tensor(pic, data_format="CHW"):
    """A PIL image or ndarray (HW/HWC) as a Tensor in ``data_format``; uint8 becomes float32 in
    [0, 1], other dtypes keep their values. A Tensor is returned (transposed to HWC if asked)."""
    if not (_is_pil_image(pic) or _is_numpy_image(pic) or _is_tensor_image(pic)):
        raise TypeError(f"pic should be PIL Image or Tensor Image or ndarray with dim=[2 or 3]. Got {type(pic)}")
    if _is_pil_image(pic):
        return _pil.to_tensor(pic, data_format)
    if _is_tensor_image(pic):
        return pic if data_format.lower() == "chw" else pic.transpose((1, 2, 0))
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"data_format should be CHW or HWC. Got {data_format}")
    arr = pic[:, :, None] if pic.ndim == 2 else pic
    if data_format == "CHW":
        arr = arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        arr = arr.astype(np.float32) / np.float32(255.0)
    return Tensor._wrap(np.ascontiguousarray(arr))


def resize(img, size, interpolation="bilinear"):
    """Resize to ``size`` ((h, w), or an int for the shorter side, the other keeping the aspect ratio).

    numpy: 'nearest', 'bilinear', 'bicubic', 'area', 'lanczos' (OpenCV's); PIL: 'nearest',
    'bilinear', 'bicubic', 'box', 'lanczos', 'hamming'; Tensor: 'nearest', 'bilinear', 'bicubic',
    'area' (F.interpolate's)."""
    check_image(img, "resize")
    _resize.check_size(size)
    if _is_pil_image(img):
        return _pil.resize(img, size, interpolation)
    if _is_tensor_image(img):
        _check_tensor_image(img, "resize", static_ok=True)
        h, w = img.shape[-2], img.shape[-1]
        if isinstance(size, int) and (w <= 0 or h <= 0):     # a static Variable of unknown height/width
            raise NotImplementedError(f"Not support while w<=0 or h<=0, but received w={w}, h={h}")
        hw = _resize.target_size(h, w, size)
        if hw is None:
            return img
        mode = str(interpolation).lower()
        mode = {"linear": "bilinear", "area": "adaptive_area"}.get(mode, mode)
        if mode not in ("nearest", "bilinear", "bicubic", "adaptive_area"):
            raise ValueError(f"resize: interpolation {interpolation!r} is not supported for Tensor images; expected "
                             "'nearest', 'bilinear', 'bicubic' or 'area'")
        # Paddle's: F.interpolate on the image as a batch of one (differentiable, works in static graphs;
        # integer images are truncated as Paddle's kernels do)
        from ...nn import functional as nnF
        batch = img.unsqueeze(0) if img.ndim == 3 else img
        if not batch.dtype.is_floating_point:      # Paddle's integer kernels work in float32, then truncate
            batch = batch.astype("float32")
        out = nnF.interpolate(batch, size=list(hw), mode="area" if mode == "adaptive_area" else mode)
        out = out if out.dtype == img.dtype else out.astype(img.dtype)
        return out.squeeze(0) if img.ndim == 3 else out
    if interpolation not in _resize.CV2_MODES:
        raise ValueError(f"resize: interpolation {interpolation!r} is not supported for numpy images; expected one "
                         f"of {list(_resize.CV2_MODES)}")
    hw = _resize.target_size(img.shape[0], img.shape[1], size)
    if hw is None:
        return img
    return _resize.resize_hw(img, hw[0], hw[1], interpolation)


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad the borders: ``padding`` is an int, (left/right, top/bottom) or (left, top, right, bottom);
    ``padding_mode`` 'constant' (with ``fill``), 'edge', 'reflect' or 'symmetric'.

    numpy images follow cv2.copyMakeBorder: a number ``fill`` fills channel 0 only (OpenCV's
    Scalar), give a tuple for every channel."""
    check_image(img, "pad")
    _geometry.check_pad_args(padding, fill, padding_mode)
    if _is_pil_image(img):
        return _pil.pad(img, padding, fill, padding_mode)
    if _is_tensor_image(img):
        _check_tensor_image(img, "pad")
        if padding_mode == "symmetric":
            raise ValueError("Do not support symmetric mode")
        left, top, right, bottom = _geometry.parse_padding(padding)
        arr = img.numpy()
        widths = [(0, 0)] * (arr.ndim - 2) + [(top, bottom), (left, right)]
        if padding_mode == "constant":
            out = np.pad(arr, widths, "constant", constant_values=np.asarray(float(fill)).astype(arr.dtype))
        else:
            out = np.pad(arr, widths, padding_mode)
        return wrap_like(out, img)
    return _geometry.pad_array(img, padding, fill, padding_mode)


def crop(img, top, left, height, width):
    """The ``height`` x ``width`` box whose upper-left corner is (``top``, ``left``)."""
    check_image(img, "crop")
    if _is_pil_image(img):
        return _pil.crop(img, top, left, height, width)
    if _is_tensor_image(img):
        _check_tensor_image(img, "crop", static_ok=True)
        return img[:, top:top + height, left:left + width] if img.ndim == 3 else \
            img[:, :, top:top + height, left:left + width]
    if img.ndim == 2:
        # Paddle indexes img[..., :] with three subscripts, which fails on HW arrays
        raise IndexError("crop: a numpy image must be HWC (3-D) here, as in Paddle; add a channel axis "
                         "with img[:, :, None]")
    return img[top:top + height, left:left + width, :]


def center_crop(img, output_size):
    """The centred ``output_size`` ((h, w) or an int) box; the offsets are rounded as Paddle rounds them."""
    check_image(img, "center_crop")
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    if _is_pil_image(img):
        w, h = img.size
    elif _is_tensor_image(img):
        h, w = img.shape[-2], img.shape[-1]
    else:
        h, w = img.shape[:2]
    th, tw = output_size
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def hflip(img):
    """Mirror left-right."""
    check_image(img, "hflip")
    if _is_pil_image(img):
        return _pil.hflip(img)
    if _is_tensor_image(img):
        _check_tensor_image(img, "hflip", static_ok=True)
        return img.flip(axis=[-1])          # Paddle's: the flip op (differentiable, works in static graphs)
    return np.ascontiguousarray(img[:, ::-1])


def vflip(img):
    """Mirror top-bottom."""
    check_image(img, "vflip")
    if _is_pil_image(img):
        return _pil.vflip(img)
    if _is_tensor_image(img):
        _check_tensor_image(img, "vflip", static_ok=True)
        return img.flip(axis=[-2])
    return np.ascontiguousarray(img[::-1])


def adjust_brightness(img, brightness_factor):
    """Scale brightness: 0 gives black, 1 the original. numpy images become uint8 (Paddle's lookup table)."""
    check_image(img, "adjust_brightness")
    if _is_pil_image(img):
        return _pil.enhance(img, "Brightness", brightness_factor)
    if _is_numpy_image(img):
        return _color.brightness_cv2(img, brightness_factor)
    _check_tensor_image(img, "adjust_brightness")
    if brightness_factor < 0:
        raise AssertionError("brightness_factor should be non-negative.")
    arr = img.numpy()
    if arr.shape[-3] not in (1, 3):
        raise AssertionError("channels of input should be either 1 or 3.")
    return wrap_like(_color.blend(arr, np.zeros_like(arr), brightness_factor), img)


def adjust_contrast(img, contrast_factor):
    """Scale contrast: 0 gives a flat image, 1 the original. numpy images must be uint8 (Paddle
    pivots a lookup table on 74)."""
    check_image(img, "adjust_contrast")
    if _is_pil_image(img):
        return _pil.enhance(img, "Contrast", contrast_factor)
    if _is_numpy_image(img):
        return _color.contrast_cv2(img, contrast_factor)
    _check_tensor_image(img, "adjust_contrast")
    if contrast_factor < 0:
        raise AssertionError("contrast_factor should be non-negative.")
    arr = img.numpy()
    dtype = arr.dtype if arr.dtype.kind == "f" else np.dtype(np.float32)
    if arr.shape[-3] == 1:
        target = arr.astype(dtype).mean(axis=(-3, -2, -1), keepdims=True)
    elif arr.shape[-3] == 3:
        target = _color.gray_chw(arr).astype(dtype).mean(axis=(-3, -2, -1), keepdims=True)
    else:
        raise ValueError("channels of input should be either 1 or 3.")
    return wrap_like(_color.blend(arr, target, contrast_factor), img)


def adjust_saturation(img, saturation_factor):
    """Scale saturation: 0 gives gray, 1 the original.

    numpy images follow Paddle's OpenCV code, which blends with a factor drawn from
    ``np.random.uniform(max(0, 1 - saturation_factor), 1 + saturation_factor)``."""
    check_image(img, "adjust_saturation")
    if _is_pil_image(img):
        return _pil.enhance(img, "Color", saturation_factor)
    if _is_numpy_image(img):
        return _color.saturation_cv2(img, saturation_factor)
    _check_tensor_image(img, "adjust_saturation")
    if saturation_factor < 0:
        raise AssertionError("saturation_factor should be non-negative.")
    arr = img.numpy()
    if arr.shape[-3] == 1:
        return img
    if arr.shape[-3] != 3:
        raise ValueError("channels of input should be either 1 or 3.")
    return wrap_like(_color.blend(arr, _color.gray_chw(arr), saturation_factor), img)


def adjust_hue(img, hue_factor):
    """Shift the hue by ``hue_factor`` (in [-0.5, 0.5]) of a full turn."""
    check_image(img, "adjust_hue")
    if _is_pil_image(img):
        return _pil.adjust_hue(img, hue_factor)
    if _is_numpy_image(img):
        return _color.hue_cv2(img, hue_factor)
    _check_tensor_image(img, "adjust_hue")
    return wrap_like(_color.hue_chw(img.numpy(), hue_factor), img)


def _get_affine_matrix(center, angle, translate, scale, shear):
    # the inverse affine matrix (output -> input pixel) that PIL's Image.transform and the Tensor grid use
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    cx, cy = center
    tx, ty = translate
    m = [x / scale for x in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def _cv2_interp(interpolation, who):
    if interpolation not in ("nearest", "bilinear", "bicubic"):
        raise ValueError(f"{who}: interpolation {interpolation!r} is not supported for numpy images; expected "
                         "'nearest', 'bilinear' or 'bicubic'")
    return interpolation


def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    """Rotate by ``angle`` degrees, translate, scale and shear (degrees, one value or (x, y)).

    numpy images follow Paddle's OpenCV code exactly, including that ``translate`` replaces the
    translation column of the rotation matrix (so the rotation is not about ``center`` unless
    ``angle`` is 0) and that ``shear`` mixes the matrix rows as Paddle does."""
    check_image(img, "affine")
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    if not isinstance(interpolation, str):
        raise TypeError("Argument interpolation should be a string")
    angle = float(angle)
    translate = list(translate)
    shear = [shear, 0.0] if isinstance(shear, numbers.Number) else list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    if _is_pil_image(img):
        w, h = img.size
        c = center if center is not None else [w * 0.5, h * 0.5]
        return _pil.affine(img, _get_affine_matrix(c, angle, translate, scale, shear), interpolation, fill)
    if _is_numpy_image(img):
        h, w = img.shape[:2]
        # Paddle passes (shape[0] / 2, shape[1] / 2), i.e. (h/2, w/2), as the (x, y) centre
        c = center if center is not None else (h * 0.5, w * 0.5)
        if isinstance(fill, int):
            fill = (fill,) * 3
        r = _geometry.rotation_matrix_2d(c, angle, scale)
        sx, sy = math.tan(math.radians(shear[0])), math.tan(math.radians(shear[1]))
        m = np.ones((2, 3))
        m[0] = r[0] + sy * r[1]
        m[1] = r[1] + sx * r[0]
        m[0, 2], m[1, 2] = translate
        return _geometry.warp_affine(img, m, (w, h), _cv2_interp(interpolation, "affine"), fill)
    _check_tensor_image(img, "affine")
    center_f = [0.0, 0.0]
    if center is not None:
        # Paddle pairs center with (shape[-2], shape[-1]) here
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [img.shape[-2], img.shape[-1]])]
    m = _get_affine_matrix(center_f, angle, [1.0 * t for t in translate], scale, shear)
    return _tensor_warp(img, lambda h, w: _geometry.affine_grid(m, w, h, w, h), interpolation, fill)


def _tensor_warp(img, make_grid, interpolation, fill, squeeze_batch=True):
    _check_tensor_image(img, "affine/rotate/perspective", static_ok=True)
    if is_static_variable(img):
        return _tensor_warp_ops(img, make_grid, interpolation, fill)
    arr = img.numpy()
    batch = arr if arr.ndim == 4 else arr[None]
    h, w = batch.shape[-2:]
    grid = make_grid(h, w)
    if isinstance(fill, int):
        fill = (fill,) * 3
    if fill is not None and np.size(fill) not in (1, batch.shape[1]):
        fill = np.asarray(fill).reshape(-1)[:batch.shape[1]]
    out = np.stack([_geometry.grid_transform(x, grid, interpolation, fill) for x in batch])
    return wrap_like(out if arr.ndim == 4 else out[0], img)


def _rotate_static_angle(img, angle, interpolation, center, fill):
    """Rotate a static Variable image by ``angle``, a [1] Variable drawn in the Program (Paddle's static
    RandomRotation): the matrix and grid are built from ops, as Paddle's functional_tensor.rotate does."""
    from ...api.manipulation import concat
    from ...api.creation import to_tensor
    h, w = img.shape[-2], img.shape[-1]
    if img.ndim != 3 or h <= 0 or w <= 0:
        raise NotImplementedError(f"rotate: a static Variable image must be CHW with a known height and width, "
                                  f"got shape {list(img.shape)}")
    rc = [0.0, 0.0] if center is None else [p - s * 0.5 for p, s in zip(center, [w, h])]
    a = (-angle % 360) / 180 * math.pi
    c, sn = a.cos(), a.sin()
    m2 = c * (-rc[0]) + sn * (-rc[1]) + rc[0]
    m5 = (-sn) * (-rc[0]) + c * (-rc[1]) + rc[1]
    theta = concat([c, sn, m2, -sn, c, m5]).reshape([1, 2, 3]).astype(img.dtype)
    xg = np.linspace(-w * 0.5 + 0.5, w * 0.5 + 0.5 - 1, w, dtype=np.float32)
    yg = np.linspace(-h * 0.5 + 0.5, h * 0.5 + 0.5 - 1, h, dtype=np.float32)
    base = np.ones((1, h, w, 3), np.float32)
    base[..., 0] = xg[None, :]
    base[..., 1] = yg[:, None]
    scaled = theta.transpose([0, 2, 1]) / to_tensor(np.array([0.5 * w, 0.5 * h], np.float32).astype(img.dtype.np))
    grid = to_tensor(base.reshape(1, h * w, 3).astype(img.dtype.np)).bmm(scaled).reshape([1, h, w, 2])
    return _tensor_warp_ops(img, None, interpolation, fill, grid=grid)


def _tensor_warp_ops(img, make_grid, interpolation, fill, grid=None):
    """`_tensor_warp` built from ops (Paddle's functional_tensor._grid_transform), for static-graph
    Variables: the grid (from the static height/width) is a constant, the image goes through grid_sample
    with a channel of ones whose sampled value tells where ``fill`` shows."""
    from ...nn import functional as nnF
    from ...api.creation import ones, to_tensor
    from ...api.manipulation import concat
    h, w = img.shape[-2], img.shape[-1]
    if h <= 0 or w <= 0:
        raise NotImplementedError(f"affine/rotate/perspective: a static Variable image needs a known height and "
                                  f"width, got shape {list(img.shape)}")
    batch = img if img.ndim == 4 else img.unsqueeze(0)
    if grid is None:
        grid = np.asarray(make_grid(h, w), np.float32)[None]
        if batch.shape[0] > 1:
            grid = np.repeat(grid, batch.shape[0], axis=0)
        grid = to_tensor(grid.astype(img.dtype.np))
    if isinstance(fill, int):
        fill = (fill,) * 3
    if fill is not None:
        batch = concat([batch, ones([batch.shape[0], 1, h, w], dtype=img.dtype)], axis=1)
    out = nnF.grid_sample(batch, grid, mode=interpolation, padding_mode="zeros", align_corners=False)
    if fill is not None:
        mask = out[:, -1:, :, :]
        out = out[:, :-1, :, :]
        mask = mask.expand_as(out)
        fills = np.asarray(fill, np.float64).reshape(-1)[:out.shape[1]]
        fill_img = to_tensor(fills.astype(img.dtype.np)).reshape([1, len(fills), 1, 1]).expand_as(out)
        if interpolation == "nearest":
            mask = (mask < 0.5).astype(img.dtype)
            out = out * (1.0 - mask) + mask * fill_img
        else:
            out = out * mask + (1.0 - mask) * fill_img
    return out if img.ndim == 4 else out.squeeze(0)


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    """Rotate counter-clockwise by ``angle`` degrees about ``center`` (the image centre by default);
    ``expand`` grows the output to hold the whole rotated image."""
    check_image(img, "rotate")
    if isinstance(center, list):
        center = tuple(center)
    if isinstance(fill, list):
        fill = tuple(fill)
    if _is_pil_image(img):
        return _pil.rotate(img, angle, interpolation, expand, center, fill)
    if _is_tensor_image(img):
        return _rotate_tensor(img, angle, interpolation, expand, center, fill)
    h, w = img.shape[:2]
    if center is None:
        center = (w / 2.0, h / 2.0)
    m = _geometry.rotation_matrix_2d(center, angle, 1)
    if expand:
        a = -math.radians(angle)
        em = [round(math.cos(a), 15), round(math.sin(a), 15), 0.0, round(-math.sin(a), 15), round(math.cos(a), 15), 0.0]
        em[2] = em[0] * -center[0] + em[1] * -center[1] + center[0]
        em[5] = em[3] * -center[0] + em[4] * -center[1] + center[1]
        pts = [(em[0] * x + em[1] * y + em[2], em[3] * x + em[4] * y + em[5])
               for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        nw = math.ceil(max(xs)) - math.floor(min(xs))
        nh = math.ceil(max(ys)) - math.floor(min(ys))
        m[0, 2] += (nw - w) * 0.5
        m[1, 2] += (nh - h) * 0.5
        w, h = int(nw), int(nh)
    return _geometry.warp_affine(img, m, (w, h), _cv2_interp(interpolation, "rotate"), fill)


def _rotate_tensor(img, angle, interpolation, expand, center, fill):
    _check_tensor_image(img, "rotate", static_ok=True)
    if img.ndim != 3:
        raise RuntimeError(f"rotate: a Tensor image must be CHW, got shape {list(img.shape)}")
    a = math.radians(-angle % 360)
    h, w = img.shape[-2], img.shape[-1]
    rc = [0.0, 0.0] if center is None else [p - s * 0.5 for p, s in zip(center, [w, h])]
    m = np.array([math.cos(a), math.sin(a), 0.0, -math.sin(a), math.cos(a), 0.0], np.float32)
    m[2] += m[0] * -rc[0] + m[1] * -rc[1] + rc[0]
    m[5] += m[3] * -rc[0] + m[4] * -rc[1] + rc[1]
    ow, oh = w, h
    if expand:
        corners = np.array([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0], [0.5 * w, 0.5 * h, 1.0],
                            [0.5 * w, -0.5 * h, 1.0]], np.float32)
        pos = corners @ m.reshape(2, 3).T
        npos = np.ceil(pos.max(axis=0)) - np.floor(pos.min(axis=0))
        ow, oh = int(npos[0]), int(npos[1])
    return _tensor_warp(img, lambda hh, ww: _geometry.affine_grid(m, w, h, ow, oh), interpolation, fill)


def _get_perspective_coeffs(startpoints, endpoints):
    a = np.zeros((8, 8))
    for i, (p1, p2) in enumerate(zip(endpoints, startpoints)):
        a[2 * i] = [p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]]
        a[2 * i + 1] = [0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]]
    b = np.array(startpoints, dtype=np.float64).reshape(8)
    return list(np.linalg.lstsq(a, b, rcond=None)[0])


def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    """Warp so the four ``startpoints`` ([x, y]: top-left, top-right, bottom-right, bottom-left)
    land on ``endpoints``."""
    check_image(img, "perspective")
    if _is_pil_image(img):
        return _pil.perspective(img, _get_perspective_coeffs(startpoints, endpoints), interpolation, fill)
    if _is_tensor_image(img):
        coeffs = _get_perspective_coeffs(startpoints, endpoints)
        return _tensor_warp(img, lambda h, w: _geometry.perspective_grid(coeffs, w, h), interpolation, fill)
    h, w = img.shape[:2]
    m = _geometry.perspective_matrix(np.asarray(startpoints, np.float32), np.asarray(endpoints, np.float32))
    return _geometry.warp_perspective(img, m, (w, h), _cv2_interp(interpolation, "perspective"), fill)


def to_grayscale(img, num_output_channels=1):
    """Gray image with 1 or 3 (equal) channels."""
    check_image(img, "to_grayscale")
    if _is_pil_image(img):
        return _pil.to_grayscale(img, num_output_channels)
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if _is_tensor_image(img):
        _check_tensor_image(img, "to_grayscale")
        return wrap_like(_color.gray_chw(img.numpy(), num_output_channels), img)
    gray = _color.gray_cv2(img)[:, :, None]
    return gray if num_output_channels == 1 else np.broadcast_to(gray, img.shape)


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """``(img - mean) / std`` per channel (``data_format`` says where the channel axis is).

    numpy / PIL images: mean and std are float32, so uint8 gives float32 and float64 stays
    float64 (numpy's promotion); ``to_rgb`` reverses the last axis, as Paddle does. Tensor
    images: computed in the tensor's dtype; ``to_rgb`` is ignored, as in Paddle."""
    if _is_tensor_image(img):
        if data_format.lower() not in ("chw", "hwc") or img.ndim < 3 or img.ndim > 4:
            raise RuntimeError(f"normalize: not support [type={type(img)}, ndim={img.ndim}, data_format={data_format}] "
                               "paddle image")
        arr = img.numpy()
        m = np.asarray(mean, np.float32)
        s = np.asarray(std, np.float32)
        if data_format.lower() == "chw":
            m, s = m.reshape(-1, 1, 1), s.reshape(-1, 1, 1)
        out = (arr - m) / s
        dt = np.result_type(arr.dtype, np.float32) if arr.dtype.kind == "f" else np.dtype(np.float32)
        return wrap_like(out.astype(dt), img)
    if _is_pil_image(img):
        img = np.array(img).astype(np.float32)
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    m = np.float32(np.array(mean).reshape(shape))
    s = np.float32(np.array(std).reshape(shape))
    if to_rgb:
        img = img[..., ::-1]
    try:
        return (img - m) / s
    except ValueError:
        raise ValueError(f"normalize: mean/std with {m.size} values do not fit an image of shape {list(img.shape)} "
                         f"with data_format={data_format!r}; give one value per channel") from None


def erase(img, i, j, h, w, v, inplace=False):
    """Set the ``h`` x ``w`` box at (``i``, ``j``) to ``v`` (a value or an array broadcastable to the box)."""
    if _is_tensor_image(img):
        # Paddle: clone (unless inplace), then set the box by indexing, so gradients flow to the kept pixels
        _check_tensor_image(img, "erase", static_ok=True)
        if not inplace:
            img = img.clone()
        if is_static_variable(img):
            from ...static import setitem
            return setitem(img, (Ellipsis, slice(i, i + h), slice(j, j + w)), v)
        img[..., i:i + h, j:j + w] = v
        return img
    if _is_pil_image(img):
        return _pil.erase(img, i, j, h, w, v, inplace)
    if not inplace:
        img = img.copy()
    img[i:i + h, j:j + w, ...] = v
    return img
