"""More of Paddle's manipulation functions: stacking and splitting helpers (hstack, tensor_split ...),
diagonal/slice/select scatters, as_strided, unfold, multiplex, crop,
shard_index, reduce_as, the view_as_complex/real pair, polar and a few attribute queries."""
from __future__ import annotations

import builtins
import numbers

import numpy as np

from ..dispatch import run_op
from ..ops.meta import normalize_axis
from ..tensor import Tensor, tensor_method
from ._helpers import is_var
from .creation import to_tensor, zeros
from .manipulation import _inplace, cast, concat, flatten, reshape, slice, split
from .param_alias import param_alias

__all__ = ["argwhere", "as_strided", "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
           "column_stack", "row_stack", "hstack", "vstack", "dstack", "hsplit", "vsplit", "dsplit", "tensor_split",
           "diagflat", "diagonal_scatter", "select_scatter", "slice_scatter", "multiplex", "view_as_complex",
           "view_as_real", "polar", "ravel", "unfold", "reduce_as", "shard_index", "crop", "positive", "rank",
           "is_empty"]
# fill_diagonal_tensor(_) are Tensor methods only, as in Paddle


def _is_int(v):
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool)


def _tensor(x, op, what="x"):
    if is_var(x):
        return x
    if isinstance(x, (list, tuple, np.ndarray, numbers.Number, np.generic)):
        return to_tensor(x)
    raise TypeError(f"{op}: {what} must be a Tensor, got {type(x).__name__}")


def _int(v, op, what):
    if isinstance(v, Tensor) and v.size == 1:
        v = v.item()
    if not _is_int(v):
        raise TypeError(f"{op}: {what} must be an int, got {v!r}")
    return int(v)


# -- atleast / stacking --------------------------------------------------------------------------

def _atleast(inputs, n, op):
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)) and any(is_var(t) for t in inputs[0]):
        inputs = inputs[0]
    out = []
    for x in inputs:
        t = _tensor(x, op, "input")
        nd = len(t.shape)
        if nd < n:
            # Paddle's layouts: 0-D -> [1]*n; 1-D [k] -> [1, k] / [1, k, 1]; 2-D [a, b] -> [a, b, 1]
            shape = list(t.shape)
            if nd == 0:
                shape = [1] * n
            elif n == 2:
                shape = [1] + shape
            elif nd == 1:
                shape = [1] + shape + [1]
            else:
                shape = shape + [1]
            t = reshape(t, shape)
        out.append(t)
    return out[0] if len(out) == 1 else out


def atleast_1d(*inputs, name=None):
    """Each input as a tensor of at least 1 dim (one tensor for one input, else a list)."""
    return _atleast(inputs, 1, "atleast_1d")


def atleast_2d(*inputs, name=None):
    """Each input as a tensor of at least 2 dims (a 1-D [k] becomes [1, k])."""
    return _atleast(inputs, 2, "atleast_2d")


def atleast_3d(*inputs, name=None):
    """Each input as a tensor of at least 3 dims ([k] -> [1, k, 1], [a, b] -> [a, b, 1])."""
    return _atleast(inputs, 3, "atleast_3d")


def _as_list(x, fn):
    out = fn(*x)
    return out if isinstance(out, list) else [out]


def _seq(x, op):
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"{op}: x must be a non-empty list or tuple of tensors, got {type(x).__name__}")
    return list(x)


def hstack(x, name=None):
    """Concatenate along dim 1 (dim 0 for 1-D inputs), after `atleast_1d`."""
    xs = _as_list(_seq(x, "hstack"), atleast_1d)
    return concat(xs, axis=0 if len(xs[0].shape) == 1 else 1)


def vstack(x, name=None):
    """Concatenate along dim 0 after `atleast_2d` (rows)."""
    return concat(_as_list(_seq(x, "vstack"), atleast_2d), axis=0)


def row_stack(x, name=None):
    """`vstack` under numpy's other name."""
    return vstack(x, name)


def dstack(x, name=None):
    """Concatenate along dim 2 after `atleast_3d` (depth)."""
    return concat(_as_list(_seq(x, "dstack"), atleast_3d), axis=2)


