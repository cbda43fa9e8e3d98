"""Sliding-window ops: unfold (im2col, [N, C, H, W] -> [N, C*kh*kw, L]) and fold (col2im), each the other's grad.

Paddle's conventions: ``paddings`` is [top, left, bottom, right]; the column dim orders
channel-major then kernel row, kernel column (c*kh*kw + i*kw + j); L walks output rows then
columns. fold sums overlapping windows, so fold(unfold(x)) counts each pixel once per window.
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, grad_op, register

_ATTRS = {"kernel_sizes": ("INTS", []), "strides": ("INTS", []), "paddings": ("INTS", []),
          "dilations": ("INTS", [])}
_FOLD_ATTRS = {"output_sizes": ("INTS", []), **_ATTRS}


def _geometry(op, H, W, kernel_sizes, strides, paddings, dilations):
    """((kh, kw), (sh, sw), (top, left, bottom, right), (dh, dw), (out_h, out_w)) with Paddle's checks."""
    k, s, d, p = (list(kernel_sizes), list(strides), list(dilations), list(paddings))
    for name, v, n in (("kernel_sizes", k, 2), ("strides", s, 2), ("dilations", d, 2), ("paddings", p, 4)):
        if len(v) != n:
            raise ValueError(f"{op}: {name} must hold {n} ints, got {v}")
    if min(k) <= 0 or min(s) <= 0 or min(d) <= 0:
        raise ValueError(f"{op}: kernel_sizes, strides and dilations must be positive, got kernel_sizes={k}, "
                         f"strides={s}, dilations={d}")
    if min(p) < 0:
        raise ValueError(f"{op}: paddings must be non-negative, got {p}")
    outs = []
    for n, kk, ss, dd, lo, hi, axis in ((H, k[0], s[0], d[0], p[0], p[2], "height"),
                                        (W, k[1], s[1], d[1], p[1], p[3], "width")):
        span = dd * (kk - 1) + 1
        o = (n + lo + hi - span) // ss + 1 if n >= 0 else -1
        if n >= 0 and o <= 0:
            raise ValueError(f"{op}: the sliding blocks' {axis} would be {o} (input {axis} {n}, paddings "
                             f"{lo}+{hi}, kernel {kk}, dilation {dd}, stride {ss}); it must be positive")
        outs.append(o)
    return k, s, p, d, outs


def _windows(k, s, d, outs):
    """For each kernel tap (i, j): the row and column slices of the padded canvas it reads."""
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = k, s, d, outs
    for i in range(kh):
        for j in range(kw):
            yield (i, j, slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                   slice(j * dw, j * dw + sw * (ow - 1) + 1, sw))


def _unfold_array(x, k, s, p, d, outs):
    N, C, H, W = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    cols = np.empty((N, C, k[0], k[1], outs[0], outs[1]), dtype=x.dtype)
    for i, j, rows, columns in _windows(k, s, d, outs):
        cols[:, :, i, j] = xp[:, :, rows, columns]
    return cols.reshape(N, C * k[0] * k[1], outs[0] * outs[1])


def _fold_array(cols, H, W, k, s, p, d, outs):
    N = cols.shape[0]
    C = cols.shape[1] // (k[0] * k[1])
    cols = cols.reshape(N, C, k[0], k[1], outs[0], outs[1])
    canvas = np.zeros((N, C, H + p[0] + p[2], W + p[1] + p[3]), dtype=cols.dtype)
    for i, j, rows, columns in _windows(k, s, d, outs):
        canvas[:, :, rows, columns] += cols[:, :, i, j]
    return np.ascontiguousarray(canvas[:, :, p[0]:p[0] + H, p[1]:p[1] + W])


def _unfold(x, kernel_sizes=(), strides=(), paddings=(), dilations=()):
    if x.ndim != 4:
        raise ValueError(f"unfold: X must be 4-D [N, C, H, W], got shape {list(x.shape)}")
    k, s, p, d, outs = _geometry("unfold", x.shape[2], x.shape[3], kernel_sizes, strides, paddings, dilations)
    return _unfold_array(x, k, s, p, d, outs)


