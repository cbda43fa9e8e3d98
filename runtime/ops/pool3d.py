"""3-D pooling ops: pool3d (max/avg, ceil_mode, exclusive, global, adaptive, SAME/VALID, NDHWC) and
max_pool3d_with_index, with their grads.

The window rules are the 2-D kernel's (see `pool`), per axis: a window starts at
``i*stride - pad_before`` and ends at ``min(start + k, size + pad_before)``; a non-exclusive
average divides by the window's extent, an exclusive one by the input elements it covers;
adaptive bins are ``floor(i*n/out) .. ceil((i+1)*n/out)``. A window holding no input gives
-FLT_MAX (max, mask -1) or 0/0 (exclusive avg). Regular windows are kd*kh*kw strided slices of one
padded canvas; adaptive average is separable (one averaging matrix per axis); adaptive max loops
over the bins. The mask is the flat index d*H*W + h*W + w of the first maximum in each window.
The average's grad scales by 1/count rounded to float, as Paddle's kernel does (measured).
"""
from __future__ import annotations

import itertools

import numpy as np

from .conv import same_pads
from .registry import Meta, grad_op, register

_POOL3D_ATTRS = {
    "ksize": ("INTS", []),
    "strides": ("INTS", [1, 1, 1]),
    "paddings": ("INTS", [0, 0, 0]),
    "ceil_mode": ("BOOLEAN", False),
    "exclusive": ("BOOLEAN", True),
    "data_format": ("STRING", "NCDHW"),
    "pooling_type": ("STRING", ""),
    "global_pooling": ("BOOLEAN", False),
    "adaptive": ("BOOLEAN", False),
    "padding_algorithm": ("STRING", "EXPLICIT"),
    "use_cudnn": ("BOOLEAN", False),
}
_INDEX3D_ATTRS = {
    "ksize": ("INTS", []),
    "strides": ("INTS", [1, 1, 1]),
    "paddings": ("INTS", [0, 0, 0]),
    "global_pooling": ("BOOLEAN", False),
    "adaptive": ("BOOLEAN", False),
    "ceil_mode": ("BOOLEAN", False),
}


def _pool_out(n, k, s, p0, p1, ceil_mode):
    return -1 if n < 0 else (n - k + p0 + p1 + (s - 1 if ceil_mode else 0)) // s + 1


class _Geom3:
    """Resolved geometry of one 3-D pooling call (NCDHW sizes)."""

    def __init__(self, op, sizes, ksize, strides, paddings, ceil_mode, global_pooling, adaptive, algorithm):
        if ksize is None or len(ksize) != 3:
            raise ValueError(f"{op}: ksize must have 3 values, got {ksize!r}")
        if len(strides) != 3:
            raise ValueError(f"{op}: strides must have 3 values, got {list(strides)}")
        self.sizes = [int(n) for n in sizes]
        k, s = [int(v) for v in ksize], [int(v) for v in strides]
        algorithm = (algorithm or "EXPLICIT").upper()
        if global_pooling:
            k, pads, adaptive = list(self.sizes), [0] * 6, False
        elif adaptive or algorithm == "VALID":
            pads = [0] * 6
        elif algorithm == "SAME":
            pads = [p for n, kk, ss in zip(self.sizes, k, s) for p in same_pads(n, kk, ss)]
        else:
            p = [int(v) for v in paddings]
            if len(p) == 3:
                pads = [p[0], p[0], p[1], p[1], p[2], p[2]]
            elif len(p) == 6:
                pads = p
            else:
                raise ValueError(f"{op}: paddings must have 3 or 6 values, got {p}")
        self.k, self.s, self.pads, self.adaptive = k, s, pads, adaptive
        self.outs = list(k) if adaptive else [_pool_out(n, kk, ss, pads[2 * i], pads[2 * i + 1], ceil_mode)
                                             for i, (n, kk, ss) in enumerate(zip(self.sizes, k, s))]
        if any(n >= 0 and o <= 0 for n, o in zip(self.sizes, self.outs)):
            raise ValueError(f"{op}: output size {self.outs} is not positive for input {self.sizes}, ksize {k}, "
                             f"strides {s}, paddings {pads}")

    def bounds(self, axis):
        n, o = self.sizes[axis], self.outs[axis]
        i = np.arange(o)
        if self.adaptive:
            return (i * n) // o, -((-(i + 1) * n) // o)
        start = i * self.s[axis] - self.pads[2 * axis]
        return start, np.minimum(start + self.k[axis], n + self.pads[2 * axis])

    def canvas_shape(self):
        return [max((o - 1) * s + k, p + n) for o, s, k, p, n in
                zip(self.outs, self.s, self.k, self.pads[0::2], self.sizes)]

    def canvas(self, x, fill):
        out = np.full(x.shape[:2] + tuple(self.canvas_shape()), fill, dtype=x.dtype)
        self.crop(out)[...] = x
        return out

    def crop(self, canvas):
        (d, h, w), (D, H, W) = self.pads[0::2], self.sizes
        return canvas[:, :, d:d + D, h:h + H, w:w + W]

    def windows(self):
        """(kernel offset, strided canvas slices) for every offset of a regular window."""
        for offs in itertools.product(*[range(k) for k in self.k]):
            yield offs, tuple(slice(o, o + s * (n - 1) + 1, s) for o, s, n in zip(offs, self.s, self.outs))

    def covered(self, axis):
        start, end = self.bounds(axis)
        return np.minimum(end, self.sizes[axis]) - np.maximum(start, 0)