def column_stack(x, name=None):
    """Concatenate along dim 1; 0-D and 1-D inputs become columns [n, 1]."""
    xs = [reshape(t, [-1, 1]) if len(t.shape) < 2 else t for t in (_tensor(v, "column_stack") for v in
                                                                    _seq(x, "column_stack"))]
    return concat(xs, axis=1)


def block_diag(inputs, name=None):
    """A block-diagonal matrix from 0-, 1- or 2-D tensors (placed along the diagonal, zeros elsewhere)."""
    mats = []
    for t in (_tensor(v, "block_diag", "inputs") for v in _seq(inputs, "block_diag")):
        nd = len(t.shape)
        if nd > 2:
            raise ValueError("For 'block_diag', the dimension of each elements in 'inputs' must be 0, 1, or 2, "
                             f"but got {nd}")
        mats.append(reshape(t, [1, 1]) if nd == 0 else reshape(t, [1, -1]) if nd == 1 else t)
    cols = [int(m.shape[1]) for m in mats]
    rows = []
    for i, m in enumerate(mats):
        parts = [m if j == i else zeros([m.shape[0], c], m.dtype) for j, c in enumerate(cols)]
        rows.append(concat(parts, axis=1))
    return concat(rows, axis=0)


def broadcast_shapes(*shapes):
    """The shape all ``shapes`` broadcast to (numpy's rules), as a list."""
    from .manipulation import broadcast_shape
    out = []
    for s in shapes:
        out = broadcast_shape(list(out), list(s))
    return list(out)


# -- splitting -----------------------------------------------------------------------------------

@tensor_method
def tensor_split(x, num_or_indices, axis=0, name=None):
    """Split into ``n`` near-equal parts (the first ``size % n`` one longer) or at the given indices."""
    x = _tensor(x, "tensor_split")
    axis = _int(axis, "tensor_split", "axis")
    nd = len(x.shape)
    if nd <= 0 or nd <= axis:
        raise ValueError(f"The input tensor's dimension must be greater than 0 or axis which is {axis}, "
                         f"but got {nd}")
    ax = normalize_axis(axis, nd, "tensor_split: axis")
    total = int(x.shape[ax])
    if _is_int(num_or_indices):
        n = int(num_or_indices)
        if n <= 0:
            raise ValueError("num_or_indices must be larger than 0.")
        base, mod = divmod(total, n)
        return split(x, [base + 1] * mod + [base] * (n - mod), ax)
    if not isinstance(num_or_indices, (list, tuple)):
        raise ValueError("The num_or_indices should be int, list or tuple of ints, but got "
                         f"{type(num_or_indices)}")
    out, start = [], 0
    for end in [*num_or_indices, total]:
        end = _int(end, "tensor_split", "index")
        s = start if start >= 0 else total + start
        e = max(s, end if end >= 0 else total + end)
        out.append(slice(x, [ax], [s], [e]))
        start = end
    return out


def _split_dim(x, op, axis, need):
    x = _tensor(x, op)
    if len(x.shape) < need:
        raise ValueError(f"The input tensor's dimension must be greater than {need - 1}, but got {len(x.shape)}")
    return x, axis


@tensor_method
def hsplit(x, num_or_indices, name=None):
    """`tensor_split` along dim 1 (dim 0 for a 1-D tensor)."""
    x, _ = _split_dim(x, "hsplit", 0, 1)
    return tensor_split(x, num_or_indices, axis=1 if len(x.shape) > 1 else 0)


@tensor_method
def vsplit(x, num_or_indices, name=None):
    """`tensor_split` along dim 0 of a tensor with at least 2 dims."""
    x, _ = _split_dim(x, "vsplit", 0, 2)
    return tensor_split(x, num_or_indices, axis=0)


@tensor_method
def dsplit(x, num_or_indices, name=None):
    """`tensor_split` along dim 2 of a tensor with at least 3 dims."""
    x, _ = _split_dim(x, "dsplit", 2, 3)
    return tensor_split(x, num_or_indices, axis=2)


