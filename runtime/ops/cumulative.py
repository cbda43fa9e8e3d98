"""Running reductions along an axis: logcumsumexp, cummax, cummin, with their gradients.

cummax / cummin return the index of the running extreme; on ties the later index wins, as in
Paddle's kernels (``>=`` / ``<=``). Gradients flow back to those indices.
"""
from __future__ import annotations

import numpy as np

from .meta import normalize_axis
from .registry import Meta, register, grad_op

_INDEX = {2: np.dtype(np.int32), 3: np.dtype(np.int64)}


# -- logcumsumexp --------------------------------------------------------------------------------

def _prepare(x, axis, flatten):
    if flatten or x.ndim == 0:
        return x.reshape(-1), 0
    return x, normalize_axis(int(axis), x.ndim)


def _logcumsumexp(x, axis=-1, flatten=False, exclusive=False, reverse=False, **_):
    if x.dtype.kind not in "f":
        raise TypeError(f"logcumsumexp: the input must be a floating-point tensor, got {x.dtype} "
                        "(pass dtype='float32' to paddle.logcumsumexp to cast it)")
    a, ax = _prepare(x, axis, flatten)
    if reverse:
        a = np.flip(a, ax)
    out = np.logaddexp.accumulate(a, axis=ax) if a.size else a.copy()
    if exclusive:
        head = np.full_like(np.take(out, [0], axis=ax), -np.inf)
        out = np.concatenate([head, np.delete(out, -1, axis=ax)], axis=ax)
    if reverse:
        out = np.flip(out, ax)
    out = np.ascontiguousarray(out).astype(x.dtype, copy=False)
    return out.reshape(-1) if (flatten and x.ndim != 1) else out


def _logcumsumexp_meta(x, flatten=False, **_):
    if flatten:
        n = int(np.prod(x.shape)) if all(d >= 0 for d in x.shape) else -1
        return Meta((n,), x.dtype)
    return Meta(tuple(x.shape), x.dtype)


def _logcumsumexp_grad(x, out, dout, axis=-1, flatten=False, exclusive=False, reverse=False, **_):
    if exclusive:
        raise NotImplementedError("logcumsumexp_grad: exclusive=True has no gradient here "
                                  "(paddle.logcumsumexp never sets it)")
    a, ax = _prepare(x, axis, flatten)
    o, _ = _prepare(out, axis, flatten)
    d, _ = _prepare(dout, axis, flatten)
    if reverse:
        a, o, d = np.flip(a, ax), np.flip(o, ax), np.flip(d, ax)
    # dx_j = sum_{i >= j} dout_i * exp(x_j - out_i); shift by the last running value for range
    shift = np.take(o, [-1], axis=ax) if o.size else o
    tail = np.flip(np.cumsum(np.flip(d * np.exp(shift - o), ax), axis=ax), ax)
    g = tail * np.exp(a - shift)
    if reverse:
        g = np.flip(g, ax)
    return np.ascontiguousarray(g).reshape(x.shape).astype(x.dtype, copy=False)


register("logcumsumexp", ["X"], ["Out"],
         {"axis": ("INT", -1), "flatten": ("BOOLEAN", False), "exclusive": ("BOOLEAN", False),
          "reverse": ("BOOLEAN", False)},
         kernel=_logcumsumexp, infer_meta=_logcumsumexp_meta)
grad_op("logcumsumexp", ["X", "Out", "Out@GRAD"], ["X@GRAD"], _logcumsumexp_grad)


# -- cummax / cummin -----------------------------------------------------------------------------

def _cum_extreme(better):
    def kernel(x, axis=-1, dtype=3, **_):
        od = _INDEX.get(int(dtype))
        if od is None:
            raise ValueError(f"cummax/cummin: dtype must be int32 (2) or int64 (3), got VarType {dtype}")
        if x.ndim == 0:
            return x.copy(), np.zeros((), od)
        ax = normalize_axis(int(axis), x.ndim)
        a = np.moveaxis(x, ax, 0)
        out = np.empty_like(a)
        idx = np.empty(a.shape, np.int64)
        if a.shape[0]:
            out[0], idx[0] = a[0], 0
            for i in range(1, a.shape[0]):
                # NaN wins and stays, as in Paddle's kernels
                take = better(a[i], out[i - 1]) | (np.isnan(a[i]) if a.dtype.kind == "f" else False)
                out[i] = np.where(take, a[i], out[i - 1])
                idx[i] = np.where(take, i, idx[i - 1])
        return np.ascontiguousarray(np.moveaxis(out, 0, ax)), np.moveaxis(idx, 0, ax).astype(od)
    return kernel


def _cum_meta(x, dtype=3, **_):
    od = _INDEX.get(int(dtype), np.dtype(np.int64))
    return Meta(tuple(x.shape), x.dtype), Meta(tuple(x.shape), od)


def _cum_grad(x, indices, dout, axis=-1, **_):
    if x.ndim == 0:
        return np.array(dout, dtype=x.dtype)
    ax = normalize_axis(int(axis), x.ndim)
    g = np.zeros(np.moveaxis(x, ax, -1).shape, x.dtype)
    idx = np.moveaxis(indices, ax, -1).astype(np.int64)
    d = np.moveaxis(dout, ax, -1)
    rows = g.reshape(-1, g.shape[-1])
    ir, dr = idx.reshape(rows.shape[0], -1), d.reshape(rows.shape[0], -1)
    np.add.at(rows, (np.arange(rows.shape[0])[:, None], ir), dr)
    return np.ascontiguousarray(np.moveaxis(rows.reshape(g.shape), -1, ax))


for _name, _better in (("cummax", np.greater_equal), ("cummin", np.less_equal)):
    register(_name, ["x"], ["out", "indices"], {"axis": ("INT", -1), "dtype": ("INT", 3)},
             kernel=_cum_extreme(_better), infer_meta=_cum_meta)
    grad_op(_name, ["x", "indices", "out@GRAD"], ["x@GRAD"], _cum_grad)
