"""Search ops: arg_max, arg_min, top_k_v2, argsort (with grads to X) and where_index (nonzero).

Ties follow Paddle's CPU kernels: a stable argsort keeps equal values in index order (ascending
or descending); top_k_v2 and the non-stable argsort order ties as libstdc++'s nth_element /
partial_sort / std::sort leave them (replayed by `stl_order` on the rows that have ties).
"""
from __future__ import annotations

import numpy as np

from .meta import normalize_axis
from .registry import Meta, register, grad_op
from .stl_order import argsort_row, has_ties, topk_row

_INDEX_DTYPES = {-1: np.dtype(np.int64), 2: np.dtype(np.int32), 3: np.dtype(np.int64)}


def _index_dtype(dtype, op):
    d = _INDEX_DTYPES.get(int(dtype))
    if d is None:
        raise ValueError(f"{op}: dtype must be int32 (VarType 2) or int64 (VarType 3), got VarType {dtype}")
    return d


def stable_argsort(x, axis, descending=False):
    """Indices sorting ``x`` along ``axis``; equal values keep their original order."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    # Sorting the reversed array ascending and reversing back keeps ties in index order
    # (negating would break unsigned and boolean inputs).
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(rev, axis)


# -- arg_max / arg_min ---------------------------------------------------------------------------

def _arg(fn, name):
    def kernel(x, axis=0, keepdims=False, flatten=False, dtype=3, **_):
        od = _index_dtype(dtype, name)
        if x.size == 0:
            raise ValueError(f"{name}: the input is empty (shape {list(x.shape)})")
        if flatten or x.ndim == 0:
            idx = fn(x.reshape(-1))
            shape = (1,) * x.ndim if keepdims else ()
            return np.asarray(idx, dtype=od).reshape(shape)
        ax = normalize_axis(int(axis), x.ndim)
        return np.asarray(fn(x, axis=ax, keepdims=keepdims)).astype(od, copy=False)
    return kernel


def _arg_meta(x, axis=0, keepdims=False, flatten=False, dtype=3, **_):
    od = _index_dtype(dtype, "arg_max/arg_min")
    n = len(x.shape)
    if flatten or n == 0:
        return Meta((1,) * n if keepdims else (), od)
    ax = normalize_axis(int(axis), n)
    if keepdims:
        return Meta(tuple(1 if i == ax else d for i, d in enumerate(x.shape)), od)
    return Meta(tuple(d for i, d in enumerate(x.shape) if i != ax), od)


register("arg_max", ["X"], ["Out"], {"axis": ("LONG", 0), "keepdims": ("BOOLEAN", False),
                                     "flatten": ("BOOLEAN", False), "dtype": ("INT", 3)},
         kernel=_arg(np.argmax, "arg_max"), infer_meta=_arg_meta, differentiable=())
register("arg_min", ["X"], ["Out"], {"axis": ("LONG", 0), "keepdims": ("BOOLEAN", False),
                                     "flatten": ("BOOLEAN", False), "dtype": ("INT", 3)},
         kernel=_arg(np.argmin, "arg_min"), infer_meta=_arg_meta, differentiable=())


# -- top_k_v2 ------------------------------------------------------------------------------------

def _top_k(x, k_tensor=None, k=1, axis=-1, largest=True, sorted=True, **_):
    if k_tensor is not None:
        k = int(np.asarray(k_tensor).reshape(-1)[0])
    if x.ndim == 0:
        if k not in (0, 1):
            raise ValueError(f"top_k_v2: k must be 1 for a 0-D input, got k={k}")
        return x.copy(), np.zeros((), dtype=np.int64)
    ax = normalize_axis(int(axis), x.ndim)
    n = x.shape[ax]
    if not 0 <= k <= n:
        raise ValueError(f"top_k_v2: k={k} is out of range for axis {axis} of size {n} "
                         f"(input shape {list(x.shape)}); expected 0 <= k <= {n}")
    idx = np.take(stable_argsort(x, ax, descending=largest), np.arange(k), axis=ax)
    if k:
        idx = _paddle_tie_order(x, idx, ax, lambda row: topk_row(row, k, largest, sorted))
    return np.take_along_axis(x, idx, axis=ax), idx.astype(np.int64, copy=False)


def _paddle_tie_order(x, idx, ax, row_fn):
    """``idx`` with the rows of ``x`` (along ``ax``) that hold equal values re-ordered by
    ``row_fn`` (Paddle's CPU tie order); rows without ties keep the fast numpy answer."""
    rows = np.moveaxis(x, ax, -1).reshape(-1, x.shape[ax])
    tied = np.nonzero(has_ties(rows))[0]
    if not len(tied):
        return idx
    out = np.moveaxis(idx, ax, -1).copy()
    flat = out.reshape(-1, out.shape[-1])
    for r in tied:
        flat[r] = row_fn(rows[r])
    return np.moveaxis(flat.reshape(out.shape), -1, ax)


def _top_k_meta(x, k_tensor=None, k=1, axis=-1, **_):
    shape = tuple(x.shape)
    if not shape:
        return Meta((), x.dtype), Meta((), np.dtype(np.int64))
    ax = normalize_axis(int(axis), len(shape))
    kk = -1 if k_tensor is not None else k
    out = tuple(kk if i == ax else d for i, d in enumerate(shape))
    return Meta(out, x.dtype), Meta(out, np.dtype(np.int64))


def _scatter_grad(x, indices, dout, axis=-1, **_):
    if x.ndim == 0:
        return np.array(dout, dtype=x.dtype)
    g = np.zeros_like(x)
    np.put_along_axis(g, indices, dout.astype(x.dtype, copy=False), axis=normalize_axis(int(axis), x.ndim))
    return g


register("top_k_v2", ["X", "K?"], ["Out", "Indices"],
         {"k": ("INT", 1), "axis": ("INT", -1), "largest": ("BOOLEAN", True), "sorted": ("BOOLEAN", True)},
         kernel=_top_k, infer_meta=_top_k_meta, differentiable=("X",))
grad_op("top_k_v2", ["X", "Indices", "Out@GRAD"], ["X@GRAD"], _scatter_grad)


# -- argsort -------------------------------------------------------------------------------------

def _argsort(x, axis=-1, descending=False, stable=False, **_):
    if x.ndim == 0:
        return x.copy(), np.zeros((), dtype=np.int64)
    ax = normalize_axis(int(axis), x.ndim)
    idx = stable_argsort(x, ax, descending)
    if not stable and x.shape[ax] > 16:   # std::sort is an insertion sort (stable) up to 16
        idx = _paddle_tie_order(x, idx, ax, lambda row: argsort_row(row, descending))
    return np.take_along_axis(x, idx, axis=ax), idx.astype(np.int64, copy=False)


def _argsort_meta(x, axis=-1, **_):
    if len(x.shape):
        normalize_axis(int(axis), len(x.shape))
    return Meta(tuple(x.shape), x.dtype), Meta(tuple(x.shape), np.dtype(np.int64))


register("argsort", ["X"], ["Out", "Indices"],
         {"axis": ("INT", -1), "descending": ("BOOLEAN", False), "stable": ("BOOLEAN", False)},
         kernel=_argsort, infer_meta=_argsort_meta)
grad_op("argsort", ["X", "Indices", "Out@GRAD"], ["X@GRAD"], _scatter_grad)


# -- where_index (paddle.nonzero) ----------------------------------------------------------------

def _where_index(cond, **_):
    if cond.ndim == 0:
        raise ValueError("where_index (nonzero): the input must have at least 1 dimension, got a 0-D tensor")
    return np.argwhere(cond).astype(np.int64, copy=False)


register("where_index", ["Condition"], ["Out"], {}, kernel=_where_index,
         infer_meta=lambda c, **_: Meta((-1, len(c.shape)), np.dtype(np.int64)), differentiable=())
