"""Functions backed by one Paddle op each: unique, unique_consecutive, mode, bincount, histogram,
searchsorted, bucketize, kron, lerp, logcumsumexp, cummax, cummin, renorm, diag_embed,
index_add, tril_indices, triu_indices (``paddle.X`` and, where Paddle has one, ``Tensor.X``)."""
from __future__ import annotations

import numbers

import numpy as np

from ..dtype import convert_dtype, int32, int64
from ..dispatch import run_op
from ..tensor import Tensor, tensor_method
from ._helpers import is_var
from .arg_checks import static_check_dtype
from .creation import assign, full, to_tensor
from .manipulation import _inplace, _rebind, cast, check_inplace
from .param_alias import param_alias

__all__ = ["unique", "unique_consecutive", "mode", "bincount", "histogram", "searchsorted", "bucketize",
           "kron", "lerp", "logcumsumexp", "cummax", "cummin", "renorm", "diag_embed", "index_add",
           "index_add_", "tril_indices", "triu_indices", "increment", "index_put", "index_put_",
           "histogram_bin_edges", "renorm_"]   # lerp_ is a Tensor method only, as in Paddle


def _index_dtype(dtype, op):
    d = convert_dtype(dtype)
    if d not in (int32, int64):
        raise ValueError(f"{op}: dtype must be 'int32' or 'int64', got {d.name}")
    return d


def _int(value, what, op):
    if isinstance(value, Tensor):
        value = value.item()
    if not isinstance(value, (numbers.Integral, np.integer)) or isinstance(value, bool):
        raise TypeError(f"{op}: {what} must be an int, got {value!r}")
    return int(value)


def _as_tensor(x, op, what="x"):
    if is_var(x):
        return x
    if isinstance(x, (list, tuple, np.ndarray, numbers.Number)):
        return to_tensor(x)
    raise TypeError(f"{op}: {what} must be a Tensor, got {type(x).__name__}")


# -- grouping ------------------------------------------------------------------------------------

@tensor_method
def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None, dtype="int64",
           sorted=True, name=None):
    """Sorted unique values of ``x`` (flattened, or slices along ``axis``), optionally with the
    first-occurrence indices, the inverse mapping and the counts."""
    d = _index_dtype(dtype, "unique")
    axes = [] if axis is None else [_int(axis, "axis", "unique")]
    out, index, inverse, counts = run_op("unique", x, return_index=bool(return_index),
                                         return_inverse=bool(return_inverse), return_counts=bool(return_counts),
                                         axis=axes, dtype=d.proto, is_sorted=True)
    outs = [out] + [t for flag, t in ((return_index, index), (return_inverse, inverse),
                                      (return_counts, counts)) if flag]
    return outs[0] if len(outs) == 1 else tuple(outs)


@tensor_method
@param_alias(x="input", axis="dim")
def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None, dtype="int64", name=None):
    """Collapse runs of equal consecutive values (or slices along ``axis``) into one."""
    d = _index_dtype(dtype, "unique_consecutive")
    axes = [] if axis is None else [_int(axis, "axis", "unique_consecutive")]
    out, inverse, counts = run_op("unique_consecutive", x, return_inverse=bool(return_inverse),
                                  return_counts=bool(return_counts), axis=axes, dtype=d.proto)
    outs = [out] + [t for flag, t in ((return_inverse, inverse), (return_counts, counts)) if flag]
    return outs[0] if len(outs) == 1 else tuple(outs)


@tensor_method
def mode(x, axis=-1, keepdim=False, name=None):
    """The most frequent value along ``axis`` (the smallest on a tie in frequency) and its index."""
    return run_op("mode", x, axis=_int(axis, "axis", "mode"), keepdim=bool(keepdim))


# -- counting and binning ------------------------------------------------------------------------

@tensor_method
def bincount(x, weights=None, minlength=0, name=None):
    """Occurrences of each non-negative int in 1-D ``x`` (weighted sums with ``weights``)."""
    return run_op("bincount", x, weights, minlength=_int(minlength, "minlength", "bincount"))