@tensor_method
def split_with_sizes(self, split_sizes, dim=0):
    """`split` into parts of the given sizes (which must add up to the size of ``dim``)."""
    sizes = [_int(s, "split_with_sizes", "split size") for s in split_sizes]
    ax = normalize_axis(_int(dim, "split_with_sizes", "dim"), len(self.shape), "split_with_sizes: dim")
    if any(s < 0 for s in sizes) or sum(sizes) != self.shape[ax]:
        raise ValueError(f"split_with_sizes expects split_sizes have only non-negative entries and sum up to the "
                         f"size of the tensor along dim {ax} ({self.shape[ax]}), got {sizes}")
    return split(self, sizes, ax)


# -- scatters ------------------------------------------------------------------------------------

def fill_diagonal_tensor(x, y, offset=0, dim1=0, dim2=1, name=None):
    """A copy of ``x`` whose diagonal (of dims dim1, dim2, shifted by ``offset``) holds ``y``."""
    return _fill_diag_tensor(x, y, offset, dim1, dim2)


def _fill_diag_tensor(x, y, offset, dim1, dim2):
    x, y = _tensor(x, "fill_diagonal_tensor"), _tensor(y, "fill_diagonal_tensor", "y")
    shape = list(x.shape)
    nd = len(shape)
    if nd < 2:
        raise ValueError(f"fill_diagonal_tensor: x must have at least 2 dims, got shape {shape}")
    d1 = normalize_axis(_int(dim1, "fill_diagonal_tensor", "dim1"), nd, "fill_diagonal_tensor: dim1")
    d2 = normalize_axis(_int(dim2, "fill_diagonal_tensor", "dim2"), nd, "fill_diagonal_tensor: dim2")
    offset = _int(offset, "fill_diagonal_tensor", "offset")
    want = [s for i, s in enumerate(shape) if i not in (d1, d2)]
    want.append(min(shape[d1], shape[d1] + offset, shape[d2], shape[d2] - offset))
    if list(y.shape) != want:
        # Paddle asserts this: the same exception type
        raise AssertionError(f"fill_diagonal_tensor: the y shape should be {want}, got {list(y.shape)}")
    if y.dtype != x.dtype:
        y = cast(y, x.dtype)
    return run_op("fill_diagonal_tensor", x, y, offset=offset, dim1=d1, dim2=d2)


tensor_method(fill_diagonal_tensor)
fill_diagonal_tensor_ = _inplace("fill_diagonal_tensor_", fill_diagonal_tensor)


def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """A copy of ``x`` whose diagonal (of axis1, axis2, shifted by ``offset``) holds ``y``."""
    return _fill_diag_tensor(x, y, offset, axis1, axis2)


def select_scatter(x, values, axis, index, name=None):
    """A copy of ``x`` with ``x[..., index, ...]`` (``index`` along ``axis``) replaced by ``values``."""
    x, values = _tensor(x, "select_scatter"), _tensor(values, "select_scatter", "values")
    shape = list(x.shape)
    axis, index = _int(axis, "select_scatter", "axis"), _int(index, "select_scatter", "index")
    ax = normalize_axis(axis, len(shape), "select_scatter: axis")
    n = shape[ax]
    if not -n <= index < n:
        raise IndexError(f"select_scatter: index {index} is out of range for axis {axis} of size {n}")
    index %= n
    del shape[ax]
    if shape != list(values.shape):
        raise RuntimeError("expected values to have a size equal to the slice of x. value size = "
                           f"{list(values.shape)} slice size = {shape}")
    return run_op("set_value", x, cast(values, x.dtype), None, None, None, axes=[ax], starts=[index],
                  ends=[index + 1], steps=[1], decrease_axes=[ax], none_axes=[], dtype=x.dtype.proto)


