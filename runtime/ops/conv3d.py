"""3-D convolution ops: conv3d and conv3d_transpose (NCDHW or NDHWC) and their grads.

Both are im2col + one batched GEMM per group, as the 2-D ops in `conv`: the columns
(N, C*kd*kh*kw, OD*OH*OW) are gathered from the zero-padded input one kernel offset at a time by
strided slicing, and scattered back the same way (input grads, transposed convolution).
Paddings are Paddle's 3 values [d, h, w] or 6 values [front, back, top, bottom, left, right];
'SAME' pads for ceil(in / stride) outputs with dilation reset to 1, 'VALID' pads nothing.
"""
from __future__ import annotations

import itertools

import numpy as np

from .conv import same_pads
from .registry import Meta, grad_op, register

_CONV3D_ATTRS = {
    "strides": ("INTS", [1, 1, 1]),
    "paddings": ("INTS", [0, 0, 0]),
    "padding_algorithm": ("STRING", "EXPLICIT"),
    "groups": ("INT", 1),
    "dilations": ("INTS", [1, 1, 1]),
    "data_format": ("STRING", "NCDHW"),
}
_CONV3DT_ATTRS = {
    "strides": ("INTS", [1, 1, 1]),
    "paddings": ("INTS", [0, 0, 0]),
    "output_padding": ("INTS", []),
    "output_size": ("INTS", []),
    "padding_algorithm": ("STRING", "EXPLICIT"),
    "groups": ("INT", 1),
    "dilations": ("INTS", [1, 1, 1]),
    "data_format": ("STRING", "NCHW"),
}


def _channel_last(op, data_format):
    if data_format in ("NCDHW", "NCHW", "AnyLayout"):
        return False
    if data_format in ("NDHWC", "NHWC"):
        return True
    raise ValueError(f"{op}: data_format must be 'NCDHW' or 'NDHWC', got {data_format!r}")


def _pads6(op, paddings):
    p = [int(v) for v in paddings]
    if len(p) == 3:
        return [p[0], p[0], p[1], p[1], p[2], p[2]]
    if len(p) == 6:
        return p
    raise ValueError(f"{op}: paddings must have 3 values [d, h, w] or 6 values [front, back, top, bottom, left, "
                     f"right], got {p}")


def _resolve(op, in_sizes, ksizes, strides, paddings, dilations, algorithm):
    """(pads6, dilations) with Paddle's SAME / VALID rules."""
    algorithm = (algorithm or "EXPLICIT").upper()
    if len(strides) != 3 or len(dilations) != 3:
        raise ValueError(f"{op}: strides and dilations must have 3 values, got {list(strides)}, {list(dilations)}")
    if algorithm == "SAME":
        pads = []
        for n, k, s in zip(in_sizes, ksizes, strides):
            pads.extend(same_pads(n, k, s))
        return pads, [1, 1, 1]
    if algorithm == "VALID":
        return [0] * 6, [int(d) for d in dilations]
    if algorithm != "EXPLICIT":
        raise ValueError(f"{op}: padding_algorithm must be 'EXPLICIT', 'SAME' or 'VALID', got {algorithm!r}")
    return _pads6(op, paddings), [int(d) for d in dilations]


def _conv_out(n, k, s, p0, p1, d):
    return -1 if n < 0 else (n + p0 + p1 - (d * (k - 1) + 1)) // s + 1


def _offsets(ksizes, strides, dilations, outs):
    """For each kernel offset: its flat index and the strided slices of the padded canvas it touches."""
    for flat, offs in enumerate(itertools.product(*[range(k) for k in ksizes])):
        yield flat, tuple(slice(o * d, o * d + s * (n - 1) + 1, s)
                          for o, d, s, n in zip(offs, dilations, strides, outs))


def _cols(xp, ksizes, strides, dilations, outs):
    """(N, C*K, P) columns of the padded NCDHW array ``xp`` (K kernel offsets, P output points)."""
    N, C = xp.shape[:2]
    K = int(np.prod(ksizes))
    cols = np.empty((N, C, K) + tuple(outs), dtype=xp.dtype)
    for flat, sl in _offsets(ksizes, strides, dilations, outs):
        cols[:, :, flat] = xp[(slice(None), slice(None)) + sl]
    return cols.reshape(N, C * K, -1)


