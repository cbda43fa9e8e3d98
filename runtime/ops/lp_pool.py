"""Power-average pooling: lp_pool2d, ``out = (sum over the window of x**p) ** (1/p)``, and its grad.

As Paddle's kernel (measured): finite powers are summed in float32 whatever the input dtype
(float64 results agree with Paddle to a float32 ulp), the power is signed (no absolute value, so a
negative sum under a fractional root gives nan), zero padding adds nothing, ``p = inf`` takes the
window's maximum, and the window geometry is the pool2d one (start ``i*stride - pad``, ceil_mode, SAME/VALID).
The grad of a finite p is ``dout * x**(p-1) * out**(1-p)`` summed over the windows holding x;
for ``p = inf`` the whole of dout goes to the first maximum of each window.
"""
from __future__ import annotations

import numpy as np

from .conv import pads4, same_pads
from .registry import Meta, grad_op, register


def _pool_out(n, k, s, p0, p1, ceil_mode):
    return -1 if n < 0 else (n - k + p0 + p1 + (s - 1 if ceil_mode else 0)) // s + 1


def _geometry(x_shape, kernel_size, strides, paddings, ceil_mode, global_pooling, adaptive, algorithm):
    if adaptive:
        raise ValueError("lp_pool2d: adaptive pooling is not defined for the power average; use ksize/strides")
    H, W = x_shape[2], x_shape[3]
    k = [H, W] if global_pooling else [int(v) for v in kernel_size]
    s = [int(v) for v in strides]
    if len(k) != 2 or len(s) != 2:
        raise ValueError(f"lp_pool2d: kernel_size and strides must have 2 values, got {list(kernel_size)}, "
                         f"{list(strides)}")
    algorithm = (algorithm or "EXPLICIT").upper()
    if global_pooling or algorithm == "VALID":
        pads = [0, 0, 0, 0]
    elif algorithm == "SAME":
        pads = list(same_pads(H, k[0], s[0]) + same_pads(W, k[1], s[1]))
    else:
        pads = pads4(paddings)
    outs = [_pool_out(H, k[0], s[0], pads[0], pads[1], ceil_mode), _pool_out(W, k[1], s[1], pads[2], pads[3],
                                                                             ceil_mode)]
    if (H >= 0 and outs[0] <= 0) or (W >= 0 and outs[1] <= 0):
        raise ValueError(f"lp_pool2d: output size {outs} is not positive for input {[H, W]}, kernel_size {k}, "
                         f"strides {s}, paddings {pads}")
    return k, s, pads, outs


def _canvas(x, k, s, pads, outs, fill):
    N, C, H, W = x.shape
    ch = max((outs[0] - 1) * s[0] + k[0], pads[0] + H)
    cw = max((outs[1] - 1) * s[1] + k[1], pads[2] + W)
    canvas = np.full((N, C, ch, cw), fill, dtype=x.dtype)
    canvas[:, :, pads[0]:pads[0] + H, pads[2]:pads[2] + W] = x
    return canvas


def _windows(k, s, outs):
    for i in range(k[0]):
        for j in range(k[1]):
            yield (slice(None), slice(None), slice(i, i + s[0] * (outs[0] - 1) + 1, s[0]),
                   slice(j, j + s[1] * (outs[1] - 1) + 1, s[1]))


