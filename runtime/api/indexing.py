"""Tensor ``__getitem__`` / ``__setitem__``: Python indices lowered to slice, strided_slice, unsqueeze2,
gather, masked_select, set_value, where and scatter ops, so indexing is differentiable and recordable.

Like Paddle, integers and slices (basic indexing) apply first; list / tensor indices (advanced
indexing) then apply to the result, following numpy's rules among themselves. Several advanced
indices and 0-D tensor indices inside a Program are built by indexing_advanced.py.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..dispatch import run_op
from ..framework import state
from ..tensor import Tensor, TensorMethods
from ._helpers import is_var
from .indexing_advanced import gather_advanced, put_advanced, set_value_bounds, slice_scalars, tensor_slice_step
from .manipulation import _const, _rebind, cast, check_inplace

__all__ = []

_INT_MAX = 2 ** 31 - 1
_INT_MIN = -2 ** 31
_FULL = slice(None)
_TENSOR_ARRAY = 13   # VarType.LOD_TENSOR_ARRAY: a tensor array of a Program, indexed by tensor_array.py


class _Parsed:
    """An index split into its basic part (one slice-family op) and its advanced part."""
    __slots__ = ("axes", "starts", "ends", "steps", "dec", "none_pos", "adv", "basic_np", "index", "scalars")

    def __init__(self, index):
        self.index = index
        self.axes, self.starts, self.ends, self.steps, self.dec = [], [], [], [], []
        self.scalars = {}     # entry k of axes -> a 0-D int Variable indexing that axis (a basic index, as in Paddle)
        self.none_pos = []    # positions of None in the basic result
        self.adv = []         # (position in the basic result, index value, is_bool, dims consumed)
        self.basic_np = []    # the basic part as a numpy index (for eager position arithmetic)


def _index_error(i, d, n, shape):
    return IndexError(f"index {i} is out of bounds for axis {d} with size {n} (tensor shape {list(shape)}); "
                      f"it should be in the range [{-n}, {n})")


def _slice_bound(v, what):
    if v is None:
        return None
    if isinstance(v, Tensor):
        return int(v.item())
    try:
        return int(v.__index__())
    except (AttributeError, TypeError):
        raise ValueError(f"slice {what} must be an int, None or a 1-element int tensor, got {v!r}") from None


def _program_var(v):
    return is_var(v) and not isinstance(v, Tensor)


def _convert_item(it):
    """One index item as: int, slice, None, Ellipsis, ('int', value) or ('bool', value)."""
    if it is None or it is Ellipsis or type(it) is slice:
        return it
    if isinstance(it, (bool, np.bool_)):
        raise ValueError("indexing with a Python bool is not supported; index with a bool tensor or list instead")
    if isinstance(it, (numbers.Integral, np.integer)):
        return int(it)
    if isinstance(it, Tensor):
        kind = it._data.dtype.kind
        if kind == "b":
            return ("bool", it)
        if kind not in "iu":
            raise ValueError(f"a tensor used as an index must hold integers or bools, got {it.dtype}")
        if it._data.ndim == 0:
            return int(it._data)
        return ("int", it)
    if is_var(it):
        kind = it.dtype.np.kind
        if kind not in "iub":
            raise ValueError(f"a tensor used as an index must hold integers or bools, got {it.dtype}")
        if len(it.shape) == 0:
            # a 0-D int acts like an int (Paddle's slice with a tensor start); a 0-D bool like numpy's
            # x[True] / x[False]: a new axis of size 1 or 0, indexed by that bool as a [1] mask
            return ("bool0" if kind == "b" else "scalar", it)
        return ("bool" if kind == "b" else "int", it)
    if isinstance(it, (list, tuple, np.ndarray)):
        if isinstance(it, (list, tuple)) and any(isinstance(v, Tensor) for v in it):
            it = [v.item() if isinstance(v, Tensor) else v for v in it]
        arr = np.asarray(it)
        if arr.dtype == np.bool_:
            return ("bool", arr)
        if arr.dtype.kind in "iu":
            return ("int", arr.astype(np.int64, copy=False))
        if arr.size == 0:
            return ("int", arr.astype(np.int64))
        raise ValueError(f"a list or array used as an index must hold integers or bools, got {arr.dtype}")
    raise ValueError(f"tensors can be indexed by ints, slices, None, Ellipsis, lists or tensors of ints or bools, "
                     f"and tuples of these; got {type(it).__name__}")


def _consumed(it):
    if it is None or it is Ellipsis:
        return 0
    if type(it) is tuple:
        return len(it[1].shape) if it[0] == "bool" else 0 if it[0] == "bool0" else 1
    return 1


def parse_index(x, index):
    """Parse a Python index against ``x``'s shape (which may hold -1 in static mode)."""
    shape = x._data.shape if isinstance(x, Tensor) else tuple(x.shape)
    nd = len(shape)
    raw = index if type(index) is tuple else (index,)
    items = None
    for it in raw:
        if type(it) is not int and type(it) is not slice:
            items = [_convert_item(i) for i in raw]
            break
    if items is None:   # only ints and slices: the common case needs no conversion
        items = raw
        used = len(raw)
        n_ell = 0
    else:
        n_ell = sum(1 for i in items if i is Ellipsis)
        if n_ell > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        used = sum(_consumed(i) for i in items)
    if used > nd:
        raise IndexError(f"too many indices for a tensor of rank {nd} (shape {list(shape)}): the index uses "
                         f"{used} dimensions")
    if n_ell:
        k = items.index(Ellipsis)
        items[k:k + 1] = [_FULL] * (nd - used)
    p = _Parsed(index)
    d = pos = 0
    for it in items:
        if type(it) is slice:
            step = it.step
            start = it.start
            stop = it.stop
            if step is None and start is None and stop is None:
                p.basic_np.append(_FULL)
                d += 1
                pos += 1
                continue
            if _program_var(start) or _program_var(stop) or _program_var(step):
                # bounds known at run time only: a slice / set_value with tensor lists (as Paddle builds it)
                step = tensor_slice_step(start, stop, step)
                p.scalars[len(p.axes)] = ("slice", start, stop, step)
                p.axes.append(d)
                p.starts.append(None)
                p.ends.append(None)
                p.steps.append(step if type(step) is int else None)
                p.basic_np.append(None)   # never used: eager tensors give plain ints
                d += 1
                pos += 1
                continue
            step = 1 if step is None else (step if type(step) is int else _slice_bound(step, "step"))
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if start is not None and type(start) is not int:
                start = _slice_bound(start, "start")
            if stop is not None and type(stop) is not int:
                stop = _slice_bound(stop, "stop")
            p.basic_np.append(slice(start, stop, step))
            p.axes.append(d)
            if start is None:
                start = 0 if step > 0 else _INT_MAX
            if stop is None:
                stop = _INT_MAX if step > 0 else _INT_MIN
            p.starts.append(min(max(start, _INT_MIN), _INT_MAX))
            p.ends.append(min(max(stop, _INT_MIN), _INT_MAX))
            p.steps.append(step)
            d += 1
            pos += 1
        elif type(it) is int:
            n = shape[d]
            if n >= 0:
                if not -n <= it < n:
                    raise _index_error(it, d, n, shape)
                if it < 0:
                    it += n
            p.axes.append(d)
            p.starts.append(it)
            p.ends.append(it + 1 if it != -1 else _INT_MAX)
            p.steps.append(1)
            p.dec.append(d)
            p.basic_np.append(it)
            d += 1
        elif type(it) is tuple and it[0] == "scalar":
            p.scalars[len(p.axes)] = ("index", it[1])
            p.axes.append(d)
            p.starts.append(None)
            p.ends.append(None)
            p.steps.append(1)
            p.dec.append(d)
            p.basic_np.append(None)   # never used: eager tensors give plain ints
            d += 1
        elif type(it) is tuple and it[0] == "bool0":
            p.none_pos.append(pos)
            p.basic_np.append(None)
            p.adv.append((pos, run_op("reshape2", it[1], None, None, shape=[1]), True, 1))
            pos += 1
        elif it is None:
            p.none_pos.append(pos)
            p.basic_np.append(None)
            pos += 1
        else:
            kind, value = it
            k = len(value.shape) if kind == "bool" else 1
            if kind == "bool":
                for j, m in enumerate(value.shape):
                    if m >= 0 and shape[d + j] >= 0 and m != shape[d + j]:
                        raise IndexError(f"boolean index of shape {list(value.shape)} does not match the indexed "
                                         f"tensor (shape {list(shape)}) at axis {d + j}: {m} vs {shape[d + j]}")
            p.adv.append((pos, value, kind == "bool", k))
            p.basic_np.extend([_FULL] * k)
            d += k
            pos += k
    return p


