"""paddle.sparse unary functions: elementwise math on the values, and pattern changes
(transpose, reshape, sum, slice, coalesce) computed on the indices."""
from __future__ import annotations

import builtins

import numpy as np

from .. import dtype as _dt
from ..api import math as _m
from ..api import logic as _logic
from ..api import manipulation as _manip
from ..api import reduction as _red
from . import _prims as P
from .tensor import (SparseCooTensor, SparseCsrTensor, _SparseBase, as_coo, coalesce_coo, coo_to_csr,
                     like_input)

__all__ = ["sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "sqrt", "square", "log1p", "abs",
           "pow", "cast", "neg", "deg2rad", "rad2deg", "expm1", "isnan", "coalesce", "transpose", "sum",
           "reshape", "slice", "pca_lowrank"]


def _sparse_arg(x, op):
    if not isinstance(x, _SparseBase):
        raise NotImplementedError(f"(Unimplemented) The kernel of ({op}) for input tensors is unimplemented: "
                                  f"paddle.sparse.{op} takes a sparse COO or CSR tensor, got a dense tensor "
                                  "(convert it with x.to_sparse_coo(sparse_dim) or x.to_sparse_csr())")
    return x


def _float_only(x, op):
    if x.dtype.np.kind not in "fc":
        raise RuntimeError(f"(NotFound) The kernel of `{op}` for sparse tensors supports float32 and float64, got "
                           f"{x.dtype.name}; cast the values first (paddle.sparse.cast(x, value_dtype='float32'))")


def _map_values(x, fn):
    return x._with_values(fn(x._values))


def _autocast(v):
    # Paddle's sparse math ops cast integer input to float32 (with a warning) before computing
    return v.astype("float32") if v.dtype.np.kind in "biu" else v


def _unary(name, dense_fn, float_only=False, doc=None):
    def op(x, name=None):
        _sparse_arg(x, op.__name__)
        if float_only:
            _float_only(x, op.__name__)
            return _map_values(x, dense_fn)
        return _map_values(x, lambda v: dense_fn(_autocast(v)))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc or f"Elementwise ``{name}`` of the non-zero values (the sparsity pattern is kept)."
    return op


sin = _unary("sin", _m.sin)
tan = _unary("tan", _m.tan)
asin = _unary("asin", _m.asin)
atan = _unary("atan", _m.atan)
sinh = _unary("sinh", _m.sinh)
tanh = _unary("tanh", _m.tanh)
asinh = _unary("asinh", _m.asinh)
atanh = _unary("atanh", _m.atanh)
sqrt = _unary("sqrt", _m.sqrt)
square = _unary("square", _m.square)
log1p = _unary("log1p", _m.log1p)
expm1 = _unary("expm1", _m.expm1)
abs = _unary("abs", _m.abs, float_only=True)


def pow(x, factor, name=None):
    """``values ** factor`` (float values only, as Paddle's CPU kernel)."""
    _sparse_arg(x, "pow")
    _float_only(x, "pow")
    return _map_values(x, lambda v: _m.pow(v, float(factor)))


def neg(x, name=None):
    """``-x`` on the values."""
    _sparse_arg(x, "neg")
    _float_only(x, "scale")
    return _map_values(x, lambda v: _m.scale(v, -1.0))


def deg2rad(x, name=None):
    _sparse_arg(x, "deg2rad")
    _float_only(x, "scale")
    return _map_values(x, lambda v: _m.scale(v, float(np.float32(np.pi / 180.0))))


def rad2deg(x, name=None):
    _sparse_arg(x, "rad2deg")
    _float_only(x, "scale")
    return _map_values(x, lambda v: _m.scale(v, float(np.float32(180.0 / np.pi))))


def isnan(x, name=None):
    """A bool sparse tensor: True where a stored value is NaN."""
    _sparse_arg(x, "isnan")
    return _map_values(x, _logic.isnan)


def cast(x, index_dtype=None, value_dtype=None, name=None):
    """Change the index dtype and/or the value dtype."""
    _sparse_arg(x, "cast")
    v = x._values if value_dtype is None else _manip.cast(x._values, value_dtype)
    if index_dtype is not None:
        idt = _dt.convert_dtype(index_dtype).np
        if isinstance(x, SparseCooTensor):
            return SparseCooTensor(x._indices.astype(idt), v, x._dense_shape)
        return SparseCsrTensor(x._crows.astype(idt), x._cols.astype(idt), v, x._dense_shape)
    return x._with_values(v)


