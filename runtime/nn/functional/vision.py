"""Resampling and padding functionals: interpolate/upsample, pad, pixel_shuffle (``paddle.nn.functional``).

interpolate maps onto nearest / linear / bilinear / bicubic / trilinear _interp_v2 (mode 'area'
onto adaptive average pooling, as Paddle); pad onto pad3d for spatial paddings (unsqueezing 3-D
and 4-D inputs to 5-D, as Paddle does) and onto the generic constant ``pad`` op otherwise.
"""
from __future__ import annotations

import numpy as np

from ...api._helpers import is_var
from ...dispatch import run_op
from ...tensor import Tensor
from . import common as _common
from . import pooling as _pooling
from . import volumetric as _volumetric

__all__ = ["interpolate", "upsample", "pad", "pixel_shuffle"]

_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
_PAD_FORMATS = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


class PadFormatError(ValueError, AssertionError):
    """F.pad's data_format does not fit the input's rank (Paddle asserts: an AssertionError; a ValueError too)."""


_MODES = ("nearest", "bilinear", "area", "linear", "bicubic", "trilinear")


def _static(v):
    """A static-graph Variable (a tensor whose value is unknown while the graph is built)."""
    return is_var(v) and not isinstance(v, Tensor)


def _positive_int(v, fn, what):
    if isinstance(v, Tensor):
        v = v.item()
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        v = int(v)
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0:
        raise ValueError(f"{fn}: every entry of {what} must be a positive int, got {v!r}")
    return int(v)


def interpolate(*args, **kwargs):
    """Resize the spatial dims of ``x`` to ``size`` or by ``scale_factor``.

    ``interpolate(x, size=None, scale_factor=None, mode='nearest', align_corners=False, align_mode=0,
    data_format=None, recompute_scale_factor=None, antialias=False, name=None)``, as Paddle; like
    Paddle it also takes torch's positional order (a non-int sixth argument is
    ``recompute_scale_factor``, then ``antialias``) and ``input=`` for ``x``.

    Modes: 'nearest' (4-D, 5-D; 3-D too), 'linear' (3-D), 'bilinear' and 'bicubic' (4-D),
    'trilinear' (5-D), 'area' (adaptive average pooling over the trailing dims, as Paddle).
    ``align_corners`` maps corner pixel centres onto each other; otherwise ``align_mode`` 0 uses
    half-pixel centres and 1 the top-left corners (bicubic always uses half-pixel centres).
    """
    if "input" in kwargs:
        if "x" in kwargs or args:
            raise TypeError("interpolate: got multiple values for argument 'x'")
        kwargs["x"] = kwargs.pop("input")
    if len(args) >= 6 and type(args[5]) is not int:   # torch order: ..., align_corners, recompute, antialias
        for key, v in zip(("recompute_scale_factor", "antialias"), args[5:7]):
            if key in kwargs:
                raise TypeError(f"interpolate: got multiple values for argument {key!r}")
            kwargs[key] = v
        args = args[:5]
    return _interpolate(*args, **kwargs)


def _interp_size(size, nd, ndim, fn, attrs, names):
    """Fill the out_* attrs from ``size``; return (OutSize tensor, SizeTensor list)."""
    if isinstance(size, Tensor):
        size = size.numpy().reshape(-1).tolist()
    if _static(size):
        if len(size.shape) != 1:
            raise ValueError(f"{fn}: a size tensor must be 1-D, got shape {list(size.shape)}")
        if size.shape[0] not in (-1, nd):
            raise ValueError(f"{fn}: a size tensor of a {ndim}-D input must hold {nd} entries, "
                             f"got shape {list(size.shape)}")
        return _common._cast(size, "int32"), None   # as Paddle: a size tensor is int32 in static graphs
    if not isinstance(size, (list, tuple)):
        raise TypeError(f"{fn}: size must be a list, tuple or Tensor, got {type(size).__name__}")
    if len(size) != nd:
        raise ValueError(f"{fn}: size must have {nd} entries for a {ndim}-D input, got {list(size)}")
    if not any(_static(v) for v in size):
        for name_, v in zip(names, size):
            attrs[name_] = _positive_int(v, fn, "size")
        return None, None
    size_tensor = []
    for name_, v in zip(names, size):
        if _static(v):
            size_tensor.append(v)
            attrs[name_] = -1
        else:
            v = _positive_int(v, fn, "size")
            size_tensor.append(run_op("fill_constant", shape=[1], dtype=2, value=float(v)))
            attrs[name_] = v
    return None, size_tensor