# -- __getitem__ ------------------------------------------------------------------------------------

def _basic(x, p):
    """The basic part of the index: one slice or strided_slice op, then unsqueeze2 for None."""
    out = x
    axes, starts, ends, steps, dec = p.axes, p.starts, p.ends, p.steps, p.dec
    if p.scalars:
        out, (axes, starts, ends, steps, dec) = slice_scalars(x, p)
    if axes:
        n = len(axes)
        if all(s == 1 for s in steps):
            out = run_op("slice", out, None, None, None, None, axes=axes, starts=starts, ends=ends,
                         infer_flags=[1] * n, decrease_axis=dec)
        else:
            out = run_op("strided_slice", out, None, None, None, None, None, None, axes=axes, starts=starts,
                         ends=ends, strides=steps, infer_flags=[1] * n, decrease_axis=dec)
    if p.none_pos:
        out = run_op("unsqueeze2", out, None, None, axes=p.none_pos)
    if out is x:   # x[:] / x[...]: still a new tensor, as in Paddle
        out = run_op("slice", x, None, None, None, None, axes=[], starts=[], ends=[])
    return out


def _int_adv(y, pos, idx):
    """y indexed by an int array on axis ``pos``: gather (reshaped for N-D indices)."""
    idx_shape = list(idx.shape)
    if len(idx_shape) <= 1:
        return run_op("gather", y, idx if is_var(idx) else _const(idx), None, axis=pos)
    flat = run_op("reshape2", idx, None, None, shape=[-1]) if is_var(idx) else _const(idx.reshape(-1))
    out = run_op("gather", y, flat, None, axis=pos)
    ys = list(y.shape)
    return run_op("reshape2", out, None, None, shape=ys[:pos] + idx_shape + ys[pos + 1:])