def _unfold_meta(x, kernel_sizes=(), strides=(), paddings=(), dilations=(), **_):
    if len(x.shape) != 4:
        raise ValueError(f"unfold: X must be 4-D [N, C, H, W], got shape {list(x.shape)}")
    N, C, H, W = x.shape
    k, _s, _p, _d, (oh, ow) = _geometry("unfold", H, W, kernel_sizes, strides, paddings, dilations)
    return Meta((N, -1 if C < 0 else C * k[0] * k[1], -1 if min(oh, ow) < 0 else oh * ow), x.dtype)


def _unfold_grad(x, dy, kernel_sizes=(), strides=(), paddings=(), dilations=()):
    H, W = x.shape[2:]
    k, s, p, d, outs = _geometry("unfold_grad", H, W, kernel_sizes, strides, paddings, dilations)
    return _fold_array(dy, H, W, k, s, p, d, outs)


def _fold_plan(op, x_shape, output_sizes, kernel_sizes, strides, paddings, dilations):
    if len(x_shape) != 3:
        raise ValueError(f"{op}: X must be 3-D [N, C*kh*kw, L], got shape {list(x_shape)}")
    o = list(output_sizes)
    if len(o) != 2 or min(o) <= 0:
        raise ValueError(f"{op}: output_sizes must be two positive ints, got {o}")
    k, s, p, d, outs = _geometry(op, o[0], o[1], kernel_sizes, strides, paddings, dilations)
    # Paddle counts fold's blocks with paddings [top, left] on both sides, then im2col checks the
    # four given paddings against that count: asymmetric paddings must give the same count
    *_, sym = _geometry(op, o[0], o[1], kernel_sizes, strides, [p[0], p[1], p[0], p[1]], dilations)
    if sym != outs:
        raise ValueError(f"{op}: paddings {p} are inconsistent: with [top, left] on both sides the blocks are "
                         f"{sym[0]} x {sym[1]}, with the given paddings {outs[0]} x {outs[1]}; use symmetric paddings")
    C, L = x_shape[1], x_shape[2]
    if C >= 0 and C % (k[0] * k[1]):
        raise ValueError(f"{op}: the channel dim {C} of X must be divisible by kernel_sizes[0]*kernel_sizes[1] "
                         f"= {k[0] * k[1]}")
    if L >= 0 and L != outs[0] * outs[1]:
        raise ValueError(f"{op}: X has {L} blocks but output_sizes {o} with kernel {k}, strides {s}, "
                         f"paddings {p}, dilations {d} give {outs[0]} x {outs[1]} = {outs[0] * outs[1]}")
    return o, k, s, p, d, outs


def _fold(x, output_sizes=(), kernel_sizes=(), strides=(), paddings=(), dilations=()):
    o, k, s, p, d, outs = _fold_plan("fold", x.shape, output_sizes, kernel_sizes, strides, paddings, dilations)
    return _fold_array(x, o[0], o[1], k, s, p, d, outs)


def _fold_meta(x, output_sizes=(), kernel_sizes=(), strides=(), paddings=(), dilations=(), **_):
    o, k, *_rest = _fold_plan("fold", x.shape, output_sizes, kernel_sizes, strides, paddings, dilations)
    C = x.shape[1]
    return Meta((x.shape[0], -1 if C < 0 else C // (k[0] * k[1]), o[0], o[1]), x.dtype)


def _fold_grad(x, dy, output_sizes=(), kernel_sizes=(), strides=(), paddings=(), dilations=()):
    o, k, s, p, d, outs = _fold_plan("fold_grad", x.shape, output_sizes, kernel_sizes, strides, paddings, dilations)
    return _unfold_array(dy, k, s, p, d, outs)


register("unfold", ["X"], ["Y"], _ATTRS, kernel=_unfold, infer_meta=_unfold_meta)
register("fold", ["X"], ["Y"], _FOLD_ATTRS, kernel=_fold, infer_meta=_fold_meta)

grad_op("unfold", ["X", "Y@GRAD"], ["X@GRAD"], _unfold_grad)
grad_op("fold", ["X", "Y@GRAD"], ["X@GRAD"], _fold_grad)