def _interp_scale(scale, nd, ndim, fn, x, recompute, attrs, names):
    """Fill attrs from ``scale_factor``; return the Scale tensor (static graphs) or None."""
    if isinstance(scale, Tensor):
        vals = scale.numpy().reshape(-1).tolist()
        scale = vals[0] if len(scale.shape) == 0 else vals
    if _static(scale):
        if recompute:
            raise ValueError(f"{fn}: recompute_scale_factor needs a scale_factor known while the graph is built")
        return scale
    if isinstance(scale, (int, float, np.number)) and not isinstance(scale, bool):
        scales = [float(scale)] * nd
    elif isinstance(scale, np.ndarray) and scale.size == 1:
        scales = [float(scale.reshape(-1)[0])] * nd
    elif isinstance(scale, (list, tuple)):
        if len(scale) != nd:
            raise ValueError(f"{fn}: scale_factor must have {nd} entries for a {ndim}-D input, got {list(scale)}")
        scales = [float(v.item()) if isinstance(v, Tensor) else float(v) for v in scale]
    else:
        raise TypeError(f"{fn}: scale_factor must be a number, a list/tuple of numbers or a Tensor, "
                        f"got {type(scale).__name__}")
    if any(s <= 0 for s in scales):
        raise ValueError(f"{fn}: scale_factor must be positive, got {scales}")
    if recompute:
        # Paddle reads the sizes at dims 2.. whatever data_format says (so do we)
        dims = list(x.shape[2:])
        if any(d < 0 for d in dims):
            raise ValueError(f"{fn}: recompute_scale_factor needs known spatial dims, got shape {list(x.shape)}")
        for name_, d, s in zip(names, dims, scales):
            attrs[name_] = int(np.floor(float(d) * s))
    else:
        attrs["scale"] = scales
    return None


_MODE_RANKS = {"linear": (3,), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,), "nearest": (3, 4, 5),
               "area": (3, 4, 5)}


