"""Differentiable building blocks on a sparse tensor's values, made of registered dense ops.

Every structural sparse operation (coalesce, union of two patterns, conv rulebooks ...) computes
its index bookkeeping in numpy and moves the values with these helpers, so gradients flow to
``values`` through the ops' own gradient rules (gather <-> index_add, gather_nd <-> scatter).
"""
from __future__ import annotations

import numpy as np

from ..dispatch import run_op
from ..tensor import Tensor


def idx_tensor(arr) -> Tensor:
    return Tensor._wrap(np.ascontiguousarray(np.asarray(arr, dtype=np.int64)))


def zeros(shape, dtype) -> Tensor:
    return Tensor._wrap(np.zeros(tuple(int(s) for s in shape), dtype=dtype))


def take_rows(values: Tensor, rows) -> Tensor:
    """``values[rows]`` along axis 0 (gradient: scatter-add back)."""
    rows = np.asarray(rows, dtype=np.int64)
    if rows.size == values.shape[0] and np.array_equal(rows, np.arange(rows.size)):
        return values
    if rows.size == 0:
        return Tensor._wrap(np.zeros((0,) + tuple(values.shape[1:]), values._data.dtype))
    return run_op("gather", values, idx_tensor(rows), None, axis=0)


def segment_sum(values: Tensor, seg, n: int) -> Tensor:
    """Rows of ``values`` summed into ``n`` rows by segment id ``seg`` (gradient: gather)."""
    seg = np.asarray(seg, dtype=np.int64)
    base = zeros((n,) + tuple(values.shape[1:]), values._data.dtype)
    if seg.size == 0:
        return base
    return run_op("index_add", base, idx_tensor(seg), values, axis=0)


def gather_points(dense: Tensor, coords) -> Tensor:
    """``dense`` read at the integer points ``coords`` ([k, npoints]); keeps trailing dims."""
    coords = np.asarray(coords, dtype=np.int64)
    return run_op("gather_nd", dense, idx_tensor(coords.T))


def scatter_points(shape, coords, values: Tensor) -> Tensor:
    """A dense tensor of ``shape`` holding ``values`` at the points ``coords`` ([k, npoints])."""
    coords = np.asarray(coords, dtype=np.int64)
    base = zeros(shape, values._data.dtype)
    if coords.shape[-1] == 0:
        return base
    return run_op("scatter_nd_add", base, idx_tensor(coords.T), values)


def linear_keys(indices: np.ndarray, dims) -> np.ndarray:
    """Row-major linear positions of the coordinate columns ``indices`` ([k, nnz]) in ``dims``."""
    if indices.shape[1] == 0:
        return np.zeros((0,), np.int64)
    return np.ravel_multi_index(tuple(indices.astype(np.int64)), tuple(int(d) for d in dims))


def unravel(keys: np.ndarray, dims) -> np.ndarray:
    if len(dims) == 0:
        return np.zeros((0, keys.size), np.int64)
    return np.stack(np.unravel_index(keys.astype(np.int64), tuple(int(d) for d in dims))).astype(np.int64) \
        if keys.size else np.zeros((len(dims), 0), np.int64)