def _bool_adv(y, pos, mask, k):
    """y indexed by a bool mask over dims pos..pos+k-1: masked_select, then back to numpy's layout."""
    ys = list(y.shape)
    nd = len(ys)
    if pos:
        perm = list(range(pos, pos + k)) + list(range(pos)) + list(range(pos + k, nd))
        y = run_op("transpose2", y, axis=perm)
        ys = [ys[i] for i in perm]
    rest = ys[k:]
    m = mask if is_var(mask) else _const(mask)
    if rest:
        m = run_op("reshape2", m, None, None, shape=list(mask.shape) + [1] * len(rest))
    out = run_op("masked_select", y, m)
    if rest:
        out = run_op("reshape2", out, None, None, shape=[-1] + rest)
    if pos:
        perm = list(range(1, pos + 1)) + [0] + list(range(pos + 1, len(rest) + 1))
        out = run_op("transpose2", out, axis=perm)
    return out


def _index_value(v):
    return v._data if isinstance(v, Tensor) else v


def _in_program(x, p):
    """True when ``x`` or an advanced index is a Program Variable (values unknown until run time)."""
    return not isinstance(x, Tensor) or any(is_var(a[1]) and not isinstance(a[1], Tensor) for a in p.adv)


def _positions(shape, p):
    """Flat element positions selected by the whole index (eager: every index value is known)."""
    pos = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    sel = pos[tuple(p.basic_np) + (Ellipsis,)]
    if p.adv:
        full = [_FULL] * sel.ndim
        for (at, value, _, k) in reversed(p.adv):
            if k == 0:   # a 0-D bool consumes no dim (numpy adds one)
                full.insert(at, _index_value(value))
                continue
            full[at] = _index_value(value)
            for j in range(1, k):
                full[at + j] = None   # placeholder: a bool mask spans k dims
        sel = sel[tuple(f for f in full if f is not None)]
    return sel