def coalesce(x, name=None):
    """Sorted, duplicate-free indices; repeated entries are summed (COO only)."""
    if not isinstance(x, SparseCooTensor):
        raise NotImplementedError("(Unimplemented) The kernel of (coalesce) for input tensors is unimplemented: "
                                  "coalesce takes a sparse COO tensor")
    return coalesce_coo(x)


def transpose(x, perm, name=None):
    """Permute the dimensions. COO keeps the entry order; CSR is re-sorted into rows."""
    _sparse_arg(x, "transpose")
    perm = [int(p) for p in perm]
    nd = x.ndim
    if sorted(p % nd for p in perm) != list(range(nd)):
        raise ValueError(f"(InvalidArgument) perm {perm} is not a permutation of the {nd} dims of the input")
    perm = [p % nd for p in perm]
    c = as_coo(x, "transpose")
    sd = c._sparse_dim
    if perm[sd:] != list(range(sd, nd)) or builtins.any(p >= sd for p in perm[:sd]):
        raise NotImplementedError(f"transpose: perm {perm} moves a dense dimension of a COO tensor with "
                                  f"sparse_dim {sd}; only the sparse dimensions can be permuted")
    out = SparseCooTensor(c._indices[perm[:sd]], c._values, [x._dense_shape[p] for p in perm], coalesced=True)
    return coo_to_csr(out) if isinstance(x, SparseCsrTensor) else out


def _resolve_shape(shape, old, numel):
    shape = [int(s) for s in (shape.tolist() if hasattr(shape, "tolist") else shape)]
    out = [old[i] if s == 0 else s for i, s in enumerate(shape)]
    if out.count(-1) > 1:
        raise ValueError(f"(InvalidArgument) only one dimension of shape {shape} can be -1")
    if -1 in out:
        known = int(np.prod([s for s in out if s != -1]))
        if known == 0 or numel % known:
            raise ValueError(f"(InvalidArgument) cannot reshape a tensor of shape {old} into {shape}")
        out[out.index(-1)] = numel // known
    if int(np.prod(out)) != numel:
        raise ValueError(f"(InvalidArgument) cannot reshape a tensor of shape {old} ({numel} elements) into "
                         f"{shape}")
    return out


def reshape(x, shape, name=None):
    """A new shape with the same elements; for COO the sparse part is reshaped, dense dims stay."""
    _sparse_arg(x, "reshape")
    c = as_coo(x, "reshape")
    sd = c._sparse_dim
    dense_dims = list(x._dense_shape[sd:])
    new = _resolve_shape(shape, list(x._dense_shape), x.size)
    if dense_dims and new[len(new) - len(dense_dims):] != dense_dims:
        raise NotImplementedError(f"reshape: the dense dims {dense_dims} of a COO tensor must stay last and "
                                  f"unchanged, got shape {new}")
    new_sparse = new[:len(new) - len(dense_dims)]
    keys = P.linear_keys(c._indices, x._dense_shape[:sd])
    idx = P.unravel(keys, new_sparse).astype(c._indices.dtype)
    out = SparseCooTensor(idx, c._values, new, coalesced=True)
    return coo_to_csr(out) if isinstance(x, SparseCsrTensor) else out


def _axes(axis, nd):
    if axis is None:
        return None
    # Paddle 3.3.1's sparse sum kernel reduces only the first axis of a list: so do we
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)[:1]
    return sorted({int(a) % nd for a in axes})


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over ``axis`` (None: everything). COO keeps a sparse result; CSR supports None and -1.

    A list ``axis`` reduces its first entry only, as Paddle 3.3.1's kernel does."""
    _sparse_arg(x, "sum")
    v = x._values if dtype is None else _manip.cast(x._values, dtype)
    if isinstance(x, SparseCsrTensor):
        return _sum_csr(x, v, axis, keepdim)
    nd, sd = x.ndim, x._sparse_dim
    axes = _axes(axis, nd)
    if axes is None:
        total = _red.sum(v)
        return SparseCooTensor(np.zeros((1,), x._indices.dtype), total, [1], coalesced=True)
    sparse_axes = [a for a in axes if a < sd]
    dense_axes = [a - sd + 1 for a in axes if a >= sd]
    if dense_axes:
        v = _red.sum(v, axis=dense_axes, keepdim=keepdim)
    keep_rows = [d for d in range(sd) if d not in sparse_axes]
    if not sparse_axes:
        idx, out_v = x._indices, v
    else:
        sub = x._indices[keep_rows]
        dims = [x._dense_shape[d] for d in keep_rows]
        keys = P.linear_keys(sub, dims)
        uniq, inv = np.unique(keys, return_inverse=True)
        idx = P.unravel(uniq, dims).astype(x._indices.dtype)
        out_v = P.segment_sum(v, inv, uniq.size)
    shape = []
    rows = []
    for d in range(nd):
        if d in axes:
            if keepdim:
                shape.append(1)
                if d < sd:
                    rows.append(np.zeros((1, idx.shape[1]), idx.dtype))
        else:
            shape.append(x._dense_shape[d])
            if d < sd:
                rows.append(idx[keep_rows.index(d)][None])
    idx = np.concatenate(rows) if rows else np.zeros((0, idx.shape[1]), idx.dtype)
    return SparseCooTensor(idx, out_v, shape, coalesced=True)