def slice_scatter(x, value, axes, starts, ends, strides, name=None):
    """A copy of ``x`` with the strided slice ``starts:ends:strides`` along ``axes`` replaced by ``value``."""
    x, value = _tensor(x, "slice_scatter"), _tensor(value, "slice_scatter", "value")
    lists = [[_int(v, "slice_scatter", what) for v in seq]
             for what, seq in (("axes", axes), ("starts", starts), ("ends", ends), ("strides", strides))]
    if len({len(v) for v in lists}) != 1:
        raise ValueError(f"slice_scatter: axes, starts, ends and strides must have one length, got {lists}")
    axes_, st, en, sp = lists
    expect = list(x.shape)
    for a, s, e, p in zip(axes_, st, en, sp):
        a = normalize_axis(a, len(expect), "slice_scatter: axes entry")
        if p <= 0:
            raise ValueError(f"slice_scatter: strides must be positive, got {sp}")
        expect[a] = len(range(*builtins.slice(s, e, p).indices(x.shape[a])))
    if list(value.shape) != expect:
        raise ValueError(f"slice_scatter: value must have the shape of the slice, {expect}, got "
                         f"{list(value.shape)}")
    return run_op("set_value", x, cast(value, x.dtype), None, None, None, axes=axes_, starts=st, ends=en,
                  steps=sp, decrease_axes=[], none_axes=[], dtype=x.dtype.proto)


# -- one op each ---------------------------------------------------------------------------------

def _ints(seq, op, what):
    if not isinstance(seq, (list, tuple)):
        raise TypeError(f"{op}: {what} must be a list or tuple of ints, got {type(seq).__name__}")
    return [_int(v, op, f"{what} entry") for v in seq]


@tensor_method
def as_strided(x, shape, stride, offset=0, name=None):
    """A tensor of ``shape`` reading x's (contiguous) elements at ``sum(i_k * stride[k])`` (strides in
    elements) after skipping ``offset`` BYTES (as Paddle counts it: a multiple of the element size).

    Paddle returns a view; here the result is a copy. Our in-place updates never write into a
    tensor's storage (they rebind it), so no program can see the difference.
    """
    x = _tensor(x, "as_strided")
    shape, stride = _ints(shape, "as_strided", "shape"), _ints(stride, "as_strided", "stride")
    return run_op("as_strided", x, dims=shape, stride=stride, offset=_int(offset, "as_strided", "offset"))


@tensor_method
@param_alias(axis="dimension")
def unfold(x, axis, size, step, name=None):
    """Sliding windows of ``size`` elements every ``step`` along ``axis``: that dim becomes the
    window count and a new last dim of ``size`` holds each window (a copy; see `as_strided`)."""
    x = _tensor(x, "unfold")
    nd = len(x.shape)
    ax = normalize_axis(_int(axis, "unfold", "axis"), max(nd, 1), "unfold: axis")
    size, step = _int(size, "unfold", "size"), _int(step, "unfold", "step")
    n = int(x.shape[ax]) if nd else 1
    if size < 0 or size > n:
        raise ValueError(f"unfold: size ({size}) must be in [0, {n}] (the size of axis {ax})")
    if step <= 0:
        raise ValueError(f"unfold: step must be positive, got {step}")
    count = (n - size) // step + 1
    strides = [int(np.prod(x.shape[i + 1:])) for i in range(nd)]
    shape = list(x.shape[:ax]) + [count] + list(x.shape[ax + 1:]) + [size]
    stride = strides[:ax] + [strides[ax] * step] + strides[ax + 1:] + [strides[ax] if nd else 1]
    return run_op("as_strided", x, dims=shape, stride=stride, offset=0)


def multiplex(inputs, index, name=None):
    """Row i of the result is row i of ``inputs[index[i]]``."""
    if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
        raise ValueError("inputs should be a list object with at least 2 elements.")
    xs = [_tensor(t, "multiplex", "inputs") for t in inputs]
    index = _tensor(index, "multiplex", "index")
    if index.dtype.name != "int32":
        raise ValueError(f"multiplex: index must be an int32 tensor (Paddle's kernel reads int32), got "
                         f"{index.dtype.name}; cast it with index.astype('int32')")
    return run_op("multiplex", xs, index)


@tensor_method
def reduce_as(x, target, name=None):
    """``x`` summed over the dims that broadcasting ``target`` to x's shape would add or expand."""
    x, target = _tensor(x, "reduce_as"), _tensor(target, "reduce_as", "target")
    return run_op("reduce_as", x, target)