def _scatter(cols, C, canvas, ksizes, strides, dilations, outs):
    """Inverse of `_cols`: add (N, C*K, P) columns into a zero (N, C, *canvas) array."""
    N = cols.shape[0]
    K = int(np.prod(ksizes))
    cols = cols.reshape((N, C, K) + tuple(outs))
    out = np.zeros((N, C) + tuple(canvas), dtype=cols.dtype)
    for flat, sl in _offsets(ksizes, strides, dilations, outs):
        out[(slice(None), slice(None)) + sl] += cols[:, :, flat]
    return out


def _pad(x, pads):
    return np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3]), (pads[4], pads[5])))


def _group_mm(a, b, groups):
    """``a`` (g, P, Q) times ``b`` (N, g*Q, R) per group -> (N, g*P, R)."""
    N, R = b.shape[0], b.shape[-1]
    g, P, Q = a.shape
    return np.matmul(a, b.reshape(N, g, Q, R)).reshape(N, g * P, R)


def _ncdhw(x, last):
    return np.moveaxis(x, -1, 1) if last else x


def _back(x, last):
    return np.ascontiguousarray(np.moveaxis(x, 1, -1) if last else x)


# -- conv3d ---------------------------------------------------------------------------------------

def _setup(x, w, strides, paddings, padding_algorithm, dilations, groups):
    N, C = x.shape[:2]
    M, Cg = w.shape[:2]
    if groups < 1 or C != Cg * groups or M % groups:
        raise ValueError(f"conv3d: input has {C} channels and filter shape {list(w.shape)} with groups={groups}; "
                         "expected channels == filter.shape[1] * groups and filter.shape[0] divisible by groups")
    ks = list(w.shape[2:])
    strides = [int(s) for s in strides]
    pads, dil = _resolve("conv3d", x.shape[2:], ks, strides, paddings, dilations, padding_algorithm)
    outs = [_conv_out(n, k, s, pads[2 * i], pads[2 * i + 1], d)
            for i, (n, k, s, d) in enumerate(zip(x.shape[2:], ks, strides, dil))]
    if min(outs) <= 0:
        raise ValueError(f"conv3d: input spatial size {list(x.shape[2:])} with paddings {pads} is smaller than "
                         f"the dilated filter {[d * (k - 1) + 1 for k, d in zip(ks, dil)]}")
    return ks, strides, pads, dil, outs