def _lowest(dtype):
    return -np.finfo(np.float32).max if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min


def _channel_last(op, data_format):
    if data_format in ("NCDHW", "AnyLayout"):
        return False
    if data_format == "NDHWC":
        return True
    raise ValueError(f"{op}: data_format must be 'NCDHW' or 'NDHWC', got {data_format!r}")


def _outer3(a, b, c):
    return a[:, None, None] * b[None, :, None] * c[None, None, :]


def _divisor(g, exclusive):
    if exclusive or g.adaptive:
        per = [g.covered(a) for a in range(3)]
    else:
        per = [e - s for s, e in (g.bounds(a) for a in range(3))]
    return _outer3(*per)


def _adaptive_matrix(g, axis, dtype):
    start, end = g.bounds(axis)
    pos = np.arange(g.sizes[axis])
    inside = (pos[None, :] >= start[:, None]) & (pos[None, :] < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _apply(y, axis, m):
    return np.moveaxis(np.matmul(np.moveaxis(y, axis, -1), m.T), -1, axis)


def _max_with_index(x, g):
    """Max of each window (first maximum wins) and its flat input index (-1 for an empty window)."""
    N, C = x.shape[:2]
    D, H, W = g.sizes
    if g.adaptive:
        out = np.empty((N, C) + tuple(g.outs), dtype=x.dtype)
        idx = np.empty((N, C) + tuple(g.outs), dtype=np.int32)
        b = [g.bounds(a) for a in range(3)]
        for i, j, k in itertools.product(*[range(o) for o in g.outs]):
            win = x[:, :, b[0][0][i]:b[0][1][i], b[1][0][j]:b[1][1][j], b[2][0][k]:b[2][1][k]]
            flat = win.reshape(N, C, -1)
            a = flat.argmax(axis=2)
            out[:, :, i, j, k] = flat.max(axis=2)
            wd, wh, ww = win.shape[2:]
            dd, rest = a // (wh * ww), a % (wh * ww)
            idx[:, :, i, j, k] = ((b[0][0][i] + dd) * H + b[1][0][j] + rest // ww) * W + b[2][0][k] + rest % ww
        return out, idx
    canvas = g.canvas(x, -np.inf)
    starts = [np.arange(o) * s - p for o, s, p in zip(g.outs, g.s, g.pads[0::2])]
    out = idx = None
    for offs, sl in g.windows():
        win = canvas[(slice(None), slice(None)) + sl]
        pos = ((starts[0] + offs[0])[:, None, None] * H * W + (starts[1] + offs[1])[None, :, None] * W
               + (starts[2] + offs[2])[None, None, :])
        if out is None:
            out = win.copy()
            idx = np.where(out > -np.inf, np.broadcast_to(pos, out.shape), -1).astype(np.int32)
        else:
            better = win > out
            out = np.where(better, win, out)
            idx = np.where(better, pos, idx).astype(np.int32)
    out[out == -np.inf] = _lowest(x.dtype)
    return out, idx


def _scatter_max(x_shape, idx, dout):
    N, C = x_shape[:2]
    flat = np.zeros((N, C, int(np.prod(x_shape[2:]))), dtype=dout.dtype)
    valid = idx >= 0
    n, c = np.meshgrid(np.arange(N), np.arange(C), indexing="ij")
    n = np.broadcast_to(n.reshape(N, C, 1, 1, 1), idx.shape)[valid]
    c = np.broadcast_to(c.reshape(N, C, 1, 1, 1), idx.shape)[valid]
    np.add.at(flat, (n, c, idx[valid]), dout[valid])
    return flat.reshape(x_shape)


def _avg_forward(x, g, exclusive):
    if g.adaptive:
        y = x
        for a in range(3):
            y = _apply(y, 2 + a, _adaptive_matrix(g, a, x.dtype))
        return y.astype(x.dtype, copy=False)
    canvas = g.canvas(x, 0)
    total = np.zeros(x.shape[:2] + tuple(g.outs), dtype=x.dtype)
    for _, sl in g.windows():
        total += canvas[(slice(None), slice(None)) + sl]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (total / _divisor(g, exclusive).astype(x.dtype)).astype(x.dtype, copy=False)


def _float_scale(divisor, dtype):
    """Paddle's avg-pool grad scales by 1/count computed in float, whatever the input dtype."""
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = (np.float32(1) / divisor.astype(np.float32)).astype(dtype)
    return np.where(np.isfinite(scale), scale, 0)


def _avg_backward(x, g, exclusive, dout):
    if g.adaptive:
        y = dout * _float_scale(_divisor(g, True), x.dtype)
        for a in range(3):
            y = _apply(y, 2 + a, (_adaptive_matrix(g, a, x.dtype) > 0).astype(x.dtype).T)
        return y.astype(x.dtype, copy=False)
    share = dout * _float_scale(_divisor(g, exclusive), x.dtype)
    canvas = np.zeros(x.shape[:2] + tuple(g.canvas_shape()), dtype=x.dtype)
    for _, sl in g.windows():
        canvas[(slice(None), slice(None)) + sl] += share
    return np.ascontiguousarray(g.crop(canvas))


def _geom(op, x, ksize, strides, paddings, ceil_mode, global_pooling, adaptive, padding_algorithm):
    if x.ndim != 5:
        raise ValueError(f"{op}: X must be 5-D, got shape {list(x.shape)}")
    return _Geom3(op, x.shape[2:], ksize, strides, paddings, ceil_mode, global_pooling, adaptive, padding_algorithm)


def _pooling_type(pooling_type):
    if pooling_type not in ("max", "avg"):
        raise ValueError(f"pool3d: pooling_type must be 'max' or 'avg', got {pooling_type!r}")
    return pooling_type


def _pool3d(x, ksize=(), strides=(1, 1, 1), paddings=(0, 0, 0), ceil_mode=False, exclusive=True,
            data_format="NCDHW", pooling_type="", global_pooling=False, adaptive=False, padding_algorithm="EXPLICIT",
            use_cudnn=False):
    last = _channel_last("pool3d", data_format)
    kind = _pooling_type(pooling_type)
    x = np.moveaxis(x, -1, 1) if last else x
    g = _geom("pool3d", x, ksize, strides, paddings, ceil_mode, global_pooling, adaptive, padding_algorithm)
    out = _max_with_index(x, g)[0] if kind == "max" else _avg_forward(x, g, exclusive)
    return np.ascontiguousarray(np.moveaxis(out, 1, -1) if last else out)


def _pool3d_grad(x, out, dout, ksize=(), strides=(1, 1, 1), paddings=(0, 0, 0), ceil_mode=False, exclusive=True,
                 data_format="NCDHW", pooling_type="", global_pooling=False, adaptive=False,
                 padding_algorithm="EXPLICIT", use_cudnn=False):
    last = _channel_last("pool3d", data_format)
    kind = _pooling_type(pooling_type)
    if last:
        x, dout = np.moveaxis(x, -1, 1), np.moveaxis(dout, -1, 1)
    g = _geom("pool3d", x, ksize, strides, paddings, ceil_mode, global_pooling, adaptive, padding_algorithm)
    if kind == "max":
        dx = _scatter_max(x.shape, _max_with_index(x, g)[1], dout)
    else:
        dx = _avg_backward(x, g, exclusive, dout)
    return np.ascontiguousarray(np.moveaxis(dx, 1, -1) if last else dx, dtype=x.dtype)


def _pool3d_meta(x, ksize=(), strides=(1, 1, 1), paddings=(0, 0, 0), ceil_mode=False, exclusive=True,
                 data_format="NCDHW", pooling_type="", global_pooling=False, adaptive=False,
                 padding_algorithm="EXPLICIT", **_):
    if len(x.shape) != 5:
        raise ValueError(f"pool3d: X must be 5-D, got shape {list(x.shape)}")
    last = _channel_last("pool3d", data_format)
    shape = list(x.shape)
    sp = shape[1:4] if last else shape[2:]
    if (padding_algorithm or "").upper() == "SAME" and not (global_pooling or adaptive):
        outs = [-1 if n < 0 else (n + s - 1) // s for n, s in zip(sp, strides)]
    elif global_pooling:
        outs = [1, 1, 1]
    else:
        outs = _Geom3("pool3d", sp, ksize, strides, paddings, ceil_mode, False, adaptive, padding_algorithm).outs
    return Meta(tuple([shape[0]] + outs + [shape[-1]]) if last else tuple(shape[:2] + outs), x.dtype)


register("pool3d", ["X"], ["Out"], _POOL3D_ATTRS, kernel=_pool3d, infer_meta=_pool3d_meta)
grad_op("pool3d", ["X", "Out", "Out@GRAD"], ["X@GRAD"], _pool3d_grad)


# -- max_pool3d_with_index ------------------------------------------------------------------------

def _max_pool3d_index(x, ksize=(), strides=(1, 1, 1), paddings=(0, 0, 0), global_pooling=False, adaptive=False,
                      ceil_mode=False):
    g = _geom("max_pool3d_with_index", x, ksize, strides, paddings, ceil_mode, global_pooling, adaptive, "EXPLICIT")
    return _max_with_index(x, g)


def _max_pool3d_index_grad(x, mask, dout, **_):
    return _scatter_max(x.shape, mask, dout).astype(x.dtype, copy=False)


def _max_pool3d_index_meta(x, ksize=(), strides=(1, 1, 1), paddings=(0, 0, 0), global_pooling=False,
                           adaptive=False, ceil_mode=False, **_):
    if len(x.shape) != 5:
        raise ValueError(f"max_pool3d_with_index: X must be 5-D, got shape {list(x.shape)}")
    outs = [1, 1, 1] if global_pooling else _Geom3("max_pool3d_with_index", x.shape[2:], ksize, strides, paddings,
                                                   ceil_mode, False, adaptive, "EXPLICIT").outs
    shape = tuple(x.shape[:2]) + tuple(outs)
    return Meta(shape, x.dtype), Meta(shape, np.dtype(np.int32))


register("max_pool3d_with_index", ["X"], ["Out", "Mask"], _INDEX3D_ATTRS, kernel=_max_pool3d_index,
         infer_meta=_max_pool3d_index_meta, differentiable=("X",))
grad_op("max_pool3d_with_index", ["X", "Mask", "Out@GRAD"], ["X@GRAD"], _max_pool3d_index_grad)