def getitem(x, index):
    """``x[index]`` as ops (the function behind ``Tensor.__getitem__``)."""
    if type(index) is int and isinstance(x, Tensor):
        # fast path for the commonest eager index
        shape = x._data.shape
        if not shape:
            raise IndexError("too many indices for a tensor of rank 0 (shape []): the index uses 1 dimension")
        n = shape[0]
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise _index_error(index, 0, n, shape)
        return run_op("slice", x, None, None, None, None, axes=[0], starts=[i], ends=[i + 1], infer_flags=[1],
                      decrease_axis=[0])
    if not isinstance(x, Tensor) and getattr(x, "type", None) == _TENSOR_ARRAY:
        from ..static.tensor_array import array_getitem
        return array_getitem(x, index)
    p = parse_index(x, index)
    y = _basic(x, p)
    if not p.adv:
        return y
    if len(p.adv) == 1:
        at, value, is_bool, k = p.adv[0]
        if not is_bool:
            return _int_adv(y, at, value)
        rest = [n for j, n in enumerate(y.shape) if not at <= j < at + k]
        if len(value.shape) and (isinstance(y, Tensor) or all(n >= 0 for n in rest)):
            return _bool_adv(y, at, value, k)   # (its reshapes need the other dims known)
    if _in_program(x, p):
        return gather_advanced(y, p.adv)   # in a Program: transpose2 + gather_nd, as Paddle builds it
    # several advanced indices, eager: gather the selected flat positions
    sel = _positions(x._data.shape, p)
    if x._data.ndim == 0:
        return run_op("expand_v2", x, None, None, shape=list(sel.shape))
    # one gather_nd of the selected coordinates: also right for empty selections (a reshape to a shape
    # holding 0 would copy a dim instead)
    coords = np.stack(np.unravel_index(sel, x._data.shape), axis=-1).astype(np.int64)
    return run_op("gather_nd", x, coords)


# -- __setitem__ ------------------------------------------------------------------------------------

def _value_for(x, value):
    """``value`` as a tensor/array of x's dtype (Python scalars give None: they go into attrs)."""
    npd = x.dtype.np
    if is_var(value):
        return value if value.dtype.np == npd else cast(value, x.dtype)
    return np.asarray(value).astype(npd, copy=False)


def _scalar(value):
    return isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, np.ndarray)


def _set_basic(x, p, value):
    attrs = dict(axes=p.axes, starts=p.starts, ends=p.ends, steps=p.steps, decrease_axes=p.dec,
                 none_axes=p.none_pos, dtype=x.dtype.proto)
    if p.scalars:   # 0-D tensor indices or tensor slice bounds: starts and ends come from tensor lists
        starts_l, ends_l, steps_l = set_value_bounds(p)
        attrs.update(starts=[], ends=[], steps=[] if steps_l else p.steps)
        v = _value_for(x, value._data if isinstance(value, Tensor) else value)
        return run_op("set_value", x, v if is_var(v) else _const(v), starts_l, ends_l, steps_l, **attrs)
    if _scalar(value):
        v = value.item() if isinstance(value, np.generic) else value
        if isinstance(v, complex) and x.dtype.np.kind != "c":
            raise TypeError(f"cannot assign the complex value {v} into a tensor of dtype {x.dtype}")
        return run_op("set_value", x, None, None, None, None, values=[v], shape=[1], **attrs)
    v = _value_for(x, value)
    if isinstance(v, np.ndarray) and state.static:
        kind = v.dtype.kind
        vals = [bool(a) if kind == "b" else int(a) if kind in "iu" else a.item() for a in v.reshape(-1)]
        return run_op("set_value", x, None, None, None, None, values=vals, shape=list(v.shape), **attrs)
    return run_op("set_value", x, v, None, None, None, **attrs)


def _broadcasts_to(vshape, shape):
    if len(vshape) > len(shape):
        return False
    return all(a in (1, b) or b < 0 or a < 0 for a, b in zip(vshape[::-1], shape[::-1]))