def _conv3d(x, w, strides=(1, 1, 1), paddings=(0, 0, 0), padding_algorithm="EXPLICIT", groups=1,
            dilations=(1, 1, 1), data_format="NCDHW"):
    last = _channel_last("conv3d", data_format)
    x = _ncdhw(x, last)
    ks, strides, pads, dil, outs = _setup(x, w, strides, paddings, padding_algorithm, dilations, groups)
    N, M = x.shape[0], w.shape[0]
    cols = _cols(_pad(x, pads), ks, strides, dil, outs)
    out = _group_mm(w.reshape(groups, M // groups, -1), cols, groups)
    return _back(out.reshape((N, M) + tuple(outs)).astype(x.dtype, copy=False), last)


def _conv3d_grad(x, w, dout, strides=(1, 1, 1), paddings=(0, 0, 0), padding_algorithm="EXPLICIT", groups=1,
                 dilations=(1, 1, 1), data_format="NCDHW"):
    last = _channel_last("conv3d", data_format)
    x, dout = _ncdhw(x, last), _ncdhw(dout, last)
    ks, strides, pads, dil, outs = _setup(x, w, strides, paddings, padding_algorithm, dilations, groups)
    N, C = x.shape[:2]
    M, g = w.shape[0], groups
    cols = _cols(_pad(x, pads), ks, strides, dil, outs)                       # (N, C*K, P)
    d = np.ascontiguousarray(dout).reshape(N, g, M // g, -1)
    dw = np.matmul(d, cols.reshape(N, g, cols.shape[1] // g, -1).transpose(0, 1, 3, 2)).sum(axis=0)
    wm = w.reshape(g, M // g, -1).transpose(0, 2, 1)                         # (g, Cg*K, Mg)
    dcols = _group_mm(wm, d.reshape(N, M, -1), g)
    canvas = [n + pads[2 * i] + pads[2 * i + 1] for i, n in enumerate(x.shape[2:])]
    dxp = _scatter(dcols, C, canvas, ks, strides, dil, outs)
    dx = dxp[:, :, pads[0]:pads[0] + x.shape[2], pads[2]:pads[2] + x.shape[3], pads[4]:pads[4] + x.shape[4]]
    return _back(dx.astype(x.dtype, copy=False), last), dw.reshape(w.shape).astype(w.dtype, copy=False)


def _conv3d_meta(x, w, strides=(1, 1, 1), paddings=(0, 0, 0), padding_algorithm="EXPLICIT", groups=1,
                 dilations=(1, 1, 1), data_format="NCDHW", **_):
    if len(x.shape) != 5 or len(w.shape) != 5:
        raise ValueError(f"conv3d: Input and Filter must be 5-D, got shapes {list(x.shape)} and {list(w.shape)}")
    last = _channel_last("conv3d", data_format)
    shape = list(x.shape)
    N, C, sp = shape[0], shape[-1] if last else shape[1], shape[1:4] if last else shape[2:]
    M, Cg = w.shape[:2]
    if C != -1 and Cg != -1 and C != Cg * groups:
        raise ValueError(f"conv3d: input has {C} channels but filter shape {list(w.shape)} with groups={groups} "
                         f"expects {Cg * groups}")
    strides = [int(s) for s in strides]
    pads, dil = _resolve("conv3d", sp, w.shape[2:], strides, paddings, dilations, padding_algorithm)
    if (padding_algorithm or "").upper() == "SAME":
        outs = [-1 if n < 0 else (n + s - 1) // s for n, s in zip(sp, strides)]
    else:
        outs = [_conv_out(n, k, s, pads[2 * i], pads[2 * i + 1], d)
                for i, (n, k, s, d) in enumerate(zip(sp, w.shape[2:], strides, dil))]
    return Meta(tuple([N] + outs + [M]) if last else tuple([N, M] + outs), x.dtype)


register("conv3d", ["Input", "Filter"], ["Output"], _CONV3D_ATTRS, kernel=_conv3d, infer_meta=_conv3d_meta)
grad_op("conv3d", ["Input", "Filter", "Output@GRAD"], ["Input@GRAD", "Filter@GRAD"], _conv3d_grad)


# -- conv3d_transpose -----------------------------------------------------------------------------

def _convt_outs(sp, ks, strides, pads, dil, output_padding, output_size):
    res = []
    for i, (n, k, s, d) in enumerate(zip(sp, ks, strides, dil)):
        if n < 0:
            res.append(-1)
            continue
        base = (n - 1) * s - pads[2 * i] - pads[2 * i + 1] + d * (k - 1) + 1
        if output_size is not None and len(output_size):
            want = int(output_size[i])
            if not base <= want < base + s:
                raise ValueError(f"conv3d_transpose: output_size {list(output_size)} is out of range: dimension {i} "
                                 f"must be in [{base}, {base + s}) for this input, stride and padding")
            res.append(want)
        elif output_padding is not None and len(output_padding):
            extra = int(output_padding[i])
            if not 0 <= extra < max(s, d):
                raise ValueError(f"conv3d_transpose: output_padding {list(output_padding)} must be smaller than "
                                 f"stride or dilation ({list(strides)}, {list(dil)})")
            res.append(base + extra)
        else:
            res.append(base)
        if res[-1] <= 0:
            raise ValueError(f"conv3d_transpose: computed output size {res} is not positive")
    return res


def _tsetup(x, w, strides, paddings, output_padding, output_size, padding_algorithm, dilations, groups):
    C = x.shape[1]
    if groups < 1 or C != w.shape[0] or C % groups:
        raise ValueError(f"conv3d_transpose: input has {C} channels and filter shape {list(w.shape)} with "
                         f"groups={groups}; expected channels == filter.shape[0], divisible by groups")
    ks = list(w.shape[2:])
    strides = [int(s) for s in strides]
    pads, dil = _resolve("conv3d_transpose", x.shape[2:], ks, strides, paddings, dilations, padding_algorithm)
    outs = _convt_outs(x.shape[2:], ks, strides, pads, dil, output_padding, output_size)
    full = [max((n - 1) * s + d * (k - 1) + 1, pads[2 * i] + o)
            for i, (n, k, s, d, o) in enumerate(zip(x.shape[2:], ks, strides, dil, outs))]
    return ks, strides, pads, dil, outs, full


def _crop(full, pads, outs):
    return full[:, :, pads[0]:pads[0] + outs[0], pads[2]:pads[2] + outs[1], pads[4]:pads[4] + outs[2]]


def _conv3d_transpose(x, w, strides=(1, 1, 1), paddings=(0, 0, 0), output_padding=(), output_size=(),
                      padding_algorithm="EXPLICIT", groups=1, dilations=(1, 1, 1), data_format="NCHW"):
    last = _channel_last("conv3d_transpose", data_format)
    x = _ncdhw(x, last)
    ks, strides, pads, dil, outs, full = _tsetup(x, w, strides, paddings, output_padding, output_size,
                                                 padding_algorithm, dilations, groups)
    N, C = x.shape[:2]
    Mg, g = w.shape[1], groups
    wm = w.reshape(g, C // g, -1).transpose(0, 2, 1)                         # (g, Mg*K, Cg)
    cols = _group_mm(wm, x.reshape(N, C, -1), g)                              # (N, M*K, in points)
    canvas = _scatter(cols, g * Mg, full, ks, strides, dil, list(x.shape[2:]))
    return _back(_crop(canvas, pads, outs).astype(x.dtype, copy=False), last)


def _conv3d_transpose_grad(x, w, dout, strides=(1, 1, 1), paddings=(0, 0, 0), output_padding=(), output_size=(),
                           padding_algorithm="EXPLICIT", groups=1, dilations=(1, 1, 1), data_format="NCHW"):
    last = _channel_last("conv3d_transpose", data_format)
    x, dout = _ncdhw(x, last), _ncdhw(dout, last)
    ks, strides, pads, dil, outs, full = _tsetup(x, w, strides, paddings, output_padding, output_size,
                                                 padding_algorithm, dilations, groups)
    N, C = x.shape[:2]
    Mg, g = w.shape[1], groups
    dfull = np.zeros((N, g * Mg) + tuple(full), dtype=dout.dtype)
    _crop(dfull, pads, outs)[...] = dout
    cols = _cols(dfull, ks, strides, dil, list(x.shape[2:]))                  # (N, M*K, in points)
    dx = _group_mm(w.reshape(g, C // g, -1), cols, g).reshape(x.shape)
    xg = np.ascontiguousarray(x).reshape(N, g, C // g, -1)
    dw = np.matmul(xg, cols.reshape(N, g, cols.shape[1] // g, -1).transpose(0, 1, 3, 2)).sum(axis=0)
    return _back(dx.astype(x.dtype, copy=False), last), dw.reshape(w.shape).astype(w.dtype, copy=False)


def _conv3d_transpose_meta(x, w, strides=(1, 1, 1), paddings=(0, 0, 0), output_padding=(), output_size=(),
                           padding_algorithm="EXPLICIT", groups=1, dilations=(1, 1, 1), data_format="NCHW", **_):
    if len(x.shape) != 5 or len(w.shape) != 5:
        raise ValueError(f"conv3d_transpose: Input and Filter must be 5-D, got shapes {list(x.shape)} and "
                         f"{list(w.shape)}")
    last = _channel_last("conv3d_transpose", data_format)
    shape = list(x.shape)
    N, C, sp = shape[0], shape[-1] if last else shape[1], shape[1:4] if last else shape[2:]
    if C != -1 and w.shape[0] != -1 and C != w.shape[0]:
        raise ValueError(f"conv3d_transpose: input has {C} channels but filter shape {list(w.shape)} expects "
                         f"{w.shape[0]}")
    strides = [int(s) for s in strides]
    pads, dil = _resolve("conv3d_transpose", sp, w.shape[2:], strides, paddings, dilations, padding_algorithm)
    outs = _convt_outs(sp, w.shape[2:], strides, pads, dil, output_padding, output_size)
    M = -1 if w.shape[1] < 0 else w.shape[1] * groups
    return Meta(tuple([N] + outs + [M]) if last else tuple([N, M] + outs), x.dtype)


register("conv3d_transpose", ["Input", "Filter"], ["Output"], _CONV3DT_ATTRS, kernel=_conv3d_transpose,
         infer_meta=_conv3d_transpose_meta)
grad_op("conv3d_transpose", ["Input", "Filter", "Output@GRAD"], ["Input@GRAD", "Filter@GRAD"],
        _conv3d_transpose_grad)
