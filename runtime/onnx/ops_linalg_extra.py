"""ONNX lowerings of the later linear-algebra and norm ops: einsum and bilinear_tensor_product (Einsum),
cross, dist, kron, renorm, matrix_power, multi_dot and spectral_norm (power iteration, unrolled).

The same formulas as the kernels in runtime/ops (math.py, linalg.py, tensor_extra.py, bilinear.py,
spectral_norm.py), in the same order of operations where the order matters for rounding; shapes that
a composite needs (kron's, spectral_norm's matrix view, matrix_power's identity) must be known.
"""
from __future__ import annotations

import string

import numpy as np

from .lowering import lowers, unsupported


def _cast_in(ctx, op, slot, dt, i=0):
    return ctx.cast(ctx.inputs(op, slot)[i], dt, ctx.in_dtype(op, slot, i))


def _emit(ctx, op, value, slot="Out"):
    ctx.node("Identity", [value], [ctx.output(op, slot)])


# -- Einsum ------------------------------------------------------------------------------------------------

def _onnx_equation(op, eq):
    """Paddle's (numpy's) equation as ONNX Einsum takes it: explicit output, lowercase letters only."""
    eq = eq.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    letters = [c for c in lhs if c.isalpha()]
    if not arrow:   # implicit output: the letters used once, sorted, after the broadcast dims
        once = sorted(c for c in set(letters) if letters.count(c) == 1)
        rhs = ("..." if "..." in lhs else "") + "".join(once)
    used = sorted(set(letters) | set(c for c in rhs if c.isalpha()))
    if any(c.isupper() for c in used):
        free = [c for c in string.ascii_lowercase if c not in used]
        upper = [c for c in used if c.isupper()]
        if len(upper) > len(free):
            raise unsupported(op, f"'einsum' equation {eq!r} uses more than 26 distinct letters")
        table = str.maketrans(dict(zip(upper, free)))
        lhs, rhs = lhs.translate(table), rhs.translate(table)
    return f"{lhs}->{rhs}"


@lowers("einsum")
def _einsum(ctx, op):
    dt = np.dtype(ctx.out_dtype(op))
    ins = [_cast_in(ctx, op, "Operands", dt, i) for i in range(len(op.inputs["Operands"]))]
    _emit(ctx, op, ctx.node("Einsum", ins, equation=_onnx_equation(op, op.attrs["equation"])))


@lowers("bilinear_tensor_product")
def _bilinear(ctx, op):
    """out[n, o] = x[n, i] W[o, i, j] y[n, j] (+ Bias[o])."""
    dt = np.dtype(ctx.out_dtype(op))
    x, y, w = (_cast_in(ctx, op, s, dt) for s in ("X", "Y", "Weight"))
    out = ctx.node("Einsum", [x, w, y], equation="ni,oij,nj->no")
    if op.inputs.get("Bias"):
        out = ctx.node("Add", [out, _cast_in(ctx, op, "Bias", dt)])
    _emit(ctx, op, out)


# -- cross / dist / kron / renorm ---------------------------------------------------------------------------

@lowers("cross")
def _cross(ctx, op):
    shape = ctx.in_shape(op, "X")
    dim = int(op.attrs.get("dim", 9))
    if dim == 9:   # Paddle's "no axis": the first axis of size 3
        axes = [i for i, d in enumerate(shape) if d == 3]
        if not axes:
            raise unsupported(op, f"'cross' without an axis on shape {shape} (no known axis of size 3)")
        dim = axes[0]
    dim %= len(shape)
    dt = np.dtype(ctx.out_dtype(op))
    a = ctx.split(_cast_in(ctx, op, "X", dt), [1, 1, 1], dim)
    b = ctx.split(_cast_in(ctx, op, "Y", dt), [1, 1, 1], dim)

    def term(i, j):
        return ctx.node("Sub", [ctx.node("Mul", [a[i], b[j]]), ctx.node("Mul", [a[j], b[i]])])
    _emit(ctx, op, ctx.node("Concat", [term(1, 2), term(2, 0), term(0, 1)], axis=dim))


@lowers("dist")
def _dist(ctx, op):
    """The p-norm of x - y over all elements, as _norm_along in runtime/ops/math.py."""
    dt = np.dtype(ctx.out_dtype(op))
    d = ctx.node("Sub", [_cast_in(ctx, op, "X", dt), _cast_in(ctx, op, "Y", dt)])
    p = float(op.attrs.get("p", 2.0))
    if p == 0:
        out = ctx.reduce("ReduceSum", ctx.cast(ctx.node("Not", [ctx.node("Equal", [d, ctx.scalar(0, dt)])]), dt,
                                               np.bool_))
    elif np.isinf(p):
        out = ctx.reduce("ReduceMax" if p > 0 else "ReduceMin", ctx.node("Abs", [d]))
    elif p == 2:
        out = ctx.node("Sqrt", [ctx.reduce("ReduceSum", ctx.node("Mul", [d, d]))])
    elif p == 1:
        out = ctx.reduce("ReduceSum", ctx.node("Abs", [d]))
    else:
        s = ctx.reduce("ReduceSum", ctx.node("Pow", [ctx.node("Abs", [d]), ctx.scalar(p, dt)]))
        out = ctx.node("Pow", [s, ctx.scalar(1.0 / p, dt)])
    _emit(ctx, op, out)


