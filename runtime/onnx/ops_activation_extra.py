"""ONNX lowerings of Paddle's dedicated activation ops (runtime/ops/activation_extra.py) and bmm."""
from __future__ import annotations

import numpy as np

from .lowering import lowers, unsupported
from .ops_elementwise import unary_input


def _out(ctx, op, onnx_type, inputs, **attrs):
    ctx.node(onnx_type, inputs, [ctx.output(op)], **attrs)


@lowers("selu")
def _selu(ctx, op):
    _out(ctx, op, "Selu", [unary_input(ctx, op)], alpha=float(op.attrs["alpha"]), gamma=float(op.attrs["scale"]))


@lowers("celu")
def _celu(ctx, op):
    _out(ctx, op, "Celu", [unary_input(ctx, op)], alpha=float(op.attrs["alpha"]))


@lowers("hard_shrink")
def _hard_shrink(ctx, op):
    _out(ctx, op, "Shrink", [unary_input(ctx, op)], lambd=float(op.attrs["threshold"]), bias=0.0)


@lowers("softshrink")
def _softshrink(ctx, op):
    lam = float(op.attrs["lambda"])
    _out(ctx, op, "Shrink", [unary_input(ctx, op)], lambd=lam, bias=lam)


@lowers("tanh_shrink")
def _tanh_shrink(ctx, op):
    x = unary_input(ctx, op)
    _out(ctx, op, "Sub", [x, ctx.node("Tanh", [x])])


@lowers("mish")
def _mish(ctx, op):
    dt = ctx.out_dtype(op)
    x = unary_input(ctx, op)
    sp = ctx.node("Where", [ctx.node("Greater", [x, ctx.scalar(op.attrs["threshold"], dt)]), x,
                            ctx.node("Softplus", [x])])
    _out(ctx, op, "Mul", [x, ctx.node("Tanh", [sp])])


@lowers("logsigmoid")
def _logsigmoid(ctx, op):
    x = unary_input(ctx, op)
    _out(ctx, op, "Neg", [ctx.node("Softplus", [ctx.node("Neg", [x])])])


@lowers("thresholded_relu")
def _thresholded_relu(ctx, op):
    dt = ctx.out_dtype(op)
    x = unary_input(ctx, op)
    keep = ctx.node("Greater", [x, ctx.scalar(op.attrs["threshold"], dt)])
    _out(ctx, op, "Where", [keep, x, ctx.scalar(op.attrs["value"], dt)])


@lowers("brelu")
def _brelu(ctx, op):
    dt = ctx.out_dtype(op)
    _out(ctx, op, "Clip", [unary_input(ctx, op), ctx.scalar(op.attrs["t_min"], dt), ctx.scalar(op.attrs["t_max"], dt)])


@lowers("prelu")
def _prelu(ctx, op):
    x, alpha = ctx.input(op, "X"), ctx.input(op, "Alpha")
    rank = len(ctx.in_shape(op, "X"))
    mode, fmt = op.attrs["mode"], op.attrs["data_format"]
    if mode == "all":
        slope = ctx.reshape(alpha, [1])
    elif mode == "channel":
        c = int(np.prod(ctx.in_shape(op, "Alpha")))
        if fmt in ("NLC", "NHWC", "NDHWC"):
            slope = ctx.reshape(alpha, [c])
        else:
            slope = ctx.reshape(alpha, [c] + [1] * (rank - 2))
    else:
        slope = ctx.reshape(alpha, [1] + list(ctx.in_shape(op, "Alpha"))[-(rank - 1):])
    _out(ctx, op, "PRelu", [x, slope])


@lowers("maxout")
def _maxout(ctx, op):
    shape = list(ctx.in_shape(op, "X"))
    groups, axis = int(op.attrs["groups"]), int(op.attrs["axis"]) % 4
    if any(d < 0 for d in shape[1:]):
        raise unsupported(op, "'maxout' on unknown channel or spatial sizes")
    grouped = shape[:axis] + [shape[axis] // groups, groups] + shape[axis + 1:]
    grouped[0] = 0                                   # Reshape's 0: keep the (possibly dynamic) batch size
    y = ctx.reshape(ctx.input(op, "X"), grouped)
    ctx.set_output(op, ctx.reduce("ReduceMax", y, [axis + 1], keepdims=False))


@lowers("bmm")
def _bmm(ctx, op):
    _out(ctx, op, "MatMul", [ctx.input(op, "X"), ctx.input(op, "Y")])
