"""Order-statistic ops with Paddle op types: kthvalue (k-th smallest along an axis, with its index)
and nanmedian (median ignoring NaN, 'avg' or 'min' of the two middle values), with their grads."""
from __future__ import annotations

import numpy as np

from .meta import normalize_axis
from .registry import Meta, register, grad_op
from .special import check_dtype
from .stl_order import has_ties, nth_element, order_keys, partial_sort, topk_row

_I64 = np.dtype(np.int64)


# -- kthvalue ------------------------------------------------------------------------------------

def _kth_check(shape, k, axis):
    if int(k) < 1:
        raise ValueError(f"the k in the kthvalue must >= 1, but received {k}")
    if len(shape) == 0:
        return None
    ax = normalize_axis(int(axis), len(shape))
    if shape[ax] >= 0 and shape[ax] < int(k):
        raise ValueError(f"input of kthvalue must have >= {k} columns in axis of {ax}, "
                         f"got {shape[ax]}")
    return ax


def _kth_row(row, k):
    s = order_keys(row, False)
    n = len(s)
    if k * 64 < n:
        partial_sort(s, 0, k, n)
    else:
        nth_element(s, k - 1, 0, n)
    return s[k - 1][1]


def _kthvalue(x, k=1, axis=-1, keepdim=False, **_):
    check_dtype("kthvalue", x, "fiu")
    ax = _kth_check(x.shape, k, axis)
    if ax is None:
        return x.copy(), np.zeros((), _I64)
    k = int(k)
    rows = np.moveaxis(x, ax, -1).reshape(-1, x.shape[ax])
    picked = np.argsort(rows, axis=1, kind="stable")[:, k - 1]
    # among equal values Paddle's kernel returns whichever index std::nth_element (std::partial_sort
    # for small k) leaves at position k - 1: replay it on the rows that have ties
    for r in np.nonzero(has_ties(rows))[0]:
        picked[r] = _kth_row(rows[r], k)
    idx = np.expand_dims(picked.reshape(np.moveaxis(x, ax, -1).shape[:-1]), -1)
    idx = np.moveaxis(idx, -1, ax)
    val = np.take_along_axis(x, idx, axis=ax)
    if not keepdim:
        idx, val = np.squeeze(idx, ax), np.squeeze(val, ax)
    return val, idx.astype(_I64)


def _kthvalue_meta(x, k=1, axis=-1, keepdim=False, **_):
    check_dtype("kthvalue", x, "fiu")
    ax = _kth_check(x.shape, k, axis)
    if ax is None:
        return Meta((), x.dtype), Meta((), _I64)
    shape = list(x.shape)
    if keepdim:
        shape[ax] = 1
    else:
        del shape[ax]
    return Meta(tuple(shape), x.dtype), Meta(tuple(shape), _I64)


def _kthvalue_grad(x, indices, dout, k=1, axis=-1, keepdim=False, **_):
    g = np.zeros(x.shape, dout.dtype)
    if x.ndim == 0:
        return dout.astype(dout.dtype).reshape(())
    ax = normalize_axis(int(axis), x.ndim)
    if not keepdim:
        indices, dout = np.expand_dims(indices, ax), np.expand_dims(dout, ax)
    np.put_along_axis(g, indices, dout, axis=ax)
    return g


register("kthvalue", ["X"], ["Out", "Indices"], {"k": ("INT", 1), "axis": ("INT", -1), "keepdim": ("BOOLEAN", False)},
         kernel=_kthvalue, infer_meta=_kthvalue_meta)
grad_op("kthvalue", ["X", "Indices", "Out@GRAD"], ["X@GRAD"], _kthvalue_grad,
        infer_meta=lambda x, i, d, **_: Meta(tuple(x.shape), d.dtype))


# -- nanmedian -----------------------------------------------------------------------------------

def _reduce_axes(ndim, axis):
    if not axis:
        return list(range(ndim))
    axes = sorted({normalize_axis(int(a), max(ndim, 1)) for a in axis})
    return [a for a in axes if a < ndim] if ndim else []


def _out_shape(shape, axes, keepdim):
    return tuple(1 if i in axes else d for i, d in enumerate(shape)) if keepdim else \
        tuple(d for i, d in enumerate(shape) if i not in axes)


def _rows(x, axes):
    """x with the reduced axes moved last and flattened into one: (rows, kept shape)."""
    keep = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, keep + axes)
    kept = moved.shape[:len(keep)]
    return moved.reshape(kept + (-1,)), kept


def _check_mode(mode):
    if mode not in ("avg", "min"):
        raise ValueError(f"Mode {mode} is not supported. Must be avg or min.")