def _sum_csr(x, v, axis, keepdim):
    if axis is None:
        return SparseCsrTensor(np.array([0, 1], x._crows.dtype), np.array([0], x._cols.dtype),
                               _red.sum(v).reshape([1]), [1, 1])
    if axis not in (-1, x.ndim - 1):
        raise NotImplementedError("(Unimplemented) `axis` of SumCsrKernel only support None or -1 now.")
    if x.ndim != 2:
        raise NotImplementedError("sum over axis -1 of a 3-D CSR tensor is not supported (Paddle's CPU kernel "
                                  "returns an inconsistent tensor); convert with to_sparse_coo(3) and sum that")
    rows = x._dense_shape[0]
    counts = np.diff(x._crows.astype(np.int64))
    seg = np.repeat(np.arange(rows), counts)
    nz_rows = np.nonzero(counts)[0]
    sums = P.take_rows(P.segment_sum(v, seg, rows), nz_rows)
    crows = np.concatenate([[0], np.cumsum(counts > 0)]).astype(x._crows.dtype)
    return SparseCsrTensor(crows, np.zeros(nz_rows.size, x._cols.dtype), sums, [rows, 1])


def _norm_bound(b, d):
    b = int(b)
    if b < 0:
        b += d
    return builtins.min(builtins.max(b, 0), d)


def slice(x, axes, starts, ends, name=None):
    """Entries with ``starts[i] <= index < ends[i]`` on ``axes[i]``, re-based at zero (order kept)."""
    _sparse_arg(x, "slice")

    def ints(v):
        if hasattr(v, "numpy") and not isinstance(v, (list, tuple)):
            return [int(a) for a in np.asarray(v.numpy()).reshape(-1)]
        return [int(a.item()) if hasattr(a, "item") else int(a) for a in v]
    axes, starts, ends = ints(axes), ints(starts), ints(ends)
    if not len(axes) == len(starts) == len(ends):
        raise ValueError(f"(InvalidArgument) slice: axes, starts and ends must have the same length, got "
                         f"{len(axes)}, {len(starts)} and {len(ends)}")
    c = as_coo(x, "slice")
    sd = c._sparse_dim
    shape = list(x._dense_shape)
    idx = c._indices.astype(np.int64)
    keep = np.ones(idx.shape[1], bool)
    v = c._values
    dense_slices = []
    for a, s, e in zip(axes, starts, ends):
        a = a % x.ndim
        s, e = _norm_bound(s, shape[a]), _norm_bound(e, shape[a])
        e = builtins.max(e, s)
        shape[a] = e - s
        if a < sd:
            keep &= (idx[a] >= s) & (idx[a] < e)
            idx[a] = idx[a] - s
        else:
            dense_slices.append((a - sd + 1, s, e))
    rows = np.nonzero(keep)[0]
    new_v = P.take_rows(v, rows)
    for ax, s, e in dense_slices:
        new_v = _manip.slice(new_v, [ax], [s], [e])
    out = SparseCooTensor(idx[:, rows].astype(c._indices.dtype), new_v, shape, coalesced=True)
    return like_input(x, out)


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """Paddle's CPU build has no sparse pca_lowrank (it needs CUDA 11): it raises, as here."""
    raise ValueError("sparse.pca_lowrank API only support CUDA 11.x (Paddle's CPU build has no kernel for it; "
                     "use paddle.linalg.pca_lowrank on x.to_dense())")
