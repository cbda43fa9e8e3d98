"""paddle.sparse binary functions: elementwise add/subtract/multiply/divide of two sparse tensors
(Paddle's pattern rules), mask_as, is_same_shape, and the matrix products (addmm: multiary.py).

Sparse-sparse add, subtract and multiply give the sorted union of both patterns; divide gives
every position (0/0 is NaN, as Paddle's kernel computes). The matrix products (matmul, mv,
masked_matmul, addmm) have no CPU kernels in Paddle 3.3.1: they raise as Paddle's CPU build does.
"""
from __future__ import annotations

import numpy as np

from ..api import math as _m
from ..tensor import Tensor
from . import _prims as P
from .tensor import SparseCooTensor, SparseCsrTensor, _SparseBase, as_coo, coo_to_csr

__all__ = ["add", "subtract", "multiply", "divide", "matmul", "masked_matmul", "mv", "is_same_shape", "mask_as"]


def _unimplemented(op):
    return NotImplementedError(f"(Unimplemented) The kernel of ({op}) for input tensors is unimplemented: "
                               f"paddle.sparse.{op} needs two sparse tensors of the same format (both COO or both "
                               "CSR); convert with to_sparse_coo(sparse_dim) / to_sparse_csr()")


def _check_pair(x, y, op):
    if isinstance(x, SparseCooTensor) and isinstance(y, SparseCooTensor):
        pass
    elif isinstance(x, SparseCsrTensor) and isinstance(y, SparseCsrTensor):
        pass
    elif isinstance(x, SparseCooTensor) and isinstance(y, Tensor) and not isinstance(y, _SparseBase):
        raise NotImplementedError(f"(Unimplemented) Not support Sparse + Dense in GPU mode: paddle.sparse.{op} of "
                                  "a sparse and a dense tensor has no CPU kernel in Paddle; convert the dense "
                                  "tensor with to_sparse_coo(sparse_dim)")
    elif isinstance(y, (int, float)) and not isinstance(y, bool) and op == "add":
        raise ValueError(f"(InvalidArgument) add(): argument 'y' (position 1) must be Tensor, but got "
                         f"{type(y).__name__}")
    else:
        raise _unimplemented(op)
    if list(x.shape) != list(y.shape):
        raise ValueError(f"(InvalidArgument) Broadcast dimension mismatch. Operands could not be broadcast "
                         f"together with the shape of X = {x.shape} and the shape of Y = {y.shape}.")
    if x.dtype is not y.dtype:
        raise TypeError(f"(InvalidArgument) paddle.sparse.{op}: x and y must have the same dtype, got "
                        f"{x.dtype.name} and {y.dtype.name}")


def _union(x, y, full=False):
    """(indices, pos_x, pos_y, n) of the sorted union of both patterns (or every position)."""
    cx, cy = as_coo(x, "elementwise"), as_coo(y, "elementwise")
    sd = cx._sparse_dim
    if cy._sparse_dim != sd:
        raise ValueError(f"(InvalidArgument) the two sparse tensors must have the same sparse_dim, got {sd} "
                         f"and {cy._sparse_dim}")
    dims = x._dense_shape[:sd]
    kx, ky = P.linear_keys(cx._indices, dims), P.linear_keys(cy._indices, dims)
    if full:
        uniq = np.arange(int(np.prod(dims)), dtype=np.int64)
    else:
        uniq = np.unique(np.concatenate([kx, ky]))
    idx = P.unravel(uniq, dims).astype(cx._indices.dtype)
    return cx, cy, idx, np.searchsorted(uniq, kx), np.searchsorted(uniq, ky), uniq.size


def _same_pattern(x, y):
    if isinstance(x, SparseCooTensor):
        return x._indices.shape == y._indices.shape and np.array_equal(x._indices, y._indices)
    return np.array_equal(x._crows, y._crows) and np.array_equal(x._cols, y._cols)


