"""ONNX lowerings of reductions, norms, arg-max/min, top-k and sorting."""
from __future__ import annotations

import numpy as np

from .lowering import lowers, unsupported


def _axes(ctx, op, dim_attr="dim", all_attr="reduce_all", slot="X"):
    """The reduced axes (None: every axis), by Paddle's rule: empty dim / reduce_all / 0-D input."""
    rank = len(ctx.in_shape(op, slot))
    dim = op.attrs.get(dim_attr)
    if op.attrs.get(all_attr, False) or dim is None or len(dim) == 0 or rank == 0:
        return None
    return [int(d) + rank if int(d) < 0 else int(d) for d in dim]


_REDUCE = {"reduce_sum": "ReduceSum", "reduce_mean": "ReduceMean", "reduce_max": "ReduceMax",
           "reduce_min": "ReduceMin", "reduce_prod": "ReduceProd"}


@lowers(*_REDUCE)
def _reduce(ctx, op):
    if op.inputs.get("AxisTensor") or op.inputs.get("AxisTensorList"):
        raise unsupported(op, f"'{op.type}' with a tensor axis")
    od, xd = np.dtype(ctx.out_dtype(op)), np.dtype(ctx.in_dtype(op))
    x = ctx.input(op, "X")
    keep = bool(op.attrs.get("keep_dim", False))
    axes = _axes(ctx, op)
    if op.type == "reduce_mean" and od.kind in "iub":
        # integer mean truncates toward zero, as Paddle does
        s = ctx.reduce("ReduceSum", ctx.cast(x, np.int64, xd), axes, keep)
        n = ctx.reduce("ReduceProd", ctx.shape_of(x) if axes is None else
                       ctx.node("Gather", [ctx.shape_of(x), ctx.i64(axes)]), None, False)
        q = ctx.node("Div", [ctx.cast(s, np.float64), ctx.cast(n, np.float64)])
        out = ctx.cast(ctx.node("Mul", [ctx.node("Sign", [q]), ctx.node("Floor", [ctx.node("Abs", [q])])]), od)
        ctx.node("Identity", [out], [ctx.output(op)])
        return
    if xd == np.bool_ and op.type in ("reduce_max", "reduce_min", "reduce_prod"):
        x = ctx.cast(x, np.int32, xd)
        xd = np.dtype(np.int32)
    x = ctx.cast(x, od, xd) if od.kind in "fiu" and od != xd else x
    out = ctx.reduce(_REDUCE[op.type], x, axes, keep)
    ctx.node("Identity", [ctx.cast(out, od) if od == np.bool_ else out], [ctx.output(op)])


@lowers("reduce_all", "reduce_any")
def _reduce_bool(ctx, op):
    if op.inputs.get("AxisTensor") or op.inputs.get("AxisTensorList"):
        raise unsupported(op, f"'{op.type}' with a tensor axis")
    x = ctx.cast(ctx.cast(ctx.input(op, "X"), np.bool_, ctx.in_dtype(op)), np.int32)
    out = ctx.reduce("ReduceMin" if op.type == "reduce_all" else "ReduceMax", x, _axes(ctx, op),
                     bool(op.attrs.get("keep_dim", False)))
    ctx.node("Cast", [out], [ctx.output(op)], to=_t(np.bool_))


def _t(dt):
    from .export import onnx_dtype
    return onnx_dtype(dt)


@lowers("mean")
def _mean(ctx, op):
    x = ctx.cast(ctx.input(op, "X"), ctx.out_dtype(op), ctx.in_dtype(op))
    ctx.node("Identity", [ctx.reduce("ReduceMean", x, None, False)], [ctx.output(op)])


@lowers("logsumexp")
def _logsumexp(ctx, op):
    x = ctx.cast(ctx.input(op, "X"), ctx.out_dtype(op), ctx.in_dtype(op))
    axes = _axes(ctx, op, "axis", "reduce_all")
    ctx.node("Identity", [ctx.reduce("ReduceLogSumExp", x, axes, bool(op.attrs.get("keepdim", False)))],
             [ctx.output(op)])


@lowers("frobenius_norm")
def _frobenius(ctx, op):
    x = ctx.cast(ctx.input(op, "X"), ctx.out_dtype(op), ctx.in_dtype(op))
    ctx.node("Identity", [ctx.reduce("ReduceL2", x, _axes(ctx, op), bool(op.attrs.get("keep_dim", False)))],
             [ctx.output(op)])


@lowers("squared_l2_norm")
def _squared_l2(ctx, op):
    x = ctx.input(op, "X")
    s = ctx.reduce("ReduceSumSquare", x, None, False)
    ctx.node("Reshape", [s, ctx.i64([1])], [ctx.output(op)])


