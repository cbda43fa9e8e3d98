"""Pooling ops: pool2d (max/avg, ceil_mode, exclusive, global, adaptive, SAME/VALID, NHWC) and
max_pool2d_with_index, with their grads.

Window geometry follows Paddle's CPU kernel: a window starts at ``i*stride - pad_before`` and
ends at ``min(start + k, size + pad_before)`` (the *leading* pad bounds the end); a non-exclusive
average divides by ``end - start``, an exclusive one by the number of input elements covered.
A window holding no input gives -FLT_MAX (max, mask -1) or 0/0 (exclusive avg), as Paddle does.
Regular windows are computed as kh*kw strided slices of one padded canvas; adaptive bins
(``floor(i*H/out)`` .. ``ceil((i+1)*H/out)``) use averaging matrices or a loop over bins.
"""
from __future__ import annotations

import numpy as np

from .conv import pads4, same_pads
from .registry import Meta, grad_op, register

_POOL_ATTRS = {
    "ksize": ("INTS", []),
    "strides": ("INTS", [1, 1]),
    "paddings": ("INTS", [0, 0]),
    "ceil_mode": ("BOOLEAN", False),
    "exclusive": ("BOOLEAN", True),
    "data_format": ("STRING", "NCHW"),
    "pooling_type": ("STRING", ""),
    "global_pooling": ("BOOLEAN", False),
    "adaptive": ("BOOLEAN", False),
    "padding_algorithm": ("STRING", "EXPLICIT"),
    "use_cudnn": ("BOOLEAN", False),
}
_INDEX_ATTRS = {
    "ksize": ("INTS", []),
    "strides": ("INTS", [1, 1]),
    "paddings": ("INTS", [0, 0]),
    "global_pooling": ("BOOLEAN", False),
    "adaptive": ("BOOLEAN", False),
    "ceil_mode": ("BOOLEAN", False),
}


class _Geom:
    """Resolved pooling geometry for one call (sizes known)."""
    __slots__ = ("H", "W", "k", "s", "pads", "oh", "ow", "adaptive", "derived")

    def __init__(self, H, W, ksize, strides, paddings, ceil_mode, global_pooling, adaptive, algorithm):
        if ksize is None or len(ksize) != 2:
            raise ValueError(f"pool2d: ksize must have 2 values, got {ksize!r}")
        self.H, self.W = H, W
        self.derived = {}   # per-geometry constants computed on first use (divisors ...)
        k = [int(v) for v in ksize]
        s = [int(v) for v in strides]
        algorithm = (algorithm or "EXPLICIT").upper()
        if global_pooling:
            k, pads, adaptive = [H, W], [0, 0, 0, 0], False
        elif adaptive:
            pads = [0, 0, 0, 0]
        elif algorithm == "SAME":
            pads = list(same_pads(H, k[0], s[0]) + same_pads(W, k[1], s[1]))
        elif algorithm == "VALID":
            pads = [0, 0, 0, 0]
        else:
            pads = pads4(paddings)
        self.k, self.s, self.pads, self.adaptive = k, s, pads, adaptive
        if adaptive:
            self.oh, self.ow = k
        else:
            self.oh = pool_out(H, k[0], s[0], pads[0], pads[1], ceil_mode)
            self.ow = pool_out(W, k[1], s[1], pads[2], pads[3], ceil_mode)
        if (H >= 0 and self.oh <= 0) or (W >= 0 and self.ow <= 0):
            raise ValueError(f"pool2d: output size {[self.oh, self.ow]} is not positive for input {[H, W]}, "
                             f"ksize {k}, strides {s}, paddings {pads}")

    def bounds(self, axis):
        """Per-output (start, end) of the windows along ``axis`` (0: H, 1: W), Paddle's rule."""
        size, k, s, p = (self.H, self.k[0], self.s[0], self.pads[0]) if axis == 0 else \
            (self.W, self.k[1], self.s[1], self.pads[2])
        n = self.oh if axis == 0 else self.ow
        if self.adaptive:
            i = np.arange(n)
            return (i * size) // n, -((-(i + 1) * size) // n)
        start = np.arange(n) * s - p
        return start, np.minimum(start + k, size + p)

    def canvas_hw(self):
        """Size of a canvas, origin at (-pad_top, -pad_left), that holds the input and every window."""
        return (max((self.oh - 1) * self.s[0] + self.k[0], self.pads[0] + self.H),
                max((self.ow - 1) * self.s[1] + self.k[1], self.pads[2] + self.W))

    def canvas(self, x, fill):
        """``x`` placed at (pad_top, pad_left) of a ``fill`` canvas covering every window."""
        N, C, H, W = x.shape
        pt, pl = self.pads[0], self.pads[2]
        ch, cw = self.canvas_hw()
        if (ch, cw) == (H, W) and pt == 0 and pl == 0:
            return x
        out = np.full((N, C, ch, cw), fill, dtype=x.dtype)
        out[:, :, pt:pt + H, pl:pl + W] = x
        return out

    def window(self, canvas, i, j):
        """The (N, C, oh, ow) slice of ``canvas`` at kernel offset (i, j)."""
        sh, sw = self.s
        return canvas[:, :, i:i + sh * (self.oh - 1) + 1:sh, j:j + sw * (self.ow - 1) + 1:sw]

    def crop(self, canvas):
        pt, pl = self.pads[0], self.pads[2]
        return canvas[:, :, pt:pt + self.H, pl:pl + self.W]