def setitem_value(x, index, value):
    """The tensor ``x`` would become after ``x[index] = value``, computed out of place as ops.

    `Tensor.__setitem__` rebinds x to it; static code can use the result directly.
    """
    if not isinstance(x, Tensor) and getattr(x, "type", None) == _TENSOR_ARRAY:
        from ..static.tensor_array import array_setitem
        return array_setitem(x, index, value)
    p = parse_index(x, index)
    if not p.adv:
        return _set_basic(x, p, value)
    shape = list(x.shape)
    if len(p.adv) == 1 and not p.axes and not p.none_pos:
        at, mask, is_bool, k = p.adv[0]
        if is_bool and at == 0 and len(mask.shape):
            v = np.asarray(value, dtype=x.dtype.np) if _scalar(value) else _value_for(x, value)
            if _broadcasts_to(list(v.shape), shape[k:]):
                # x[mask] = v: a select, so every mode records it and both sides get gradients
                cond = mask if is_var(mask) else _const(mask)
                if len(shape) > k:
                    cond = run_op("reshape2", cond, None, None, shape=list(mask.shape) + [1] * (len(shape) - k))
                from .manipulation import where   # broadcasts in programs (Paddle's where wants equal shapes)
                return where(cond, v if is_var(v) else _const(v), x)
        if not is_bool and at == 0 and not isinstance(x, Tensor):
            # static x[ids] = v, integer ids over the first axis: one scatter. The updates get their
            # shape [len(ids), *x.shape[1:]] (which may be unknown) from a gather of the same rows
            ids = mask if is_var(mask) else _const(np.asarray(mask))
            if len(ids.shape) != 1:
                ids = run_op("reshape2", ids, None, None, shape=[-1])
            v = _value_for(x, value) if not _scalar(value) else np.asarray(value, dtype=x.dtype.np)
            rows = run_op("scale", run_op("gather", x, ids, None, axis=0), None, scale=0.0)
            upd = run_op("elementwise_add", rows, v if is_var(v) else _const(v))
            return run_op("scatter", x, ids, upd, overwrite=True)
    if _in_program(x, p):
        # in a Program: the basic part read, index_put on it, set_value back (Paddle's lowering)
        based = bool(p.axes or p.none_pos)
        sub = _basic(x, p) if based else x
        new = put_advanced(sub, p.adv, value, x.dtype)
        return _set_basic(x, p, new) if based else new
    sel = _positions(x._data.shape, p)
    v = _value_for(x, value)
    vshape = list(v.shape)
    while len(vshape) > sel.ndim and vshape[0] == 1:
        vshape = vshape[1:]
    if not _broadcasts_to(vshape, list(sel.shape)):
        raise ValueError(f"cannot assign a value of shape {list(v.shape)} to the {list(sel.shape)} elements "
                         f"selected by the index")
    if not is_var(v):
        v = Tensor._wrap(np.ascontiguousarray(v))
    if vshape != list(v.shape):
        v = run_op("reshape2", v, None, None, shape=vshape)
    if vshape != list(sel.shape):
        v = run_op("expand_v2", v, None, None, shape=list(sel.shape))
    flat = run_op("reshape2", x, None, None, shape=[-1])
    upd = run_op("reshape2", v, None, None, shape=[-1])
    out = run_op("scatter", flat, sel.reshape(-1), upd, overwrite=True)
    return run_op("reshape2", out, None, None, shape=shape)


def _getitem_method(self, index):
    return getitem(self, index)


def _setitem_method(self, index, value):
    if not isinstance(self, Tensor) and getattr(self, "type", None) == _TENSOR_ARRAY:
        from ..static.tensor_array import array_setitem
        array_setitem(self, index, value)   # array_write changes the array variable in place, as in Paddle
        return
    if not isinstance(self, Tensor):
        raise RuntimeError("x[index] = value on a static Variable: use x = paddle.static.setitem(x, index, value)")
    check_inplace(self, "__setitem__")
    _rebind(self, setitem_value(self, index, value))


TensorMethods.__getitem__ = _getitem_method
TensorMethods.__setitem__ = _setitem_method
