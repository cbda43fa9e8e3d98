"""Neighbour sampling on a CSC graph (``row``, ``colptr``): uniform (``sample_neighbors``) or by edge weight
without replacement (``weighted_sample_neighbors``), drawing from the global generator (``paddle.seed``)."""
from __future__ import annotations

import numpy as np

from ..random import generator
from ..tensor import Tensor
from .reindex import _ints

__all__ = ["sample_neighbors", "weighted_sample_neighbors"]


def _graph(row, colptr, input_nodes, where):
    r = _ints(row, "row", where)
    c = _ints(colptr, "colptr", where)
    nodes = _ints(input_nodes, "input_nodes", where)
    if row.dtype != colptr.dtype or row.dtype != input_nodes.dtype:
        raise ValueError(f"{where}: row, colptr and input_nodes must share one dtype, got {row.dtype.name}, "
                         f"{colptr.dtype.name} and {input_nodes.dtype.name}")
    if nodes.size and (nodes.min() < 0 or nodes.max() >= c.size - 1):
        raise ValueError(f"{where}: input_nodes must be in [0, {c.size - 1}), got {nodes.tolist()}")
    return r, c, nodes


def _sample(row, colptr, input_nodes, sample_size, eids, return_eids, weights, where):
    if return_eids and eids is None:
        raise ValueError("`eids` should not be None if `return_eids` is True.")
    r, c, nodes = _graph(row, colptr, input_nodes, where)
    e = _ints(eids, "eids", where) if return_eids else None
    w = weights.numpy().reshape(-1).astype(np.float64) if weights is not None else None
    rng = generator()
    picked, counts = [], []
    for v in nodes.tolist():
        start, end = int(c[v]), int(c[v + 1])
        deg = end - start
        if sample_size < 0 or deg <= sample_size:
            chosen = np.arange(start, end)
        elif w is None:
            chosen = start + rng.choice(deg, size=sample_size, replace=False)
        else:
            ww = w[start:end]
            positive = np.flatnonzero(ww > 0)
            if positive.size <= sample_size:
                chosen = start + positive
            else:
                p = ww[positive] / ww[positive].sum()
                chosen = start + rng.choice(positive, size=sample_size, replace=False, p=p)
        picked.append(chosen)
        counts.append(chosen.size)
    sel = np.concatenate(picked).astype(np.int64) if picked else np.zeros([0], np.int64)
    out = [Tensor(r[sel].astype(r.dtype)), Tensor(np.array(counts, dtype=np.int32))]
    if return_eids:
        out.append(Tensor(e[sel].astype(e.dtype)))
    return tuple(out)


def sample_neighbors(row, colptr, input_nodes, sample_size=-1, eids=None, return_eids=False, perm_buffer=None,
                     name=None):
    """Sample up to ``sample_size`` neighbours of each input node uniformly without replacement (all of them when
    the degree is smaller, or ``sample_size == -1``). Returns ``(out_neighbors, out_count[, out_eids])``."""
    return _sample(row, colptr, input_nodes, int(sample_size), eids, return_eids, None, "sample_neighbors")


def weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, sample_size=-1, eids=None, return_eids=False,
                              name=None):
    """Like `sample_neighbors`, drawing neighbours with probability proportional to ``edge_weight`` (without
    replacement; zero-weight edges are never drawn while enough positive ones exist)."""
    if not isinstance(edge_weight, Tensor) or edge_weight.dtype.name not in ("float32", "float64"):
        raise ValueError("weighted_sample_neighbors: edge_weight must be a float32 or float64 Tensor")
    if edge_weight.size != row.size:
        raise ValueError(f"weighted_sample_neighbors: edge_weight has {edge_weight.size} entries but row has "
                         f"{row.size}; give one weight per edge")
    return _sample(row, colptr, input_nodes, int(sample_size), eids, return_eids, edge_weight,
                   "weighted_sample_neighbors")
