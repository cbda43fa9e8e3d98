"""Region-of-interest pooling ops of paddle.vision.ops: roi_align, roi_pool, psroi_pool and their grads.

Each RoI ``[x1, y1, x2, y2]`` belongs to the image its position in ``RoisNum`` gives (rois of image 0
first). Every output is a fixed linear (align, psroi) or selection (pool) function of X, so each
grad kernel scatters the output grad back through the same sampling plan the forward used.
Arithmetic follows Paddle's CPU kernels step by step, in the input's dtype (roi_pool's bin sizes in
float32, as Paddle computes them), so bin edges and sample counts land where Paddle's do.
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, grad_op, register


def _f32(v):
    """A FLOAT attribute as Paddle's kernels see it: stored as float32, then widened."""
    return float(np.float32(v))


def _c_round(v):
    """C's round(): halves away from zero (numpy rounds halves to even)."""
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def _batch_ids(op, x_shape, rois, rois_num):
    """The image index of every RoI, checked against X's batch size."""
    if rois.ndim != 2 or rois.shape[1] != 4:
        raise ValueError(f"{op}: ROIs (boxes) must have shape [num_rois, 4], got {list(rois.shape)}")
    if len(x_shape) != 4:
        raise ValueError(f"{op}: X must be 4-D [N, C, H, W], got shape {list(x_shape)}")
    n_rois, batch = rois.shape[0], x_shape[0]
    if rois_num is None:
        if batch != 1:
            raise ValueError(f"{op}: without RoisNum (boxes_num) every RoI belongs to image 0, so X must have "
                             f"batch size 1, got {batch}; pass boxes_num")
        return np.zeros(n_rois, dtype=np.int64)
    counts = np.asarray(rois_num).reshape(-1).astype(np.int64)
    if counts.size != batch:
        raise ValueError(f"{op}: the batch size of rois and the batch size of images must be the same, but "
                         f"boxes_num has {counts.size} entries and X has batch size {batch}")
    if counts.sum() != n_rois or (counts < 0).any():
        raise ValueError(f"{op}: boxes_num {counts.tolist()} must add up to the number of boxes {n_rois}")
    return np.repeat(np.arange(batch), counts)


def _roi_meta(op, channels_of):
    def meta(x, rois, rois_num=None, pooled_height=1, pooled_width=1, **attrs):
        if len(x.shape) != 4:
            raise ValueError(f"{op}: X must be 4-D [N, C, H, W], got shape {list(x.shape)}")
        if len(rois.shape) != 2 or rois.shape[1] not in (4, -1):
            raise ValueError(f"{op}: ROIs (boxes) must have shape [num_rois, 4], got {list(rois.shape)}")
        c = channels_of(x.shape[1], pooled_height, pooled_width, attrs)
        if op == "psroi_pool" and c <= 1:
            raise ValueError(f"{op}: the pooled output channels must be greater than 1, got {c}")
        return Meta((rois.shape[0], c, pooled_height, pooled_width), x.dtype)
    return meta


# ---------------------------------------------------------------- roi_align


