"""ONNX lowerings of pure data-movement ops (diagonal, unfold, as_strided, frame, fill_diagonal,
fill_diagonal_tensor, fill_any) by running the op's own kernel on index tensors.

An op that only moves, repeats, pads with zeros or overwrites elements is a gather: run its kernel on
``arange(size) + 1`` (each element its own 1-based position; a zero pad stays 0) and the result says,
for every output element, which input element it copies. The ONNX graph is then one Gather of the
flattened input (and a Where for padding / filled values), exact for every value, NaN and inf included.
The index tensor is built at export time, so the input shapes must be known (a dynamic batch is not).
"""
from __future__ import annotations

import numpy as np

from ..ops.registry import lookup
from .lowering import lowers, unsupported


def _static_shape(ctx, op, slot):
    shape = ctx.in_shape(op, slot)
    if any(d < 0 for d in shape):
        raise unsupported(op, f"'{op.type}' on the unknown shape {shape} of '{slot}' (its index map is built at "
                              "export time)")
    return shape


def _kernel(op):
    opdef = lookup(op.type)
    attrs = {k: v for k, v in op.attrs.items() if k in opdef.attrs}
    return lambda *arrays: opdef.kernel(*arrays, **attrs)


def _positions(shape, sign=1, dtype=np.float64):
    """Each element's 1-based flat position (times ``sign``), in float64 (exact below 2**53) or ``dtype``."""
    return (np.arange(1, int(np.prod(shape)) + 1, dtype=np.float64) * sign).astype(dtype).reshape(shape)


def _gather(ctx, flat, mapping):
    """Gather of ``flat`` (1-D) at the 0-based positions ``mapping`` (any shape, int64)."""
    return ctx.node("Gather", [flat, ctx.const(mapping.astype(np.int64))], axis=0)


def _one_source(ctx, op, in_slot, out_slot, run, out_i=0, dtype=np.float64):
    """Lower ``op`` whose output ``out_slot`` picks elements of ``in_slot`` (0 where it pads)."""
    shape = _static_shape(ctx, op, in_slot)
    res = run(_positions(shape, 1, dtype))
    res = np.asarray(res[out_i] if isinstance(res, (tuple, list)) else res)
    picked = np.rint(res).astype(np.int64)
    flat = ctx.reshape(ctx.input(op, in_slot), [-1])
    out = _gather(ctx, flat, np.maximum(picked - 1, 0))
    if (picked == 0).any():
        out = ctx.node("Where", [ctx.const(picked > 0), out, ctx.scalar(0, ctx.in_dtype(op, in_slot))])
    ctx.node("Identity", [out], [ctx.output(op, out_slot)])


@lowers("diagonal")
def _diagonal(ctx, op):
    _one_source(ctx, op, "Input", "Out", _kernel(op))


@lowers("unfold")
def _unfold(ctx, op):
    _one_source(ctx, op, "X", "Y", _kernel(op))


@lowers("frame")
def _frame(ctx, op):
    _one_source(ctx, op, "X", "Out", _kernel(op))


@lowers("as_strided")
def _as_strided(ctx, op):
    # the offset counts bytes: the positions need the input's element size
    item = np.dtype(ctx.in_dtype(op, "input")).itemsize
    dtype = {4: np.int32, 8: np.int64}.get(item)
    if dtype is None or np.prod(_static_shape(ctx, op, "input")) >= np.iinfo(dtype).max:
        raise unsupported(op, f"'as_strided' of a {np.dtype(ctx.in_dtype(op, 'input')).name} tensor (its positions "
                              "do not fit an integer of the element's size)")
    _one_source(ctx, op, "input", "out", _kernel(op), dtype=dtype)


@lowers("fill_any")
def _fill_any(ctx, op):
    dt = ctx.in_dtype(op, "X")
    ctx.node("Expand", [ctx.scalar(op.attrs.get("value", 0.0), dt), ctx.node("Shape", [ctx.input(op, "X")])],
             [ctx.output(op)])


@lowers("fill_diagonal")
def _fill_diagonal(ctx, op):
    """Where(the positions the kernel writes, value, x); the positions: the kernel's own on a -1 canvas."""
    shape = _static_shape(ctx, op, "X")
    opdef = lookup(op.type)
    attrs = {k: v for k, v in op.attrs.items() if k in opdef.attrs}
    attrs["value"] = 1.0
    filled = opdef.kernel(np.full(shape, -1.0), **attrs) > 0
    dt = ctx.in_dtype(op, "X")
    ctx.node("Where", [ctx.const(filled), ctx.scalar(op.attrs.get("value", 0.0), dt), ctx.input(op, "X")],
             [ctx.output(op)])


