"""``paddle.incubate.graph_khop_sampler``: multi-hop neighbour sampling on a CSC graph with the subgraph reindexed,
following Paddle's CPU kernel step by step (frontier = sampled nodes not in the current frontier, destination
nodes numbered first in frontier order, then new source nodes in order of appearance).

Paddle's kernel samples ``len(input_nodes)`` frontier nodes in *every* layer; when a later frontier is smaller it
reads past its buffer (undefined results), so that case is refused here with an explanation. Sampling without
replacement (``sample_size < degree``) draws from the global random generator; ``sample_size >= degree`` keeps
every neighbour (deterministic).
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from ..framework import state

__all__ = ["graph_khop_sampler"]


def _ints(t, what):
    if not isinstance(t, Tensor):
        raise TypeError(f"graph_khop_sampler: {what} must be a Tensor, got {type(t).__name__}")
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(f"graph_khop_sampler: {what} must be int32 or int64, got {t.dtype.name}")
    a = t.numpy().reshape(-1)
    if a.size == 0:
        label = {"row": "Row(X)", "colptr": "Col_Ptr(X)", "input_nodes": "Input_Node(X)"}[what]
        raise ValueError(f"(InvalidArgument) The size of {label} should not be 0.")
    return a


def _sample_layer(src, colptr, eids, inputs, k, bs, first, last, rng):
    outs, counts, out_eids = [], [], []
    for node in inputs[:bs]:
        begin, end = int(colptr[node]), int(colptr[node + 1])
        cap = end - begin
        idx = np.arange(begin, end)
        if k < cap:
            idx = idx[rng.permutation(cap)[:k]]
        outs.append(src[idx])
        counts.append(min(k, cap))
        if eids is not None:
            out_eids.append(eids[idx])
    total = sum(counts)
    if first and total <= 0:
        raise ValueError("(InvalidArgument) The input nodes `X` should have at least one neighbors, but none of the "
                         "input nodes have neighbors.")
    outputs = np.concatenate(outs) if outs else src[:0]
    eids_out = (np.concatenate(out_eids) if out_eids else src[:0]) if eids is not None else None
    frontier = inputs
    if not last:
        frontier = np.setdiff1d(np.unique(outputs), np.sort(inputs)).astype(src.dtype)
    return outputs, np.array(counts, dtype=src.dtype), eids_out, frontier


def graph_khop_sampler(row, colptr, input_nodes, sample_sizes, sorted_eids=None, return_eids=False, name=None):
    """Sample ``sample_sizes[i]`` neighbours per node in hop ``i`` and reindex. Returns ``(edge_src, edge_dst,
    sample_index, reindex_nodes[, edge_eids])``: edges as [E, 1] new ids, the original id of every new id, and the
    new ids of ``input_nodes``."""
    if return_eids and sorted_eids is None:
        raise ValueError("`sorted_eid` should not be None if return_eids is True.")
    if state.static:
        raise NotImplementedError("graph_khop_sampler: the output sizes depend on the sampled data, so this runs in "
                                  "dynamic mode only")
    src = _ints(row, "row")
    cp = _ints(colptr, "colptr")
    x = _ints(input_nodes, "input_nodes")
    if row.dtype != colptr.dtype or row.dtype != input_nodes.dtype:
        raise TypeError("graph_khop_sampler: row, colptr and input_nodes must have the same dtype, got "
                        f"{row.dtype.name}, {colptr.dtype.name} and {input_nodes.dtype.name}")
    eids = None
    if return_eids:
        eids = sorted_eids.numpy().reshape(-1)
    sizes = [int(s) for s in sample_sizes]
    if not sizes or any(s < 0 for s in sizes):
        raise ValueError(f"graph_khop_sampler: sample_sizes must be a non-empty list of non-negative ints, got "
                         f"{list(sample_sizes)}")
    if x.min() < 0 or x.max() + 1 >= cp.size:
        raise ValueError(f"graph_khop_sampler: input_nodes must be node ids in [0, {cp.size - 1}), got "
                         f"{x.tolist()}")
    bs = x.size
    keep = np.ones(bs, bool)
    keep[1:] = x[1:] != x[:-1]          # std::unique: drops consecutive repeats only
    inputs = x[keep]
    rng = np.random.default_rng(int(np.random.randint(0, 2 ** 31 - 1)))
    dst_vec, out_vec, cnt_vec, eid_vec = [np.array(inputs)], [], [], []
    for i, k in enumerate(sizes):
        if i > 0:
            dst_vec.append(np.array(inputs))
        if inputs.size < bs:
            raise ValueError(f"graph_khop_sampler: hop {i} has {inputs.size} frontier nodes but input_nodes has "
                             f"{bs}; Paddle's kernel samples {bs} nodes per hop and reads past the frontier here "
                             "(undefined results). Pass input_nodes without consecutive repeats and sample_sizes "
                             "whose hops reach at least as many new nodes")
        outputs, counts, out_eids, inputs = _sample_layer(src, cp, eids, inputs, k, bs, i == 0, i == len(sizes) - 1,
                                                          rng)
        out_vec.append(outputs)
        cnt_vec.append(counts)
        eid_vec.append(out_eids)
    unique_dst = np.concatenate(dst_vec)
    src_merge = np.concatenate(out_vec)
    counts = np.zeros(unique_dst.size, np.int64)
    flat_counts = np.concatenate(cnt_vec)
    counts[:flat_counts.size] = flat_counts       # the kernel copies bs counts per hop, front to back
    node_map, unique_nodes = {}, []
    for n in unique_dst.tolist():
        unique_nodes.append(n)
        node_map[n] = len(unique_nodes) - 1
    new_src = np.empty_like(src_merge)
    for j, n in enumerate(src_merge.tolist()):
        if n not in node_map:
            unique_nodes.append(n)
            node_map[n] = len(unique_nodes) - 1
        new_src[j] = node_map[n]
    dst_merge = np.repeat(np.array([node_map[n] for n in unique_dst.tolist()], dtype=src.dtype), counts)
    dt = src.dtype
    out = (Tensor(new_src.astype(dt).reshape(-1, 1)), Tensor(dst_merge.astype(dt).reshape(-1, 1)),
           Tensor(np.array(unique_nodes, dtype=dt)), Tensor(np.array([node_map[n] for n in x.tolist()], dtype=dt)))
    if return_eids:
        out = out + (Tensor(np.concatenate(eid_vec).astype(eids.dtype)),)
    return out
