"""Sparse COO and CSR tensors: Tensor subclasses holding index arrays plus a dense ``values`` Tensor.

The values are an ordinary Tensor, so sparse ops written over them (see `_prims`) get gradients
from the dense ops' rules; a sparse tensor's ``stop_gradient``, ``grad`` and ``backward`` act on
its values and answer with sparse tensors of the same pattern, as Paddle's do. Indices are numpy
arrays (never differentiable). Printing follows Paddle's sparse layout.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as _dt
from ..framework import state
from ..tensor import Tensor, _format_body
from . import _prims as P


def _no_dense(self):
    raise NotImplementedError(
        f"this operation needs a dense tensor, but got a sparse {self._fmt} tensor of shape {self.shape}; "
        "use the paddle.sparse functions (paddle.sparse.add, paddle.sparse.sin ...) or call .to_dense() first")


class _SparseBase(Tensor):
    """What COO and CSR tensors share: shape, values, autograd through the values, printing."""

    __slots__ = ("_values", "_dense_shape")
    _fmt = "sparse"

    def _init_common(self, values: Tensor, shape):
        self._values = values
        self._dense_shape = tuple(int(s) for s in shape)
        self._grad = None
        self._node = None
        self._out_idx = 0
        self._name = None
        self._hooks = None
        self.persistable = False
        self._users = None

    # dense storage does not exist: a dense op reached with a sparse tensor fails clearly
    @property
    def _data(self):
        _no_dense(self)

    @_data.setter
    def _data(self, value):
        _no_dense(self)

    # -- metadata --------------------------------------------------------------------------
    @property
    def shape(self):
        return list(self._dense_shape)

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def ndim(self):
        return len(self._dense_shape)

    def dim(self):
        return len(self._dense_shape)

    @property
    def size(self):
        return int(np.prod(self._dense_shape)) if self._dense_shape else 1

    @property
    def stop_gradient(self):
        return self._values.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value):
        self._values.stop_gradient = bool(value)

    @property
    def is_leaf(self):
        return self._values.is_leaf

    def values(self):
        """The non-zero values (a dense Tensor sharing this tensor's storage and gradient)."""
        return self._values

    def nnz(self):
        return int(self._values.shape[0]) if self._values.ndim else 1

    def is_sparse(self):
        return True

    def is_dense(self):
        return False

    def numpy(self):
        raise NotImplementedError(f"numpy() of a sparse {self._fmt} tensor: call x.to_dense().numpy(), or read "
                                  "x.values().numpy() and the index arrays")

    def __array__(self, dtype=None, copy=None):
        self.numpy()

    def __len__(self):
        return self._dense_shape[0]

    # -- autograd --------------------------------------------------------------------------
    @property
    def grad(self):
        g = self._values.grad
        return None if g is None else self._copy_with(g.detach())

    @grad.setter
    def grad(self, value):
        self._values.grad = None if value is None else value.values()

    def backward(self, grad_tensor=None, retain_graph=False):
        if grad_tensor is None:
            g = Tensor._wrap(np.ones(self._values._data.shape, self._values._data.dtype))
        elif isinstance(grad_tensor, _SparseBase):
            g = grad_tensor.values()
        else:
            raise TypeError("backward(grad_tensor) of a sparse tensor takes a sparse tensor of the same pattern")
        self._values.backward(g, retain_graph)

    def clear_gradient(self, set_to_zero=True):
        self._values.clear_gradient(set_to_zero)

    clear_grad = clear_gradient

    def detach(self):
        return self._copy_with(self._values.detach())

    def clone(self):
        from ..dispatch import run_op
        return self._copy_with(run_op("assign", self._values))

    def astype(self, dtype):
        from .unary import cast
        return cast(self, value_dtype=dtype)

    def is_same_shape(self, y):
        return list(self.shape) == list(y.shape)

    def __repr__(self):
        head = (f"Tensor(shape={self.shape}, dtype=paddle.{self.dtype.name}, place=Place(cpu), "
                f"stop_gradient={self.stop_gradient}, \n")
        parts = [f"       {name}=" + _format_body(arr, 7 + len(name) + 1) for name, arr in self._printed()]
        return head + ", \n".join(parts) + ")"

    __str__ = __repr__

    def __deepcopy__(self, memo):
        out = self._copy_with(Tensor._wrap(self._values._data.copy(), self._values.stop_gradient))
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, proto):
        raise TypeError(f"a sparse {self._fmt} tensor cannot be pickled: save x.indices()/x.values() instead")


