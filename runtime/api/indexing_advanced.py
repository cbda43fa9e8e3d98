"""Indexing in a Program that numpy calls advanced: several list / tensor indices at once (read with
``gather_nd``, written with ``index_put``), and 0-D int tensors used as indices or tensors used as
slice bounds (a ``slice`` / ``strided_slice`` / ``set_value`` with tensor lists), built as Paddle does.

The advanced indices (bool masks first turned into their int coordinates) are broadcast together;
the indexed dims are transposed to the front, gathered or written there, and the result dims go
where numpy puts them: in place of the indexed dims when those are adjacent, first otherwise.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import run_op
from ..tensor import Tensor
from ._helpers import is_var
from .manipulation import _const, broadcast_tensors, cast

__all__ = []

_INT_MAX = 2 ** 31 - 1


# -- 0-D tensor indices and tensor slice bounds ------------------------------------------------------

def scalar_bounds(t):
    """[start], [end] (int64 tensors of shape [1]) selecting the one element ``t`` (a 0-D int Variable)
    names: end is ``t + 1``, except for ``t == -1`` whose end is "to the end of the axis"."""
    if t.dtype.np != np.int64:
        t = cast(t, "int64")
    start = run_op("reshape2", t, None, None, shape=[1])
    end = run_op("elementwise_add", start, _const(np.array([1], np.int64)))
    last = cast(run_op("equal", start, _const(np.array([-1], np.int64))), "int64")
    end = run_op("elementwise_add", end, run_op("elementwise_mul", last, _const(np.array([_INT_MAX], np.int64))))
    return start, end


def tensor_slice_step(start, stop, step):
    """The step of a slice some of whose bounds are Program Variables (an int, or the Variable)."""
    if is_var(step) and not isinstance(step, Tensor):
        if start is None or stop is None:
            raise NotImplementedError("a slice with a tensor step needs an explicit start and stop inside a "
                                      "Program (the defaults depend on the step's sign, unknown until run time); "
                                      "write x[start:stop:step]")
        return step
    step = 1 if step is None else int(step.item() if isinstance(step, Tensor) else step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    return step


def _bound(v):
    """An int or an int Variable (0-D or one element) as a [1]-shaped int64 tensor."""
    if is_var(v) and not isinstance(v, Tensor):
        if v.dtype.np.kind not in "iu":
            raise ValueError(f"a slice bound given as a tensor must hold integers, got {v.dtype}")
        if v.dtype.np != np.int64:
            v = cast(v, "int64")
        return run_op("reshape2", v, None, None, shape=[1])
    v = int(v.item() if isinstance(v, Tensor) else v)
    return _const(np.array([min(max(v, -_INT_MAX - 1), _INT_MAX)], np.int64))


def _entry_bounds(p, k):
    """[start], [end] and [step] tensors (step None when a constant) of entry k of the basic index."""
    entry = p.scalars[k]
    if entry[0] == "index":
        return scalar_bounds(entry[1]) + (None,)
    _, start, stop, step = entry
    up = not isinstance(step, int) or step > 0   # a tensor step has explicit bounds
    start = (0 if up else _INT_MAX) if start is None else start
    stop = (_INT_MAX if up else -_INT_MAX - 1) if stop is None else stop
    return _bound(start), _bound(stop), None if isinstance(step, int) else _bound(step)


def slice_scalars(x, p):
    """``x`` sliced at the axes whose index holds tensors (a 0-D index removes its axis), and the rest
    of the basic index as (axes, starts, ends, steps, decrease_axis) renumbered for the result."""
    ks = sorted(p.scalars)
    taxes = [p.axes[k] for k in ks]
    bounds = [_entry_bounds(p, k) for k in ks]
    dec = [p.axes[k] for k in ks if p.scalars[k][0] == "index"]
    n = len(ks)
    # an op of its own, so the other sliced axes keep the sizes shape inference knows
    attrs = dict(axes=taxes, starts=[-1] * n, ends=[-1] * n, infer_flags=[-1] * n, decrease_axis=dec)
    starts, ends = [b[0] for b in bounds], [b[1] for b in bounds]
    if all(b[2] is None for b in bounds) and all(p.steps[k] == 1 for k in ks):
        y = run_op("slice", x, None, None, starts, ends, **attrs)
    else:
        steps = [b[2] if b[2] is not None else _bound(p.steps[k]) for b, k in zip(bounds, ks)]
        y = run_op("strided_slice", x, None, starts, None, ends, None, steps, strides=[-1] * n, **attrs)

    def shift(a):
        return a - sum(1 for t in dec if t < a)
    rest = [k for k in range(len(p.axes)) if k not in p.scalars]
    return y, ([shift(p.axes[k]) for k in rest], [p.starts[k] for k in rest], [p.ends[k] for k in rest],
               [p.steps[k] for k in rest], [shift(a) for a in p.dec if a not in dec])


def set_value_bounds(p):
    """StartsTensorList / EndsTensorList (and StepsTensorList when a step is a tensor, else None) for a
    ``set_value`` whose index holds tensors: one [1]-shaped int64 tensor per sliced axis."""
    starts, ends, steps = [], [], []
    for k in range(len(p.axes)):
        if k in p.scalars:
            s, e, st = _entry_bounds(p, k)
        else:
            s, e, st = _bound(p.starts[k]), _bound(p.ends[k]), None
        starts.append(s)
        ends.append(e)
        steps.append(st)
    if all(st is None for st in steps):
        return starts, ends, None
    return starts, ends, [st if st is not None else _bound(p.steps[k]) for k, st in enumerate(steps)]


# -- several advanced indices ------------------------------------------------------------------------

def _index_tensors(adv):
    """(indexed dims, one broadcast int64 index per dim) for the advanced part of an index."""
    dims, idx = [], []
    for pos, value, is_bool, k in adv:
        dims.extend(range(pos, pos + k))
        if isinstance(value, Tensor):
            value = value._data
        if is_bool:
            if is_var(value):
                coords = run_op("where_index", value)          # [N, k] coordinates of the True entries
                for j in range(k):
                    idx.append(run_op("slice", coords, None, None, None, None, axes=[1], starts=[j], ends=[j + 1],
                                      infer_flags=[1], decrease_axis=[1]))
            else:
                idx.extend(np.nonzero(np.asarray(value)))
        elif is_var(value):
            idx.append(value if value.dtype.np == np.int64 else cast(value, "int64"))
        else:
            idx.append(np.asarray(value, dtype=np.int64))
    if all(isinstance(i, np.ndarray) for i in idx):
        try:
            idx = np.broadcast_arrays(*idx)
        except ValueError:
            raise IndexError("shape mismatch: the index arrays " + ", ".join(str(list(i.shape)) for i in idx) +
                             " cannot be broadcast together") from None
        return dims, [_const(np.ascontiguousarray(i)) for i in idx]
    idx = [_const(i) if isinstance(i, np.ndarray) else i for i in idx]
    if len(idx) > 1:
        try:
            idx = broadcast_tensors(idx)
        except ValueError as e:
            raise IndexError(f"shape mismatch: the index tensors cannot be broadcast together ({e})") from None
    return dims, idx


def _front(y, dims):
    """``y`` with the indexed dims moved to the front, and the permutation used (None: unchanged)."""
    nd = len(y.shape)
    perm = dims + [d for d in range(nd) if d not in dims]
    if perm == list(range(nd)):
        return y, None
    return run_op("transpose2", y, axis=perm), perm


def _new_dims_at(dims):
    """Where the broadcast index dims land in the result: in place of adjacent indexed dims, else first."""
    return dims[0] if dims == list(range(dims[0], dims[0] + len(dims))) else 0


def gather_advanced(y, adv):
    """``y[advanced part]`` (``y`` already indexed by the basic part) as transpose2 + gather_nd."""
    dims, idx = _index_tensors(adv)
    yt, _ = _front(y, dims)
    r = len(idx[0].shape)
    if len(idx) > 1:
        index = run_op("stack", idx, axis=-1)
    else:
        index = run_op("unsqueeze2", idx[0], None, None, axes=[r])
    out = run_op("gather_nd", yt, index)
    at = _new_dims_at(dims)
    if at:
        n_rest = len(y.shape) - len(dims)
        perm = list(range(r, r + at)) + list(range(r)) + list(range(r + at, r + n_rest))
        out = run_op("transpose2", out, axis=perm)
    return out


def _fits(vshape, shape):
    return len(vshape) <= len(shape) and all(a in (1, b) or a < 0 or b < 0
                                             for a, b in zip(vshape[::-1], shape[::-1]))


def put_advanced(sub, adv, value, dtype):
    """``sub`` with ``sub[advanced part] = value`` as transpose2 + index_put (+ transpose2 back).

    ``value`` broadcasts against what ``sub[advanced part]`` reads (numpy's rule), so when the index
    dims sit in the middle of that result they are moved to the front of the value as well."""
    dims, idx = _index_tensors(adv)
    st, perm = _front(sub, dims)
    bshape = list(idx[0].shape)
    r = len(bshape)
    rest = [sub.shape[d] for d in range(len(sub.shape)) if d not in dims]
    at = _new_dims_at(dims)
    read_shape = rest[:at] + bshape + rest[at:]
    if is_var(value):
        v = value if value.dtype.np == dtype.np else cast(value, dtype)
    else:
        v = _const(np.asarray(value._data if isinstance(value, Tensor) else value).astype(dtype.np, copy=False))
    vshape = list(v.shape)
    while len(vshape) > len(read_shape) and vshape[0] == 1:
        vshape = vshape[1:]
    if not _fits(vshape, read_shape):
        raise ValueError(f"cannot assign a value of shape {list(v.shape)} to the elements selected by the index "
                         f"(shape {read_shape}): the value must broadcast to that shape")
    if vshape != list(v.shape):
        v = run_op("reshape2", v, None, None, shape=vshape)
    n = len(read_shape)
    if at and len(vshape) > n - at - r:
        # the value is laid out like sub[index]; index_put wants the index dims first
        if len(vshape) < n:
            v = run_op("unsqueeze2", v, None, None, axes=list(range(n - len(vshape))))
        v = run_op("transpose2", v, axis=list(range(at, at + r)) + list(range(at)) + list(range(at + r, n)))
    out = run_op("index_put", st, idx, v, accumulate=False)
    if perm is not None:
        out = run_op("transpose2", out, axis=np.argsort(perm).tolist())
    return out