def _nchw(x, data_format):
    if data_format not in ("NCHW", "NHWC", "AnyLayout"):
        raise ValueError(f"lp_pool2d: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    return np.moveaxis(x, -1, 1) if data_format == "NHWC" else x


def _back(x, data_format):
    return np.ascontiguousarray(np.moveaxis(x, 1, -1) if data_format == "NHWC" else x)


def _lp_pool2d(x, kernel_size_t=None, kernel_size_list=None, kernel_size=(), strides=(1, 1), paddings=(0, 0),
               ceil_mode=False, exclusive=True, data_format="NCHW", pooling_type="", global_pooling=False,
               adaptive=False, padding_algorithm="EXPLICIT", norm_type=0.0):
    if kernel_size_t is not None:
        kernel_size = [int(v) for v in np.asarray(kernel_size_t).reshape(-1)]
    elif kernel_size_list:
        kernel_size = [int(np.asarray(v).reshape(-1)[0]) for v in kernel_size_list]
    p = float(norm_type)
    if p == 0:
        raise ValueError("lp_pool2d: norm_type cannot be 0")
    x = _nchw(x, data_format)
    dtype = x.dtype
    if not np.isinf(p):
        x = x.astype(np.float32)   # Paddle's kernel computes the power sums in float whatever the dtype
    k, s, pads, outs = _geometry(x.shape, kernel_size, strides, paddings, ceil_mode, global_pooling, adaptive,
                                 padding_algorithm)
    if np.isinf(p):
        canvas = _canvas(x, k, s, pads, outs, -np.inf)
        out = None
        for sl in _windows(k, s, outs):
            out = canvas[sl].copy() if out is None else np.maximum(out, canvas[sl])
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            canvas = _canvas(np.power(x, x.dtype.type(p)), k, s, pads, outs, 0)
            total = np.zeros(x.shape[:2] + tuple(outs), dtype=x.dtype)
            for sl in _windows(k, s, outs):
                total += canvas[sl]
            out = np.power(total, x.dtype.type(1.0 / p))
    return _back(out.astype(dtype, copy=False), data_format)


def _lp_pool2d_grad(x, kernel_size_t, kernel_size_list, out, dout, kernel_size=(), strides=(1, 1), paddings=(0, 0),
                    ceil_mode=False, exclusive=True, data_format="NCHW", pooling_type="", global_pooling=False,
                    adaptive=False, padding_algorithm="EXPLICIT", norm_type=0.0):
    if kernel_size_t is not None:
        kernel_size = [int(v) for v in np.asarray(kernel_size_t).reshape(-1)]
    elif kernel_size_list:
        kernel_size = [int(np.asarray(v).reshape(-1)[0]) for v in kernel_size_list]
    p = float(norm_type)
    x, out, dout = _nchw(x, data_format), _nchw(out, data_format), _nchw(dout, data_format)
    dtype = x.dtype
    if not np.isinf(p):
        x, out, dout = x.astype(np.float32), out.astype(np.float32), dout.astype(np.float32)
    k, s, pads, outs = _geometry(x.shape, kernel_size, strides, paddings, ceil_mode, global_pooling, adaptive,
                                 padding_algorithm)
    gcanvas = np.zeros_like(_canvas(x, k, s, pads, outs, 0))
    if np.isinf(p):
        canvas = _canvas(x, k, s, pads, outs, -np.inf)
        taken = np.zeros(out.shape, dtype=bool)
        for sl in _windows(k, s, outs):
            hit = (canvas[sl] == out) & ~taken
            gcanvas[sl] += np.where(hit, dout, 0)
            taken |= hit
    else:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            canvas = _canvas(np.power(x, x.dtype.type(p - 1)), k, s, pads, outs, 0)
            scale = dout * np.power(out, x.dtype.type(1 - p))
            for sl in _windows(k, s, outs):
                gcanvas[sl] += canvas[sl] * scale
    N, C, H, W = x.shape
    dx = gcanvas[:, :, pads[0]:pads[0] + H, pads[2]:pads[2] + W]
    return _back(dx.astype(dtype, copy=False), data_format)


def _lp_pool2d_meta(x, kernel_size_t=None, kernel_size_list=None, kernel_size=(), strides=(1, 1), paddings=(0, 0),
                    ceil_mode=False, data_format="NCHW", global_pooling=False, adaptive=False,
                    padding_algorithm="EXPLICIT", **_):
    if len(x.shape) != 4:
        raise ValueError(f"lp_pool2d: x must be 4-D, got shape {list(x.shape)}")
    nhwc = data_format == "NHWC"
    N, C, H, W = (x.shape[0], x.shape[3], x.shape[1], x.shape[2]) if nhwc else tuple(x.shape)
    if kernel_size_t is not None or kernel_size_list:
        outs = [-1, -1]
    elif (padding_algorithm or "").upper() == "SAME" and not global_pooling:
        outs = [-1 if n < 0 else (n + st - 1) // st for n, st in zip((H, W), strides)]
    else:
        outs = _geometry((N, C, H, W), kernel_size, strides, paddings, ceil_mode, global_pooling, adaptive,
                         padding_algorithm)[3]
    return Meta((N, outs[0], outs[1], C) if nhwc else (N, C, outs[0], outs[1]), x.dtype)


register("lp_pool2d", ["x", "KernelSizeTensor?", "KernelSizeTensorList[]?"], ["out"],
         {"kernel_size": ("LONGS", []), "strides": ("INTS", [1, 1]), "paddings": ("INTS", [0, 0]),
          "ceil_mode": ("BOOLEAN", False), "exclusive": ("BOOLEAN", True), "data_format": ("STRING", "NCHW"),
          "pooling_type": ("STRING", ""), "global_pooling": ("BOOLEAN", False), "adaptive": ("BOOLEAN", False),
          "padding_algorithm": ("STRING", "EXPLICIT"), "norm_type": ("FLOAT", 0.0)},
         kernel=_lp_pool2d, infer_meta=_lp_pool2d_meta, differentiable=("x",))
grad_op("lp_pool2d", ["x", "KernelSizeTensor?", "KernelSizeTensorList[]?", "out", "out@GRAD"], ["x@GRAD"],
        _lp_pool2d_grad)
