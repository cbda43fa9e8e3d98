"""ONNX lowering of the general ``set_value`` (``x[index] = value`` inside a Program): slice bounds and
steps that are tensors (StartsTensorList / EndsTensorList / StepsTensorList, built for 0-D tensor
indices and tensor slice bounds), negative steps, and values that are whole tensors.

Each sliced axis selects the positions ``Slice(Range(0, dim), start, end, step)`` (ONNX's Slice clamps
bounds exactly as Python's ``slice.indices`` does, which set_value follows); the region is their outer
product, written by one ScatterND. A slice never selects a position twice, so the scatter is exact.
The scalar-value, constant-bound case keeps the Where-mask lowering of ops_shape.py.
"""
from __future__ import annotations

import numpy as np

from .ops_shape import _clip_i64, int_list


def _axis_positions(ctx, x, a, bounds):
    """The positions of axis ``a`` the index selects (1-D int64): all of them, or a slice of them."""
    dim = ctx.shape_of(x, a, a + 1)
    every = ctx.node("Range", [ctx.scalar(0, np.int64), ctx.reshape(dim, []), ctx.scalar(1, np.int64)])
    if bounds is None:
        return every
    start, end, step = bounds
    return ctx.node("Slice", [every, start, end, ctx.i64([0]), step])


def _pick(ctx, vec, k):
    """Element k of a 1-D int64 value, as a 1-element 1-D value."""
    return ctx.node("Slice", [vec, ctx.i64([k]), ctx.i64([k + 1])])


def set_value_scatter(ctx, op):
    """``set_value`` as ScatterND of the value, broadcast to the indexed region, at the region's positions."""
    x = ctx.input(op, "Input")
    dt = ctx.out_dtype(op)
    nd = len(ctx.in_shape(op, "Input"))
    axes = [int(a) + nd if int(a) < 0 else int(a) for a in op.attrs.get("axes", [])]
    n = len(axes)
    starts = int_list(ctx, op, None, "StartsTensorList")
    ends = int_list(ctx, op, None, "EndsTensorList")
    steps = int_list(ctx, op, None, "StepsTensorList")
    starts = starts if starts is not None else ctx.i64(_clip_i64(op.attrs.get("starts", [])))
    ends = ends if ends is not None else ctx.i64(_clip_i64(op.attrs.get("ends", [])))
    if steps is None:
        steps = ctx.i64([int(s) for s in (op.attrs.get("steps", []) or [1] * n)])
    sliced = {a: (_pick(ctx, starts, k), _pick(ctx, ends, k), _pick(ctx, steps, k)) for k, a in enumerate(axes)}
    pos = [_axis_positions(ctx, x, a, sliced.get(a)) for a in range(nd)]
    sizes = [ctx.node("Shape", [p]) for p in pos]
    region = ctx.node("Concat", sizes, axis=0) if nd > 1 else sizes[0]
    dec = {int(a) + nd if int(a) < 0 else int(a) for a in op.attrs.get("decrease_axes", [])}
    view = [s for a, s in enumerate(sizes) if a not in dec]
    for p in sorted(int(v) for v in op.attrs.get("none_axes", [])):
        view.insert(p, ctx.i64([1]))
    # the value: a tensor input, or the values attribute of the given shape
    if op.inputs.get("ValueTensor"):
        value = ctx.cast(ctx.input(op, "ValueTensor"), dt, ctx.in_dtype(op, "ValueTensor"))
        vshape = list(ctx.in_shape(op, "ValueTensor"))
    else:
        vshape = [int(s) for s in op.attrs.get("shape", [])] or [len(op.attrs.get("values", []))]
        value = ctx.const(np.asarray(list(op.attrs.get("values", [])), dtype=dt).reshape(vshape))
    drop = 0
    while len(vshape) - drop > len(view) and vshape[drop] == 1:   # Paddle stores scalars as [1]
        drop += 1
    if drop:
        value = ctx.squeeze(value, list(range(drop)))
    if len(vshape) - drop > len(view):
        from .lowering import unsupported
        raise unsupported(op, f"set_value with a value of shape {vshape} for a region of rank {len(view)}")
    if view:
        view_shape = ctx.node("Concat", view, axis=0) if len(view) > 1 else view[0]
        value = ctx.node("Expand", [value, view_shape])
    value = ctx.node("Reshape", [value, region])
    # the region's coordinates: [*region, nd], one column per axis
    cols = []
    for a, p in enumerate(pos):
        along = ctx.reshape(p, [1] * a + [-1] + [1] * (nd - a - 1)) if nd > 1 else p
        cols.append(ctx.unsqueeze(ctx.node("Expand", [along, region]), [nd]))
    coords = ctx.node("Concat", cols, axis=-1) if nd > 1 else cols[0]
    ctx.node("ScatterND", [x, coords, value], [ctx.output(op)])