def _align_plan(rois, batch_ids, h, w, ph, pw, spatial_scale, sampling_ratio, aligned, dtype):
    """Per RoI: (image, flat input positions [ph*pw, S*4], weights [ph*pw, S*4]) for the bilinear samples."""
    T = dtype.type
    offset = T(0.5) if aligned else T(0)
    plans = []
    for r in range(rois.shape[0]):
        x1, y1, x2, y2 = (rois[r].astype(dtype) * T(_f32(spatial_scale)) - offset)
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, T(1)), max(rh, T(1))
        gh = sampling_ratio if sampling_ratio > 0 else int(np.ceil(rh / T(ph)))
        gw = sampling_ratio if sampling_ratio > 0 else int(np.ceil(rw / T(pw)))
        bin_h, bin_w = rh / T(ph), rw / T(pw)
        # sample coordinates in Paddle's order: py, px, iy, ix
        fy = (np.arange(gh, dtype=dtype) + T(0.5)) / T(gh) if gh > 0 else np.zeros(0, dtype)
        fx = (np.arange(gw, dtype=dtype) + T(0.5)) / T(gw) if gw > 0 else np.zeros(0, dtype)
        ys = y1 + bin_h * (np.arange(ph, dtype=dtype)[:, None] + fy[None, :])      # [ph, gh]
        xs = x1 + bin_w * (np.arange(pw, dtype=dtype)[:, None] + fx[None, :])      # [pw, gw]
        y = np.broadcast_to(ys[:, None, :, None], (ph, pw, gh, gw)).reshape(ph * pw, gh * gw)
        x = np.broadcast_to(xs[None, :, None, :], (ph, pw, gh, gw)).reshape(ph * pw, gh * gw)
        outside = (y < -1.0) | (y > h) | (x < -1.0) | (x > w)
        y = np.maximum(y, T(0))
        x = np.maximum(x, T(0))
        y_lo = y.astype(np.int64)
        x_lo = x.astype(np.int64)
        y_edge, x_edge = y_lo >= h - 1, x_lo >= w - 1
        y_lo = np.where(y_edge, h - 1, y_lo)
        x_lo = np.where(x_edge, w - 1, x_lo)
        y = np.where(y_edge, y_lo.astype(dtype), y)
        x = np.where(x_edge, x_lo.astype(dtype), x)
        y_hi = np.where(y_edge, y_lo, y_lo + 1)
        x_hi = np.where(x_edge, x_lo, x_lo + 1)
        ry = (y_hi - y).astype(dtype)   # weight of the low row
        rx = (x_hi - x).astype(dtype)
        idx = np.stack([y_lo * w + x_lo, y_hi * w + x_lo, y_lo * w + x_hi, y_hi * w + x_hi], axis=-1)
        wts = np.stack([rx * ry, rx * (T(1) - ry), (T(1) - rx) * ry, (T(1) - rx) * (T(1) - ry)], axis=-1)
        wts = np.where(outside[..., None], T(0), wts)
        idx = np.where(outside[..., None], 0, idx)
        count = gh * gw
        scale = T(1.0 / count) if count > 0 else T(0)
        plans.append((batch_ids[r], idx.reshape(ph * pw, -1), (wts * scale).reshape(ph * pw, -1).astype(dtype)))
    return plans


def _roi_align(x, rois, rois_num=None, pooled_height=1, pooled_width=1, spatial_scale=1.0, sampling_ratio=-1,
               aligned=False):
    ids = _batch_ids("roi_align", x.shape, rois, rois_num)
    n, c, h, w = x.shape
    out = np.zeros((rois.shape[0], c, pooled_height, pooled_width), dtype=x.dtype)
    for r, (b, idx, wts) in enumerate(_align_plan(rois, ids, h, w, pooled_height, pooled_width, spatial_scale,
                                                  sampling_ratio, aligned, x.dtype)):
        vals = x[b].reshape(c, h * w)[:, idx]                    # [C, P, S*4]
        out[r] = np.einsum("cps,ps->cp", vals, wts).reshape(c, pooled_height, pooled_width)
    return out


def _roi_align_grad(x, rois, rois_num, dout, pooled_height=1, pooled_width=1, spatial_scale=1.0,
                    sampling_ratio=-1, aligned=False):
    ids = _batch_ids("roi_align_grad", x.shape, rois, rois_num)
    n, c, h, w = x.shape
    dx = np.zeros((n, c, h * w), dtype=x.dtype)
    p = pooled_height * pooled_width
    for r, (b, idx, wts) in enumerate(_align_plan(rois, ids, h, w, pooled_height, pooled_width, spatial_scale,
                                                  sampling_ratio, aligned, x.dtype)):
        # the RoI's bins as a dense [P, K] matrix over the K distinct pixels it touches: one matmul
        # per RoI instead of a scatter of every sample
        pix, inv = np.unique(idx, return_inverse=True)
        rows = np.repeat(np.arange(p), idx.shape[1])
        m = np.bincount(rows * pix.size + inv.reshape(-1), weights=wts.reshape(-1),
                        minlength=p * pix.size).reshape(p, pix.size).astype(x.dtype)
        dx[b][:, pix] += dout[r].reshape(c, p).astype(x.dtype, copy=False) @ m
    return dx.reshape(x.shape)


_ALIGN_ATTRS = {"pooled_height": ("INT", 1), "pooled_width": ("INT", 1), "spatial_scale": ("FLOAT", 1.0),
                "sampling_ratio": ("INT", -1), "aligned": ("BOOLEAN", False)}
register("roi_align", ["X", "ROIs", "RoisNum?"], ["Out"], _ALIGN_ATTRS, kernel=_roi_align,
         infer_meta=_roi_meta("roi_align", lambda c, ph, pw, a: c), differentiable=("X",))
