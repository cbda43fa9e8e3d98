"""``paddle.sparse.sparse_coo_tensor`` / ``sparse_csr_tensor`` and the dense Tensor's sparse methods."""
from __future__ import annotations

import numpy as np

from .. import dtype as _dt
from ..tensor import Tensor, tensor_method
from .tensor import SparseCooTensor, SparseCsrTensor, dense_to_coo, dense_to_csr, dynamic_only, _SparseBase

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor"]

_INDEX_KINDS = ("int8", "int16", "int32", "int64")


def _check_place(place):
    if place is None:
        return
    from ..device import CPUPlace
    if isinstance(place, CPUPlace) or str(place).lower() in ("cpu", "place(cpu)"):
        return
    raise ValueError(f"place {place!r}: dy2st runs on the CPU only (use None, 'cpu' or paddle.CPUPlace())")


def _index_array(data, what) -> np.ndarray:
    arr = data._data if isinstance(data, Tensor) and not isinstance(data, _SparseBase) else np.asarray(data)
    if arr.dtype.kind == "i" and not isinstance(data, (Tensor, np.ndarray)) and arr.dtype != np.int64:
        arr = arr.astype(np.int64)
    if arr.dtype.name not in _INDEX_KINDS:
        raise TypeError(f"the dtype of {what} must be 'int8' or 'int16' or 'int32' or 'int64'")
    return arr


def _values_tensor(values, dtype, stop_gradient) -> Tensor:
    if isinstance(values, Tensor) and not isinstance(values, _SparseBase):
        v = values
        if dtype is not None and _dt.convert_dtype(dtype) is not v.dtype:
            v = v.astype(dtype)
    else:
        v = Tensor(values, dtype=dtype)
    v.stop_gradient = bool(stop_gradient)     # Paddle sets it on the tensor passed in, too
    return v


def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None, stop_gradient=True):
    """A COO sparse tensor from ``indices`` ([sparse_dim, nnz]) and ``values`` ([nnz, *dense_dims]).

    Without ``shape`` the smallest shape holding every index is used."""
    dynamic_only("sparse_coo_tensor")
    _check_place(place)
    if isinstance(indices, Tensor) or not isinstance(indices, np.ndarray):
        raw = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    else:
        raw = indices
    v = _values_tensor(values, dtype, stop_gradient)
    if raw.ndim != 2:
        raise ValueError("'indices' must be 2-D.")
    idx = _index_array(indices if isinstance(indices, (Tensor, np.ndarray)) else raw, "indices")
    nnz, sparse_dim = idx.shape[1], idx.shape[0]
    if nnz != v.shape[0]:
        raise ValueError(f"the indices and values must have same number of non-zero, but get {nnz} and "
                         f"{v.shape[0]}")
    dense_dim = v.ndim - 1
    min_shape = [int(m) + 1 for m in idx.max(axis=1)] if nnz else [0] * sparse_dim
    min_shape += list(v.shape[1:])
    if shape is None:
        shape = min_shape
    else:
        shape = [int(s) for s in shape]
        if shape < min_shape:
            raise ValueError(f"the minimum shape required is {min_shape}, but get {shape}")
        if len(shape) != sparse_dim + dense_dim:
            raise ValueError(f"the number of dimensions(len(shape) must be sparse_dim({sparse_dim}) + "
                             f"dense_dim({dense_dim}), but get {len(shape)}")
    if not v.stop_gradient:
        # Paddle's result is an op output, not a leaf: the gradient collects on ``values`` only
        from ..dispatch import run_op
        v = run_op("assign", v)
    return SparseCooTensor(idx, v, shape)


def _infer_csr_shape(crows, cols):
    batches = int(np.sum(crows[:-1] > crows[1:])) + 1
    if len(crows) % batches:
        raise ValueError(f"The calculated original matrix batch size is {batches}, but it cannot correctly split "
                         "the row data. Please carefully check the data or the input shape.")
    col = int(cols.max()) + 1
    row = len(crows) // batches - 1
    return [row, col] if batches == 1 else [batches, row, col]


