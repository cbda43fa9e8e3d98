"""ONNX lowerings of elementwise math, comparison, logic, bitwise and unary math ops."""
from __future__ import annotations

import numpy as np

from .lowering import lowers, unsupported


def bcast_y(ctx, op, y, xslot="X", yslot="Y"):
    """Paddle's legacy ``axis`` broadcasting: Y's dims align with X's starting at ``axis``."""
    axis = op.attrs.get("axis", -1)
    xs, ys = ctx.in_shape(op, xslot), ctx.in_shape(op, yslot)
    if axis is None or axis == -1 or len(ys) >= len(xs):
        return y
    if axis < 0:
        axis += len(xs)
    trailing = len(xs) - axis - len(ys)
    # Paddle drops trailing 1s of Y before aligning (e.g. Y [C, 1, 1] at axis 1 of NCHW)
    return ctx.unsqueeze(y, list(range(len(ys), len(ys) + trailing))) if trailing > 0 else y


def binary_inputs(ctx, op, to_dtype=None):
    """X and Y (Y aligned by ``axis``), both cast to ``to_dtype`` (default: the output dtype)."""
    to = np.dtype(to_dtype if to_dtype is not None else ctx.out_dtype(op))
    x = ctx.cast(ctx.input(op, "X"), to, ctx.in_dtype(op, "X"))
    y = ctx.cast(ctx.input(op, "Y"), to, ctx.in_dtype(op, "Y"))
    return x, bcast_y(ctx, op, y)


_BINARY = {"elementwise_add": "Add", "elementwise_sub": "Sub", "elementwise_mul": "Mul",
           "elementwise_div": "Div", "elementwise_max": "Max", "elementwise_min": "Min"}


@lowers(*_BINARY)
def _binary(ctx, op):
    x, y = binary_inputs(ctx, op)
    ctx.node(_BINARY[op.type], [x, y], [ctx.output(op)])


@lowers("elementwise_pow")
def _pow(ctx, op):
    x, y = binary_inputs(ctx, op)
    ctx.node("Pow", [x, y], [ctx.output(op)])


def floor_mod(ctx, x, y, dt):
    """numpy-style remainder (sign of the divisor)."""
    if np.dtype(dt).kind in "iu":
        return ctx.node("Mod", [x, y], fmod=0)
    r = ctx.node("Mod", [x, y], fmod=1)
    zero = ctx.scalar(0, dt)
    fix = ctx.node("And", [ctx.node("Not", [ctx.node("Equal", [r, zero])]),
                           ctx.node("Xor", [ctx.node("Less", [r, zero]), ctx.node("Less", [y, zero])])])
    return ctx.node("Where", [fix, ctx.node("Add", [r, y]), r])


@lowers("elementwise_mod")
def _mod(ctx, op):
    x, y = binary_inputs(ctx, op)
    ctx.node("Identity", [floor_mod(ctx, x, y, ctx.out_dtype(op))], [ctx.output(op)])


@lowers("elementwise_floordiv")
def _floordiv(ctx, op):
    dt = ctx.out_dtype(op)
    x, y = binary_inputs(ctx, op)
    if np.dtype(dt).kind in "iu":
        r = floor_mod(ctx, x, y, dt)
        ctx.node("Div", [ctx.node("Sub", [x, r]), y], [ctx.output(op)])
    else:
        ctx.node("Floor", [ctx.node("Div", [x, y])], [ctx.output(op)])


_COMPARE = {"equal": "Equal", "less_than": "Less", "greater_than": "Greater", "less_equal": "LessOrEqual",
            "greater_equal": "GreaterOrEqual"}


@lowers(*_COMPARE, "not_equal")
def _compare(ctx, op):
    dx, dy = ctx.in_dtype(op, "X"), ctx.in_dtype(op, "Y")
    common = np.result_type(dx, dy)
    x = ctx.cast(ctx.input(op, "X"), common, dx)
    y = bcast_y(ctx, op, ctx.cast(ctx.input(op, "Y"), common, dy))
    if op.type == "not_equal":
        ctx.node("Not", [ctx.node("Equal", [x, y])], [ctx.output(op)])
    else:
        ctx.node(_COMPARE[op.type], [x, y], [ctx.output(op)])


