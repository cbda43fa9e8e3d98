"""Indexing ops: gather, gather_nd, index_select, where, masked_select, set_value, scatter,
scatter_nd_add, index_sample, take_along_axis, put_along_axis — with their gradients.

Gradients of the gathering ops scatter-add (``np.add.at``) so repeated indices accumulate.
"""
from __future__ import annotations

import numpy as np

from ..dtype import from_proto
from .elementwise import unbroadcast
from .meta import broadcast_shapes, normalize_axis
from .registry import Meta, grad_op, register


def _check_int_index(op, index, what="index"):
    if index.dtype.kind not in "iu":
        raise TypeError(f"{op}: {what} must be an int32 or int64 tensor, got {index.dtype}")


# -- gather -----------------------------------------------------------------------------------------

def _gather_index(index):
    _check_int_index("gather", index)
    if index.ndim == 2:
        if index.shape[1] != 1:
            raise ValueError(f"gather: a 2-D index must have shape [N, 1], got {list(index.shape)}")
        return index.reshape(-1)
    if index.ndim > 2:
        raise ValueError(f"gather: index must be 0-D, 1-D or [N, 1], got shape {list(index.shape)}")
    return index


def _gather_axis(axis_t, axis, nd):
    if axis_t is not None:
        axis = int(np.asarray(axis_t).reshape(-1)[0])
    return normalize_axis(axis, nd, "gather: axis")


def _gather(x, index, axis_t=None, axis=0, **_):
    ax = _gather_axis(axis_t, axis, x.ndim)
    return np.take(x, _gather_index(index), axis=ax)


def _gather_meta(x, index, axis_t=None, axis=0, **_):
    shape = tuple(x.shape)
    if axis_t is not None:
        return Meta((-1,) * (len(shape) - (len(index.shape) == 0)), x.dtype)
    ax = _gather_axis(None, axis, len(shape))
    n = () if len(index.shape) == 0 else (index.shape[0],)
    return Meta(shape[:ax] + n + shape[ax + 1:], x.dtype)


def _take_grad(x, index, dout, ax):
    """Scatter-add ``dout`` (the grad of ``np.take(x, index, axis=ax)``, index 0-D or 1-D) into zeros."""
    g = np.zeros(x.shape, dtype=x.dtype)
    if index.ndim == 0:
        index = index.reshape(1)
        dout = np.expand_dims(dout, ax)
    np.add.at(np.moveaxis(g, ax, 0), index, np.moveaxis(dout, ax, 0))
    return g


def _gather_grad(x, index, axis_t, dout, axis=0, **_):
    return _take_grad(x, _gather_index(index), dout, _gather_axis(axis_t, axis, x.ndim))


register("gather", ["X", "Index", "Axis?"], ["Out"], {"axis": ("INT", 0)}, kernel=_gather,
         infer_meta=_gather_meta, differentiable=("X",))
grad_op("gather", ["X", "Index", "Axis?", "Out@GRAD"], ["X@GRAD"], _gather_grad)


# -- gather_nd --------------------------------------------------------------------------------------

def _nd_index(x_ndim, index, op="gather_nd"):
    _check_int_index(op, index)
    if index.ndim == 0:
        raise ValueError(f"{op}: index must have at least 1 dimension, got a 0-D index")
    k = index.shape[-1]
    if k > x_ndim:
        raise ValueError(f"{op}: the last dimension of index ({k}) must not exceed x's rank ({x_ndim})")
    return tuple(index[..., i] for i in range(k))


def _gather_nd(x, index, **_):
    idx = _nd_index(x.ndim, index)
    if not idx:   # an empty index row selects the whole of x
        return np.array(np.broadcast_to(x, index.shape[:-1] + x.shape))
    return x[idx]


def _gather_nd_meta(x, index, **_):
    k = index.shape[-1]
    if k < 0:
        return Meta((-1,) * (len(index.shape) - 1), x.dtype)
    return Meta(tuple(index.shape[:-1]) + tuple(x.shape[k:]), x.dtype)


