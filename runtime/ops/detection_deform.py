"""Deformable convolution (DCN v1/v2): deformable_conv (with a modulation Mask) and deformable_conv_v1.

Each kernel tap (i, j) of output position (ho, wo) samples the input bilinearly at
``(ho * sh - ph + i * dh + dy, wo * sw - pw + j * dw + dx)`` with (dy, dx) from Offset (channels
``g * 2K + 2 * (i * kw + j)`` and ``+ 1`` for deformable group g, K = kh * kw), scales it by Mask
(channel ``g * K + i * kw + j``), and the sampled columns are multiplied by Filter per group, as
Paddle's im2col kernels do. A sample at or beyond one pixel outside the image is 0; corners outside
the image count 0. The grad kernel differentiates this exactly (input, offset, mask and filter).
Mask is a required slot, as in Paddle's proto: eager calls may leave it out (None, plain DCN v1), while a
Program records deformable_conv_v1 instead.
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, grad_op, lookup, register


def _out_size(size, k, s, p, d):
    return (size + 2 * p - (d * (k - 1) + 1)) // s + 1


def _check(op, x, offset, filt, mask, strides, paddings, dilations, dg, groups):
    if x.ndim != 4 or filt.ndim != 4:
        raise ValueError(f"{op}: Input and Filter must be 4-D, got shapes {list(x.shape)} and {list(filt.shape)}")
    n, c, h, w = x.shape
    m, cg, kh, kw = filt.shape
    if c != cg * groups:
        raise ValueError(f"{op}: Input has {c} channels but Filter expects {cg} x groups {groups} = {cg * groups}")
    if m % groups:
        raise ValueError(f"{op}: the number of filters ({m}) must be divisible by groups ({groups})")
    if c % dg:
        raise ValueError(f"{op}: Input channels ({c}) must be divisible by deformable_groups ({dg})")
    ho = _out_size(h, kh, strides[0], paddings[0], dilations[0])
    wo = _out_size(w, kw, strides[1], paddings[1], dilations[1])
    want = (n, dg * 2 * kh * kw, ho, wo)
    if tuple(offset.shape) != want:
        raise ValueError(f"{op}: Offset must have shape {list(want)} (N, deformable_groups * 2 * kh * kw, out_h, "
                         f"out_w), got {list(offset.shape)}")
    if mask is not None and tuple(mask.shape) != (n, dg * kh * kw, ho, wo):
        raise ValueError(f"{op}: Mask must have shape {[n, dg * kh * kw, ho, wo]}, got {list(mask.shape)}")
    return n, c, h, w, m, kh, kw, ho, wo


def _sampling(x, offset, kh, kw, ho, wo, strides, paddings, dilations, dg):
    """Sample coordinates and the four bilinear corners: index [N, dg, K*L], weight, validity each."""
    n, c, h, w = x.shape
    dtype = x.dtype
    k = kh * kw
    off = offset.reshape(n, dg, k, 2, ho, wo).astype(dtype, copy=False)
    ki, kj = np.divmod(np.arange(k), kw)
    base_h = (np.arange(ho) * strides[0] - paddings[0])[None, :, None] + (ki * dilations[0])[:, None, None]
    base_w = (np.arange(wo) * strides[1] - paddings[1])[None, None, :] + (kj * dilations[1])[:, None, None]
    ph = base_h.astype(dtype) + off[:, :, :, 0]                  # [N, dg, K, Ho, Wo]
    pw = base_w.astype(dtype) + off[:, :, :, 1]
    inside = (ph > -1) & (pw > -1) & (ph < h) & (pw < w)
    h0 = np.floor(ph)
    w0 = np.floor(pw)
    lh, lw = ph - h0, pw - w0
    h0, w0 = h0.astype(np.int64), w0.astype(np.int64)
    corners = []
    for dh_, dw_, wt, d_h, d_w in ((0, 0, (1 - lh) * (1 - lw), -(1 - lw), -(1 - lh)),
                                   (0, 1, (1 - lh) * lw, -lw, (1 - lh)),
                                   (1, 0, lh * (1 - lw), (1 - lw), -lh),
                                   (1, 1, lh * lw, lw, lh)):
        hh, ww = h0 + dh_, w0 + dw_
        ok = inside & (hh >= 0) & (hh <= h - 1) & (ww >= 0) & (ww <= w - 1)
        idx = np.where(ok, hh * w + ww, 0).reshape(n, dg, -1)
        corners.append((idx, ok.reshape(n, dg, -1), wt.reshape(n, dg, -1), d_h.reshape(n, dg, -1),
                        d_w.reshape(n, dg, -1)))
    return corners


def _gather(xg, idx, ok):
    """Corner values [N, dg, Cg, K*L] of the input grouped [N, dg, Cg, H*W] (0 outside the image)."""
    v = np.take_along_axis(xg, idx[:, :, None, :], axis=3)
    return np.where(ok[:, :, None, :], v, 0)


def _columns(x, offset, mask, kh, kw, ho, wo, strides, paddings, dilations, dg):
    n, c, h, w = x.shape
    corners = _sampling(x, offset, kh, kw, ho, wo, strides, paddings, dilations, dg)
    xg = x.reshape(n, dg, c // dg, h * w)
    val = sum(_gather(xg, idx, ok) * wt[:, :, None, :] for idx, ok, wt, _, _ in corners)
    modulated = val if mask is None else val * mask.reshape(n, dg, 1, -1)
    return corners, val, modulated.reshape(n, c, kh * kw, ho * wo)


def _deformable_conv(x, offset, filt, mask=None, strides=(1, 1), paddings=(0, 0), dilations=(1, 1),
                     deformable_groups=1, groups=1, im2col_step=64):
    n, c, h, w, m, kh, kw, ho, wo = _check("deformable_conv", x, offset, filt, mask, strides, paddings, dilations,
                                           deformable_groups, groups)
    _, _, col = _columns(x, offset, mask, kh, kw, ho, wo, strides, paddings, dilations, deformable_groups)
    colg = col.reshape(n, groups, (c // groups) * kh * kw, ho * wo)
    fg = filt.reshape(groups, m // groups, -1)
    out = np.einsum("gmk,ngkl->ngml", fg, colg, optimize=True)
    return out.reshape(n, m, ho, wo).astype(x.dtype, copy=False)


def _deformable_conv_grad(x, offset, filt, mask, dout, strides=(1, 1), paddings=(0, 0), dilations=(1, 1),
                          deformable_groups=1, groups=1, im2col_step=64):
    dg = deformable_groups
    n, c, h, w, m, kh, kw, ho, wo = _check("deformable_conv_grad", x, offset, filt, mask, strides, paddings,
                                           dilations, dg, groups)
    k, hw = kh * kw, h * w
    corners, val, col = _columns(x, offset, mask, kh, kw, ho, wo, strides, paddings, dilations, dg)
    dog = dout.reshape(n, groups, m // groups, ho * wo)
    fg = filt.reshape(groups, m // groups, -1)
    dfilt = np.einsum("ngml,ngkl->gmk", dog, col.reshape(n, groups, -1, ho * wo), optimize=True).reshape(filt.shape)
    dcol = np.einsum("gmk,ngml->ngkl", fg, dog, optimize=True).reshape(n, dg, c // dg, -1)   # d(modulated)
    mk = np.ones((n, dg, 1, k * ho * wo), x.dtype) if mask is None else mask.reshape(n, dg, 1, -1)
    dval = dcol * mk
    dmask = None if mask is None else (dcol * val).sum(axis=2).reshape(mask.shape)
    xg = x.reshape(n, dg, c // dg, hw)
    dx = np.zeros(n * c * hw, dtype=np.float64)
    chan_base = (np.arange(n * c) * hw).reshape(n, dg, c // dg, 1)
    d_h = np.zeros((n, dg, k * ho * wo), x.dtype)
    d_w = np.zeros_like(d_h)
    for idx, ok, wt, wh, ww in corners:
        contrib = np.where(ok[:, :, None, :], dval * wt[:, :, None, :], 0)
        dx += np.bincount((chan_base + idx[:, :, None, :]).reshape(-1), weights=contrib.reshape(-1),
                          minlength=dx.size)
        v = (_gather(xg, idx, ok) * dval).sum(axis=2)
        d_h += v * wh
        d_w += v * ww
    doff = np.stack([d_h.reshape(n, dg, k, ho, wo), d_w.reshape(n, dg, k, ho, wo)], axis=3).reshape(offset.shape)
    return (dx.reshape(x.shape).astype(x.dtype), doff.astype(x.dtype, copy=False), dfilt.astype(x.dtype, copy=False),
            dmask)


def _deformable_conv_meta(x, offset, filt, mask=None, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), **_):
    n, c, h, w = x.shape
    m, _, kh, kw = filt.shape
    ho = -1 if h < 0 else _out_size(h, kh, strides[0], paddings[0], dilations[0])
    wo = -1 if w < 0 else _out_size(w, kw, strides[1], paddings[1], dilations[1])
    return Meta((n, m, ho, wo), x.dtype)


def _grad_meta(x, offset, filt, mask, dout, **_):
    return x, offset, filt, mask


_ATTRS = {"strides": ("INTS", [1, 1]), "paddings": ("INTS", [0, 0]), "dilations": ("INTS", [1, 1]),
          "deformable_groups": ("INT", 1), "groups": ("INT", 1), "im2col_step": ("INT", 64)}
register("deformable_conv", ["Input", "Offset", "Filter", "Mask"], ["Output"], _ATTRS, kernel=_deformable_conv,
         infer_meta=_deformable_conv_meta)
grad_op("deformable_conv", ["Input", "Offset", "Filter", "Mask", "Output@GRAD"],
        ["Input@GRAD", "Offset@GRAD", "Filter@GRAD", "Mask@GRAD"], _deformable_conv_grad, infer_meta=_grad_meta)


def _deformable_conv_v1(x, offset, filt, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
                        deformable_groups=1, im2col_step=64):
    return _deformable_conv(x, offset, filt, None, strides, paddings, dilations, deformable_groups, groups)


def _deformable_conv_v1_grad(x, offset, filt, dout, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
                             deformable_groups=1, im2col_step=64):
    return _deformable_conv_grad(x, offset, filt, None, dout, strides, paddings, dilations, deformable_groups,
                                 groups)[:3]


_V1_ATTRS = {"strides": ("INTS", [1, 1]), "paddings": ("INTS", [0, 0]), "dilations": ("INTS", [1, 1]),
             "groups": ("INT", 1), "deformable_groups": ("INT", 1), "im2col_step": ("INT", 64)}
register("deformable_conv_v1", ["Input", "Offset", "Filter"], ["Output"], _V1_ATTRS, kernel=_deformable_conv_v1,
         infer_meta=lambda x, offset, filt, **a: _deformable_conv_meta(x, offset, filt, None, **a))
grad_op("deformable_conv_v1", ["Input", "Offset", "Filter", "Output@GRAD"],
        ["Input@GRAD", "Offset@GRAD", "Filter@GRAD"], _deformable_conv_v1_grad)

# their column products are GEMMs: eager dispatch applies the BLAS thread policy first (blas_threads.py)
for _op in ("deformable_conv", "deformable_conv_grad", "deformable_conv_v1", "deformable_conv_v1_grad"):
    lookup(_op).blas = True
