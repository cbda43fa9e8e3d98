"""``paddle.incubate``'s operator functions: the fused masked softmaxes, the older graph and segment API (thin
adapters over `runtime.geometric`, which holds the implementations) and ``identity_loss``."""
from __future__ import annotations

from ..tensor import Tensor
from ..framework import state
from .. import geometric as _geo

__all__ = ["softmax_mask_fuse", "softmax_mask_fuse_upper_triangle", "graph_send_recv", "graph_reindex",
           "graph_sample_neighbors", "segment_sum", "segment_mean", "segment_max", "segment_min", "identity_loss"]


def softmax_mask_fuse(x, mask, name=None):
    """``softmax(x + mask)`` over the last axis. ``x`` is 4-D [N, H, S, S'] and ``mask`` [N, 1, S, S'] (broadcast
    over heads). Gradients flow to ``x`` only, as in Paddle's kernel (the mask is a constant)."""
    from ..nn.functional.activation import softmax
    if isinstance(mask, Tensor) and mask.size == 0:
        return x + mask
    if len(x.shape) != 4:
        raise ValueError(f"(InvalidArgument) Input x must be in 4D dimension but received the dimension of X is "
                         f"{len(x.shape)} (softmax_mask_fuse: pass a [batch, heads, seq_q, seq_k] tensor)")
    if len(mask.shape) != 4:
        raise ValueError(f"(InvalidArgument) Input mask must be in 4D dimension but received the dimension of mask "
                         f"is {len(mask.shape)} (softmax_mask_fuse: pass a [batch, 1, seq_q, seq_k] mask)")
    if mask.shape[1] != 1 and mask.shape[1] != -1:
        raise ValueError(f"(InvalidArgument) Input mask's second dim must be 1 but received the second dimension "
                         f"of mask is {mask.shape[1]} (softmax_mask_fuse)")
    if state.static:
        from ..api.creation import assign
        m = assign(mask)
        m.stop_gradient = True
    else:
        m = mask.detach()
    if m.dtype != x.dtype:
        m = m.astype(x.dtype)
    return softmax(x + m, axis=-1)


def softmax_mask_fuse_upper_triangle(x):
    """Causal (upper-triangle masked) softmax. Paddle implements it only as a GPU kernel and its CPU build raises
    NotImplementedError; so does this package."""
    raise NotImplementedError("(Unimplemented) Softmax mask fuse op only supports GPU now. "
                              "(softmax_mask_fuse_upper_triangle has no CPU kernel in Paddle's CPU build either; "
                              "on CPU add a causal mask yourself: paddle.nn.functional.softmax(x + mask) with "
                              "mask = paddle.triu(paddle.full([S, S], float('-inf')), 1))")


def _out_size(out_size):
    if out_size is None:
        return None
    if isinstance(out_size, Tensor):
        return out_size
    return int(out_size)


def graph_send_recv(x, src_index, dst_index, pool_type="sum", out_size=None, name=None):
    """Deprecated since Paddle 2.4 for `paddle.geometric.send_u_recv`: gather ``x[src_index]`` and reduce them
    at ``dst_index`` with ``pool_type`` (sum, mean, max, min)."""
    if pool_type not in ("sum", "mean", "max", "min"):
        raise ValueError(f"pool_type should be `sum`, `mean`, `max` or `min`, but received {pool_type}")
    return _geo.send_u_recv(x, src_index, dst_index, reduce_op=pool_type, out_size=_out_size(out_size))


def graph_reindex(x, neighbors, count, value_buffer=None, index_buffer=None, flag_buffer_hashtable=False,
                  name=None):
    """Deprecated for `paddle.geometric.reindex_graph`; returns ``(reindex_src, reindex_dst, out_nodes)``."""
    if flag_buffer_hashtable and (value_buffer is None or index_buffer is None):
        raise ValueError("`value_buffer` and `index_buffer` should not be None if `flag_buffer_hashtable` is True.")
    return _geo.reindex_graph(x, neighbors, count, value_buffer, index_buffer)


def graph_sample_neighbors(row, colptr, input_nodes, eids=None, perm_buffer=None, sample_size=-1,
                           return_eids=False, flag_perm_buffer=False, name=None):
    """Deprecated for `paddle.geometric.sample_neighbors` (note the older argument order: ``eids`` and
    ``perm_buffer`` come before ``sample_size``). Returns ``(out_neighbors, out_count[, out_eids])``."""
    if return_eids and eids is None:
        raise ValueError("`eids` should not be None if `return_eids` is True.")
    if flag_perm_buffer and perm_buffer is None:
        raise ValueError("`perm_buffer` should not be None if `flag_perm_buffer` is True.")
    return _geo.sample_neighbors(row, colptr, input_nodes, sample_size=sample_size, eids=eids,
                                 return_eids=return_eids)


def segment_sum(data, segment_ids, name=None):
    """Deprecated for `paddle.geometric.segment_sum`."""
    return _geo.segment_sum(data, segment_ids)


def segment_mean(data, segment_ids, name=None):
    """Deprecated for `paddle.geometric.segment_mean`."""
    return _geo.segment_mean(data, segment_ids)


def segment_max(data, segment_ids, name=None):
    """Deprecated for `paddle.geometric.segment_max`."""
    return _geo.segment_max(data, segment_ids)


def segment_min(data, segment_ids, name=None):
    """Deprecated for `paddle.geometric.segment_min`."""
    return _geo.segment_min(data, segment_ids)


_REDUCTIONS = {"sum": 0, "mean": 1, "none": 2}


def identity_loss(x, reduction="none"):
    """Mark ``x`` as the loss (an IPU notion): ``reduction`` 'sum'/0 sums it, 'mean'/1 averages it,
    'none'/2 returns it unchanged (float32 and float64 only, as Paddle's CPU kernel)."""
    from ..api.reduction import sum as _sum, mean as _mean
    if isinstance(reduction, str):
        code = _REDUCTIONS.get(reduction.lower())
        if code is None:
            raise TypeError("Unsupported reduction type.")
        reduction = code
    if x.dtype.name not in ("float32", "float64"):
        raise RuntimeError(f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {x.dtype.name}) of kernel "
                           "`identity_loss` is not registered. identity_loss supports float32 and float64; cast "
                           "the input with x.astype('float32')")
    if reduction == 0:
        return _sum(x)
    if reduction == 1:
        return _mean(x)
    if reduction == 2:
        return x * 1.0      # a new tensor on the graph, as the kernel's output
    raise ValueError(f"(InvalidArgument) reduction should be 0, 1 and 2. But get {reduction} "
                     "(identity_loss: use 'sum', 'mean' or 'none')")