def sparse_csr_tensor(crows, cols, values, shape=None, dtype=None, place=None, stop_gradient=True):
    """A CSR sparse matrix (2-D) or batch of matrices (3-D) from ``crows``, ``cols`` and ``values``."""
    dynamic_only("sparse_csr_tensor")
    _check_place(place)
    crows = _index_array(crows, "crows")
    cols = _index_array(cols, "cols")
    v = _values_tensor(values, dtype, stop_gradient)
    if shape is not None:
        shape = [int(s) for s in shape]
        if len(shape) not in (2, 3):
            raise ValueError(f"SparseCsrTensor only support 2-D or 3-D matrix. but get shape {shape}")
    else:
        shape = _infer_csr_shape(crows, cols)
    rows = shape[-2]
    if crows.ndim != 1 or cols.ndim != 1 or v.ndim != 1:
        raise ValueError("The 'crows', 'cols' and 'values' must be 1-D.")
    if len(cols) != v.shape[0]:
        raise ValueError("the length of cols must be same as length of values")
    if len(shape) == 2:
        if crows.shape[0] != rows + 1:
            raise ValueError(f"The length({crows.shape[0]}) of crows must be equal to the rows({rows})+1 of matrix.")
        if crows[0] != 0:
            raise ValueError("the 0th value of crows must be 0")
        if crows[-1] != v.shape[0]:
            raise ValueError("the last value of crows must be equal the number of non-zero")
    elif crows.shape[0] % (rows + 1) != 0:
        raise ValueError(f"The length({crows.shape[0]}) of crows must be divisible the rows({rows})+1 of matrix.")
    if not v.stop_gradient:
        from ..dispatch import run_op
        v = run_op("assign", v)
    return SparseCsrTensor(crows, cols, v, shape)


# -- the dense Tensor's side of the sparse methods (sparse tensors override them) ------------------

@tensor_method
def to_sparse_coo(self, sparse_dim):
    """This dense tensor as COO with its first ``sparse_dim`` dims sparse (entries with any non-zero)."""
    return dense_to_coo(self, sparse_dim)


@tensor_method
def to_sparse_csr(self):
    """This dense 2-D or 3-D tensor as CSR."""
    return dense_to_csr(self)


@tensor_method
def sparse_dim(self):
    """0 for a dense tensor (sparse tensors answer with their own count)."""
    return 0


@tensor_method
def dense_dim(self):
    """Every dimension of a dense tensor is dense."""
    return self.ndim


def _dense_only(name, err, msg):
    def method(self, *args, **kwargs):
        raise err(msg)
    method.__name__ = name
    method.__doc__ = f"Sparse tensors only: ``{name}`` of a dense tensor raises {err.__name__} as in Paddle."
    tensor_method(method)


_unimpl = "(Unimplemented) The kernel of ({}) for input tensors is unimplemented: x is a dense tensor; " \
          "convert it with x.to_sparse_coo(sparse_dim) or x.to_sparse_csr() first"
_dense_only("to_dense", NotImplementedError, _unimpl.format("to_dense"))
_dense_only("values", NotImplementedError, _unimpl.format("values"))
_dense_only("coalesce", NotImplementedError, _unimpl.format("coalesce"))
_dense_only("indices", SystemError, "(Fatal) this method is only effective for SparseCooTensor")
_dense_only("crows", SystemError, "(Fatal) this method is only effective for SparseCsrTensor")
_dense_only("cols", SystemError, "(Fatal) this method is only effective for SparseCsrTensor")
_dense_only("nnz", SystemError, "(Fatal) this method is only effective for SparseCooTensor or SparseCsrTensor")
_dense_only("is_coalesced", TypeError, "(InvalidType) Method is_coalesced only support sparse coo tensor.")
