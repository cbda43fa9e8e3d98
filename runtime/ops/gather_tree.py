"""gather_tree: the full beam-search paths from per-step ids and parent beams ([length, batch, beam])."""
from __future__ import annotations

import numpy as np

from .registry import Meta, register


def _check(ids_shape, parents_shape, ids_dtype, parents_dtype):
    if len(ids_shape) != 3:
        raise ValueError(f"gather_tree: Ids must be 3-D [length, batch, beam], got shape {list(ids_shape)}")
    if tuple(ids_shape) != tuple(parents_shape):
        raise ValueError(f"gather_tree: Parents must have Ids' shape {list(ids_shape)}, got {list(parents_shape)}")
    for what, dt in (("Ids", ids_dtype), ("Parents", parents_dtype)):
        if np.dtype(dt) not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise TypeError(f"gather_tree: {what} must be int32 or int64, got {np.dtype(dt)}")


def _gather_tree(ids, parents):
    _check(ids.shape, parents.shape, ids.dtype, parents.dtype)
    T, B, K = ids.shape
    out = np.empty_like(ids)
    if T == 0:
        return out
    if parents.size and (parents.min() < 0 or parents.max() >= K):
        raise ValueError(f"gather_tree: parent beam indices must lie in [0, {K}), got values from {parents.min()} "
                         f"to {parents.max()}")
    batch = np.arange(B)[:, None]
    out[T - 1] = ids[T - 1]
    parent = parents[T - 1].astype(np.int64)
    # walk back from the last step: each beam follows its chain of parents
    for step in range(T - 2, -1, -1):
        out[step] = ids[step][batch, parent]
        parent = parents[step][batch, parent].astype(np.int64)
    return out


register("gather_tree", ["Ids", "Parents"], ["Out"], {}, kernel=_gather_tree,
         infer_meta=lambda ids, parents, **_: (_check(ids.shape, parents.shape, ids.dtype, parents.dtype)
                                               or Meta(tuple(ids.shape), ids.dtype)),
         differentiable=())