def _interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                 data_format=None, recompute_scale_factor=None, antialias=False, name=None):
    fn = "interpolate"
    if not isinstance(mode, str) or mode.lower() not in _MODES:
        raise ValueError(f"{fn}: mode must be one of {list(_MODES)}, got {mode!r}")
    mode = mode.lower()
    ndim = len(x.shape)
    if ndim not in _FORMATS:
        raise ValueError(f"{fn}: x must be a 3-D, 4-D or 5-D tensor, got shape {list(x.shape)}")
    if ndim not in _MODE_RANKS[mode]:
        need = " or ".join(f"{r}-D" for r in _MODE_RANKS[mode])
        raise ValueError(f"{fn}: mode {mode!r} needs a {need} input, got shape {list(x.shape)}")
    if size is None and scale_factor is None:
        raise ValueError(f"{fn}: give one of size and scale_factor")
    if size is not None and scale_factor is not None:
        raise ValueError(f"{fn}: give only one of size and scale_factor")
    if not isinstance(align_corners, bool):
        raise TypeError(f"{fn}: align_corners must be a bool, got {align_corners!r}")
    if not isinstance(antialias, bool):
        raise TypeError(f"{fn}: antialias must be a bool, got {antialias!r}")
    if align_mode not in (0, 1):
        raise ValueError(f"{fn}: align_mode must be 0 or 1, got {align_mode!r}")
    if align_corners and mode in ("nearest", "area"):
        raise ValueError(f"{fn}: align_corners can only be set with the interpolating modes "
                         "linear | bilinear | bicubic | trilinear")
    if antialias:
        if mode not in ("bilinear", "bicubic"):
            raise ValueError(f"{fn}: antialias is only supported for the bilinear and bicubic modes")
        raise NotImplementedError(f"{fn}: antialias=True (Paddle's interp_antialias) is not supported by dy2st; "
                                  "resize without it or pre-blur the input")
    nd = ndim - 2

    if mode == "area":
        if size is None:
            raise ValueError(f"{fn}: mode 'area' needs size (output size can not be None in AREA mode)")
        # as Paddle: adaptive average pooling in its default layout, whatever data_format says
        pool = {3: _pooling.adaptive_avg_pool1d, 4: _pooling.adaptive_avg_pool2d,
                5: _volumetric.adaptive_avg_pool3d}[ndim]
        return pool(x, size)

    if data_format is None:
        data_format = _FORMATS[ndim][0]
    if not isinstance(data_format, str) or data_format.upper() not in _FORMATS[ndim]:
        raise ValueError(f"{fn}: data_format for a {ndim}-D input must be one of {list(_FORMATS[ndim])}, "
                         f"got {data_format!r}")
    channel_last = data_format.upper()[-1] == "C"
    if recompute_scale_factor and size is not None:
        raise ValueError(f"{fn}: recompute_scale_factor is not meaningful with an explicit size")

    attrs = {"out_d": -1, "out_h": -1, "out_w": -1, "scale": [], "interp_method": mode,
             "align_corners": bool(align_corners) if mode != "nearest" else False, "align_mode": int(align_mode),
             "data_layout": "NHWC" if channel_last else "NCHW"}
    names = ("out_d", "out_h", "out_w")[3 - nd:]
    out_size = size_tensor = scale_tensor = None
    if size is not None:
        out_size, size_tensor = _interp_size(size, nd, ndim, fn, attrs, names)
    else:
        scale_tensor = _interp_scale(scale_factor, nd, ndim, fn, x, recompute_scale_factor, attrs, names)
    return run_op(f"{mode}_interp_v2", x, out_size, size_tensor, scale_tensor, **attrs)


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
             data_format=None, name=None):
    """Alias of `interpolate`."""
    return _interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def pad(x, pad, mode="constant", value=0.0, data_format=None, pad_from_left_axis=True, name=None):
    """Pad ``x``.

    With as many pairs as spatial dims, ``pad`` lists them from the LAST dim: [left, right] for
    3-D, [left, right, top, bottom] for 4-D, [left, right, top, bottom, front, back] for 5-D, in
    'constant', 'reflect', 'replicate' or 'circular' mode. In constant mode any other length
    pads dims from the last one, except a full ``2 * ndim`` list, which with
    ``pad_from_left_axis`` lists the pairs from the FIRST dim.
    """
    fn = "pad"
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise ValueError(f"{fn}: mode must be one of constant, reflect, replicate, circular, got {mode!r}")
    ndim = len(x.shape)
    if isinstance(pad, Tensor):
        pad = [int(v) for v in pad.numpy().reshape(-1)]
    elif _static(pad):
        return _pad_by_tensor(x, pad, mode, value, data_format, ndim, pad_from_left_axis)
    if not isinstance(pad, (list, tuple)) or not all(isinstance(v, (int, np.integer)) for v in pad):
        raise TypeError(f"{fn}: pad must be a list of ints, got {pad!r}")
    pad = [int(v) for v in pad]
    if any(v < 0 for v in pad):
        raise ValueError(f"{fn}: pad values must be non-negative, got {pad}")

    if mode == "constant" and len(pad) != 2 * (ndim - 2):
        if len(pad) % 2 or len(pad) > 2 * ndim:
            raise ValueError(f"{fn}: pad must hold pairs for at most {ndim} dims, got {pad}")
        full = pad + [0] * (2 * ndim - len(pad))
        if not (len(pad) == 2 * ndim and pad_from_left_axis):
            # pairs were given from the last dim: reorder them first-dim first
            pairs = [full[i:i + 2] for i in range(0, 2 * ndim, 2)]
            full = [v for p in reversed(pairs) for v in p]
        return run_op("pad", x, paddings=full, pad_value=float(value))

    if ndim not in _PAD_FORMATS:
        raise ValueError(f"{fn}: {mode} padding needs a 3-D, 4-D or 5-D input, got shape {list(x.shape)}")
    if data_format is None:
        data_format = _PAD_FORMATS[ndim][0]
    if data_format not in _PAD_FORMATS[ndim]:
        raise PadFormatError(f"{fn}: data_format for a {ndim}-D input must be one of {list(_PAD_FORMATS[ndim])}, "
                         f"got {data_format!r}")
    if len(pad) != 2 * (ndim - 2):
        raise ValueError(f"{fn}: {mode} padding of a {ndim}-D input needs {2 * (ndim - 2)} values, got {pad}")
    channel_last = data_format[-1] == "C"
    axes = []
    if ndim == 3:
        pad = [0, 0, 0, 0] + pad
        axes = [2, 3] if channel_last else [3, 4]
    elif ndim == 4:
        pad = pad + [0, 0]
        axes = [1] if channel_last else [2]
    _check_pad3d_dtype(x, fn)
    if axes:
        x = run_op("unsqueeze2", x, None, None, axes=axes)
    out = run_op("pad3d", x, None, paddings=pad, mode=mode, value=float(value),
                 data_format="NDHWC" if channel_last else "NCDHW")
    if axes:
        out = run_op("squeeze2", out, axes=axes)
    return out