def _elementwise(x, y, op, combine, full=False):
    _check_pair(x, y, op)
    if not full and _same_pattern(x, y):
        # Paddle's kernel combines the values directly when both index arrays are equal (even uncoalesced)
        return x._with_values(combine(x._values, y._values))
    cx, cy, idx, px, py, n = _union(x, y, full)
    vx = P.segment_sum(cx._values, px, n)
    vy = P.segment_sum(cy._values, py, n)
    out = SparseCooTensor(idx, combine(vx, vy), x._dense_shape)
    return coo_to_csr(out) if isinstance(x, SparseCsrTensor) else out


def add(x, y, name=None):
    """``x + y`` of two sparse tensors of one format: the union of their patterns."""
    return _elementwise(x, y, "add", _m.add)


def subtract(x, y, name=None):
    """``x - y`` of two sparse tensors of one format: the union of their patterns."""
    return _elementwise(x, y, "subtract", _m.subtract)


def multiply(x, y, name=None):
    """``x * y``: a Python number scales the values; two sparse tensors give the union pattern."""
    if isinstance(y, (int, float)) and not isinstance(y, bool):
        if not isinstance(x, _SparseBase):
            raise _unimplemented("multiply")
        return x._with_values(_m.scale(x._values, float(y)))
    return _elementwise(x, y, "multiply", _m.multiply)


def divide(x, y, name=None):
    """``x / y``: a Python number divides the values; two sparse tensors give every position."""
    if isinstance(y, (int, float)) and not isinstance(y, bool):
        if not isinstance(x, _SparseBase):
            raise _unimplemented("divide")
        return x._with_values(_m.divide(x._values, Tensor(np.asarray(y, x._values._data.dtype))))
    return _elementwise(x, y, "divide", _m.divide, full=True)


def is_same_shape(x, y):
    """True when ``x`` and ``y`` (sparse or dense) have the same shape."""
    return list(x.shape) == list(y.shape)


def mask_as(x, mask, name=None):
    """The dense ``x`` read at the pattern of the sparse ``mask`` (gradient flows to ``x``)."""
    if not isinstance(mask, _SparseBase) or isinstance(x, _SparseBase):
        raise NotImplementedError("(Unimplemented) The kernel of (mask_as) for input tensors is unimplemented: "
                                  "mask_as(x, mask) takes a dense x and a sparse mask")
    if list(x.shape) != list(mask.shape):
        raise ValueError(f"(InvalidArgument) mask_as: x has shape {x.shape} but mask has shape {mask.shape}")
    if isinstance(mask, SparseCsrTensor):
        return SparseCsrTensor(mask._crows, mask._cols, P.gather_points(x, mask.coo_indices()), mask._dense_shape)
    return SparseCooTensor(mask._indices, P.gather_points(x, mask._indices), mask._dense_shape, coalesced=True)


# -- matrix products: GPU-only in Paddle 3.3.1 ------------------------------------------------------

def no_cpu_kernel(op, x):
    if isinstance(x, _SparseBase):
        raise NotImplementedError(f"(Unimplemented) Not support CPU kernel of 'sparse.{op}' now: Paddle 3.3.1 runs "
                                  f"paddle.sparse.{op} on GPU only; compute it densely with paddle.{op} on "
                                  "x.to_dense()")
    raise NotImplementedError(f"(Unimplemented) The kernel of ({op}) for input tensors is unimplemented: "
                              f"paddle.sparse.{op} takes a sparse x")


def matmul(x, y, name=None):
    """Paddle's CPU build has no sparse matmul kernel: raises NotImplementedError, as Paddle does."""
    no_cpu_kernel("matmul", x)


def masked_matmul(x, y, mask, name=None):
    """Paddle's CPU build has no masked_matmul kernel: raises NotImplementedError, as Paddle does."""
    no_cpu_kernel("masked_matmul", mask)


def mv(x, vec, name=None):
    """Paddle's CPU build has no sparse mv kernel: raises NotImplementedError, as Paddle does."""
    no_cpu_kernel("mv", x)