@lowers("kron")
def _kron(ctx, op):
    xs, ys = ctx.in_shape(op, "X"), ctx.in_shape(op, "Y")
    rank = max(len(xs), len(ys))
    xs, ys = [1] * (rank - len(xs)) + xs, [1] * (rank - len(ys)) + ys
    if any(d < 0 for d in xs + ys):
        raise unsupported(op, f"'kron' on unknown shapes {xs} and {ys}")
    dt = np.dtype(ctx.out_dtype(op))
    x = ctx.reshape(_cast_in(ctx, op, "X", dt), [v for d in xs for v in (d, 1)])
    y = ctx.reshape(_cast_in(ctx, op, "Y", dt), [v for d in ys for v in (1, d)])
    _emit(ctx, op, ctx.reshape(ctx.node("Mul", [x, y]), [a * b for a, b in zip(xs, ys)]))


@lowers("renorm")
def _renorm(ctx, op):
    """Slices along ``axis`` whose p-norm exceeds max_norm are scaled by max_norm / norm (no epsilon)."""
    shape = ctx.in_shape(op, "X")
    axis = int(op.attrs["axis"]) % len(shape)
    others = [i for i in range(len(shape)) if i != axis]
    dt = np.dtype(ctx.out_dtype(op))
    x = ctx.input(op, "X")
    p, max_norm = float(op.attrs["p"]), ctx.scalar(op.attrs["max_norm"], dt)
    s = ctx.reduce("ReduceSum", ctx.node("Pow", [ctx.node("Abs", [x]), ctx.scalar(p, dt)]), others, True)
    norm = ctx.node("Pow", [s, ctx.scalar(1.0 / p, dt)])
    scale = ctx.node("Where", [ctx.node("Greater", [norm, max_norm]), ctx.node("Div", [max_norm, norm]),
                               ctx.scalar(1, dt)])
    _emit(ctx, op, ctx.node("Mul", [x, scale]))


# -- matrix products ----------------------------------------------------------------------------------------------

@lowers("matrix_power")
def _matrix_power(ctx, op):
    """Binary exponentiation as numpy's matrix_power: squares of x, multiplied in from the lowest bit."""
    n = int(op.attrs["n"])
    shape = ctx.in_shape(op, "X")
    x = ctx.input(op, "X")
    if n < 0:
        raise unsupported(op, "'matrix_power' with a negative power (ONNX has no matrix inverse)")
    if n == 0:
        if shape[-1] < 0:
            raise unsupported(op, "'matrix_power' with n = 0 on an unknown matrix size")
        eye = ctx.const(np.eye(shape[-1], dtype=ctx.in_dtype(op, "X")))
        _emit(ctx, op, ctx.node("Expand", [eye, ctx.node("Shape", [x])]))
        return
    result, z = None, None
    while n > 0:
        z = x if z is None else ctx.node("MatMul", [z, z])
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else ctx.node("MatMul", [result, z])
    _emit(ctx, op, result)


@lowers("multi_dot")
def _multi_dot(ctx, op):
    """Left to right (a 1-D first / last operand is a row / column vector, as MatMul treats it)."""
    ins = ctx.inputs(op, "X")
    out = ins[0]
    for m in ins[1:]:
        out = ctx.node("MatMul", [out, m])
    _emit(ctx, op, out)


@lowers("spectral_norm")
def _spectral_norm(ctx, op):
    """Weight / sigma with sigma from ``power_iters`` rounds of power iteration on copies of U and V."""
    shape = ctx.in_shape(op, "Weight")
    if any(d < 0 for d in shape):
        raise unsupported(op, f"'spectral_norm' of a weight of unknown shape {shape}")
    dim = int(op.attrs.get("dim", 0))
    dt = np.dtype(ctx.in_dtype(op, "Weight"))
    eps = ctx.scalar(op.attrs.get("eps", 1e-12), dt)
    w = ctx.input(op, "Weight")
    perm = [dim] + [i for i in range(len(shape)) if i != dim]
    mat = ctx.reshape(ctx.node("Transpose", [w], perm=perm) if dim else w, [shape[dim], -1])   # [h, w]
    # u and v as a row and a column: W^T u is u_row @ W, which keeps onnxruntime's Transpose + MatMul fusion
    # out (it mis-computes a transposed matrix times a 1-D vector, measured with onnxruntime 1.32)
    u = ctx.reshape(_cast_in(ctx, op, "U", dt), [1, -1])

    def normalize(t):
        return ctx.node("Div", [t, ctx.node("Add", [ctx.node("Sqrt", [ctx.reduce("ReduceSum", ctx.node(
            "Mul", [t, t]))]), eps])])
    v = None
    for _ in range(int(op.attrs.get("power_iters", 1))):
        v = ctx.reshape(normalize(ctx.node("MatMul", [u, mat])), [-1, 1])                       # [w, 1]
        u = ctx.reshape(normalize(ctx.node("MatMul", [mat, v])), [1, -1])                       # [1, h]
    if v is None:
        v = ctx.reshape(_cast_in(ctx, op, "V", dt), [-1, 1])
    sigma = ctx.reduce("ReduceSum", ctx.node("Mul", [ctx.reshape(u, [-1, 1]), ctx.node("MatMul", [mat, v])]))
    _emit(ctx, op, ctx.node("Div", [w, sigma]))