def pool_out(size, k, s, p0, p1, ceil_mode):
    if size < 0:
        return -1
    return (size - k + p0 + p1 + (s - 1 if ceil_mode else 0)) // s + 1


def _lowest(dtype):
    # Paddle fills empty max windows with -FLT_MAX whatever the float dtype
    return -np.finfo(np.float32).max if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min


def _neg_inf(dtype):
    return -np.inf if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min


def _avg_divisor(g, exclusive, dtype):
    key = ("div", bool(exclusive), np.dtype(dtype))
    d = g.derived.get(key)
    if d is None:
        d = g.derived[key] = _avg_divisor_raw(g, exclusive).astype(dtype)
        d.flags.writeable = False
    return d


def _avg_divisor_raw(g, exclusive):
    hs, he = g.bounds(0)
    ws, we = g.bounds(1)
    if exclusive or g.adaptive:
        ch = np.minimum(he, g.H) - np.maximum(hs, 0)
        cw = np.minimum(we, g.W) - np.maximum(ws, 0)
    else:
        ch, cw = he - hs, we - ws
    return np.multiply.outer(ch, cw)


def _adaptive_matrix(g, axis, dtype):
    """(out, in) averaging matrix of the adaptive bins along ``axis``."""
    start, end = g.bounds(axis)
    size = g.H if axis == 0 else g.W
    pos = np.arange(size)
    inside = (pos[None, :] >= start[:, None]) & (pos[None, :] < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _nchw(x, data_format):
    if data_format not in ("NCHW", "NHWC", "AnyLayout"):
        raise ValueError(f"pool2d: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    return x.transpose(0, 3, 1, 2) if data_format == "NHWC" else x


def _back(out, data_format):
    return np.ascontiguousarray(out.transpose(0, 2, 3, 1)) if data_format == "NHWC" else out


_GEOM_CACHE = {}
_GEOM_CACHE_MAX = 256


def _geom(x, ksize, strides, paddings, ceil_mode, global_pooling, adaptive, padding_algorithm):
    """The call's geometry, cached by every input that shapes it: building it (and its window
    bounds and divisors) costs as much as pooling a batch-1 LeNet feature map."""
    H, W = x.shape[2], x.shape[3]
    try:
        key = (H, W, tuple(ksize), tuple(strides), tuple(paddings), bool(ceil_mode), bool(global_pooling),
               bool(adaptive), padding_algorithm)
    except TypeError:   # ksize None or not iterable: let _Geom raise its error
        key = None
    g = _GEOM_CACHE.get(key) if key is not None else None
    if g is None:
        g = _Geom(H, W, ksize, strides, paddings, ceil_mode, global_pooling, adaptive, padding_algorithm)
        if key is not None:
            if len(_GEOM_CACHE) >= _GEOM_CACHE_MAX:
                _GEOM_CACHE.clear()
            _GEOM_CACHE[key] = g
    return g


def _has_empty_window(g):
    """Whether some window covers no input element (cached on the geometry)."""
    v = g.derived.get("empty")
    if v is None:
        hs, he = g.bounds(0)
        ws, we = g.bounds(1)
        v = g.derived["empty"] = bool(np.any(np.minimum(he, g.H) <= np.maximum(hs, 0)) or
                                      np.any(np.minimum(we, g.W) <= np.maximum(ws, 0)))
    return v


def _tiled(g):
    """Windows tile the input exactly (stride == ksize, no padding, sizes divisible)."""
    return (not g.adaptive and g.k == g.s and g.pads == [0, 0, 0, 0]
            and g.oh * g.k[0] == g.H and g.ow * g.k[1] == g.W)


def _max_forward(x, g, with_index=False):
    """Max over each window (first maximum wins); optionally the flat input index of it."""
    N, C = x.shape[:2]
    if g.adaptive:
        hs, he = g.bounds(0)
        ws, we = g.bounds(1)
        out = np.empty((N, C, g.oh, g.ow), dtype=x.dtype)
        idx = np.empty((N, C, g.oh, g.ow), dtype=np.int32) if with_index else None
        for i in range(g.oh):
            for j in range(g.ow):
                win = x[:, :, hs[i]:he[i], ws[j]:we[j]]
                out[:, :, i, j] = win.max(axis=(2, 3))
                if with_index:
                    a = win.reshape(N, C, -1).argmax(axis=2)
                    bw = we[j] - ws[j]
                    idx[:, :, i, j] = (hs[i] + a // bw) * g.W + ws[j] + a % bw
        return out, idx
    if not with_index and g.k == [2, 2] and _tiled(g):
        return _max_2x2_tiled(x), None
    canvas = g.canvas(x, _neg_inf(x.dtype))
    kh, kw = g.k
    out = idx = None
    if with_index:
        hs = np.arange(g.oh) * g.s[0] - g.pads[0]
        ws = np.arange(g.ow) * g.s[1] - g.pads[2]
    for i in range(kh):
        for j in range(kw):
            win = g.window(canvas, i, j)
            if out is None:
                out = win.copy()
                if with_index:
                    idx = np.broadcast_to(np.add.outer((hs + i) * g.W, ws + j), out.shape).astype(np.int32)
                    idx = np.where(out > _neg_inf(x.dtype), idx, -1).astype(np.int32)
            elif with_index:
                better = win > out
                out = np.where(better, win, out)
                idx = np.where(better, np.add.outer((hs + i) * g.W, ws + j).astype(np.int32), idx)
            else:
                np.maximum(out, win, out=out)
    if _has_empty_window(g):
        empty = out == _neg_inf(x.dtype)
        out[empty] = _lowest(x.dtype)
    return out, idx


def _max_2x2_tiled(x):
    """2x2 / stride-2 max pooling of an input the windows tile: the general path's fold over the four
    strided views, ``((v00 max v01) max v10) max v11`` (the same bits), without its canvas, its copy
    of the first view and its empty-window check: 0.93-0.97x its time on LeNet's maps at batch 32-64,
    0.78x at batch 1. (Pairing columns first, or rows, then the pairs took 0.8-1.03x but changes which
    zero wins a +0.0 / -0.0 tie.)"""
    out = np.maximum(x[:, :, 0::2, 0::2], x[:, :, 0::2, 1::2])
    np.maximum(out, x[:, :, 1::2, 0::2], out=out)
    return np.maximum(out, x[:, :, 1::2, 1::2], out=out)


def _pool2d(x, ksize=None, strides=(1, 1), paddings=(0, 0), ceil_mode=False, exclusive=True,
            data_format="NCHW", pooling_type="", global_pooling=False, adaptive=False,
            padding_algorithm="EXPLICIT", **_):
    x = _nchw(x, data_format)
    g = _geom(x, ksize, strides, paddings, ceil_mode, global_pooling, adaptive, padding_algorithm)
    if pooling_type == "max":
        out = _max_forward(x, g)[0]
    elif pooling_type == "avg":
        if g.adaptive:
            out = np.matmul(np.matmul(_adaptive_matrix(g, 0, x.dtype), x), _adaptive_matrix(g, 1, x.dtype).T)
        else:
            canvas = g.canvas(x, 0)
            out = np.zeros((x.shape[0], x.shape[1], g.oh, g.ow), dtype=x.dtype)
            for i in range(g.k[0]):
                for j in range(g.k[1]):
                    out += g.window(canvas, i, j)
            with np.errstate(divide="ignore", invalid="ignore"):
                out /= _avg_divisor(g, exclusive, x.dtype)
    else:
        raise ValueError(f"pool2d: pooling_type must be 'max' or 'avg', got {pooling_type!r}")
    return _back(out.astype(x.dtype, copy=False), data_format)


def _max_grad_tiled(x, out, dout, g):
    """Max-pool gradient when the windows tile the input (LeNet's 2x2 / stride 2): every input element
    is in exactly one window, so each window offset writes its own strided part of ``dx`` directly
    (``dout`` where the element is its window's first maximum, else 0) with no canvas to zero and
    scatter into. Same ties rule as the general path: the first maximum in window order wins."""
    dx = np.empty(x.shape, dtype=x.dtype)
    hit = np.empty(out.shape, dtype=bool)
    taken = None
    for i in range(g.k[0]):
        for j in range(g.k[1]):
            np.equal(g.window(x, i, j), out, out=hit)
            if taken is None:
                taken = hit.copy()
            else:
                np.greater(hit, taken, out=hit)          # a maximum not taken by an earlier offset
                np.logical_or(taken, hit, out=taken)
            np.multiply(dout, hit, out=g.window(dx, i, j), casting="unsafe")
    return dx


def _pool2d_grad(x, out, dout, ksize=None, strides=(1, 1), paddings=(0, 0), ceil_mode=False, exclusive=True,
                 data_format="NCHW", pooling_type="", global_pooling=False, adaptive=False,
                 padding_algorithm="EXPLICIT", **_):
    x = _nchw(x, data_format)
    out = _nchw(out, data_format)
    dout = _nchw(dout, data_format)
    g = _geom(x, ksize, strides, paddings, ceil_mode, global_pooling, adaptive, padding_algorithm)
    N, C = x.shape[:2]
    if pooling_type == "max":
        if g.adaptive:
            dx = np.zeros(x.shape, dtype=x.dtype)
            hs, he = g.bounds(0)
            ws, we = g.bounds(1)
            n_i, c_i = np.arange(N)[:, None], np.arange(C)[None, :]
            for i in range(g.oh):
                for j in range(g.ow):
                    a = x[:, :, hs[i]:he[i], ws[j]:we[j]].reshape(N, C, -1).argmax(axis=2)
                    bw = we[j] - ws[j]
                    dx[n_i, c_i, hs[i] + a // bw, ws[j] + a % bw] += dout[:, :, i, j]
            return _back(dx, data_format)
        if _tiled(g):
            return _back(_max_grad_tiled(x, out, dout, g), data_format)
        canvas = g.canvas(x, _neg_inf(x.dtype))
        dcanvas = np.zeros(canvas.shape, dtype=x.dtype)
        taken = np.zeros(out.shape, dtype=bool)
        for i in range(g.k[0]):
            for j in range(g.k[1]):
                hit = (g.window(canvas, i, j) == out) & ~taken
                taken |= hit
                g.window(dcanvas, i, j)[...] += np.where(hit, dout, 0)
        return _back(np.ascontiguousarray(g.crop(dcanvas)), data_format)
    if g.adaptive:
        dx = np.matmul(np.matmul(_adaptive_matrix(g, 0, x.dtype).T, dout), _adaptive_matrix(g, 1, x.dtype))
        return _back(dx.astype(x.dtype, copy=False), data_format)
    # a window holding no input divides by 0; its share lands only on padding, which is cropped
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.divide(dout, _avg_divisor(g, exclusive, x.dtype), dtype=x.dtype)
    if _tiled(g):
        # each input element is in exactly one window: spread the share with one broadcast copy
        kh, kw = g.k
        dx = np.broadcast_to(share[:, :, :, None, :, None], (N, C, g.oh, kh, g.ow, kw)).reshape(x.shape)
        return _back(dx, data_format)
    dcanvas = np.zeros(x.shape[:2] + g.canvas_hw(), dtype=x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(g.k[0]):
            for j in range(g.k[1]):
                g.window(dcanvas, i, j)[...] += share
    return _back(np.ascontiguousarray(g.crop(dcanvas)), data_format)


def _pool2d_meta(x, ksize=None, strides=(1, 1), paddings=(0, 0), ceil_mode=False, exclusive=True,
                 data_format="NCHW", pooling_type="", global_pooling=False, adaptive=False,
                 padding_algorithm="EXPLICIT", **_):
    if len(x.shape) != 4:
        raise ValueError(f"pool2d: X must be 4-D, got shape {list(x.shape)}")
    nhwc = data_format == "NHWC"
    N, C, H, W = (x.shape[0], x.shape[3], x.shape[1], x.shape[2]) if nhwc else tuple(x.shape)
    g = _Geom(H, W, ksize, strides, paddings, ceil_mode, global_pooling, adaptive, padding_algorithm)
    oh, ow = (1, 1) if global_pooling else (g.oh, g.ow)
    if (padding_algorithm or "").upper() == "SAME" and not (global_pooling or adaptive):
        oh = -1 if H < 0 else (H + g.s[0] - 1) // g.s[0]
        ow = -1 if W < 0 else (W + g.s[1] - 1) // g.s[1]
    return Meta((N, oh, ow, C) if nhwc else (N, C, oh, ow), x.dtype)


register("pool2d", ["X"], ["Out"], _POOL_ATTRS, kernel=_pool2d, infer_meta=_pool2d_meta)
grad_op("pool2d", ["X", "Out", "Out@GRAD"], ["X@GRAD"], _pool2d_grad)


# -- max_pool2d_with_index ------------------------------------------------------------------------

def _max_pool_index(x, ksize=None, strides=(1, 1), paddings=(0, 0), global_pooling=False, adaptive=False,
                    ceil_mode=False, **_):
    g = _geom(x, ksize, strides, paddings, ceil_mode, global_pooling, adaptive, "EXPLICIT")
    out, idx = _max_forward(x, g, with_index=True)
    return out, idx


def _max_pool_index_grad(x, mask, dout, **_):
    N, C, H, W = x.shape
    m = mask.reshape(N * C, -1).astype(np.int64)
    valid = m >= 0
    flat = (m + np.arange(N * C)[:, None] * (H * W))[valid]
    dx = np.bincount(flat, weights=dout.reshape(N * C, -1)[valid], minlength=N * C * H * W)
    return dx.reshape(x.shape).astype(x.dtype, copy=False)


def _max_pool_index_meta(x, ksize=None, strides=(1, 1), paddings=(0, 0), global_pooling=False, adaptive=False,
                         ceil_mode=False, **_):
    if len(x.shape) != 4:
        raise ValueError(f"max_pool2d_with_index: X must be 4-D, got shape {list(x.shape)}")
    N, C, H, W = x.shape
    g = _Geom(H, W, ksize, strides, paddings, ceil_mode, global_pooling, adaptive, "EXPLICIT")
    oh, ow = (1, 1) if global_pooling else (g.oh, g.ow)
    return Meta((N, C, oh, ow), x.dtype), Meta((N, C, oh, ow), np.dtype(np.int32))


register("max_pool2d_with_index", ["X"], ["Out", "Mask"], _INDEX_ATTRS, kernel=_max_pool_index,
         infer_meta=_max_pool_index_meta)
grad_op("max_pool2d_with_index", ["X", "Mask", "Out@GRAD"], ["X@GRAD"], _max_pool_index_grad)
