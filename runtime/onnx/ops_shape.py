"""ONNX lowerings of shape/layout, creation and indexing ops."""
from __future__ import annotations

import numpy as np

from ..dtype import from_proto
from .lowering import lowers, unsupported

INT64_MAX = 2 ** 63 - 1
INT64_MIN = -2 ** 63


def int_list(ctx, op, tensor_slot, list_slot):
    """A 1-D int64 ONNX value from a tensor slot or a list-of-1-element-tensors slot (None if neither)."""
    if tensor_slot and op.inputs.get(tensor_slot):
        t = ctx.input(op, tensor_slot)
        return ctx.reshape(ctx.cast(t, np.int64, ctx.in_dtype(op, tensor_slot)), [-1])
    if list_slot and op.inputs.get(list_slot):
        parts = [ctx.reshape(ctx.cast(v, np.int64, ctx.in_dtype(op, list_slot, i)), [1])
                 for i, v in enumerate(ctx.inputs(op, list_slot))]
        return parts[0] if len(parts) == 1 else ctx.node("Concat", parts, axis=0)
    return None


def dim_of(ctx, x, axis):
    """Shape(x)[axis] as a 1-element int64 tensor."""
    return ctx.shape_of(x, axis, axis + 1)


def sizes_tensor(ctx, x, parts, axis):
    """Split sizes: ints, and at most one None (the rest of the axis) -> an int64 1-D value."""
    if all(p is not None for p in parts):
        return ctx.i64(parts)
    known = sum(p for p in parts if p is not None)
    rest = ctx.node("Sub", [dim_of(ctx, x, axis), ctx.i64([known])])
    pieces = [rest if p is None else ctx.i64([p]) for p in parts]
    return ctx.node("Concat", pieces, axis=0)


# -- reshape / transpose / flatten / squeeze ---------------------------------------------------------

@lowers("reshape2")
def _reshape(ctx, op):
    x = ctx.input(op, "X")
    shape = int_list(ctx, op, "Shape", "ShapeTensor")
    if shape is None:
        shape = ctx.i64([int(d) for d in op.attrs.get("shape", [])])
    ctx.node("Reshape", [x, shape], [ctx.output(op)])


@lowers("transpose2")
def _transpose(ctx, op):
    perm = [int(a) for a in op.attrs.get("axis", [])]
    n = len(perm)
    ctx.node("Transpose", [ctx.input(op, "X")], [ctx.output(op)], perm=[a + n if a < 0 else a for a in perm])


@lowers("flatten_contiguous_range")
def _flatten(ctx, op):
    x = ctx.input(op, "X")
    shape = ctx.in_shape(op, "X")
    rank = len(shape)
    if rank == 0:
        ctx.node("Reshape", [x, ctx.i64([1])], [ctx.output(op)])
        return
    s = int(op.attrs.get("start_axis", 0))
    e = int(op.attrs.get("stop_axis", -1))
    s, e = (s + rank if s < 0 else s), (e + rank if e < 0 else e)
    after = shape[e + 1:]
    if all(d >= 0 for d in after):
        target = ctx.i64([0] * s + [-1] + list(after))
    else:
        parts = []
        if s:
            parts.append(ctx.shape_of(x, 0, s))
        parts.append(ctx.i64([-1]))
        parts.append(ctx.shape_of(x, e + 1, rank))
        target = ctx.node("Concat", parts, axis=0)
    ctx.node("Reshape", [x, target], [ctx.output(op)])


@lowers("squeeze2")
def _squeeze(ctx, op):
    x = ctx.input(op, "X")
    shape = ctx.in_shape(op, "X")
    rank = len(shape)
    axes = [int(a) for a in op.attrs.get("axes", [])]
    if rank == 0:
        ctx.set_output(op, x)
        return
    if not axes:
        drop = [i for i, d in enumerate(shape) if d == 1]
        if any(d < 0 for d in shape):
            # which unknown dims are 1 is only known at run time: reshape to the inferred output shape
            out_shape = ctx.out_shape(op)
            if sum(d < 0 for d in out_shape) > 1:
                raise unsupported(op, "'squeeze2' without axes on a tensor with several unknown dims")
            ctx.node("Reshape", [x, ctx.i64(out_shape)], [ctx.output(op)])
            return
    else:
        # Paddle ignores named axes whose size is not 1 (unknown sizes count as 1)
        drop = sorted({a + rank if a < 0 else a for a in axes})
        drop = [a for a in drop if shape[a] in (1, -1)]
    if not drop:
        ctx.set_output(op, x)
        return
    ctx.node("Squeeze", [x, ctx.i64(drop)], [ctx.output(op)])


