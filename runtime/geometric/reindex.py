"""Graph reindexing: map the node ids of sampled subgraphs to a compact ``0..K-1`` numbering (input nodes
first, then new neighbours in order of first appearance)."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor

__all__ = ["reindex_graph", "reindex_heter_graph"]


def _ints(t, what, where, dtypes=("int32", "int64")):
    if not isinstance(t, Tensor):
        raise TypeError(f"{where}: {what} must be a Tensor, got {type(t).__name__}")
    if t.dtype.name not in dtypes:
        raise ValueError(f"{where}: {what} must be {' or '.join(dtypes)}, got {t.dtype.name}")
    return t.numpy().reshape(-1)


def _reindex(x, neighbors_list, count_list, where):
    xs = _ints(x, "x", where)
    table = {}
    for v in xs.tolist():
        table.setdefault(v, len(table))
    srcs, dsts = [], []
    for neighbors, count in zip(neighbors_list, count_list):
        nb = _ints(neighbors, "neighbors", where)
        if neighbors.dtype != x.dtype:
            raise ValueError(f"{where}: neighbors must have x's dtype {x.dtype.name}, got {neighbors.dtype.name}")
        cnt = _ints(count, "count", where, ("int32",))
        if cnt.size != xs.size:
            raise ValueError(f"{where}: count has {cnt.size} entries but x has {xs.size} nodes")
        if int(cnt.sum()) != nb.size:
            raise ValueError(f"{where}: sum(count) = {int(cnt.sum())} but neighbors has {nb.size} entries")
        for v in nb.tolist():
            table.setdefault(v, len(table))
        srcs.append(np.array([table[v] for v in nb.tolist()], dtype=np.int64))
        dsts.append(np.repeat(np.arange(xs.size, dtype=np.int64), cnt.astype(np.int64)))
    dtype = x.numpy().dtype
    out_nodes = np.fromiter(table.keys(), dtype=np.int64, count=len(table))
    return (Tensor(np.concatenate(srcs).astype(dtype)), Tensor(np.concatenate(dsts).astype(dtype)),
            Tensor(out_nodes.astype(dtype)))


def reindex_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """Reindex a sampled graph: ``x`` the input nodes, ``neighbors`` their sampled neighbours (``count[i]``
    of them for ``x[i]``, int32). Returns ``(reindex_src, reindex_dst, out_nodes)``. The buffers of Paddle's
    GPU kernel are accepted and not needed."""
    return _reindex(x, [neighbors], [count], "reindex_graph")


def reindex_heter_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """`reindex_graph` for several edge types: ``neighbors`` and ``count`` are lists (one per type) sharing one
    numbering; the edges of all types are concatenated."""
    if not isinstance(neighbors, (list, tuple)) or not isinstance(count, (list, tuple)):
        raise TypeError("reindex_heter_graph: neighbors and count must be lists of Tensors (one per edge type)")
    if len(neighbors) != len(count):
        raise ValueError(f"reindex_heter_graph: {len(neighbors)} neighbor tensors but {len(count)} count tensors")
    return _reindex(x, list(neighbors), list(count), "reindex_heter_graph")