@tensor_method
def histogram(input, bins=100, min=0.0, max=0.0, weight=None, density=False, name=None):
    """Counts of ``input`` in ``bins`` equal bins over [min, max] (the data's range when both are 0)."""
    if not isinstance(bins, (numbers.Integral, np.integer)) or isinstance(bins, bool):
        raise TypeError(f"histogram: bins must be an int, got {bins!r}")
    return run_op("histogram", input, weight, bins=int(bins), min=float(min), max=float(max),
                  density=bool(density))


@param_alias(values="input")
def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None):
    """Insertion positions of ``values`` into the innermost dim of ``sorted_sequence``."""
    values = _as_tensor(values, "searchsorted", "values")
    for t, what in ((sorted_sequence, "SortedSequence"), (values, "Values")):
        static_check_dtype(t.dtype, what, ("float16", "float32", "float64", "int32", "int64"), "paddle.searchsorted")
    seq_shape, val_shape = list(sorted_sequence.shape), list(values.shape)
    if len(seq_shape) != 1 and (len(seq_shape) != len(val_shape) or seq_shape[:-1] != val_shape[:-1]):
        # Paddle's shape check (RuntimeError "Unavailable" in eager and static mode alike)
        raise RuntimeError(f"searchsorted: the dimensions of sorted_sequence tensor {seq_shape} and values tensor "
                           f"{val_shape} can not match: sorted_sequence must be 1-D or have the same first N-1 "
                           "dimensions as values")
    if out_int32 and seq_shape and seq_shape[-1] >= 2 ** 31 - 1:
        raise RuntimeError(f"searchsorted: the size of sorted_sequence {seq_shape[-1]} exceeds the int32 maximum "
                           "2147483647; set out_int32=False")
    return run_op("searchsorted", sorted_sequence, values, out_int32=bool(out_int32), right=bool(right))


@tensor_method
@param_alias(x="input", sorted_sequence="boundaries")
def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """The bucket of each element of ``x`` among the boundaries of 1-D ``sorted_sequence``."""
    if len(sorted_sequence.shape) != 1:
        raise ValueError("bucketize: sorted_sequence must be a 1-D tensor, got shape "
                         f"{list(sorted_sequence.shape)}")
    return searchsorted(sorted_sequence, x, out_int32=out_int32, right=right)


# -- math ----------------------------------------------------------------------------------------

@tensor_method
def kron(x, y, name=None):
    """Kronecker product (the lower-rank operand gains leading dims of 1)."""
    return run_op("kron", x, y)


@tensor_method
def lerp(x, y, weight, name=None):
    """``x + weight * (y - x)``, broadcasting; ``weight`` is a float or a tensor."""
    if isinstance(weight, float):
        weight = full([], weight, dtype=x.dtype)
    elif not is_var(weight):
        raise TypeError(f"lerp: weight must be a float or a Tensor, got {type(weight).__name__}")
    return run_op("lerp", x, y, weight)


@tensor_method
def logcumsumexp(x, axis=None, dtype=None, name=None):
    """log(cumsum(exp(x))) along ``axis`` (over the flattened tensor when None), computed stably."""
    if dtype is not None and convert_dtype(dtype) != x.dtype:
        x = cast(x, dtype)
    if axis is None:
        return run_op("logcumsumexp", x, axis=-1, flatten=True, exclusive=False, reverse=False)
    return run_op("logcumsumexp", x, axis=_int(axis, "axis", "logcumsumexp"), flatten=False,
                  exclusive=False, reverse=False)


def _cum_extreme(op, x, axis, dtype):
    d = _index_dtype(dtype, op)
    if axis is None:
        x = x.flatten()
        axis = -1
    return run_op(op, x, axis=_int(axis, "axis", op), dtype=d.proto)


@tensor_method
def cummax(x, axis=None, dtype="int64", name=None):
    """Running maximum along ``axis`` and the index where it was reached (the later one on ties)."""
    return _cum_extreme("cummax", x, axis, dtype)


@tensor_method
def cummin(x, axis=None, dtype="int64", name=None):
    """Running minimum along ``axis`` and the index where it was reached (the later one on ties)."""
    return _cum_extreme("cummin", x, axis, dtype)