def _nanmedian(x, axis=(), keepdim=True, mode="avg", **_):
    check_dtype("nanmedian", x, "fiu")
    _check_mode(mode)
    axes = _reduce_axes(x.ndim, axis)
    rows, kept = _rows(x, axes)
    flat = rows.reshape(-1, rows.shape[-1])
    isnan = np.isnan(flat) if flat.dtype.kind == "f" else np.zeros(flat.shape, bool)
    count = (~isnan).sum(axis=1)
    order = np.argsort(flat, axis=1, kind="stable")            # NaNs sort last
    if flat.shape[1] and (count < flat.shape[1]).any() | has_ties(flat).any():
        # Paddle takes the medians from a top-k (smallest first, NaN largest) of k = the most non-NaN
        # values in any row: with ties, the indices std::nth_element leaves (replayed on those rows)
        k = int(count.max()) or flat.shape[1]
        for r in np.nonzero(has_ties(flat) & (count > 0))[0]:
            order[r, :k] = topk_row(flat[r], k, False, True)
    r = np.arange(flat.shape[0])
    lo, hi = np.maximum((count - 1) // 2, 0), np.maximum(count // 2, 0)
    i_lo, i_hi = order[r, np.minimum(lo, flat.shape[1] - 1)], order[r, np.minimum(hi, flat.shape[1] - 1)]
    v_lo, v_hi = flat[r, i_lo], flat[r, i_hi]
    empty = count == 0
    if mode == "min":
        val = v_lo
    elif flat.dtype.kind == "f":
        val = (v_lo + v_hi) / np.array(2, flat.dtype)
    else:                                   # C++ integer division truncates toward zero
        both = v_lo.astype(np.int64) + v_hi.astype(np.int64)
        val = np.sign(both) * (np.abs(both) // 2)
    val = np.where(empty, np.nan, val.astype(np.float64)) if flat.dtype.kind == "f" else val
    i_lo, i_hi = np.where(empty, -1, i_lo), np.where(empty, -1, i_hi)
    out_shape = _out_shape(x.shape, axes, keepdim)
    out = val.astype(x.dtype).reshape(out_shape)
    idx = np.stack([i_lo, i_hi], axis=-1).reshape(out_shape + (2,)) if mode == "avg" else i_lo.reshape(out_shape)
    return out, idx.astype(_I64)


def _nanmedian_meta(x, axis=(), keepdim=True, mode="avg", **_):
    check_dtype("nanmedian", x, "fiu")
    _check_mode(mode)
    shape = _out_shape(tuple(x.shape), _reduce_axes(len(x.shape), axis), keepdim)
    return Meta(shape, x.dtype), Meta(shape + ((2,) if mode == "avg" else ()), _I64)


def _nanmedian_grad(x, index, out, dout, axis=(), keepdim=True, mode="avg", **_):
    axes = _reduce_axes(x.ndim, axis)
    keep = [i for i in range(x.ndim) if i not in axes]
    moved_shape = tuple(x.shape[i] for i in keep) + tuple(x.shape[i] for i in axes)
    n = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
    g = np.zeros((int(np.prod(moved_shape[:len(keep)], dtype=np.int64)), n), dout.dtype)
    d = dout.reshape(-1)
    r = np.arange(g.shape[0])
    if mode == "avg":
        # Paddle (measured): the gradient is shared evenly by every element equal to the median (NaNs
        # too when the median is NaN); a median between two different values gives half to each
        rows, _ = _rows(x, axes)
        rows = rows.reshape(g.shape)
        med = out.reshape(-1, 1)
        with np.errstate(invalid="ignore"):
            eq = rows == med
            if rows.dtype.kind == "f":
                eq |= np.isnan(rows) & np.isnan(med)
        cnt = eq.sum(axis=1)
        shared = cnt > 0
        g[shared] = np.where(eq[shared], (d[shared] / cnt[shared])[:, None], 0)
        pair = index.reshape(-1, 2)
        ok = ~shared & (pair[:, 0] >= 0)
        np.add.at(g, (r[ok], pair[ok, 0]), d[ok] / 2)
        np.add.at(g, (r[ok], pair[ok, 1]), d[ok] / 2)
    else:
        i = index.reshape(-1)
        ok = i >= 0
        g[r[ok], i[ok]] = d[ok]
    g = g.reshape(moved_shape)
    inv = np.argsort(keep + axes)
    return np.ascontiguousarray(np.transpose(g, inv))


register("nanmedian", ["X"], ["Out", "MedianIndex"],
         {"axis": ("INTS", []), "keepdim": ("BOOLEAN", True), "mode": ("STRING", "avg")},
         kernel=_nanmedian, infer_meta=_nanmedian_meta)
grad_op("nanmedian", ["X", "MedianIndex", "Out", "Out@GRAD"], ["X@GRAD"], _nanmedian_grad,
        infer_meta=lambda x, i, o, d, **_: Meta(tuple(x.shape), d.dtype))