class SparseCooTensor(_SparseBase):
    """A COO tensor: ``indices`` [sparse_dim, nnz] and ``values`` [nnz, *dense_dims]."""

    __slots__ = ("_indices", "_coalesced")
    _fmt = "COO"

    def __init__(self, indices, values: Tensor, shape, coalesced=False):
        self._indices = np.asarray(indices)
        self._coalesced = bool(coalesced)
        self._init_common(values, shape)

    def _with_values(self, values, coalesced=False):
        """Same pattern, new values. Paddle's value-wise kernels leave ``is_coalesced()`` False; the
        ones that rebuild indices (transpose, sum, softmax, conv ...) pass ``coalesced=True``."""
        return SparseCooTensor(self._indices, values, self._dense_shape, coalesced)

    def _copy_with(self, values):
        return SparseCooTensor(self._indices, values, self._dense_shape, self._coalesced)

    @property
    def _sparse_dim(self):
        return int(self._indices.shape[0]) if self._indices.ndim == 2 else 1

    def sparse_dim(self):
        """How many leading dims are sparse (rows of ``indices``)."""
        return self._sparse_dim

    def dense_dim(self):
        """How many trailing dims each stored value has."""
        return self.ndim - self._sparse_dim

    def _printed(self):
        return [("indices", self._indices), ("values", self._values._data)]

    def indices(self):
        return Tensor._wrap(self._indices)

    def crows(self):
        raise SystemError("(Fatal) this method is only effective for SparseCsrTensor")

    def cols(self):
        raise SystemError("(Fatal) this method is only effective for SparseCsrTensor")

    def is_sparse_coo(self):
        return True

    def is_sparse_csr(self):
        return False

    def is_coalesced(self):
        return self._coalesced

    def coalesce(self):
        """Sorted, duplicate-free indices; values at repeated indices are summed."""
        return coalesce_coo(self)

    def to_dense(self):
        idx = self._indices if self._indices.ndim == 2 else self._indices.reshape(1, -1)
        vals = self._values if self._values.ndim else self._values.reshape([1])
        # Paddle writes the entries in order, so the last of repeated indices wins
        keys = P.linear_keys(idx, self._dense_shape[:idx.shape[0]])
        _, last_rev = np.unique(keys[::-1], return_index=True)
        keep = np.sort(keys.size - 1 - last_rev)
        if keep.size != keys.size:
            idx, vals = idx[:, keep], P.take_rows(vals, keep)
        return P.scatter_points(self._dense_shape, idx, vals)

    def to_sparse_coo(self, sparse_dim):
        return self

    def to_sparse_csr(self):
        return coo_to_csr(self)


class SparseCsrTensor(_SparseBase):
    """A CSR matrix (2-D) or batch of matrices (3-D): ``crows``, ``cols`` and 1-D ``values``."""

    __slots__ = ("_crows", "_cols")
    _fmt = "CSR"

    def __init__(self, crows, cols, values: Tensor, shape):
        self._crows = np.asarray(crows)
        self._cols = np.asarray(cols)
        self._init_common(values, shape)

    def _with_values(self, values, coalesced=False):
        return SparseCsrTensor(self._crows, self._cols, values, self._dense_shape)

    _copy_with = _with_values

    def _printed(self):
        return [("crows", self._crows), ("cols", self._cols), ("values", self._values._data)]

    def crows(self):
        return Tensor._wrap(self._crows)

    def cols(self):
        return Tensor._wrap(self._cols)

    def indices(self):
        raise SystemError("(Fatal) this method is only effective for SparseCooTensor")

    def is_sparse_coo(self):
        return False

    def is_sparse_csr(self):
        return True

    def is_coalesced(self):
        raise TypeError("(InvalidType) Method is_coalesced only support sparse coo tensor.")

    def coalesce(self):
        raise NotImplementedError("coalesce() works on sparse COO tensors; this one is CSR")

    def coo_indices(self) -> np.ndarray:
        """[ndim, nnz] coordinates of the entries, in storage order."""
        rows_n = self._dense_shape[-2]
        counts = np.diff(self._crows.astype(np.int64).reshape(-1, rows_n + 1), axis=1)   # [batch, rows]
        batch_n = counts.shape[0]
        rows = np.repeat(np.tile(np.arange(rows_n), batch_n), counts.reshape(-1))
        cols = self._cols.astype(np.int64)
        if len(self._dense_shape) == 2:
            return np.stack([rows, cols]) if rows.size else np.zeros((2, 0), np.int64)
        batch = np.repeat(np.arange(batch_n), counts.sum(axis=1))
        return np.stack([batch, rows, cols]) if rows.size else np.zeros((3, 0), np.int64)

    def to_sparse_coo(self, sparse_dim):
        idx = self.coo_indices().astype(self._cols.dtype)
        return SparseCooTensor(idx, self._values, self._dense_shape, coalesced=True)

    def to_sparse_csr(self):
        return self

    def sparse_dim(self):
        return 2

    def dense_dim(self):
        return 0

    def to_dense(self):
        return P.scatter_points(self._dense_shape, self.coo_indices(), self._values)