@lowers("logical_and", "logical_or", "logical_xor")
def _logical(ctx, op):
    x = ctx.cast(ctx.input(op, "X"), np.bool_, ctx.in_dtype(op, "X"))
    y = ctx.cast(ctx.input(op, "Y"), np.bool_, ctx.in_dtype(op, "Y"))
    out = ctx.node({"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}[op.type], [x, y])
    ctx.node("Identity", [ctx.cast(out, ctx.out_dtype(op), np.bool_)], [ctx.output(op)])


@lowers("logical_not")
def _logical_not(ctx, op):
    x = ctx.cast(ctx.input(op, "X"), np.bool_, ctx.in_dtype(op, "X"))
    out = ctx.node("Not", [x])
    ctx.node("Identity", [ctx.cast(out, ctx.out_dtype(op), np.bool_)], [ctx.output(op)])


@lowers("bitwise_and", "bitwise_or", "bitwise_xor")
def _bitwise(ctx, op):
    dt = ctx.out_dtype(op)
    x, y = ctx.input(op, "X"), ctx.input(op, "Y")
    if np.dtype(dt) == np.bool_:
        ctx.node({"bitwise_and": "And", "bitwise_or": "Or", "bitwise_xor": "Xor"}[op.type], [x, y],
                 [ctx.output(op)])
        return
    if ctx.opset < 18:
        raise unsupported(op, f"'{op.type}' on integers needs opset 18 (BitwiseAnd/Or/Xor)")
    ctx.node({"bitwise_and": "BitwiseAnd", "bitwise_or": "BitwiseOr", "bitwise_xor": "BitwiseXor"}[op.type],
             [x, y], [ctx.output(op)])


@lowers("bitwise_not")
def _bitwise_not(ctx, op):
    x = ctx.input(op, "X")
    if np.dtype(ctx.out_dtype(op)) == np.bool_:
        ctx.node("Not", [x], [ctx.output(op)])
        return
    if ctx.opset < 18:
        raise unsupported(op, "'bitwise_not' on integers needs opset 18 (BitwiseNot)")
    ctx.node("BitwiseNot", [x], [ctx.output(op)])


# -- unary math -----------------------------------------------------------------------------------

_UNARY = {"abs": "Abs", "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "reciprocal": "Reciprocal",
          "sin": "Sin", "cos": "Cos", "tan": "Tan", "asin": "Asin", "acos": "Acos", "atan": "Atan",
          "sinh": "Sinh", "cosh": "Cosh", "asinh": "Asinh", "acosh": "Acosh", "atanh": "Atanh",
          "ceil": "Ceil", "floor": "Floor", "erf": "Erf", "sign": "Sign", "tanh": "Tanh",
          "sigmoid": "Sigmoid", "softsign": "Softsign"}


def unary_input(ctx, op, slot="X"):
    """X cast to the output dtype (math on integers gives floats in Paddle)."""
    return ctx.cast(ctx.input(op, slot), ctx.out_dtype(op), ctx.in_dtype(op, slot))


@lowers(*_UNARY)
def _unary(ctx, op):
    x = unary_input(ctx, op)
    if op.type in ("ceil", "floor") and np.dtype(ctx.out_dtype(op)).kind in "iub":
        ctx.node("Identity", [x], [ctx.output(op)])
        return
    ctx.node(_UNARY[op.type], [x], [ctx.output(op)])


@lowers("rsqrt")
def _rsqrt(ctx, op):
    ctx.node("Reciprocal", [ctx.node("Sqrt", [unary_input(ctx, op)])], [ctx.output(op)])


@lowers("square")
def _square(ctx, op):
    x = unary_input(ctx, op)
    ctx.node("Mul", [x, x], [ctx.output(op)])


@lowers("log1p")
def _log1p(ctx, op):
    x = unary_input(ctx, op)
    ctx.node("Log", [ctx.node("Add", [x, ctx.scalar(1, ctx.out_dtype(op))])], [ctx.output(op)])


@lowers("expm1")
def _expm1(ctx, op):
    x = unary_input(ctx, op)
    ctx.node("Sub", [ctx.node("Exp", [x]), ctx.scalar(1, ctx.out_dtype(op))], [ctx.output(op)])


@lowers("log2", "log10")
def _log_base(ctx, op):
    dt = ctx.out_dtype(op)
    x = unary_input(ctx, op)
    k = 1.0 / np.log(2.0 if op.type == "log2" else 10.0)
    ctx.node("Mul", [ctx.node("Log", [x]), ctx.scalar(k, dt)], [ctx.output(op)])


@lowers("trunc")
def _trunc(ctx, op):
    x = unary_input(ctx, op)
    if np.dtype(ctx.out_dtype(op)).kind in "iub":
        ctx.node("Identity", [x], [ctx.output(op)])
        return
    ctx.node("Mul", [ctx.node("Sign", [x]), ctx.node("Floor", [ctx.node("Abs", [x])])], [ctx.output(op)])


@lowers("round")
def _round(ctx, op):
    dt = ctx.out_dtype(op)
    x = unary_input(ctx, op)
    d = int(op.attrs.get("decimals", 0))
    if np.dtype(dt).kind in "iub":
        if d < 0:
            raise unsupported(op, "'round' of integers with negative decimals")
        ctx.node("Identity", [x], [ctx.output(op)])
        return
    if d == 0:
        ctx.node("Round", [x], [ctx.output(op)])
        return
    k = ctx.scalar(10.0 ** d, dt)
    ctx.node("Div", [ctx.node("Round", [ctx.node("Mul", [x, k])]), k], [ctx.output(op)])


@lowers("isnan_v2", "isinf_v2", "isfinite_v2")
def _isx(ctx, op):
    x = ctx.input(op, "X")
    if np.dtype(ctx.in_dtype(op, "X")).kind not in "f":
        val = op.type == "isfinite_v2"
        shp = ctx.shape_of(x)
        ctx.node("ConstantOfShape", [shp], [ctx.output(op)],
                 value=_tensor_value(np.array([val], np.bool_)))
        return
    if op.type == "isnan_v2":
        ctx.node("IsNaN", [x], [ctx.output(op)])
    elif op.type == "isinf_v2":
        ctx.node("IsInf", [x], [ctx.output(op)])
    else:
        bad = ctx.node("Or", [ctx.node("IsNaN", [x]), ctx.node("IsInf", [x])])
        ctx.node("Not", [bad], [ctx.output(op)])


def _tensor_value(arr):
    import onnx
    return onnx.numpy_helper.from_array(np.asarray(arr))


@lowers("scale")
def _scale(ctx, op):
    dt = ctx.out_dtype(op)
    x = ctx.cast(ctx.input(op, "X"), dt, ctx.in_dtype(op, "X"))
    if op.inputs.get("ScaleTensor"):
        s = ctx.cast(ctx.input(op, "ScaleTensor"), dt, ctx.in_dtype(op, "ScaleTensor"))
    else:
        s = ctx.scalar(op.attrs.get("scale", 1.0), dt)
    if op.inputs.get("BiasTensor"):
        b = ctx.cast(ctx.input(op, "BiasTensor"), dt, ctx.in_dtype(op, "BiasTensor"))
    else:
        b = ctx.scalar(op.attrs.get("bias", 0.0), dt)
    if op.attrs.get("bias_after_scale", True):
        out = ctx.node("Add", [ctx.node("Mul", [x, s]), b])
    else:
        out = ctx.node("Mul", [ctx.node("Add", [x, b]), s])
    ctx.node("Identity", [out], [ctx.output(op)])


@lowers("sum")
def _sum(ctx, op):
    dt = ctx.out_dtype(op)
    xs = [ctx.cast(x, dt, ctx.in_dtype(op, "X", i)) for i, x in enumerate(ctx.inputs(op, "X"))]
    if len(xs) == 1:
        ctx.node("Identity", xs, [ctx.output(op)])
    else:
        ctx.node("Sum", xs, [ctx.output(op)])


@lowers("pow")
def _pow_scalar(ctx, op):
    dt = ctx.out_dtype(op)
    x = ctx.cast(ctx.input(op, "X"), dt, ctx.in_dtype(op, "X"))
    if op.inputs.get("FactorTensor"):
        f = ctx.cast(ctx.input(op, "FactorTensor"), dt, ctx.in_dtype(op, "FactorTensor"))
    else:
        f = ctx.scalar(op.attrs.get("factor", 1.0), dt)
    ctx.node("Pow", [x, f], [ctx.output(op)])


@lowers("clip")
def _clip(ctx, op):
    dt = ctx.out_dtype(op)
    x = ctx.input(op, "X")
    lo = (ctx.to_scalar(ctx.cast(ctx.input(op, "Min"), dt, ctx.in_dtype(op, "Min"))) if op.inputs.get("Min")
          else ctx.scalar(_clamp_attr(op.attrs.get("min"), dt), dt))
    hi = (ctx.to_scalar(ctx.cast(ctx.input(op, "Max"), dt, ctx.in_dtype(op, "Max"))) if op.inputs.get("Max")
          else ctx.scalar(_clamp_attr(op.attrs.get("max"), dt), dt))
    ctx.node("Clip", [x, lo, hi], [ctx.output(op)])


def _clamp_attr(v, dt):
    dt = np.dtype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return int(min(max(v, info.min), info.max))
    if dt.kind == "f":
        info = np.finfo(dt)
        return float(min(max(v, info.min), info.max))
    return v


@lowers("increment")
def _increment(ctx, op):
    dt = ctx.out_dtype(op)
    ctx.node("Add", [ctx.input(op, "X"), ctx.scalar(op.attrs.get("step", 1.0), dt)], [ctx.output(op)])


@lowers("where")
def _where(ctx, op):
    dt = ctx.out_dtype(op)
    c = ctx.cast(ctx.input(op, "Condition"), np.bool_, ctx.in_dtype(op, "Condition"))
    x = ctx.cast(ctx.input(op, "X"), dt, ctx.in_dtype(op, "X"))
    y = ctx.cast(ctx.input(op, "Y"), dt, ctx.in_dtype(op, "Y"))
    ctx.node("Where", [c, x, y], [ctx.output(op)])


@lowers("cast")
def _cast(ctx, op):
    ctx.node("Cast", [ctx.input(op, "X")], [ctx.output(op)], to=_onnx_type(ctx.out_dtype(op)))


def _onnx_type(dt):
    from .export import onnx_dtype
    return onnx_dtype(dt)


@lowers("cumsum")
def _cumsum(ctx, op):
    x = ctx.input(op, "X")
    axis = int(op.attrs.get("axis", -1))
    if op.attrs.get("flatten", False):
        x = ctx.reshape(x, [-1])
        axis = 0
    ctx.node("CumSum", [x, ctx.scalar(axis, np.int64)], [ctx.output(op)],
             exclusive=int(bool(op.attrs.get("exclusive", False))),
             reverse=int(bool(op.attrs.get("reverse", False))))


@lowers("stanh")
def _stanh(ctx, op):
    dt = ctx.out_dtype(op)
    x = unary_input(ctx, op)
    a = ctx.scalar(op.attrs.get("scale_a", 0.67), dt)
    b = ctx.scalar(op.attrs.get("scale_b", 1.7159), dt)
    ctx.node("Mul", [ctx.node("Tanh", [ctx.node("Mul", [x, a])]), b], [ctx.output(op)])
