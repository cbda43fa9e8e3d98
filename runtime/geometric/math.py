"""Segment reductions (``segment_sum/mean/max/min``) and the scatter-reduce they share with message passing.

``scatter_reduce(values, index, n, op)`` reduces the rows of ``values`` into ``n`` rows by ``index``; rows no
index points at are 0 (Paddle's convention for every reduction). Max/min take the extreme value from numpy
and route the gradient to every row that attains it, as Paddle's kernels do.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import run_op
from ..framework import state
from ..tensor import Tensor
from ..api.creation import zeros
from ..api.tensor_extra import index_add

__all__ = ["segment_sum", "segment_mean", "segment_min", "segment_max", "scatter_reduce"]

_FLOAT_OR_INT = ("float16", "float32", "float64", "int32", "int64")


def _check_index(index, what, where):
    if not isinstance(index, Tensor) and not hasattr(index, "block"):
        raise TypeError(f"{where}: {what} must be a Tensor of int32 or int64, got {type(index).__name__}")
    if index.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{where}: {what} must be int32 or int64, got {index.dtype.name}")
    if len(index.shape) != 1:
        raise ValueError(f"{where}: {what} must be 1-D, got shape {list(index.shape)}")


def _counts(index_np, n):
    return np.bincount(index_np.astype(np.int64), minlength=n)[:n]


def scatter_reduce(values, index, n, op, where):
    """Reduce rows of ``values`` ([E, ...]) into ``n`` rows by ``index`` ([E]) with ``op`` in sum/mean/max/min."""
    shape = [int(n)] + list(values.shape[1:])
    base = zeros(shape, dtype=values.dtype)
    if op == "sum":
        return index_add(base, index, 0, values)
    if op == "mean":
        total = index_add(base, index, 0, values)
        if state.static:
            ones = run_op("fill_any_like", index, value=1.0, dtype=values.dtype.proto)
            count = index_add(zeros([int(n)], dtype=values.dtype), index, 0, ones)
            count = count.clip(min=1).reshape([int(n)] + [1] * (len(shape) - 1))
            return total / count
        cnt = np.maximum(_counts(index.numpy(), n), 1).reshape([int(n)] + [1] * (len(shape) - 1))
        if values.dtype.name in ("int32", "int64"):
            # integer means truncate, as Paddle's integer kernels divide
            return Tensor(np.trunc(total.numpy() / cnt).astype(total.numpy().dtype))
        return total / Tensor(cnt.astype(values.numpy().dtype))
    if state.static:
        raise NotImplementedError(f"{where}: reduce '{op}' runs in dynamic mode only (the extreme values are "
                                  "found on concrete data); use 'sum' or 'mean' in static programs")
    v = values.numpy()
    idx = index.numpy().astype(np.int64)
    fill = -np.inf if op == "max" else np.inf
    if v.dtype.kind in "iu":
        info = np.iinfo(v.dtype)
        fill = info.min if op == "max" else info.max
    extreme = np.full(shape, fill, dtype=v.dtype)
    (np.maximum if op == "max" else np.minimum).at(extreme, idx, v)
    extreme[_counts(idx, n) == 0] = 0
    out = Tensor(extreme)
    if values.stop_gradient or v.dtype.kind in "iu":
        return out
    hit = (v == extreme[idx]).astype(v.dtype)
    # value: the extremes; gradient: d out[k] / d values[e] = 1 where values[e] attains out[index[e]]
    return out + index_add(base, index, 0, (values - values.detach()) * Tensor(hit))


def _segment(data, segment_ids, op, where):
    if data.dtype.name not in _FLOAT_OR_INT:
        raise TypeError(f"{where}: data must be float16, float32, float64, int32 or int64, got {data.dtype.name}")
    _check_index(segment_ids, "segment_ids", where)
    if segment_ids.shape[0] != data.shape[0] and segment_ids.shape[0] >= 0 and data.shape[0] >= 0:
        raise ValueError(f"{where}: segment_ids has {segment_ids.shape[0]} entries but data has {data.shape[0]} "
                         "rows; give one segment id per row")
    if state.static:
        raise NotImplementedError(f"{where}: the number of segments (max(segment_ids) + 1) is known only from "
                                  "concrete data, so this runs in dynamic mode only")
    ids = segment_ids.numpy()
    if ids.size and (ids.min() < 0 or np.any(np.diff(ids) < 0)):
        raise ValueError(f"{where}: segment_ids must be non-negative and sorted ascending, got {ids.tolist()}")
    n = int(ids.max()) + 1 if ids.size else 0
    return scatter_reduce(data, segment_ids, n, op, where)


def segment_sum(data, segment_ids, name=None):
    """Sum of the rows of ``data`` in each segment (``segment_ids`` sorted; output rows = max id + 1)."""
    return _segment(data, segment_ids, "sum", "segment_sum")


def segment_mean(data, segment_ids, name=None):
    """Mean of the rows of ``data`` in each segment (empty segments are 0)."""
    return _segment(data, segment_ids, "mean", "segment_mean")


def segment_max(data, segment_ids, name=None):
    """Elementwise maximum of the rows of ``data`` in each segment (empty segments are 0)."""
    return _segment(data, segment_ids, "max", "segment_max")


def segment_min(data, segment_ids, name=None):
    """Elementwise minimum of the rows of ``data`` in each segment (empty segments are 0)."""
    return _segment(data, segment_ids, "min", "segment_min")