@tensor_method
def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    """Each index's position within shard ``shard_id`` of ``nshards`` equal shards of [0, index_num),
    or ``ignore_value`` when it belongs to another shard."""
    input = _tensor(input, "shard_index", "input")
    if input.dtype.name not in ("int32", "int64"):
        raise TypeError(f"shard_index: input must be int32 or int64, got {input.dtype.name}")
    return run_op("shard_index", input, index_num=_int(index_num, "shard_index", "index_num"),
                  nshards=_int(nshards, "shard_index", "nshards"), shard_id=_int(shard_id, "shard_index", "shard_id"),
                  ignore_value=_int(ignore_value, "shard_index", "ignore_value"))


def crop(x, shape=None, offsets=None, name=None):
    """The box of ``shape`` (``-1`` = to the end) starting at ``offsets`` (default zeros) cut out of ``x``."""
    x = _tensor(x, "crop")
    nd = len(x.shape)
    shape_t = off_t = None
    if shape is None:
        shape = list(x.shape)
    elif is_var(shape):
        shape_t, shape = shape, [-1] * nd
    else:
        shape = _ints(shape, "crop", "shape")
    if offsets is None:
        offsets = [0] * nd
    elif is_var(offsets):
        off_t, offsets = offsets, [0] * nd
    else:
        offsets = _ints(offsets, "crop", "offsets")
    return run_op("crop_tensor", x, shape_t, None, off_t, None, shape=shape, offsets=offsets)


@tensor_method
def view_as_complex(input):
    """A real tensor [..., 2] as complex [...] (`as_complex`; a copy here, see `as_strided`)."""
    return run_op("as_complex", _tensor(input, "view_as_complex", "input"))


@tensor_method
def view_as_real(input):
    """A complex tensor [...] as real [..., 2] (`as_real`; a copy here, see `as_strided`)."""
    return run_op("as_real", _tensor(input, "view_as_real", "input"))


def polar(abs, angle, name=None, *, out=None):
    """The complex tensor ``abs * (cos(angle) + i sin(angle))``."""
    from .complex import complex as make_complex
    from .math import cos, sin
    for t, what in ((abs, "abs"), (angle, "angle")):
        if not is_var(t) or t.dtype.name not in ("float32", "float64"):
            raise TypeError(f"polar: {what} must be a float32 or float64 Tensor, got "
                            f"{t.dtype.name if is_var(t) else type(t).__name__}")
    return make_complex(abs * cos(angle), abs * sin(angle), out=out)


@tensor_method
def ravel(input):
    """``input`` flattened to 1-D."""
    return flatten(_tensor(input, "ravel", "input"))


@tensor_method
def diagflat(x, offset=0, name=None):
    """A 2-D tensor with the flattened ``x`` on diagonal ``offset``."""
    from .creation import diag
    return diag(flatten(_tensor(x, "diagflat")), offset=_int(offset, "diagflat", "offset"))


@tensor_method
def argwhere(input):
    """Indices of the nonzero elements, one row each ([N, ndim], int64)."""
    from .search import nonzero
    return nonzero(_tensor(input, "argwhere", "input"))


def positive(x, name=None):
    """``+x``: ``x`` itself (bool tensors refused, as in Paddle)."""
    if is_var(x) and x.dtype.name == "bool":
        raise TypeError("The `+` operator, on a bool tensor is not supported.")
    return x


@tensor_method
def rank(input):
    """The number of dims of ``input`` as a 0-D int32 tensor."""
    if not is_var(input):
        raise TypeError(f"rank: input must be a Tensor, got {type(input).__name__}")
    return to_tensor(np.array(len(input.shape), np.int32))


@tensor_method
def is_empty(x, name=None):
    """A 0-D bool tensor: True when ``x`` has no elements."""
    if not is_var(x):
        raise TypeError(f"is_empty: x must be a Tensor, got {type(x).__name__}")
    from .manipulation import numel
    from .logic import equal
    return equal(numel(x), to_tensor(np.array(0, np.int64)))

