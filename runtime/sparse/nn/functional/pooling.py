"""paddle.sparse.nn.functional.max_pool3d: the max over the active inputs of each window (implicit
zeros take no part), at every output site some active input reaches."""
from __future__ import annotations

import numpy as np

from ... import _prims as P
from ...tensor import SparseCooTensor
from . import _rulebook as R

__all__ = ["max_pool3d"]


def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NDHWC", name=None):
    """Sparse 3-D max pooling of a channel-last COO tensor [N, D, H, W, C].

    ``ceil_mode`` is accepted and, as in Paddle 3.3.1's sparse kernel, does not change the output size."""
    if not isinstance(x, SparseCooTensor):
        raise TypeError("Currently, sparse.max_pool3d only support the input of SparseCooTensor")
    if data_format != "NDHWC":
        raise ValueError("Currently, sparse.max_pool3d only support data format of 'NDHWC'")
    if x.ndim != 5 or x._sparse_dim != 4:
        raise ValueError(f"max_pool3d: x must be [N, D, H, W, C] with sparse_dim 4, got shape {x.shape} and "
                         f"sparse_dim {x._sparse_dim}")
    kernel = R.as_list(kernel_size, 3, "pool_size")
    stride = kernel if stride is None else R.as_list(stride, 3, "pool_stride")
    padding = R.conv_padding(padding, 3)
    batch, channels = x.shape[0], x.shape[-1]
    in_rows, _, out_rows, out_idx, odims = R.regular(x._indices, x.shape[1:4], kernel, stride, padding, [1, 1, 1],
                                                     batch)
    n_out = out_idx.shape[1]
    data = x._values._data
    vals = data[in_rows]                                         # [pairs, C]
    best = np.full((n_out, channels), -np.inf, data.dtype)
    np.maximum.at(best, out_rows, vals)
    big = np.iinfo(np.int64).max
    cand = np.where(vals == best[out_rows], in_rows[:, None], big)
    src = np.full((n_out, channels), big, np.int64)
    np.minimum.at(src, out_rows, cand)
    coords = np.stack([src.reshape(-1), np.tile(np.arange(channels), n_out)])
    out_v = P.gather_points(x._values, coords).reshape([n_out, channels])
    return SparseCooTensor(out_idx.astype(x._indices.dtype), out_v, [batch] + odims + [channels], coalesced=True)
