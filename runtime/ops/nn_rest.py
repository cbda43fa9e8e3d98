"""temporal_shift (TSM channel shift along time), rms_norm (root-mean-square normalisation) and
swiglu (``silu(x) * y``), each Paddle's op of that name, with their grads."""
from __future__ import annotations

import numpy as np

from .registry import Meta, grad_op, register

# -- temporal_shift --------------------------------------------------------------------------------


def _ts_split(op, shape, seg_num, shift_ratio, data_format):
    if len(shape) != 4:
        raise ValueError(f"{op}: X must be 4-D [N*T, C, H, W] (or NHWC), got shape {list(shape)}")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{op}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if int(seg_num) <= 0:
        raise ValueError(f"{op}: seg_num must be a positive int, got {seg_num}")
    if shape[0] >= 0 and shape[0] % int(seg_num):
        raise ValueError(f"{op}: the first dimension of X ({shape[0]}) must be a multiple of seg_num ({seg_num})")
    if not 0 < float(shift_ratio) < 0.5:
        raise ValueError(f"{op}: shift_ratio must be in (0, 0.5), got {shift_ratio}")


def _ts_shift(x, seg_num, shift_ratio, data_format, direction):
    """Channels [0, c1) read time t-1, [c1, c2) read t+1 (``direction`` -1 runs the transpose)."""
    nhwc = data_format == "NHWC"
    a = np.moveaxis(x, 3, 1) if nhwc else x
    nt, c = a.shape[:2]
    t = int(seg_num)
    a = a.reshape((nt // t, t) + a.shape[1:])
    # Paddle computes the channel bounds in float32
    c1 = int(np.float32(c) * np.float32(shift_ratio))
    c2 = int(np.float32(c) * np.float32(2) * np.float32(shift_ratio))
    out = np.zeros_like(a)
    back, fwd = (slice(0, c1), slice(c1, c2)) if direction > 0 else (slice(c1, c2), slice(0, c1))
    out[:, 1:, back] = a[:, :-1, back]     # out[t] = in[t-1]
    out[:, :-1, fwd] = a[:, 1:, fwd]       # out[t] = in[t+1]
    out[:, :, c2:] = a[:, :, c2:]
    out = out.reshape((nt,) + out.shape[2:])
    return np.moveaxis(out, 1, 3) if nhwc else out


def _temporal_shift(x, seg_num=0, shift_ratio=0.25, data_format="NCHW"):
    _ts_split("temporal_shift", x.shape, seg_num, shift_ratio, data_format)
    return _ts_shift(x, seg_num, shift_ratio, data_format, +1)


def _temporal_shift_grad(dout, seg_num=0, shift_ratio=0.25, data_format="NCHW"):
    return _ts_shift(dout, seg_num, shift_ratio, data_format, -1)


def _temporal_shift_meta(x, seg_num=0, shift_ratio=0.25, data_format="NCHW"):
    _ts_split("temporal_shift", x.shape, seg_num, shift_ratio, data_format)
    return Meta(tuple(x.shape), x.dtype)


register("temporal_shift", ["X"], ["Out"],
         {"seg_num": ("INT", 0), "shift_ratio": ("FLOAT", 0.25), "data_format": ("STRING", "NCHW")},
         kernel=_temporal_shift, infer_meta=_temporal_shift_meta)
grad_op("temporal_shift", ["Out@GRAD"], ["X@GRAD"], _temporal_shift_grad,
        infer_meta=lambda dout, **_: Meta(tuple(dout.shape), dout.dtype))

# -- rms_norm --------------------------------------------------------------------------------------


def _rms_rows(op, x_shape, scale_shape, normalized_shape):
    k = len(normalized_shape)
    if k == 0 or k > len(x_shape):
        raise ValueError(f"{op}: normalized_shape must have 1 to {len(x_shape)} dims (x has shape "
                         f"{list(x_shape)}), got {list(normalized_shape)}")
    tail = list(x_shape[len(x_shape) - k:])
    if any(a >= 0 and a != int(b) for a, b in zip(tail, normalized_shape)):
        raise ValueError(f"{op}: normalized_shape {list(normalized_shape)} must equal the last {k} dims of x "
                         f"(shape {list(x_shape)})")
    if scale_shape is not None and int(np.prod(scale_shape)) != int(np.prod(normalized_shape)):
        raise ValueError(f"{op}: scale must have {int(np.prod(normalized_shape))} elements (normalized_shape "
                         f"{list(normalized_shape)}), got shape {list(scale_shape)}")
    lead = x_shape[:len(x_shape) - k]
    return -1 if any(d < 0 for d in lead) else int(np.prod(lead, dtype=np.int64))


def _acc_dtype(dtype):
    # float32 accumulation (and invvar) for float32 and narrower inputs, float64 for float64 ones
    return np.dtype(np.float64) if np.dtype(dtype) == np.float64 else np.dtype(np.float32)


def _rms_parts(x, normalized_shape, epsilon):
    cols = int(np.prod(normalized_shape))
    work = x.astype(_acc_dtype(x.dtype)).reshape(-1, cols)
    invvar = (1.0 / np.sqrt(np.mean(work * work, axis=1) + epsilon)).astype(work.dtype)
    return work, invvar


def _rms_norm(x, scale, normalized_shape=(), epsilon=1e-05):
    _rms_rows("rms_norm", x.shape, None if scale is None else scale.shape, normalized_shape)
    work, invvar = _rms_parts(x, normalized_shape, epsilon)
    y = work * invvar[:, None]
    if scale is not None:
        y = y * scale.reshape(1, -1)
    return y.reshape(x.shape).astype(x.dtype, copy=False), invvar


def _rms_norm_grad(x, scale, dy, dinvvar, normalized_shape=(), epsilon=1e-05):
    work, r = _rms_parts(x, normalized_shape, epsilon)
    g = np.zeros(work.shape, work.dtype) if dy is None else dy.reshape(work.shape).astype(work.dtype)
    xhat = work * r[:, None]
    dscale = None if scale is None else (g * xhat).sum(0).reshape(scale.shape).astype(scale.dtype)
    dxhat = g if scale is None else g * scale.reshape(1, -1)
    dx = r[:, None] * (dxhat - xhat * np.mean(dxhat * xhat, axis=1, keepdims=True))
    if dinvvar is not None:   # d r / d x = -r^3 x / cols (Paddle's grad op ignores this path; we keep it exact)
        dx = dx - dinvvar.reshape(-1, 1) * r[:, None] ** 3 * work / work.shape[1]
    return dx.reshape(x.shape).astype(x.dtype, copy=False), dscale


def _rms_norm_meta(x, scale, normalized_shape=(), epsilon=1e-05):
    rows = _rms_rows("rms_norm", x.shape, None if scale is None else scale.shape, normalized_shape)
    return Meta(tuple(x.shape), x.dtype), Meta((rows,), _acc_dtype(x.dtype))


register("rms_norm", ["x", "scale?"], ["y", "invvar"],
         {"normalized_shape": ("LONGS", []), "epsilon": ("FLOAT64", 1e-05)},
         kernel=_rms_norm, infer_meta=_rms_norm_meta, differentiable=("x", "scale"))
grad_op("rms_norm", ["x", "scale?", "y@GRAD?", "invvar@GRAD?"], ["x@GRAD", "scale@GRAD"], _rms_norm_grad,
        infer_meta=lambda x, scale, dy, dinv, **_: (x, scale))

# -- swiglu ----------------------------------------------------------------------------------------


def _swiglu_check(x_shape, y_shape):
    if y_shape is None:
        if x_shape[-1] >= 0 and x_shape[-1] % 2:
            raise ValueError(f"swiglu: without y the last dim of x must be even (it is split into the gate and "
                             f"the value halves), got shape {list(x_shape)}")
        return tuple(x_shape[:-1]) + ((x_shape[-1] // 2) if x_shape[-1] >= 0 else -1,)
    if len(x_shape) != len(y_shape) or any(a >= 0 and b >= 0 and a != b for a, b in zip(x_shape, y_shape)):
        raise ValueError(f"swiglu: x and y must have the same shape, got {list(x_shape)} and {list(y_shape)}")
    return tuple(x_shape)


def _halves(x, y):
    if y is None:
        h = x.shape[-1] // 2
        return x[..., :h], x[..., h:]
    return x, y


def _sig(a):
    return 1.0 / (1.0 + np.exp(-a))


def _swiglu(x, y):
    _swiglu_check(x.shape, None if y is None else y.shape)
    a, b = _halves(x, y)
    return (a * _sig(a) * b).astype(x.dtype, copy=False)


def _swiglu_grad(x, y, dout):
    a, b = _halves(x, y)
    s = _sig(a)
    da = dout * b * s * (1 + a * (1 - s))
    db = dout * a * s
    if y is None:
        return np.concatenate([da, db], axis=-1).astype(x.dtype, copy=False), None
    return da.astype(x.dtype, copy=False), db.astype(y.dtype, copy=False)


def _swiglu_meta(x, y):
    return Meta(_swiglu_check(x.shape, None if y is None else y.shape), x.dtype)


register("swiglu", ["x", "y?"], ["out"], {}, kernel=_swiglu, infer_meta=_swiglu_meta)
grad_op("swiglu", ["x", "y?", "out@GRAD"], ["x@GRAD", "y@GRAD"], _swiglu_grad,
        infer_meta=lambda x, y, dout, **_: (x, y))
