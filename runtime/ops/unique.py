"""Ops that group equal values: unique, unique_consecutive and mode (with mode's gradient).

Index outputs take the ``dtype`` attribute (a VarType: 2 int32, 3 int64). ``mode`` picks the
smallest of the most frequent values and, like Paddle's CPU kernel, the index of the last
element of that value after std::sort (so ties follow `stl_order`).
"""
from __future__ import annotations

import numpy as np

from .meta import normalize_axis
from .registry import Meta, register, grad_op
from .stl_order import argsort_row

_INDEX = {2: np.dtype(np.int32), 3: np.dtype(np.int64), 5: np.dtype(np.int64)}


def _index_dtype(dtype, op):
    d = _INDEX.get(int(dtype))
    if d is None:
        raise ValueError(f"{op}: dtype must be int32 (VarType 2) or int64 (VarType 3), got VarType {dtype}")
    return d


def _axis_of(axis, ndim, op):
    axis = list(axis or [])
    if len(axis) > 1:
        raise ValueError(f"{op}: axis must hold at most one dimension, got {axis}")
    return normalize_axis(int(axis[0]), ndim) if axis else None


# -- unique --------------------------------------------------------------------------------------

def _unique(x, return_index=False, return_inverse=False, return_counts=False, axis=(), dtype=3,
            is_sorted=False, **_):
    od = _index_dtype(dtype, "unique")
    ax = _axis_of(axis, x.ndim, "unique")
    if ax is None:
        out, index, inverse, counts = np.unique(x.reshape(-1), return_index=True, return_inverse=True,
                                                return_counts=True)
    else:
        out, index, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                                return_counts=True, axis=ax)
    return (out.astype(x.dtype, copy=False), index.astype(od), inverse.reshape(-1).astype(od),
            counts.astype(od))


def _unique_meta(x, axis=(), dtype=3, **_):
    od = _index_dtype(dtype, "unique")
    ax = _axis_of(axis, len(x.shape), "unique")
    if ax is None:
        out = (-1,)
        n = int(np.prod(x.shape)) if all(d >= 0 for d in x.shape) else -1
    else:
        out = tuple(-1 if i == ax else d for i, d in enumerate(x.shape))
        n = x.shape[ax]
    return Meta(out, x.dtype), Meta((-1,), od), Meta((n,), od), Meta((-1,), od)


register("unique", ["X"], ["Out", "Indices?", "Index", "Counts?"],
         {"return_index": ("BOOLEAN", False), "return_inverse": ("BOOLEAN", False),
          "return_counts": ("BOOLEAN", False), "axis": ("INTS", []), "dtype": ("INT", 3),
          "is_sorted": ("BOOLEAN", False)},
         kernel=_unique, infer_meta=_unique_meta, differentiable=())


# -- unique_consecutive --------------------------------------------------------------------------

def _unique_consecutive(x, return_inverse=False, return_counts=False, axis=(), dtype=5, **_):
    od = _index_dtype(dtype, "unique_consecutive")
    ax = _axis_of(axis, x.ndim, "unique_consecutive")
    if ax is None:
        flat = x.reshape(-1)
        change = flat[1:] != flat[:-1]
        moved = flat
    else:
        moved = np.moveaxis(x, ax, 0)
        change = (moved[1:] != moved[:-1]).reshape(max(moved.shape[0] - 1, 0), -1).any(axis=1)
    n = moved.shape[0]
    starts = np.concatenate([[0], np.nonzero(change)[0] + 1]) if n else np.zeros(0, np.int64)
    out = moved[starts]
    if ax is not None:
        out = np.moveaxis(out, 0, ax)
    inverse = (np.cumsum(np.concatenate([[0], change.astype(np.int64)])) if n else np.zeros(0, np.int64))
    counts = np.diff(np.concatenate([starts, [n]])) if n else np.zeros(0, np.int64)
    return np.ascontiguousarray(out), inverse.astype(od), counts.astype(od)


def _unique_consecutive_meta(x, axis=(), dtype=5, **_):
    od = _index_dtype(dtype, "unique_consecutive")
    ax = _axis_of(axis, len(x.shape), "unique_consecutive")
    if ax is None:
        n = int(np.prod(x.shape)) if all(d >= 0 for d in x.shape) else -1
        return Meta((-1,), x.dtype), Meta((n,), od), Meta((-1,), od)
    out = tuple(-1 if i == ax else d for i, d in enumerate(x.shape))
    return Meta(out, x.dtype), Meta((x.shape[ax],), od), Meta((-1,), od)


register("unique_consecutive", ["X"], ["Out", "Index?", "Counts?"],
         {"return_inverse": ("BOOLEAN", False), "return_counts": ("BOOLEAN", False),
          "axis": ("INTS", []), "dtype": ("INT", 5)},
         kernel=_unique_consecutive, infer_meta=_unique_consecutive_meta, differentiable=())


# -- mode ----------------------------------------------------------------------------------------

def _mode_row(row):
    order = argsort_row(row, False)          # std::sort, NaN last, as Paddle's GetMode
    vals = row[order]
    best_val, best_idx, best_freq, freq = row[0], 0, 0, 0
    for i in range(len(order)):
        freq += 1
        # `!=` as in C++: every NaN ends its own group
        if i == len(order) - 1 or not (vals[i + 1] == vals[i]):
            if freq > best_freq:
                best_freq, best_val, best_idx = freq, vals[i], order[i]
            freq = 0
    return best_val, best_idx


def _mode(x, axis=-1, keepdim=False, **_):
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    ax = normalize_axis(int(axis), x.ndim)
    if x.shape[ax] == 0:
        raise ValueError(f"mode: axis {axis} of the input (shape {list(x.shape)}) is empty")
    moved = np.moveaxis(x, ax, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    vals = np.empty(rows.shape[0], x.dtype)
    idx = np.empty(rows.shape[0], np.int64)
    for r in range(rows.shape[0]):
        vals[r], idx[r] = _mode_row(rows[r])
    shape = moved.shape[:-1]
    vals, idx = vals.reshape(shape), idx.reshape(shape)
    if keepdim:
        vals, idx = np.expand_dims(vals, ax), np.expand_dims(idx, ax)
    return vals, idx


def _mode_meta(x, axis=-1, keepdim=False, **_):
    n = len(x.shape)
    if n == 0:
        return Meta((), x.dtype), Meta((), np.dtype(np.int64))
    ax = normalize_axis(int(axis), n)
    shape = tuple((1 if keepdim else None) if i == ax else d for i, d in enumerate(x.shape))
    shape = tuple(d for d in shape if d is not None)
    return Meta(shape, x.dtype), Meta(shape, np.dtype(np.int64))


def _mode_grad(x, indices, dout, axis=-1, keepdim=False, **_):
    if x.ndim == 0:
        return np.array(dout, dtype=x.dtype)
    ax = normalize_axis(int(axis), x.ndim)
    if not keepdim:
        indices, dout = np.expand_dims(indices, ax), np.expand_dims(dout, ax)
    g = np.zeros_like(x)
    np.put_along_axis(g, indices, dout.astype(x.dtype, copy=False), axis=ax)
    return g


register("mode", ["X"], ["Out", "Indices"], {"axis": ("INT", -1), "keepdim": ("BOOLEAN", False)},
         kernel=_mode, infer_meta=_mode_meta, differentiable=("X",))
grad_op("mode", ["X", "Indices", "Out@GRAD"], ["X@GRAD"], _mode_grad)