@lowers("fill_diagonal_tensor")
def _fill_diagonal_tensor(ctx, op):
    """Two sources: x's elements carry negative positions, y's positive ones, through the kernel."""
    xs, ys = _static_shape(ctx, op, "X"), _static_shape(ctx, op, "Y")
    res = np.rint(_kernel(op)(_positions(xs, -1), _positions(ys, 1))).astype(np.int64)
    from_y = res > 0
    x_flat = ctx.reshape(ctx.input(op, "X"), [-1])
    y_flat = ctx.reshape(ctx.cast(ctx.input(op, "Y"), ctx.in_dtype(op, "X"), ctx.in_dtype(op, "Y")), [-1])
    out = ctx.node("Where", [ctx.const(from_y), _gather(ctx, y_flat, np.where(from_y, res - 1, 0)),
                             _gather(ctx, x_flat, np.where(from_y, 0, -res - 1))])
    ctx.node("Identity", [out], [ctx.output(op)])


@lowers("index_put")
def _index_put(ctx, op):
    """ScatterND of ``value`` at ``x[indices]`` (reduction add with accumulate): integer index tensors are
    broadcast together and stacked, a boolean mask becomes NonZero's positions (numpy's row-major order).
    Without accumulate, a position given several times takes its last value (as our kernel and Paddle's
    do): ONNX leaves duplicates undefined, so every duplicate is first given the last one's update."""
    if op.attrs.get("accumulate", False) and ctx.opset < 16:
        raise unsupported(op, "'index_put' with accumulate needs opset >= 16 (ScatterND with reduction)")
    x = ctx.input(op, "x")
    dt = ctx.in_dtype(op, "x")
    names = op.inputs["indices"]
    if ctx.in_dtype(op, "indices") == np.bool_:
        k = len(ctx.in_shape(op, "indices"))
        idx = ctx.node("Transpose", [ctx.node("NonZero", [ctx.input(op, "indices")])], perm=[1, 0])   # [nnz, k]
        lead = ctx.shape_of(idx, 0, 1)
    else:
        k = len(names)
        parts = [ctx.cast(ctx.input(op, "indices", i), np.int64, ctx.in_dtype(op, "indices", i)) for i in range(k)]
        common = parts[0]
        for p in parts[1:]:
            common = ctx.node("Add", [common, ctx.node("Mul", [p, ctx.scalar(0, np.int64)])])
        common = ctx.node("Shape", [ctx.node("Mul", [common, ctx.scalar(0, np.int64)])])
        cols = []
        for j, p in enumerate(parts):   # negative indices count from the end, as in Paddle
            size = ctx.shape_of(x, j, j + 1)
            p = ctx.node("Where", [ctx.node("Less", [p, ctx.scalar(0, np.int64)]), ctx.node("Add", [p, size]), p])
            cols.append(ctx.unsqueeze(ctx.node("Expand", [p, common]), [-1]))
        idx = ctx.node("Concat", cols, axis=-1) if k > 1 else cols[0]
        lead = common
    rank = len(ctx.in_shape(op, "x"))
    upd_shape = ctx.node("Concat", [lead, ctx.shape_of(x, k, rank)], axis=0) if k < rank else lead
    upd = ctx.node("Expand", [ctx.cast(ctx.input(op, "value"), dt, ctx.in_dtype(op, "value")), upd_shape])
    reduction = "add" if op.attrs.get("accumulate", False) else None
    if reduction is None and ctx.in_dtype(op, "indices") != np.bool_:
        idx, upd = _last_writer_wins(ctx, x, idx, upd, k, rank)
    ctx.node("ScatterND", [x, idx, upd], [ctx.output(op, "out")], reduction=reduction)


def _last_writer_wins(ctx, x, idx, upd, k, rank):
    """(idx, upd) flattened to [N, k] / [N, *rest], every update replaced by that of the last row of idx
    naming the same position: ScatterND then gives the same result in any order (O(N^2) comparisons)."""
    flat = ctx.node("Reshape", [idx, ctx.i64([-1, k])])                                   # [N, k]
    same = ctx.node("Equal", [ctx.unsqueeze(flat, [1]), ctx.unsqueeze(flat, [0])])       # [N, N, k]
    hits = ctx.reduce("ReduceSum", ctx.cast(same, np.int64, np.bool_), [2])              # [N, N]
    same = ctx.node("Equal", [hits, ctx.scalar(k, np.int64)])
    n = ctx.shape_of(flat, 0, 1)
    rows = ctx.node("Range", [ctx.scalar(0, np.int64), ctx.reshape(n, []), ctx.scalar(1, np.int64)])
    later = ctx.node("Where", [same, ctx.unsqueeze(rows, [0]), ctx.scalar(-1, np.int64)])
    last = ctx.reduce("ReduceMax", later, [1])                                          # [N]
    rest = ctx.node("Concat", [ctx.i64([-1]), ctx.shape_of(x, k, rank)], axis=0) if k < rank else ctx.i64([-1])
    upd = ctx.node("Gather", [ctx.node("Reshape", [upd, rest]), last], axis=0)
    return flat, upd
