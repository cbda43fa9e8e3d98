"""scatter_add(_) and scatter_reduce: values of ``src`` combined into ``input`` at ``index`` along ``dim``
(Paddle's put_along_axis without broadcasting). 'sum'/'prod' use the put_along_axis op; 'mean',
'amin' and 'amax' are composed of registered ops (a one-hot match of index against the target
positions), so they run in static programs and are differentiable."""
from __future__ import annotations

import numpy as np

from ..ops.meta import normalize_axis
from ..tensor import tensor_method
from .creation import arange, full_like
from .logic import equal
from .manipulation import _inplace, cast, moveaxis, put_along_axis, slice, unsqueeze, where
from .manipulation_extra import _int, _tensor, slice_scatter
from .math import maximum, minimum
from .reduction import any as _any, max as _max, min as _min, sum as _sum

__all__ = ["scatter_add", "scatter_add_", "scatter_reduce"]


def _along_no_broadcast(input, index, src, dim, op):
    input = _tensor(input, op, "input")
    index, src = _tensor(index, op, "index"), _tensor(src, op, "src")
    nd = len(input.shape)
    if len(index.shape) != nd:
        raise ValueError(f"{op}: index must have as many dims as input ({nd}), got shape {list(index.shape)}")
    ax = normalize_axis(_int(dim, op, "dim"), nd, f"{op}: dim")
    if len(src.shape) != nd:
        raise ValueError("`indices` and `values` must have the same number of dimensions!")
    for i in range(nd):
        if (i != ax and input.shape[i] < index.shape[i]) or index.shape[i] > src.shape[i]:
            raise RuntimeError(f"Size does not match at dimension {i} expected index {list(index.shape)} to be "
                               f"smaller than self {list(input.shape)} apart from dimension {ax} and to be smaller "
                               f"size than values {list(src.shape)}")
    if list(src.shape) != list(index.shape):
        # as in Paddle (and torch), only src's leading index-shaped block is scattered
        src = slice(src, list(range(nd)), [0] * nd, list(index.shape))
    if src.dtype != input.dtype:
        src = cast(src, input.dtype)
    return input, index, src, ax


@tensor_method
def scatter_add(input, dim, index, src):
    """A copy of ``input`` with ``src`` added at ``index`` along ``dim`` (duplicates accumulate)."""
    input, index, src, ax = _along_no_broadcast(input, index, src, dim, "scatter_add")
    return put_along_axis(input, index, src, ax, "add", include_self=True, broadcast=False)


scatter_add_ = _inplace("scatter_add_", scatter_add)


def _matched_reduce(input, index, src, ax, reduce, include_self):
    """mean / amin / amax: compare every index entry with every target position along ``ax``."""
    nd = len(input.shape)
    others = [i for i in range(nd) if i != ax]
    region_shape = [int(index.shape[i]) if i != ax else int(input.shape[ax]) for i in range(nd)]
    partial = region_shape != [int(d) for d in input.shape]
    region = slice(input, others, [0] * len(others), [region_shape[i] for i in others]) if partial else input
    n = int(input.shape[ax])
    x_last = moveaxis(region, ax, -1)                        # [..., n]
    idx = unsqueeze(moveaxis(index, ax, -1), -2)             # [..., 1, k]
    vals = unsqueeze(moveaxis(src, ax, -1), -2)              # [..., 1, k]
    positions = unsqueeze(arange(0, n, dtype=index.dtype), -1)   # [n, 1]
    mask = equal(idx, positions)                             # [..., n, k]: entry k goes to position t
    hit = _any(mask, axis=-1)                                # [..., n]
    if reduce == "mean":
        zero = full_like(vals, 0)
        total = _sum(where(mask, vals, zero), axis=-1)
        count = _sum(cast(mask, input.dtype), axis=-1)
        if include_self:
            res = (x_last + total) / (count + 1)
        else:
            res = total / where(hit, count, full_like(count, 1))
        if input.dtype.np.kind in "iu":
            res = cast(res, input.dtype)
    else:
        kind = input.dtype.np
        extreme = (np.finfo(kind).max if kind.kind == "f" else np.iinfo(kind).max)
        fill = full_like(vals, -extreme if reduce == "amax" else extreme)
        picked = where(mask, vals, fill)
        best = _max(picked, axis=-1) if reduce == "amax" else _min(picked, axis=-1)
        if include_self:
            best = maximum(x_last, best) if reduce == "amax" else minimum(x_last, best)
        res = best
    res = moveaxis(where(hit, res, x_last), -1, ax)
    if not partial:
        return res
    return slice_scatter(input, res, others, [0] * len(others), [region_shape[i] for i in others],
                         [1] * len(others))


@tensor_method
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """``input`` with ``src`` combined in at ``index`` along ``dim`` by 'sum', 'prod', 'mean', 'amin' or
    'amax' (``include_self=False`` leaves input's own values at the written places out)."""
    if reduce not in ("sum", "prod", "mean", "amin", "amax"):
        raise ValueError(f"scatter_reduce: reduce must be one of ['sum', 'prod', 'mean', 'amin', 'amax'], "
                         f"got {reduce!r}")
    input, index, src, ax = _along_no_broadcast(input, index, src, dim, "scatter_reduce")
    if reduce in ("sum", "prod"):
        return put_along_axis(input, index, src, ax, "add" if reduce == "sum" else "multiply",
                              include_self=include_self, broadcast=False)
    return _matched_reduce(input, index, src, ax, reduce, bool(include_self))