@tensor_method
def renorm(x, p, axis, max_norm):
    """Rescale each slice along ``axis`` whose p-norm exceeds ``max_norm`` down to ``max_norm``."""
    ndim = len(x.shape)
    axis = _int(axis, "axis", "renorm")
    if not -ndim <= axis < ndim:
        raise ValueError(f"renorm: axis {axis} is out of range for a tensor of rank {ndim}")
    return run_op("renorm", x, p=float(p), axis=axis % ndim, max_norm=float(max_norm))


# -- creation and indexing -----------------------------------------------------------------------

@tensor_method
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose (dim1, dim2) planes carry ``input``'s last dim on diagonal ``offset``."""
    input = _as_tensor(input, "diag_embed", "input")
    return run_op("diag_embed", input, offset=_int(offset, "offset", "diag_embed"),
                  dim1=_int(dim1, "dim1", "diag_embed"), dim2=_int(dim2, "dim2", "diag_embed"))


@tensor_method
def index_add(x, index, axis, value, alpha=1, name=None, *, out=None):
    """``x`` with ``alpha * value`` added at positions ``index`` along ``axis`` (repeats accumulate)."""
    scaled = value * alpha if alpha != 1 else value
    res = run_op("index_add", x, index, scaled, axis=_int(axis, "axis", "index_add"))
    return res if out is None else assign(res, output=out)


index_add_ = _inplace("index_add_", index_add)


def _tri_indices(op, names, row, col, offset, dtype):
    d = _index_dtype(dtype, op)
    row = _int(row, "row", op)
    col = row if col is None else _int(col, "col", op)
    return run_op(op, **{names[0]: row, names[1]: col}, offset=_int(offset, "offset", op), dtype=d.proto)


def tril_indices(row, col, offset=0, dtype="int64"):
    """[2, N] coordinates of the lower triangle (diagonal ``offset``) of a row x col matrix."""
    return _tri_indices("tril_indices", ("rows", "cols"), row, col, offset, dtype)


def triu_indices(row, col=None, offset=0, dtype="int64"):
    """[2, N] coordinates of the upper triangle (diagonal ``offset``) of a row x col matrix."""
    return _tri_indices("triu_indices", ("row", "col"), row, col, offset, dtype)


# -- in-place forms and the rest -----------------------------------------------------------------

lerp_ = _inplace("lerp_", lerp)
renorm_ = _inplace("renorm_", renorm)


@tensor_method
def increment(x, value=1.0, name=None):
    """``x + value`` for a 1-element tensor; eager ``x`` itself takes the result, as in Paddle."""
    if int(np.prod(x.shape)) != 1:
        raise ValueError(f"increment: x must hold exactly one element, got shape {list(x.shape)}")
    res = run_op("increment", x, step=float(value))
    if isinstance(x, Tensor):
        check_inplace(x, "increment")
        return _rebind(x, res)
    # static Variable: Paddle's increment writes its result into x itself (Out is X), in the block
    # being built (a loop body or branch writes the variable of the block around it)
    from ..static.program import default_main_program
    default_main_program().current_block().append_op("assign", {"X": [res]}, {"Out": [x]})
    return x


@tensor_method
def index_put(x, indices, value, accumulate=False, name=None):
    """``x`` with ``x[indices] = value`` (``+=`` with ``accumulate``); ``indices`` is a tuple of
    int or bool tensors, one per leading dim."""
    if not isinstance(indices, (list, tuple)):
        raise TypeError(f"index_put: indices must be a tuple or list of tensors, got {type(indices).__name__}")
    value = _as_tensor(value, "index_put", "value")
    return run_op("index_put", x, list(indices), value, accumulate=bool(accumulate))


index_put_ = _inplace("index_put_", index_put)


@tensor_method
def histogram_bin_edges(input, bins=100, min=0.0, max=0.0, name=None):
    """The ``bins + 1`` edges `histogram` uses for ``input`` (the data's range when min == max == 0)."""
    from .creation import linspace
    if not isinstance(input, Tensor):
        raise NotImplementedError("histogram_bin_edges: only eager tensors are supported (the range is "
                                  "read from the data)")
    if max < min:
        raise ValueError(f"histogram_bin_edges: max must be larger than or equal to min, got min={min}, max={max}")
    lo, hi = float(min), float(max)
    data = input.numpy()
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return linspace(lo, hi, int(bins) + 1, dtype="float32")   # float32 whatever the input (Paddle 3.3.1)