def _gather_nd_grad(x, index, dout, **_):
    idx = _nd_index(x.ndim, index)
    if not idx:
        return dout.reshape((-1,) + x.shape).sum(axis=0).astype(x.dtype, copy=False)
    g = np.zeros(x.shape, dtype=x.dtype)
    np.add.at(g, idx, dout)
    return g


register("gather_nd", ["X", "Index"], ["Out"], {}, kernel=_gather_nd, infer_meta=_gather_nd_meta,
         differentiable=("X",))
grad_op("gather_nd", ["X", "Index", "Out@GRAD"], ["X@GRAD"], _gather_nd_grad)


# -- index_select -----------------------------------------------------------------------------------

def _select_index(index):
    _check_int_index("index_select", index)
    if index.ndim != 1:
        raise ValueError(f"index_select: index must be 1-D, got shape {list(index.shape)}")
    return index


def _index_select(x, index, dim=0, **_):
    return np.take(x, _select_index(index), axis=normalize_axis(dim, x.ndim, "index_select: axis"))


def _index_select_meta(x, index, dim=0, **_):
    shape = tuple(x.shape)
    ax = normalize_axis(dim, len(shape), "index_select: axis")
    return Meta(shape[:ax] + (index.shape[0],) + shape[ax + 1:], x.dtype)


def _index_select_grad(x, index, dout, dim=0, **_):
    return _take_grad(x, _select_index(index), dout, normalize_axis(dim, x.ndim, "index_select: axis"))


register("index_select", ["X", "Index"], ["Out"], {"dim": ("INT", 0)}, kernel=_index_select,
         infer_meta=_index_select_meta, differentiable=("X",))
grad_op("index_select", ["X", "Index", "Out@GRAD"], ["X@GRAD"], _index_select_grad)


# -- where / masked_select --------------------------------------------------------------------------

def _check_bool(op, what, a):
    if a.dtype != np.bool_:
        raise TypeError(f"{op}: {what} must be a bool tensor, got {a.dtype}")


def _where(cond, x, y, **_):
    _check_bool("where", "condition", cond)
    if x.dtype != y.dtype:
        raise TypeError(f"where: x and y must have the same dtype, got {x.dtype} and {y.dtype}")
    return np.where(cond, x, y)


def _where_meta(cond, x, y, **_):
    return Meta(broadcast_shapes(broadcast_shapes(cond.shape, x.shape), y.shape), x.dtype)


def _where_grad(cond, x, y, dout, **_):
    zero = np.zeros((), dtype=dout.dtype)
    gx = unbroadcast(np.where(cond, dout, zero), x.shape).astype(x.dtype, copy=False)
    gy = unbroadcast(np.where(cond, zero, dout), y.shape).astype(y.dtype, copy=False)
    return gx, gy


register("where", ["Condition", "X", "Y"], ["Out"], {}, kernel=_where, infer_meta=_where_meta,
         differentiable=("X", "Y"))