_PAD3D_DTYPES = ("float32", "float64", "int32", "int64", "complex64", "complex128")


def _check_pad3d_dtype(x, fn):
    """Paddle's CPU pad3d kernel (F.pad's spatial modes, ZeroPad2D ...) takes only these dtypes."""
    name = getattr(x.dtype, "name", str(x.dtype))
    if name not in _PAD3D_DTYPES:
        from ...ops.special import KernelDtypeError
        raise KernelDtypeError(f"{fn}: x must be one of {', '.join(_PAD3D_DTYPES)} for this padding, got {name}; "
                               "cast it first (e.g. x.astype('float32'))")


def _pad_spatial_format(ndim, data_format, mode, fn="pad"):
    if ndim not in _PAD_FORMATS:
        raise ValueError(f"{fn}: {mode} padding needs a 3-D, 4-D or 5-D input, got {ndim}-D")
    if data_format is None:
        data_format = _PAD_FORMATS[ndim][0]
    if data_format not in _PAD_FORMATS[ndim]:
        raise PadFormatError(f"{fn}: data_format for a {ndim}-D input must be one of {list(_PAD_FORMATS[ndim])}, "
                         f"got {data_format!r}")
    return data_format


def _pad_by_tensor(x, pad, mode, value, data_format, ndim, pad_from_left_axis=True):
    """F.pad whose ``pad`` is a Variable of a Program (its values known only when it runs): the spatial form
    (``2 * (ndim - 2)`` values, any mode) becomes Paddle's ``pad3d`` with the ``Paddings`` tensor input,
    as Paddle builds it. Any other length in constant mode (pairs for some or all dims, as the list form
    takes them) is built from concat ops, see `_pad_constant_by_tensor`."""
    from ...api.creation import zeros
    from ...api.manipulation import concat
    n = pad.shape[0] if len(pad.shape) == 1 else -2
    if mode == "constant" and (n != 2 * (ndim - 2) or ndim not in _PAD_FORMATS) and n >= 0:
        return _pad_constant_by_tensor(x, pad, value, ndim, n, pad_from_left_axis)
    if n != 2 * (ndim - 2) or ndim not in _PAD_FORMATS:
        raise ValueError(
            f"pad: a tensor `pad` of shape {list(pad.shape)} for a {ndim}-D input in {mode!r} mode: inside a "
            f"Program it must be a 1-D tensor of {2 * max(ndim - 2, 0)} values for a 3-D/4-D/5-D input (the "
            "spatial form; 'constant' mode also takes pairs for other dims, from a 1-D tensor of known length)")
    data_format = _pad_spatial_format(ndim, data_format, mode)
    channel_last = data_format[-1] == "C"
    pads = run_op("cast", pad, in_dtype=pad.dtype.proto, out_dtype=2) if pad.dtype.name != "int32" else pad
    axes = []
    if ndim == 3:
        pads = concat([zeros([4], "int32"), pads])
        axes = [2, 3] if channel_last else [3, 4]
    elif ndim == 4:
        pads = concat([pads, zeros([2], "int32")])
        axes = [1] if channel_last else [2]
    if axes:
        x = run_op("unsqueeze2", x, None, None, axes=axes)
    out = run_op("pad3d", x, pads, paddings=[], mode=mode, value=float(value),
                 data_format="NDHWC" if channel_last else "NCDHW")
    if axes:
        out = run_op("squeeze2", out, axes=axes)
    return out


