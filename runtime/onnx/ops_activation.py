"""ONNX lowerings of activations and softmax-like ops."""
from __future__ import annotations

import math

import numpy as np

from .lowering import lowers
from .ops_elementwise import unary_input


def _emit(ctx, op, onnx_type, **attrs):
    ctx.node(onnx_type, [unary_input(ctx, op)], [ctx.output(op)], **attrs)


@lowers("relu")
def _relu(ctx, op):
    _emit(ctx, op, "Relu")


@lowers("relu6")
def _relu6(ctx, op):
    dt = ctx.out_dtype(op)
    ctx.node("Clip", [unary_input(ctx, op), ctx.scalar(0, dt), ctx.scalar(6, dt)], [ctx.output(op)])


@lowers("leaky_relu")
def _leaky_relu(ctx, op):
    _emit(ctx, op, "LeakyRelu", alpha=float(op.attrs.get("alpha", 0.02)))


@lowers("elu")
def _elu(ctx, op):
    _emit(ctx, op, "Elu", alpha=float(op.attrs.get("alpha", 1.0)))


@lowers("silu", "swish")
def _silu(ctx, op):
    x = unary_input(ctx, op)
    ctx.node("Mul", [x, ctx.node("Sigmoid", [x])], [ctx.output(op)])


@lowers("gelu")
def _gelu(ctx, op):
    dt = ctx.out_dtype(op)
    x = unary_input(ctx, op)
    approx = bool(op.attrs.get("approximate", False))
    if ctx.opset >= 20:
        ctx.node("Gelu", [x], [ctx.output(op)], approximate="tanh" if approx else "none")
        return
    half = ctx.scalar(0.5, dt)
    one = ctx.scalar(1.0, dt)
    if approx:
        # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        x3 = ctx.node("Mul", [ctx.node("Mul", [x, x]), x])
        inner = ctx.node("Add", [x, ctx.node("Mul", [x3, ctx.scalar(0.044715, dt)])])
        t = ctx.node("Tanh", [ctx.node("Mul", [inner, ctx.scalar(math.sqrt(2 / math.pi), dt)])])
    else:
        t = ctx.node("Erf", [ctx.node("Mul", [x, ctx.scalar(1 / math.sqrt(2), dt)])])
    ctx.node("Mul", [ctx.node("Mul", [x, half]), ctx.node("Add", [t, one])], [ctx.output(op)])


@lowers("hard_sigmoid")
def _hard_sigmoid(ctx, op):
    _emit(ctx, op, "HardSigmoid", alpha=float(op.attrs.get("slope", 0.2)), beta=float(op.attrs.get("offset", 0.5)))


@lowers("hard_swish")
def _hard_swish(ctx, op):
    dt = ctx.out_dtype(op)
    x = unary_input(ctx, op)
    t = ctx.node("Clip", [ctx.node("Add", [x, ctx.scalar(op.attrs.get("offset", 3.0), dt)]), ctx.scalar(0, dt),
                          ctx.scalar(op.attrs.get("threshold", 6.0), dt)])
    ctx.node("Div", [ctx.node("Mul", [x, t]), ctx.scalar(op.attrs.get("scale", 6.0), dt)], [ctx.output(op)])


@lowers("softplus")
def _softplus(ctx, op):
    dt = ctx.out_dtype(op)
    x = unary_input(ctx, op)
    beta = float(op.attrs.get("beta", 1.0))
    thr = float(op.attrs.get("threshold", 20.0))
    bx = ctx.node("Mul", [x, ctx.scalar(beta, dt)]) if beta != 1.0 else x
    sp = ctx.node("Softplus", [bx])
    if beta != 1.0:
        sp = ctx.node("Div", [sp, ctx.scalar(beta, dt)])
    ctx.node("Where", [ctx.node("Greater", [bx, ctx.scalar(thr, dt)]), x, sp], [ctx.output(op)])


def _softmax_like(ctx, op, onnx_type):
    x = unary_input(ctx, op)
    rank = len(ctx.in_shape(op, "X"))
    if rank == 0:
        y = ctx.node(onnx_type, [ctx.reshape(x, [1])], axis=0)
        ctx.node("Reshape", [y, ctx.const(np.zeros((0,), np.int64))], [ctx.output(op)])
        return
    ctx.node(onnx_type, [x], [ctx.output(op)], axis=int(op.attrs.get("axis", -1)))


@lowers("softmax")
def _softmax(ctx, op):
    _softmax_like(ctx, op, "Softmax")


@lowers("log_softmax")
def _log_softmax(ctx, op):
    _softmax_like(ctx, op, "LogSoftmax")