# -- conversions -------------------------------------------------------------------------------

def coalesce_coo(x: SparseCooTensor) -> SparseCooTensor:
    idx = x._indices
    keys = P.linear_keys(idx, x._dense_shape[:idx.shape[0]])
    uniq, inv = np.unique(keys, return_inverse=True)
    new_idx = P.unravel(uniq, x._dense_shape[:idx.shape[0]]).astype(idx.dtype)
    if uniq.size == keys.size and np.all(inv == np.arange(keys.size)):
        return SparseCooTensor(new_idx, x._values, x._dense_shape, coalesced=True)
    return SparseCooTensor(new_idx, P.segment_sum(x._values, inv, uniq.size), x._dense_shape, coalesced=True)


def dynamic_only(what):
    """Paddle's sparse API runs in dynamic mode (or PIR), not in a legacy static Program: neither do we."""
    if state.static:
        raise AssertionError(f"Currently, Sparse API only support dynamic mode: {what} was called while building "
                             "a static Program (call it eagerly, outside paddle.enable_static / to_static)")


def dense_to_coo(x: Tensor, sparse_dim) -> SparseCooTensor:
    if isinstance(x, _SparseBase):
        return x.to_sparse_coo(sparse_dim)
    dynamic_only("to_sparse_coo")
    sparse_dim = int(sparse_dim)
    if sparse_dim <= 0:
        raise ValueError("(InvalidArgument) sparse_dim must be >0")
    if sparse_dim > x.ndim:
        raise ValueError("(InvalidArgument) sparse_dim must be less than the size of x.dims()")
    if x.dtype is _dt.bool_:
        raise RuntimeError("(NotFound) to_sparse_coo has no kernel for bool tensors (Paddle's dense_to_coo "
                           "supports numeric dtypes); cast the tensor first")
    arr = x._data
    flat = arr.reshape(arr.shape[:sparse_dim] + (-1,)) if arr.ndim > sparse_dim else arr[..., None]
    nz = np.nonzero(np.any(flat != 0, axis=-1))
    idx = np.stack(nz).astype(np.int64) if nz[0].size else np.zeros((sparse_dim, 0), np.int64)
    return SparseCooTensor(idx, P.gather_points(x, idx), x.shape, coalesced=True)


def _check_csr_shape(shape):
    if len(shape) not in (2, 3):
        raise ValueError("(InvalidArgument) SparseCsrTensor only support 2-D or 3-D matrix")


def coo_to_csr(x: SparseCooTensor) -> SparseCsrTensor:
    _check_csr_shape(x.shape)
    if x._sparse_dim != x.ndim:
        raise ValueError(f"a COO tensor with dense dimensions (sparse_dim {x._sparse_dim} of {x.ndim}) cannot "
                         "become CSR; convert it with to_sparse_coo(ndim) from its dense form first")
    c = coalesce_coo(x)      # never trust the flag: Paddle marks e.g. transpose outputs coalesced unsorted
    idx = c._indices.astype(np.int64)
    shape = x._dense_shape
    rows_n = shape[-2]
    batch_n = shape[0] if len(shape) == 3 else 1
    batch = idx[0] if len(shape) == 3 else np.zeros(idx.shape[1], np.int64)
    counts = np.zeros((batch_n, rows_n), np.int64)
    np.add.at(counts, (batch, idx[-2]), 1)
    crows = np.concatenate([np.zeros((batch_n, 1), np.int64), np.cumsum(counts, axis=1)], axis=1).reshape(-1)
    dt = x._indices.dtype
    return SparseCsrTensor(crows.astype(dt), idx[-1].astype(dt), c._values, shape)


def dense_to_csr(x: Tensor) -> SparseCsrTensor:
    if isinstance(x, _SparseBase):
        return x.to_sparse_csr()
    dynamic_only("to_sparse_csr")
    if x.ndim not in (2, 3):
        raise ValueError("(InvalidArgument) SparseCsrTensor only support 2-D or 3-D Tensor.")
    return coo_to_csr(dense_to_coo(x, x.ndim))


def as_coo(x, op):
    """A COO view of a sparse tensor (CSR converts), or a clear error for dense input."""
    if isinstance(x, SparseCooTensor):
        return x
    if isinstance(x, SparseCsrTensor):
        return x.to_sparse_coo(x.ndim)
    raise NotImplementedError(f"(Unimplemented) The kernel of ({op}) for input tensors is unimplemented: "
                              f"paddle.sparse.{op} takes sparse tensors, got a dense {type(x).__name__}")


def like_input(x, coo: SparseCooTensor):
    """Give ``coo`` the format of the input ``x`` (CSR inputs get CSR results)."""
    return coo_to_csr(coo) if isinstance(x, SparseCsrTensor) else coo