grad_op("roi_align", ["X", "ROIs", "RoisNum", "Out@GRAD"], ["X@GRAD"], _roi_align_grad).blas = True  # a GEMM per RoI


# ---------------------------------------------------------------- roi_pool


def _pool_argmax(x, rois, rois_num, ph, pw, spatial_scale):
    """Out and the flat argmax (-1 for an empty bin) of every RoI bin, as Paddle's loop finds them."""
    ids = _batch_ids("roi_pool", x.shape, rois, rois_num)
    n, c, h, w = x.shape
    out = np.zeros((rois.shape[0], c, ph * pw), dtype=x.dtype)
    arg = np.full((rois.shape[0], c, ph * pw), -1, dtype=np.int64)
    f32 = np.float32
    for r in range(rois.shape[0]):
        sw, sh, ew, eh = (int(v) for v in _c_round(rois[r] * x.dtype.type(_f32(spatial_scale))))
        bh = f32(max(eh - sh + 1, 1)) / f32(ph)
        bw = f32(max(ew - sw + 1, 1)) / f32(pw)
        hs = np.clip(np.floor(np.arange(ph, dtype=f32) * bh).astype(np.int64) + sh, 0, h)
        he = np.clip(np.ceil(np.arange(1, ph + 1, dtype=f32) * bh).astype(np.int64) + sh, 0, h)
        ws = np.clip(np.floor(np.arange(pw, dtype=f32) * bw).astype(np.int64) + sw, 0, w)
        we = np.clip(np.ceil(np.arange(1, pw + 1, dtype=f32) * bw).astype(np.int64) + sw, 0, w)
        kh, kw = max(int((he - hs).max()), 1), max(int((we - ws).max()), 1)
        # every bin's window padded to kh x kw candidates, in row-major scan order; padding is masked
        rr = hs[:, None] + np.arange(kh)[None, :]                  # [ph, kh]
        cc = ws[:, None] + np.arange(kw)[None, :]                  # [pw, kw]
        ok = (rr < he[:, None])[:, None, :, None] & (cc < we[:, None])[None, :, None, :]   # [ph, pw, kh, kw]
        cand = (np.minimum(rr, h - 1)[:, None, :, None] * w + np.minimum(cc, w - 1)[None, :, None, :])
        cand = np.broadcast_to(cand, ok.shape).reshape(ph * pw, kh * kw)
        ok = ok.reshape(ph * pw, kh * kw)
        vals = x[ids[r]].reshape(c, h * w)[:, cand]                # [C, P, kh*kw]
        vals = np.where(ok[None], vals, -np.inf)
        k = np.argmax(vals, axis=2)                                # first maximum, like the strict > scan
        empty = ~ok.any(axis=1)
        best = np.take_along_axis(cand[None].repeat(c, 0), k[..., None], axis=2)[..., 0]
        out[r] = np.where(empty[None], 0, np.take_along_axis(vals, k[..., None], axis=2)[..., 0])
        arg[r] = np.where(empty[None], -1, best)
    return out.reshape(-1, c, ph, pw), arg.reshape(-1, c, ph, pw)


def _roi_pool(x, rois, rois_num=None, pooled_height=1, pooled_width=1, spatial_scale=1.0):
    return _pool_argmax(x, rois, rois_num, pooled_height, pooled_width, spatial_scale)[0]


def _roi_pool_grad(x, rois, rois_num, dout, pooled_height=1, pooled_width=1, spatial_scale=1.0):
    _, arg = _pool_argmax(x, rois, rois_num, pooled_height, pooled_width, spatial_scale)
    ids = _batch_ids("roi_pool_grad", x.shape, rois, rois_num)
    n, c, h, w = x.shape
    a = arg.reshape(rois.shape[0], c, -1)
    valid = a >= 0
    # flat position in X of each bin's maximum: ((image * C) + channel) * H*W + argmax
    flat = (ids[:, None, None] * c + np.arange(c)[None, :, None]) * (h * w) + a
    dx = np.bincount(flat[valid], weights=dout.reshape(a.shape)[valid], minlength=x.size)
    return dx.reshape(x.shape).astype(x.dtype)


def _roi_pool_meta(x, rois, rois_num=None, pooled_height=1, pooled_width=1, **attrs):
    out = _roi_meta("roi_pool", lambda c, ph, pw, a: c)(x, rois, rois_num, pooled_height, pooled_width)
    return out, Meta(out.shape, np.dtype(np.int64))