@lowers("unsqueeze2")
def _unsqueeze(ctx, op):
    x = ctx.input(op, "X")
    if op.inputs.get("AxesTensor") or op.inputs.get("AxesTensorList"):
        raise unsupported(op, "'unsqueeze2' with tensor axes")
    rank = len(ctx.in_shape(op, "X"))
    # Paddle inserts one axis at a time (each counts the dims inserted before it)
    out = x
    n = rank
    for a in [int(a) for a in op.attrs.get("axes", [])]:
        pos = a + n + 1 if a < 0 else a
        out = ctx.unsqueeze(out, [pos])
        n += 1
    ctx.node("Identity", [out], [ctx.output(op)])


# -- concat / split / stack --------------------------------------------------------------------------

@lowers("concat")
def _concat(ctx, op):
    if op.inputs.get("AxisTensor"):
        raise unsupported(op, "'concat' with a tensor axis")
    dt = ctx.out_dtype(op)
    xs = [ctx.cast(x, dt, ctx.in_dtype(op, "X", i)) for i, x in enumerate(ctx.inputs(op, "X"))]
    rank = len(ctx.in_shape(op, "X"))
    axis = int(op.attrs.get("axis", 0))
    axis = axis + rank if axis < 0 else axis
    if len(xs) == 1:
        ctx.node("Identity", xs, [ctx.output(op)])
        return
    ctx.node("Concat", xs, [ctx.output(op)], axis=axis)