def _pad_constant_by_tensor(x, pad, value, ndim, n, pad_from_left_axis):
    """Constant padding by a 1-D tensor of ``n`` values (``n`` even, at most ``2 * ndim``). Paddle's ``pad`` op
    takes its paddings only as an attribute (Paddle 3.3.1's F.pad sends a tensor to pad3d, which refuses this
    length), so each padded dim ``i`` concatenates blocks of ``value`` before and after ``x``, their shapes
    ``x``'s with dim ``i`` replaced by that pair's values: plain ops (shape, slice, cast, concat,
    fill_constant with a ShapeTensorList) that save to .pdmodel / PIR and differentiate through concat. Pairs are read as the list
    form reads them: from the first dim when ``n == 2 * ndim`` and ``pad_from_left_axis``, else from the last."""
    from ...api.creation import full
    from ...api.manipulation import concat, shape, slice as slice_
    if n % 2 or n > 2 * ndim:
        raise ValueError(f"pad: a tensor `pad` must hold pairs for at most {ndim} dims (an even count up to "
                         f"{2 * ndim}), got {n} values")
    if pad.dtype.name not in ("int32", "int64"):
        raise TypeError(f"pad: a tensor `pad` must be int32 or int64, got {pad.dtype.name}")
    if n == 2 * ndim and pad_from_left_axis:
        dims = list(range(ndim))
    else:
        dims = [ndim - 1 - j for j in range(n // 2)]
    for j, dim in enumerate(dims):
        x_shape = shape(x) if any(x.shape[d] < 0 for d in range(ndim) if d != dim) else None
        blocks = []
        for k in (2 * j, 2 * j + 1):
            # a shape list of ints and 1-element tensors (fill_constant's ShapeTensorList): known dims stay known
            dims_k = [slice_(pad, [0], [k], [k + 1]) if d == dim
                      else x.shape[d] if x.shape[d] >= 0 else slice_(x_shape, [0], [d], [d + 1])
                      for d in range(ndim)]
            blocks.append(full(dims_k, value, x.dtype))
        x = concat([blocks[0], x, blocks[1]], axis=dim)
    return x


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """Rearrange [N, C*r*r, H, W] into [N, C, H*r, W*r] (r = upscale_factor)."""
    fn = "pixel_shuffle"
    if len(x.shape) != 4:
        raise ValueError(f"{fn}: x must be a 4-D tensor, got shape {list(x.shape)}")
    if not isinstance(upscale_factor, (int, np.integer)) or isinstance(upscale_factor, bool) or upscale_factor <= 0:
        raise TypeError(f"{fn}: upscale_factor must be a positive int, got {upscale_factor!r}")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{fn}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    C = x.shape[3 if data_format == "NHWC" else 1]
    if C >= 0 and C % (upscale_factor * upscale_factor):
        raise ValueError(f"{fn}: the channel count {C} must be divisible by upscale_factor**2 "
                         f"({upscale_factor * upscale_factor})")
    return run_op("pixel_shuffle", x, upscale_factor=int(upscale_factor), data_format=data_format)