register("roi_pool", ["X", "ROIs", "RoisNum?"], ["Out", "Argmax(intermediate)"],
         {"pooled_height": ("INT", 1), "pooled_width": ("INT", 1), "spatial_scale": ("FLOAT", 1.0)},
         kernel=_roi_pool, infer_meta=_roi_pool_meta, differentiable=("X",))
grad_op("roi_pool", ["X", "ROIs", "RoisNum", "Out@GRAD"], ["X@GRAD"], _roi_pool_grad)


# ---------------------------------------------------------------- psroi_pool


def _psroi_plan(x_shape, rois, rois_num, ph, pw, oc, spatial_scale, dtype):
    """Per (roi, bin): image, the [hs, he) x [ws, we) window; position-sensitive channel = (c*ph+i)*pw+j."""
    op = "psroi_pool"
    ids = _batch_ids(op, x_shape, rois, rois_num)
    n, c, h, w = x_shape
    if oc <= 1:
        raise ValueError(f"{op}: the pooled output channels must be greater than 1, got {oc} (X has {c} channels for "
                         f"{ph} x {pw} bins)")
    if c != oc * ph * pw:
        raise ValueError(f"{op}: the channels of input X ({c}) should equal output_channels x pooled_height x "
                         f"pooled_width ({oc} x {ph} x {pw} = {oc * ph * pw})")
    T = dtype.type
    scale = T(_f32(spatial_scale))
    plans = []
    for r in range(rois.shape[0]):
        rr = _c_round(rois[r].astype(dtype))
        sw, sh = rr[0] * scale, rr[1] * scale
        ew, eh = (rr[2] + T(1)) * scale, (rr[3] + T(1)) * scale
        bh = max(eh - sh, T(0.1)) / T(ph)
        bw = max(ew - sw, T(0.1)) / T(pw)
        bins = []
        for i in range(ph):
            hs = min(max(int(np.floor(T(i) * bh + sh)), 0), h)
            he = min(max(int(np.ceil(T(i + 1) * bh + sh)), 0), h)
            for j in range(pw):
                ws = min(max(int(np.floor(T(j) * bw + sw)), 0), w)
                we = min(max(int(np.ceil(T(j + 1) * bw + sw)), 0), w)
                bins.append((i, j, hs, he, ws, we))
        plans.append((ids[r], bins))
    return plans


def _psroi_pool(x, rois, rois_num=None, pooled_height=1, pooled_width=1, output_channels=1, spatial_scale=1.0):
    ph, pw, oc = pooled_height, pooled_width, output_channels
    out = np.zeros((rois.shape[0], oc, ph, pw), dtype=x.dtype)
    chan = np.arange(oc) * ph * pw
    for r, (b, bins) in enumerate(_psroi_plan(x.shape, rois, rois_num, ph, pw, oc, spatial_scale, x.dtype)):
        for i, j, hs, he, ws, we in bins:
            if he <= hs or we <= ws:
                continue
            win = x[b, chan + i * pw + j, hs:he, ws:we]
            out[r, :, i, j] = win.sum(axis=(1, 2)) / x.dtype.type((he - hs) * (we - ws))
    return out


def _psroi_pool_grad(x, rois, rois_num, dout, pooled_height=1, pooled_width=1, output_channels=1,
                     spatial_scale=1.0):
    ph, pw, oc = pooled_height, pooled_width, output_channels
    dx = np.zeros(x.shape, dtype=x.dtype)
    chan = np.arange(oc) * ph * pw
    for r, (b, bins) in enumerate(_psroi_plan(x.shape, rois, rois_num, ph, pw, oc, spatial_scale, x.dtype)):
        for i, j, hs, he, ws, we in bins:
            if he <= hs or we <= ws:
                continue
            area = x.dtype.type((he - hs) * (we - ws))
            dx[b, chan + i * pw + j, hs:he, ws:we] += (dout[r, :, i, j] / area)[:, None, None]
    return dx


register("psroi_pool", ["X", "ROIs", "RoisNum?"], ["Out"],
         {"pooled_height": ("INT", 1), "pooled_width": ("INT", 1), "output_channels": ("INT", 1),
          "spatial_scale": ("FLOAT", 1.0)},
         kernel=_psroi_pool, infer_meta=_roi_meta("psroi_pool", lambda c, ph, pw, a: a.get("output_channels", 1)),
         differentiable=("X",))
grad_op("psroi_pool", ["X", "ROIs", "RoisNum", "Out@GRAD"], ["X@GRAD"], _psroi_pool_grad)