grad_op("where", ["Condition", "X", "Y", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _where_grad)


def _masked_select(x, mask, **_):
    _check_bool("masked_select", "mask", mask)
    if x.shape == mask.shape:
        return x[mask]
    xb, mb = np.broadcast_arrays(x, mask)
    return xb[mb]


def _masked_select_grad(x, mask, dout, **_):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    g = np.zeros(shape, dtype=x.dtype)
    g[np.broadcast_to(mask, shape)] = dout
    return unbroadcast(g, x.shape)


register("masked_select", ["X", "Mask"], ["Y"], {}, kernel=_masked_select,
         infer_meta=lambda x, mask, **_: Meta((-1,), x.dtype), differentiable=("X",))
grad_op("masked_select", ["X", "Mask", "Y@GRAD"], ["X@GRAD"], _masked_select_grad)


# -- set_value --------------------------------------------------------------------------------------

def _tensor_ints(tensor_list, attr):
    if tensor_list:
        return [int(np.asarray(t).reshape(-1)[0]) for t in tensor_list]
    return [int(v) for v in attr]


def set_value_index(shape, axes, starts, ends, steps, decrease_axes, none_axes):
    """(numpy index of the written region, shape the value is broadcast to).

    The value's shape is the indexed result's: decreased axes removed, then a size-1 dim at
    each position in ``none_axes`` (positions in that result), as ``x[index]`` would give.
    """
    nd = len(shape)
    idx = [slice(None)] * nd
    for k, a in enumerate(axes):
        a = normalize_axis(a, nd, "set_value: axes")
        step = steps[k] if k < len(steps) else 1
        if step == 0:
            raise ValueError(f"set_value: step for axis {a} must not be 0")
        idx[a] = slice(starts[k], ends[k], step)
    region = [len(range(*s.indices(d))) for s, d in zip(idx, shape)]
    dec = {normalize_axis(a, nd, "set_value: decrease_axes") for a in decrease_axes}
    view = [d for i, d in enumerate(region) if i not in dec]
    for p in sorted(none_axes):
        view.insert(p, 1)
    return tuple(idx), tuple(region), tuple(view)


def _set_value_arrays(x, value_t, starts_l, ends_l, steps_l, dtype, axes, starts, ends, steps, decrease_axes,
                      none_axes, values, shape):
    starts = _tensor_ints(starts_l, starts)
    ends = _tensor_ints(ends_l, ends)
    steps = _tensor_ints(steps_l, steps)
    idx, region, view = set_value_index(x.shape, axes, starts, ends, steps, decrease_axes, none_axes)
    if value_t is None:
        value_t = np.asarray(values, dtype=from_proto(dtype).np).reshape([int(s) for s in shape])
    return idx, region, view, value_t


def _drop_lead_ones(value, ndim):
    """A value with extra leading size-1 dims fits a lower-rank region (Paddle stores scalars as shape [1])."""
    while value.ndim > ndim and value.shape[0] == 1:
        value = value[0]
    return value


def _set_value(x, value_t=None, starts_l=None, ends_l=None, steps_l=None, dtype=5, axes=(), starts=(), ends=(),
               steps=(), decrease_axes=(), none_axes=(), values=(), shape=(), **_):
    idx, region, view, value = _set_value_arrays(x, value_t, starts_l, ends_l, steps_l, dtype, axes, starts, ends,
                                                 steps, decrease_axes, none_axes, values, shape)
    value = _drop_lead_ones(value, len(view))
    try:
        value = np.broadcast_to(value, view)
    except ValueError:
        raise ValueError(f"set_value: a value of shape {list(value.shape)} cannot be broadcast to the shape of "
                         f"the indexed region {list(view)}") from None
    out = x.copy()
    out[idx] = value.reshape(region)
    return out


def _set_value_meta(x, *_, **__):
    return Meta(tuple(x.shape), x.dtype)


_SET_VALUE_ATTRS = {
    "dtype": ("INT", 5), "axes": ("LONGS", []), "starts": ("LONGS", []), "ends": ("LONGS", []),
    "steps": ("LONGS", []), "decrease_axes": ("LONGS", []), "none_axes": ("LONGS", []),
    "values": ("SCALARS", []), "shape": ("LONGS", [])}
register("set_value", ["Input", "ValueTensor?", "StartsTensorList[]?", "EndsTensorList[]?", "StepsTensorList[]?"],
         ["Out"], _SET_VALUE_ATTRS, kernel=_set_value, infer_meta=_set_value_meta,
         differentiable=("Input", "ValueTensor"))


def _set_value_grad(value_t, starts_l, ends_l, steps_l, dout, dtype=5, axes=(), starts=(), ends=(), steps=(),
                    decrease_axes=(), none_axes=(), values=(), shape=(), **_):
    idx, region, view, _ = _set_value_arrays(dout, value_t, starts_l, ends_l, steps_l, dtype, axes, starts,
                                             ends, steps, decrease_axes, none_axes, values, shape)
    gx = dout.copy()
    gx[idx] = 0
    gv = None
    if value_t is not None:
        fit = _drop_lead_ones(value_t, len(view)).shape
        gv = unbroadcast(dout[idx].reshape(view), fit).reshape(value_t.shape).astype(value_t.dtype, copy=False)
    return gx, gv


def _set_value_grad_meta(value_t, starts_l, ends_l, steps_l, dout, **_):
    return (Meta(tuple(dout.shape), dout.dtype),
            None if value_t is None else Meta(tuple(value_t.shape), value_t.dtype))


grad_op("set_value", ["ValueTensor?", "StartsTensorList[]?", "EndsTensorList[]?", "StepsTensorList[]?", "Out@GRAD"],
        ["Input@GRAD", "ValueTensor@GRAD"], _set_value_grad, infer_meta=_set_value_grad_meta)


# -- scatter / scatter_nd_add -----------------------------------------------------------------------

def _scatter_ids(ids):
    _check_int_index("scatter", ids, "ids")
    if ids.ndim > 1:
        if ids.ndim == 2 and ids.shape[1] == 1:
            return ids.reshape(-1)
        raise ValueError(f"scatter: index must be 1-D (or [N, 1]), got shape {list(ids.shape)}")
    return ids


def _last_writers(ids, n):
    """Mask of the update rows that survive an overwriting scatter (the last write to each row wins)."""
    ids = np.where(ids < 0, ids + n, ids)
    keep = np.zeros(ids.shape, dtype=bool)
    _, first_from_end = np.unique(ids[::-1], return_index=True)
    keep[len(ids) - 1 - first_from_end] = True
    return keep


def _scatter(x, ids, updates, overwrite=True, **_):
    ids = _scatter_ids(ids)
    out = x.copy()
    if overwrite:
        out[ids] = updates
    else:
        out[ids] = 0
        np.add.at(out, ids, updates)
    return out


def _scatter_grad(ids, updates, dout, overwrite=True, **_):
    ids = _scatter_ids(ids)
    gx = dout.copy()
    gx[ids] = 0
    gu = dout[ids].astype(updates.dtype, copy=False)
    if overwrite and ids.ndim == 1 and len(ids):
        gu = gu * _last_writers(ids, dout.shape[0]).reshape((-1,) + (1,) * (gu.ndim - 1))
    return gx, gu


register("scatter", ["X", "Ids", "Updates"], ["Out"], {"overwrite": ("BOOLEAN", True)}, kernel=_scatter,
         infer_meta=lambda x, *_, **__: Meta(tuple(x.shape), x.dtype), differentiable=("X", "Updates"))
grad_op("scatter", ["Ids", "Updates", "Out@GRAD"], ["X@GRAD", "Updates@GRAD"], _scatter_grad,
        infer_meta=lambda ids, u, d, **_: (Meta(tuple(d.shape), d.dtype), Meta(tuple(u.shape), u.dtype)))


def _scatter_nd_add(x, index, updates, **_):
    out = x.copy()
    idx = _nd_index(x.ndim, index, "scatter_nd_add")
    if not idx:
        out += updates.reshape((-1,) + x.shape).sum(axis=0).astype(x.dtype, copy=False)
    else:
        np.add.at(out, idx, updates)
    return out


def _scatter_nd_add_grad(index, updates, dout, **_):
    idx = _nd_index(dout.ndim, index, "scatter_nd_add")
    if not idx:
        gu = np.broadcast_to(dout, updates.shape)
    else:
        gu = dout[idx]
    return dout, np.array(gu, dtype=updates.dtype)


register("scatter_nd_add", ["X", "Index", "Updates"], ["Out"], {}, kernel=_scatter_nd_add,
         infer_meta=lambda x, *_, **__: Meta(tuple(x.shape), x.dtype), differentiable=("X", "Updates"))
grad_op("scatter_nd_add", ["Index", "Updates", "Out@GRAD"], ["X@GRAD", "Updates@GRAD"], _scatter_nd_add_grad,
        infer_meta=lambda i, u, d, **_: (Meta(tuple(d.shape), d.dtype), Meta(tuple(u.shape), u.dtype)))


# -- index_sample / take_along_axis / put_along_axis ------------------------------------------------

def _along_index(index, axis):
    """Full numpy index that picks ``index`` along ``axis`` and the matching position elsewhere."""
    grids = list(np.ix_(*[np.arange(n) for n in index.shape]))
    grids[axis] = index
    return tuple(grids)


def _index_sample(x, index, **_):
    _check_int_index("index_sample", index)
    if x.ndim != 2 or index.ndim != 2 or index.shape[0] != x.shape[0]:
        raise ValueError(f"index_sample: x and index must be 2-D with the same first dimension, got shapes "
                         f"{list(x.shape)} and {list(index.shape)}")
    return np.take_along_axis(x, index, axis=1)


def _index_sample_grad(x, index, dout, **_):
    g = np.zeros(x.shape, dtype=x.dtype)
    np.add.at(g, _along_index(index, 1), dout)
    return g


register("index_sample", ["X", "Index"], ["Out"], {}, kernel=_index_sample,
         infer_meta=lambda x, index, **_: Meta(tuple(index.shape), x.dtype), differentiable=("X",))
grad_op("index_sample", ["X", "Index", "Out@GRAD"], ["X@GRAD"], _index_sample_grad)


def _check_along(op, x, index, axis):
    _check_int_index(op, index)
    if index.ndim != x.ndim:
        raise ValueError(f"{op}: index must have the same rank as the input, got shapes {list(index.shape)} "
                         f"and {list(x.shape)}")
    return normalize_axis(axis, x.ndim, f"{op}: axis")


def _take_along_axis(x, index, Axis=0, **_):
    return np.take_along_axis(x, index, axis=_check_along("take_along_axis", x, index, Axis))


def _take_along_axis_grad(x, index, dout, Axis=0, **_):
    g = np.zeros(x.shape, dtype=x.dtype)
    np.add.at(g, _along_index(index, _check_along("take_along_axis", x, index, Axis)), dout)
    return g


register("take_along_axis", ["Input", "Index"], ["Result"], {"Axis": ("INT", 0)}, kernel=_take_along_axis,
         infer_meta=lambda x, index, **_: Meta(tuple(index.shape), x.dtype), differentiable=("Input",))
grad_op("take_along_axis", ["Input", "Index", "Result@GRAD"], ["Input@GRAD"], _take_along_axis_grad)

_REDUCES = ("assign", "add", "mul", "multiply")


def _put_along_axis(x, index, value, Axis=0, Reduce="assign", Include_self=True, **_):
    ax = _check_along("put_along_axis", x, index, Axis)
    if Reduce not in _REDUCES:
        raise ValueError(f"put_along_axis: reduce must be one of {list(_REDUCES)}, got {Reduce!r}")
    idx = _along_index(index, ax)
    value = np.broadcast_to(value, index.shape).astype(x.dtype, copy=False)
    out = x.copy()
    if Reduce == "assign":
        out[idx] = value
    elif Reduce == "add":
        if not Include_self:
            out[idx] = 0
        np.add.at(out, idx, value)
    else:
        if not Include_self:
            out[idx] = 1
        np.multiply.at(out, idx, value)
    return out


def _put_along_axis_grad(x, index, value, dout, Axis=0, Reduce="assign", Include_self=True, **_):
    ax = _check_along("put_along_axis", x, index, Axis)
    if Reduce not in ("assign", "add"):
        raise NotImplementedError(f"put_along_axis: the gradient of reduce={Reduce!r} is not implemented")
    idx = _along_index(index, ax)
    gx = dout.copy()
    if Reduce == "assign" or not Include_self:
        gx[idx] = 0
    gv = dout[idx]
    if Reduce == "assign":
        flat = np.ravel_multi_index(tuple(np.broadcast_to(i, index.shape) for i in idx), x.shape).reshape(-1)
        gv = gv * _last_writers(flat, x.size).reshape(index.shape)
    return gx, unbroadcast(gv, value.shape).astype(value.dtype, copy=False)


register("put_along_axis", ["Input", "Index", "Value"], ["Result"],
         {"Axis": ("INT", 0), "Reduce": ("STRING", "assign"), "Include_self": ("BOOLEAN", True)},
         kernel=_put_along_axis, infer_meta=lambda x, *_, **__: Meta(tuple(x.shape), x.dtype),
         differentiable=("Input", "Value"))
grad_op("put_along_axis", ["Input", "Index", "Value", "Result@GRAD"], ["Input@GRAD", "Value@GRAD"],
        _put_along_axis_grad)


