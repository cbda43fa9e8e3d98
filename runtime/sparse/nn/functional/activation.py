"""paddle.sparse.nn.functional activations: relu, relu6, leaky_relu on the values, and softmax over
the stored entries of each slice (implicit zeros take no part, as in Paddle)."""
from __future__ import annotations

import numpy as np

from ....api import math as _m
from ....nn import functional as _F
from ....tensor import Tensor
from ... import _prims as P
from ...tensor import SparseCsrTensor, _SparseBase

__all__ = ["relu", "relu6", "leaky_relu", "softmax"]


def _sparse(x, op):
    if not isinstance(x, _SparseBase):
        raise NotImplementedError(f"(Unimplemented) The kernel of ({op}) for input tensors is unimplemented: "
                                  f"paddle.sparse.nn.functional.{op} takes a sparse COO or CSR tensor")
    return x


def relu(x, name=None):
    """max(x, 0) on the stored values."""
    return _sparse(x, "relu")._with_values(_F.relu(x._values))


def relu6(x, name=None):
    """min(max(x, 0), 6) on the stored values."""
    return _sparse(x, "relu6")._with_values(_F.relu6(x._values))


def leaky_relu(x, negative_slope=0.01, name=None):
    """x if x >= 0 else negative_slope * x, on the stored values."""
    # Paddle's kernel takes the slope as a float32 attribute
    return _sparse(x, "leaky_relu")._with_values(_F.leaky_relu(x._values, float(np.float32(negative_slope))))


def _group_softmax(values, groups, n):
    """softmax of the rows of ``values`` within each group id (the max shift is a constant)."""
    data = values._data
    gmax = np.full((n,) + data.shape[1:], -np.inf, data.dtype)
    np.maximum.at(gmax, groups, data)
    shifted = _m.subtract(values, Tensor._wrap(gmax[groups]))
    e = _m.exp(shifted)
    denom = P.take_rows(P.segment_sum(e, groups, n), groups)
    return _m.divide(e, denom)


def softmax(x, axis=-1, name=None):
    """Softmax along ``axis`` over the stored entries only (CSR: each row's entries)."""
    _sparse(x, "softmax")
    nd = x.ndim
    axis = int(axis) % nd
    if isinstance(x, SparseCsrTensor):
        if axis != nd - 1:
            raise ValueError(f"(InvalidArgument) SparseCsrTensor only support axis=-1 for softmax, got {axis}")
        rows_n = x._dense_shape[-2]
        counts = np.diff(x._crows.astype(np.int64).reshape(-1, rows_n + 1), axis=1).reshape(-1)
        groups = np.repeat(np.arange(counts.size), counts)
        return x._with_values(_group_softmax(x._values, groups, counts.size))
    sd = x._sparse_dim
    if axis >= sd:                     # a dense dim: an ordinary softmax of the values
        return x._with_values(_F.softmax(x._values, axis - sd + 1), coalesced=True)
    rest = [d for d in range(sd) if d != axis]
    keys = P.linear_keys(x._indices[rest], [x._dense_shape[d] for d in rest])
    uniq, groups = np.unique(keys, return_inverse=True)
    return x._with_values(_group_softmax(x._values, groups.reshape(-1), uniq.size), coalesced=True)