@lowers("split")
def _split(ctx, op):
    if op.inputs.get("AxisTensor") or op.inputs.get("SectionsTensorList"):
        raise unsupported(op, "'split' with a tensor axis or tensor sections")
    x = ctx.input(op, "X")
    shape = ctx.in_shape(op, "X")
    rank = len(shape)
    axis = int(op.attrs.get("axis", 0))
    axis = axis + rank if axis < 0 else axis
    outs = op.outputs.get("Out", [])
    num = int(op.attrs.get("num", 0))
    sections = [int(s) for s in op.attrs.get("sections", [])]
    if num > 0:
        if shape[axis] >= 0:
            sizes = ctx.i64([shape[axis] // num] * num)
        else:
            part = ctx.node("Div", [dim_of(ctx, x, axis), ctx.i64([num])])
            sizes = ctx.node("Tile", [part, ctx.i64([num])])
    else:
        parts = [None if s == -1 else s for s in sections]
        if None in parts and shape[axis] >= 0:
            known = sum(p for p in parts if p is not None)
            parts = [shape[axis] - known if p is None else p for p in parts]
        sizes = sizes_tensor(ctx, x, parts, axis)
    names = [ctx.output(op, "Out", i) for i in range(len(outs))]
    ctx.node("Split", [x, sizes], names, axis=axis)


@lowers("stack")
def _stack(ctx, op):
    dt = ctx.out_dtype(op, "Y")
    xs = [ctx.cast(x, dt, ctx.in_dtype(op, "X", i)) for i, x in enumerate(ctx.inputs(op, "X"))]
    rank = len(ctx.in_shape(op, "X")) + 1
    axis = int(op.attrs.get("axis", 0))
    axis = axis + rank if axis < 0 else axis
    parts = [ctx.unsqueeze(x, [axis]) for x in xs]
    ctx.node("Concat" if len(parts) > 1 else "Identity", parts, [ctx.output(op, "Y")],
             **({"axis": axis} if len(parts) > 1 else {}))


@lowers("unstack")
def _unstack(ctx, op):
    x = ctx.input(op, "X")
    rank = len(ctx.in_shape(op, "X"))
    axis = int(op.attrs.get("axis", 0))
    axis = axis + rank if axis < 0 else axis
    n = len(op.outputs.get("Y", []))
    parts = ctx.split(x, [1] * n, axis) if n > 1 else [x]
    if isinstance(parts, str):
        parts = [parts]
    for i, p in enumerate(parts):
        ctx.node("Squeeze", [p, ctx.i64([axis])], [ctx.output(op, "Y", i)])


# -- slice --------------------------------------------------------------------------------------------

def _slice_common(ctx, op, starts, ends, steps):
    x = ctx.input(op, "Input")
    rank = len(ctx.in_shape(op, "Input"))
    axes = [int(a) + rank if int(a) < 0 else int(a) for a in op.attrs.get("axes", [])]
    ins = [x, starts, ends, ctx.i64(axes)]
    if steps is not None:
        ins.append(steps)
    out = ctx.node("Slice", ins)
    dec = [int(a) + rank if int(a) < 0 else int(a) for a in op.attrs.get("decrease_axis", [])]
    if dec:
        out = ctx.squeeze(out, sorted(set(dec)))
    ctx.node("Identity", [out], [ctx.output(op)])


def _clip_i64(vals):
    return [min(max(int(v), INT64_MIN), INT64_MAX) for v in vals]


@lowers("slice")
def _slice(ctx, op):
    starts = int_list(ctx, op, "StartsTensor", "StartsTensorList")
    ends = int_list(ctx, op, "EndsTensor", "EndsTensorList")
    starts = starts if starts is not None else ctx.i64(_clip_i64(op.attrs.get("starts", [])))
    ends = ends if ends is not None else ctx.i64(_clip_i64(op.attrs.get("ends", [])))
    _slice_common(ctx, op, starts, ends, None)


@lowers("strided_slice")
def _strided_slice(ctx, op):
    starts = int_list(ctx, op, "StartsTensor", "StartsTensorList")
    ends = int_list(ctx, op, "EndsTensor", "EndsTensorList")
    steps = int_list(ctx, op, "StridesTensor", "StridesTensorList")
    starts = starts if starts is not None else ctx.i64(_clip_i64(op.attrs.get("starts", [])))
    ends = ends if ends is not None else ctx.i64(_clip_i64(op.attrs.get("ends", [])))
    steps = steps if steps is not None else ctx.i64(op.attrs.get("strides", []))
    _slice_common(ctx, op, starts, ends, steps)


# -- tile / expand / flip / roll -----------------------------------------------------------------------

@lowers("tile")
def _tile(ctx, op):
    x = ctx.input(op, "X")
    rank = len(ctx.in_shape(op, "X"))
    reps_t = int_list(ctx, op, "RepeatTimes", "repeat_times_tensor")
    if reps_t is not None:
        n = len(op.inputs.get("repeat_times_tensor", [])) or (ctx.in_shape(op, "RepeatTimes") or [-1])[0]
        if n != rank:
            raise unsupported(op, "'tile' with a repeat_times tensor whose length differs from x's rank")
        ctx.node("Tile", [x, reps_t], [ctx.output(op)])
        return
    reps = [int(r) for r in op.attrs.get("repeat_times", [])]
    if len(reps) < rank:
        reps = [1] * (rank - len(reps)) + reps
    elif len(reps) > rank:
        x = ctx.unsqueeze(x, list(range(len(reps) - rank)))
    ctx.node("Tile", [x, ctx.i64(reps)], [ctx.output(op)])


def _minus_one_to_one(ctx, shape):
    return ctx.node("Where", [ctx.node("Equal", [shape, ctx.i64([-1])]), ctx.i64([1]), shape])


@lowers("expand_v2")
def _expand(ctx, op):
    x = ctx.input(op, "X")
    shape = int_list(ctx, op, "Shape", "expand_shapes_tensor")
    if shape is not None:
        shape = _minus_one_to_one(ctx, shape)
    else:
        shape = ctx.i64([1 if int(d) == -1 else int(d) for d in op.attrs.get("shape", [])])
    ctx.node("Expand", [x, shape], [ctx.output(op)])


@lowers("expand_as_v2")
def _expand_as(ctx, op):
    x = ctx.input(op, "X")
    if op.inputs.get("Y"):
        shape = ctx.shape_of(ctx.input(op, "Y"))
    else:
        shape = ctx.i64([1 if int(d) == -1 else int(d) for d in op.attrs.get("target_shape", [])])
    ctx.node("Expand", [x, shape], [ctx.output(op)])


@lowers("flip")
def _flip(ctx, op):
    x = ctx.input(op, "X")
    rank = len(ctx.in_shape(op, "X"))
    axes = [int(a) + rank if int(a) < 0 else int(a) for a in op.attrs.get("axis", [])]
    if rank == 0 or not axes:
        ctx.set_output(op, x)
        return
    n = len(axes)
    ctx.node("Slice", [x, ctx.i64([-1] * n), ctx.i64([INT64_MIN] * n), ctx.i64(axes), ctx.i64([-1] * n)],
             [ctx.output(op)])


def _roll_axis(ctx, x, shift, axis):
    n = dim_of(ctx, x, axis)
    k = ctx.node("Mod", [shift, n], fmod=0)
    start = ctx.node("Sub", [n, k])
    tail = ctx.node("Slice", [x, start, ctx.i64([INT64_MAX]), ctx.i64([axis])])
    head = ctx.node("Slice", [x, ctx.i64([0]), start, ctx.i64([axis])])
    return ctx.node("Concat", [tail, head], axis=axis)


@lowers("roll")
def _roll(ctx, op):
    x = ctx.input(op, "X")
    rank = len(ctx.in_shape(op, "X"))
    axes = [int(a) + rank if int(a) < 0 else int(a) for a in op.attrs.get("axis", [])]
    if op.inputs.get("ShiftsTensor"):
        st = ctx.reshape(ctx.cast(ctx.input(op, "ShiftsTensor"), np.int64, ctx.in_dtype(op, "ShiftsTensor")), [-1])
        shifts = [ctx.node("Slice", [st, ctx.i64([i]), ctx.i64([i + 1])]) for i in range(max(len(axes), 1))]
    else:
        shifts = [ctx.i64([int(s)]) for s in op.attrs.get("shifts", [])]
    if not axes:
        flat = ctx.reshape(x, [-1])
        out = _roll_axis(ctx, flat, shifts[0], 0)
        ctx.node("Reshape", [out, ctx.shape_of(x)], [ctx.output(op)])
        return
    out = x
    for s, a in zip(shifts, axes):
        out = _roll_axis(ctx, out, s, a)
    ctx.node("Identity", [out], [ctx.output(op)])


# -- shape / size -------------------------------------------------------------------------------------

@lowers("shape")
def _shape(ctx, op):
    s = ctx.shape_of(ctx.input(op, "Input"))
    ctx.node("Cast", [s], [ctx.output(op)], to=_t(ctx.out_dtype(op)))


@lowers("size")
def _size(ctx, op):
    s = ctx.node("Size", [ctx.input(op, "Input")])
    ctx.node("Identity", [ctx.cast(s, ctx.out_dtype(op), np.int64)], [ctx.output(op)])


def _t(dt):
    from .export import onnx_dtype
    return onnx_dtype(dt)


# -- creation -----------------------------------------------------------------------------------------

def _fill_value(op, npd):
    from ..ops.creation import parse_str_value
    sv = op.attrs.get("str_value", "")
    return parse_str_value(sv, npd) if sv else op.attrs.get("value", 0.0)


@lowers("fill_constant")
def _fill_constant(ctx, op):
    npd = from_proto(int(op.attrs.get("dtype", 5))).np
    shape = int_list(ctx, op, "ShapeTensor", "ShapeTensorList")
    if op.inputs.get("ValueTensor"):
        v = ctx.to_scalar(ctx.cast(ctx.input(op, "ValueTensor"), npd, ctx.in_dtype(op, "ValueTensor")))
        if shape is None:
            shape = ctx.i64([int(d) for d in op.attrs.get("shape", [])])
        ctx.node("Expand", [v, shape], [ctx.output(op)])
        return
    value = np.asarray(_fill_value(op, npd)).astype(npd)
    if shape is None:
        dims = [int(d) for d in op.attrs.get("shape", [])]
        ctx.set_output(op, ctx.const(np.full(dims, value, dtype=npd)))
        return
    ctx.node("ConstantOfShape", [shape], [ctx.output(op)], value=_tensor(np.asarray([value], dtype=npd)))


def _tensor(arr):
    import onnx
    return onnx.numpy_helper.from_array(np.asarray(arr))


@lowers("fill_any_like")
def _fill_any_like(ctx, op):
    npd = np.dtype(ctx.out_dtype(op))
    x = ctx.input(op, "X")
    value = np.asarray([op.attrs.get("value", 0.0)]).astype(npd)
    ctx.node("ConstantOfShape", [ctx.shape_of(x)], [ctx.output(op)], value=_tensor(value))


@lowers("assign", "print")
def _assign(ctx, op):
    src = "In" if op.type == "print" else "X"
    ctx.set_output(op, ctx.input(op, src))


@lowers("assign_value")
def _assign_value(ctx, op):
    if op.inputs.get("ValuesTensor"):
        ctx.set_output(op, ctx.input(op, "ValuesTensor"))
        return
    npd = from_proto(int(op.attrs.get("dtype", 5))).np
    dims = [int(d) for d in op.attrs.get("shape", [])]
    arr = np.array(list(op.attrs.get("values", [])), dtype=npd).reshape(dims)
    ctx.set_output(op, ctx.const(arr))


@lowers("range")
def _range(ctx, op):
    dt = ctx.out_dtype(op)
    ins = [ctx.to_scalar(ctx.cast(ctx.input(op, s), dt, ctx.in_dtype(op, s))) for s in ("Start", "End", "Step")]
    ctx.node("Range", ins, [ctx.output(op)])


@lowers("linspace")
def _linspace(ctx, op):
    npd = np.dtype(ctx.out_dtype(op))
    work = npd if npd.kind == "f" else np.dtype(np.float64)

    def sc(slot):
        v = ctx.to_scalar(ctx.input(op, slot))
        if npd.kind != "f":
            v = ctx.cast(v, npd, ctx.in_dtype(op, slot))
        return ctx.cast(v, work)
    s, e = sc("Start"), sc("Stop")
    n = ctx.to_scalar(ctx.cast(ctx.input(op, "Num"), np.int64, ctx.in_dtype(op, "Num")))
    nf = ctx.cast(n, work)
    denom = ctx.node("Max", [ctx.node("Sub", [nf, ctx.scalar(1, work)]), ctx.scalar(1, work)])
    step = ctx.node("Div", [ctx.node("Sub", [e, s]), denom])
    i = ctx.cast(ctx.node("Range", [ctx.scalar(0, np.int64), n, ctx.scalar(1, np.int64)]), work)
    # the first half counts up from start, the second half down from stop (exact endpoints)
    up = ctx.node("Add", [s, ctx.node("Mul", [step, i])])
    rev = ctx.node("Sub", [ctx.node("Sub", [nf, ctx.scalar(1, work)]), i])
    down = ctx.node("Sub", [e, ctx.node("Mul", [step, rev])])
    half = ctx.cast(ctx.node("Div", [n, ctx.scalar(2, np.int64)]), work)
    out = ctx.node("Where", [ctx.node("Less", [i, half]), up, down])
    ctx.node("Identity", [ctx.cast(out, npd, work)], [ctx.output(op)])


@lowers("eye")
def _eye(ctx, op):
    rows = int(op.attrs.get("num_rows", 0))
    cols = int(op.attrs.get("num_columns", -1))
    cols = rows if cols == -1 else cols
    ctx.set_output(op, ctx.const(np.eye(rows, cols, dtype=ctx.out_dtype(op))))


@lowers("tril_triu")
def _tril_triu(ctx, op):
    k = ctx.scalar(int(op.attrs.get("diagonal", 0)), np.int64)
    ctx.node("Trilu", [ctx.input(op, "X"), k], [ctx.output(op)], upper=0 if op.attrs.get("lower") else 1)


@lowers("diag_v2")
def _diag(ctx, op):
    x = ctx.input(op, "X")
    shape = ctx.in_shape(op, "X")
    off = int(op.attrs.get("offset", 0))
    dt = ctx.out_dtype(op)
    if any(d < 0 for d in shape):
        raise unsupported(op, "'diag_v2' of a tensor with unknown dims")
    from ..ops.creation import _diag_indices
    if len(shape) <= 1:
        n = (shape[0] if shape else 1) + abs(off)
        r, c = _diag_indices(n, n, off)
        base = ctx.const(np.full((n, n), op.attrs.get("padding_value", 0.0), dtype=dt))
        idx = ctx.const(np.stack([r, c], axis=1).astype(np.int64))
        ctx.node("ScatterND", [base, idx, ctx.reshape(x, [-1])], [ctx.output(op)])
        return
    r, c = _diag_indices(shape[0], shape[1], off)
    flat = ctx.reshape(x, [-1])
    ctx.node("Gather", [flat, ctx.const((r * shape[1] + c).astype(np.int64))], [ctx.output(op)], axis=0)


# -- gather / scatter / indexing ----------------------------------------------------------------------

def _flat_index(ctx, op, slot):
    idx = ctx.input(op, slot)
    if len(ctx.in_shape(op, slot)) == 2:
        idx = ctx.reshape(idx, [-1])
    return idx


@lowers("gather")
def _gather(ctx, op):
    if op.inputs.get("Axis"):
        raise unsupported(op, "'gather' with a tensor axis")
    rank = len(ctx.in_shape(op, "X"))
    axis = int(op.attrs.get("axis", 0))
    axis = axis + rank if axis < 0 else axis
    ctx.node("Gather", [ctx.input(op, "X"), _flat_index(ctx, op, "Index")], [ctx.output(op)], axis=axis)


@lowers("index_select")
def _index_select(ctx, op):
    rank = len(ctx.in_shape(op, "X"))
    axis = int(op.attrs.get("dim", 0))
    axis = axis + rank if axis < 0 else axis
    ctx.node("Gather", [ctx.input(op, "X"), _flat_index(ctx, op, "Index")], [ctx.output(op)], axis=axis)


@lowers("gather_nd")
def _gather_nd(ctx, op):
    idx = ctx.cast(ctx.input(op, "Index"), np.int64, ctx.in_dtype(op, "Index"))
    ctx.node("GatherND", [ctx.input(op, "X"), idx], [ctx.output(op)])


@lowers("index_sample")
def _index_sample(ctx, op):
    ctx.node("GatherElements", [ctx.input(op, "X"), ctx.input(op, "Index")], [ctx.output(op)], axis=1)


@lowers("take_along_axis")
def _take_along_axis(ctx, op):
    ctx.node("GatherElements", [ctx.input(op, "Input"), ctx.input(op, "Index")], [ctx.output(op, "Result")],
             axis=int(op.attrs.get("Axis", 0)))


@lowers("put_along_axis")
def _put_along_axis(ctx, op):
    red = op.attrs.get("Reduce", "assign")
    if not op.attrs.get("Include_self", True) and red != "assign":
        raise unsupported(op, "'put_along_axis' with include_self=False")
    dt = ctx.out_dtype(op, "Result")
    idx = ctx.input(op, "Index")
    val = ctx.node("Expand", [ctx.cast(ctx.input(op, "Value"), dt, ctx.in_dtype(op, "Value")), ctx.shape_of(idx)])
    reduction = {"assign": None, "add": "add", "mul": "mul", "multiply": "mul"}[red]
    if reduction and ctx.opset < 16:
        raise unsupported(op, "'put_along_axis' with a reduction needs opset 16")
    ctx.node("ScatterElements", [ctx.input(op, "Input"), idx, val], [ctx.output(op, "Result")],
             axis=int(op.attrs.get("Axis", 0)), reduction=reduction)


@lowers("scatter")
def _scatter(ctx, op):
    x = ctx.input(op, "X")
    ids = ctx.cast(ctx.reshape(ctx.input(op, "Ids"), [-1, 1]), np.int64, ctx.in_dtype(op, "Ids"))
    upd = ctx.input(op, "Updates")
    if op.attrs.get("overwrite", True):
        ctx.node("ScatterND", [x, ids, upd], [ctx.output(op)])
        return
    if ctx.opset < 16:
        raise unsupported(op, "'scatter' with overwrite=False needs opset 16")
    zeros = ctx.node("ConstantOfShape", [ctx.shape_of(upd)],
                     value=_tensor(np.zeros(1, dtype=ctx.in_dtype(op, "Updates"))))
    cleared = ctx.node("ScatterND", [x, ids, zeros])
    ctx.node("ScatterND", [cleared, ids, upd], [ctx.output(op)], reduction="add")


@lowers("scatter_nd_add")
def _scatter_nd_add(ctx, op):
    if ctx.opset < 16:
        raise unsupported(op, "'scatter_nd_add' needs opset 16 (ScatterND reduction)")
    if (ctx.in_shape(op, "Index") or [0])[-1] == 0:
        raise unsupported(op, "'scatter_nd_add' with an empty index")
    idx = ctx.cast(ctx.input(op, "Index"), np.int64, ctx.in_dtype(op, "Index"))
    ctx.node("ScatterND", [ctx.input(op, "X"), idx, ctx.input(op, "Updates")], [ctx.output(op)], reduction="add")


@lowers("one_hot_v2")
def _one_hot(ctx, op):
    dt = ctx.out_dtype(op)
    if op.inputs.get("depth_tensor"):
        depth = ctx.reshape(ctx.cast(ctx.input(op, "depth_tensor"), np.int64, ctx.in_dtype(op, "depth_tensor")),
                            [1])
    else:
        d = int(op.attrs.get("depth", -1))
        if d < 1:
            raise unsupported(op, "'one_hot_v2' without a fixed num_classes (depth)")
        depth = ctx.i64([d])
    x = ctx.input(op, "X")
    # out-of-range labels (allowed with allow_out_of_range) give all-zero rows, negative ones too
    ok = ctx.node("Not", [ctx.node("Less", [x, ctx.scalar(0, ctx.in_dtype(op, "X"))])])
    oh = ctx.node("OneHot", [x, depth, ctx.const(np.array([0, 1], dtype=dt))], axis=-1)
    mask = ctx.cast(ctx.unsqueeze(ok, [len(ctx.in_shape(op, "X"))]), dt, np.bool_)
    ctx.node("Mul", [oh, mask], [ctx.output(op)])


@lowers("where_index")
def _where_index(ctx, op):
    nz = ctx.node("NonZero", [ctx.input(op, "Condition")])
    ctx.node("Transpose", [nz], [ctx.output(op)], perm=[1, 0])


@lowers("masked_select")
def _masked_select(ctx, op):
    x, m = ctx.input(op, "X"), ctx.input(op, "Mask")
    if ctx.in_shape(op, "X") != ctx.in_shape(op, "Mask") or -1 in ctx.in_shape(op, "X"):
        x = ctx.node("Expand", [x, ctx.shape_of(m)])
        m = ctx.node("Expand", [m, ctx.shape_of(x)])
    ctx.node("Compress", [ctx.reshape(x, [-1]), ctx.reshape(m, [-1])], [ctx.output(op, "Y")], axis=0)


@lowers("lookup_table_v2")
def _lookup_table(ctx, op):
    ids = ctx.input(op, "Ids")
    out = ctx.node("Gather", [ctx.input(op, "W"), ids], axis=0)
    pad = int(op.attrs.get("padding_idx", -1))
    if pad != -1:
        dt = ctx.out_dtype(op)
        rank = len(ctx.in_shape(op, "Ids"))
        is_pad = ctx.unsqueeze(ctx.node("Equal", [ids, ctx.scalar(pad, ctx.in_dtype(op, "Ids"))]), [rank])
        out = ctx.node("Where", [is_pad, ctx.scalar(0, dt), out])
    ctx.node("Identity", [out], [ctx.output(op)])


# -- padding / pixel shuffle ---------------------------------------------------------------------------

@lowers("pad")
def _pad(ctx, op):
    p = [int(v) for v in op.attrs.get("paddings", [])]
    n = len(p) // 2
    pads = [p[2 * i] for i in range(n)] + [p[2 * i + 1] for i in range(n)]
    dt = ctx.out_dtype(op)
    ctx.node("Pad", [ctx.input(op, "X"), ctx.i64(pads), ctx.scalar(op.attrs.get("pad_value", 0.0), dt)],
             [ctx.output(op)], mode="constant")


@lowers("pad3d")
def _pad3d(ctx, op):
    if op.inputs.get("Paddings"):
        raise unsupported(op, "'pad3d' with tensor paddings")
    p = [int(v) for v in op.attrs.get("paddings", [])]
    mode = op.attrs.get("mode", "constant")
    onnx_mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}.get(mode)
    if onnx_mode is None or (onnx_mode == "wrap" and ctx.opset < 19):
        raise unsupported(op, f"'pad3d' mode {mode!r}" + (" needs opset 19" if onnx_mode == "wrap" else ""))
    d, h, w = (2, 3, 4) if op.attrs.get("data_format", "NCDHW") == "NCDHW" else (1, 2, 3)
    begin, end = [0] * 5, [0] * 5
    for axis, b, a in ((w, p[0], p[1]), (h, p[2], p[3]), (d, p[4], p[5])):
        begin[axis], end[axis] = b, a
    dt = ctx.out_dtype(op)
    ins = [ctx.input(op, "X"), ctx.i64(begin + end)]
    if onnx_mode == "constant":
        ins.append(ctx.scalar(op.attrs.get("value", 0.0), dt))
    ctx.node("Pad", ins, [ctx.output(op)], mode=onnx_mode)


@lowers("pixel_shuffle")
def _pixel_shuffle(ctx, op):
    x = ctx.input(op, "X")
    r = int(op.attrs.get("upscale_factor", 1))
    nhwc = op.attrs.get("data_format", "NCHW") == "NHWC"
    if nhwc:
        x = ctx.node("Transpose", [x], perm=[0, 3, 1, 2])
    y = ctx.node("DepthToSpace", [x], blocksize=r, mode="CRD")
    if nhwc:
        y = ctx.node("Transpose", [y], perm=[0, 2, 3, 1])
    ctx.node("Identity", [y], [ctx.output(op)])


# -- set_value (x[index] = scalar) ----------------------------------------------------------------------

def _bound(ctx, v, dim):
    """A Python slice bound ``v`` normalised against the (possibly dynamic) length ``dim`` (1-D int64):
    negative counts from the end, then clamped to [0, dim], as ``slice.indices`` does for step > 0."""
    if v >= 0:
        return ctx.node("Min", [ctx.i64([min(v, 2 ** 62)]), dim])
    return ctx.node("Max", [ctx.node("Add", [dim, ctx.i64([max(v, -2 ** 62)])]), ctx.i64([0])])


@lowers("set_value")
def _set_value(ctx, op):
    """``x[slices] = scalar`` as Where(mask, value, x): per sliced axis a boolean row
    start <= i < end (and (i - start) % step == 0), broadcast along that axis, AND-ed together."""
    axes, starts, ends = op.attrs.get("axes", []), op.attrs.get("starts", []), op.attrs.get("ends", [])
    steps = op.attrs.get("steps", []) or [1] * len(axes)
    vshape = ctx.in_shape(op, "ValueTensor") if op.inputs.get("ValueTensor") else None
    if (any(op.inputs.get(s) for s in ("StartsTensorList", "EndsTensorList", "StepsTensorList"))
            or any(int(s) <= 0 for s in steps)
            or (vshape is not None and any(d != 1 for d in vshape))
            or (vshape is None and len(op.attrs.get("values", [])) != 1)):
        # tensor bounds, negative steps or a tensor value: a ScatterND over the region (ops_index_write.py)
        from .ops_index_write import set_value_scatter
        set_value_scatter(ctx, op)
        return
    dt = ctx.out_dtype(op)
    x = ctx.input(op, "Input")
    nd = len(ctx.in_shape(op, "Input"))
    if vshape is not None:
        value = ctx.reshape(ctx.cast(ctx.input(op, "ValueTensor"), dt, ctx.in_dtype(op, "ValueTensor")), [])
    else:
        value = ctx.scalar(op.attrs.get("values", [])[0], dt)
    mask = None
    for k, a in enumerate(axes):
        a = a + nd if a < 0 else a
        step = int(steps[k]) if k < len(steps) else 1
        if step <= 0:
            raise unsupported(op, "set_value with a negative step")
        dim = ctx.shape_of(x, a, a + 1)
        lo, hi = _bound(ctx, int(starts[k]), dim), _bound(ctx, int(ends[k]), dim)
        idx = ctx.node("Range", [ctx.scalar(0, np.int64), ctx.reshape(dim, []), ctx.scalar(1, np.int64)])
        m = ctx.node("And", [ctx.node("GreaterOrEqual", [idx, lo]), ctx.node("Less", [idx, hi])])
        if step > 1:
            off = ctx.node("Mod", [ctx.node("Sub", [idx, lo]), ctx.i64([step])])
            m = ctx.node("And", [m, ctx.node("Equal", [off, ctx.i64([0])])])
        m = ctx.reshape(m, [1] * a + [-1] + [1] * (nd - a - 1))
        mask = m if mask is None else ctx.node("And", [mask, m])
    if mask is None:       # x[...] = v
        ctx.node("Expand", [value, ctx.shape_of(x)], [ctx.output(op)])
        return
    ctx.node("Where", [mask, value, x], [ctx.output(op)])