@lowers("p_norm")
def _p_norm(ctx, op):
    dt = ctx.out_dtype(op)
    x = ctx.cast(ctx.input(op, "X"), dt, ctx.in_dtype(op))
    rank = len(ctx.in_shape(op, "X"))
    keep = bool(op.attrs.get("keepdim", False))
    p = float(op.attrs.get("porder", 2.0))
    if op.attrs.get("asvector", False) or rank == 0:
        axes = None
    else:
        a = int(op.attrs.get("axis", -1))
        axes = [a + rank if a < 0 else a]
    ax = ctx.node("Abs", [x])
    if p == 2.0:
        out = ctx.reduce("ReduceL2", x, axes, keep)
    elif p == 1.0:
        out = ctx.reduce("ReduceL1", x, axes, keep)
    elif p == np.inf:
        out = ctx.reduce("ReduceMax", ax, axes, keep)
    elif p == -np.inf:
        out = ctx.reduce("ReduceMin", ax, axes, keep)
    elif p == 0.0:
        nz = ctx.cast(ctx.node("Not", [ctx.node("Equal", [x, ctx.scalar(0, dt)])]), dt)
        out = ctx.reduce("ReduceSum", nz, axes, keep)
    else:
        s = ctx.reduce("ReduceSum", ctx.node("Pow", [ax, ctx.scalar(p, dt)]), axes, keep)
        out = ctx.node("Pow", [s, ctx.scalar(1.0 / p, dt)])
    if axes is None and keep:
        out = ctx.node("Reshape", [out, ctx.i64([1] * rank)]) if rank else out
    ctx.node("Identity", [out], [ctx.output(op)])


@lowers("arg_max", "arg_min")
def _arg(ctx, op):
    x = ctx.input(op, "X")
    rank = len(ctx.in_shape(op, "X"))
    keep = bool(op.attrs.get("keepdims", False))
    if ctx.in_dtype(op) == np.bool_:
        x = ctx.cast(x, np.int32, np.bool_)
    onnx_type = "ArgMax" if op.type == "arg_max" else "ArgMin"
    if op.attrs.get("flatten", False) or rank == 0:
        out = ctx.node(onnx_type, [ctx.reshape(x, [-1])], axis=0, keepdims=0)
        if keep and rank:
            out = ctx.reshape(out, [1] * rank)
    else:
        out = ctx.node(onnx_type, [x], axis=int(op.attrs.get("axis", 0)), keepdims=int(keep))
    ctx.node("Identity", [ctx.cast(out, ctx.out_dtype(op), np.int64)], [ctx.output(op)])


@lowers("top_k_v2")
def _top_k(ctx, op):
    x = ctx.input(op, "X")
    rank = len(ctx.in_shape(op, "X"))
    if op.inputs.get("K"):
        k = ctx.reshape(ctx.cast(ctx.input(op, "K"), np.int64, ctx.in_dtype(op, "K")), [1])
    else:
        k = ctx.i64([int(op.attrs.get("k", 1))])
    if rank == 0:
        x = ctx.reshape(x, [1])
    vals, idx = ctx.node("TopK", [x, k], 2, axis=int(op.attrs.get("axis", -1)) if rank else 0,
                         largest=int(bool(op.attrs.get("largest", True))), sorted=1)
    if rank == 0:
        vals, idx = ctx.to_scalar(vals), ctx.to_scalar(idx)
    ctx.node("Identity", [vals], [ctx.output(op, "Out")])
    ctx.node("Identity", [ctx.cast(idx, ctx.out_dtype(op, "Indices"), np.int64)], [ctx.output(op, "Indices")])


@lowers("argsort")
def _argsort(ctx, op):
    x = ctx.input(op, "X")
    shape = ctx.in_shape(op, "X")
    rank = len(shape)
    if rank == 0:
        ctx.node("Identity", [x], [ctx.output(op, "Out")])
        ctx.node("Identity", [ctx.scalar(0, ctx.out_dtype(op, "Indices"))], [ctx.output(op, "Indices")])
        return
    axis = int(op.attrs.get("axis", -1))
    axis = axis + rank if axis < 0 else axis
    n = ctx.shape_of(x, axis, axis + 1)
    desc = bool(op.attrs.get("descending", False))
    # TopK over the whole axis sorts; its tie order is by index, which is what a stable sort gives
    vals, idx = ctx.node("TopK", [x, n], 2, axis=axis, largest=int(desc), sorted=1)
    ctx.node("Identity", [vals], [ctx.output(op, "Out")])
    ctx.node("Identity", [ctx.cast(idx, ctx.out_dtype(op, "Indices"), np.int64)], [ctx.output(op, "Indices")])
