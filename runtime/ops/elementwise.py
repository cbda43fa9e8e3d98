"""Binary elementwise ops (elementwise_add/sub/mul/div/pow/max/min/floordiv/mod) and their grads.

Paddle's legacy ``axis`` attribute aligns a lower-rank Y to X starting at dimension
``axis``; -1 means ordinary numpy broadcasting. Gradients are dedicated ``*_grad`` ops
that reduce the broadcast dimensions away at run time, so they work for static programs
with unknown (-1) dimensions too. Operands of different dtypes are promoted (or refused with
a TypeError) by Paddle's rules in promotion.py, in the kernels and in infer_meta alike.
"""
from __future__ import annotations

import numpy as np

from .meta import broadcast_shapes
from .promotion import promote_arrays, result_dtype
from .registry import Meta, register, grad_op

_AXIS = {"axis": ("INT", -1)}


def align(x, y, axis):
    """Reshape the lower-rank operand so it starts at dimension ``axis`` of the other."""
    if axis == -1 or x.ndim == y.ndim:
        return x, y
    if x.ndim > y.ndim:
        return x, y.reshape(y.shape + (1,) * (x.ndim - axis - y.ndim))
    return x.reshape(x.shape + (1,) * (y.ndim - axis - x.ndim)), y


def unbroadcast(g, shape):
    """Sum ``g`` down to ``shape`` (undo numpy broadcasting)."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape) if d == 1 and g.shape[i + lead] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


def _grad_pair(x, y, dout, axis, gx, gy):
    """Reduce the elementwise grads ``gx``/``gy`` (full output shape) back to x and y's shapes."""
    if axis != -1 and x.ndim != y.ndim:
        if x.ndim > y.ndim:
            ys = y.shape + (1,) * (x.ndim - axis - y.ndim)
            return (None if gx is None else unbroadcast(gx, x.shape).astype(x.dtype, copy=False),
                    None if gy is None else unbroadcast(gy, ys).reshape(y.shape).astype(y.dtype, copy=False))
        xs = x.shape + (1,) * (y.ndim - axis - x.ndim)
        return (None if gx is None else unbroadcast(gx, xs).reshape(x.shape).astype(x.dtype, copy=False),
                None if gy is None else unbroadcast(gy, y.shape).astype(y.dtype, copy=False))
    return (None if gx is None else unbroadcast(gx, x.shape).astype(x.dtype, copy=False),
            None if gy is None else unbroadcast(gy, y.shape).astype(y.dtype, copy=False))


def _make_kernel_factory(op_type, fn):
    def make(axis=-1):
        if axis == -1:
            return lambda x, y: fn(*promote_arrays(op_type, x, y)) if x.dtype != y.dtype else fn(x, y)
        return lambda x, y: fn(*align(*promote_arrays(op_type, x, y), axis))
    return make


def _promoting_meta(op_type):
    def meta(x, y, axis=-1, **_):
        return Meta(broadcast_shapes(x.shape, y.shape, axis),
                    result_dtype(op_type, x.dtype, len(x.shape), y.dtype, len(y.shape)))
    return meta


def _add_grad(x, y, d):
    return d, d


def _sub_grad(x, y, d):
    return d, -d


def _mul_grad(x, y, d):
    if x.dtype.kind == "c":   # Paddle's complex grads (dL/dRe + i dL/dIm) take the other factor's conjugate
        return d * np.conj(y), d * np.conj(x)
    return d * y, d * x


def _div_grad(x, y, out, d):
    if x.dtype.kind == "c":
        gx = d / np.conj(y)
        return gx, -gx * np.conj(out)
    gx = d / y
    return gx, -gx * out


def _pow_grad(x, y, d):
    gx = d * y * np.power(x, y - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        logx = np.where(x > 0, np.log(np.where(x > 0, x, 1)), 0)
    gy = d * np.power(x, y) * logx
    return gx, gy


def _max_grad(x, y, d):
    mask = x >= y   # ties go to X, as in Paddle
    return d * mask, d * ~mask


def _min_grad(x, y, d):
    mask = x <= y
    return d * mask, d * ~mask


def _true_divide(x, y):
    if x.dtype.kind == "b" and y.dtype.kind == "b":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.true_divide(x, y).astype(np.bool_)   # Paddle keeps bool / bool in bool
    if x.dtype.kind in "iub" and y.dtype.kind in "iub":
        # Paddle divides integers exactly into float32, whatever the default float dtype
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.true_divide(x, y, dtype=np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(x, y)


def _floordiv(x, y):
    if x.dtype.kind in "iu" and np.any(y == 0):
        raise ZeroDivisionError("integer division by zero in floor_divide")
    return np.floor_divide(x, y)


def _mod(x, y):
    if x.dtype.kind in "iu" and np.any(y == 0):
        raise ZeroDivisionError("integer division by zero in remainder")
    return np.mod(x, y)


def _pow(x, y):
    if x.dtype.kind in "iu" and y.dtype.kind in "iu" and np.any(y < 0):
        raise ValueError("integers to negative integer powers are not allowed; cast to float first")
    return np.power(x, y)


# elementwise_add_grad of a row bias (every Linear's: Y of shape [n] added along the last axis of an X
# shaped like Out@GRAD) is Out@GRAD itself and its sum over the leading axes: the one reduction the
# general kernel ends in (same ufunc reduction over the same axes, so the same bits), without its ~1.5 µs
# of alignment, promotion and unbroadcast bookkeeping (a training step has one per Linear).
_LEAD_AXES = {n: tuple(range(n - 1)) for n in range(2, 33)}
_add_reduce = np.add.reduce


def _row_bias_grads(x, y, d):
    """(X@GRAD, Y@GRAD) for a row bias, or None when the operands are not that case (dtypes compared by
    identity: numpy's float dtypes are singletons, and another equal dtype object takes the general kernel)."""
    dt = d.dtype
    if (y.ndim == 1 and d.ndim >= 2 and x.dtype is dt and y.dtype is dt and dt.kind == "f"
            and x.shape == d.shape and d.shape[-1] == y.shape[0]):
        return d, _add_reduce(d, axis=_LEAD_AXES.get(d.ndim) or tuple(range(d.ndim - 1)))
    return None


def _row_bias_kernel(general):
    def kernel(x, y, dout, axis=-1):
        if axis == -1 or axis == x.ndim - 1:
            res = _row_bias_grads(x, y, dout)
            if res is not None:
                return res
        return general(x, y, dout, axis=axis)
    return kernel


def _row_bias_factory(general):
    def make(axis=-1):
        if axis != -1:
            return lambda x, y, dout: (_row_bias_grads(x, y, dout) if axis == x.ndim - 1 else None) or \
                general(x, y, dout, axis=axis)

        def kernel(x, y, d):     # (_row_bias_grads inlined: this runs once per Linear in a training step)
            dt = d.dtype
            if (y.ndim == 1 and d.ndim == 2 and x.dtype is dt and y.dtype is dt and dt.kind == "f"
                    and x.shape == d.shape and d.shape[1] == y.shape[0]):
                return d, _add_reduce(d, axis=0)
            return _row_bias_grads(x, y, d) or general(x, y, d, axis=-1)
        return kernel
    return make


for _name, _fn, _g, _needs in (
        ("elementwise_add", np.add, _add_grad, ("X", "Y")),
        ("elementwise_sub", np.subtract, _sub_grad, ("X", "Y")),
        ("elementwise_mul", np.multiply, _mul_grad, ("X", "Y")),
        ("elementwise_div", _true_divide, _div_grad, ("X", "Y", "Out")),
        ("elementwise_pow", _pow, _pow_grad, ("X", "Y")),
        ("elementwise_max", np.maximum, _max_grad, ("X", "Y")),
        ("elementwise_min", np.minimum, _min_grad, ("X", "Y")),
        ("elementwise_floordiv", _floordiv, None, ()),
        ("elementwise_mod", _mod, None, ())):
    def _kernel(x, y, axis=-1, _fn=_fn, _name=_name):
        if x.dtype != y.dtype:
            x, y = promote_arrays(_name, x, y)
        if axis != -1:
            x, y = align(x, y, axis)
        return _fn(x, y)
    _op = register(_name, ["X", "Y"], ["Out"], _AXIS, kernel=_kernel, infer_meta=_promoting_meta(_name),
                   make_kernel=_make_kernel_factory(_name, _fn),
                   differentiable=("X", "Y") if _g is not None else ())
    if _g is not None:
        def _gkernel(x, y, *rest, axis=-1, _g=_g, _name=_name):
            xa, ya = align(*promote_arrays(_name, x, y), axis)
            gx, gy = _g(xa, ya, *rest)
            if xa.dtype.kind == "c":   # a real operand of a complex op gets the real part of its gradient
                gx = gx.real if x.dtype.kind != "c" else gx
                gy = gy.real if y.dtype.kind != "c" else gy
            return _grad_pair(x, y, rest[-1], axis, gx, gy)
        if _name == "elementwise_add":
            grad_op(_name, list(_needs) + ["Out@GRAD"], ["X@GRAD", "Y@GRAD"], _row_bias_kernel(_gkernel),
                    make_kernel=_row_bias_factory(_gkernel), differentiable=("Out@GRAD",))
        else:
            grad_op(_name, list(_needs) + ["Out@GRAD"], ["X@GRAD", "Y@GRAD"], _gkernel)


# -- higher-order gradients ------------------------------------------------------------------
# With create_graph=True the backward must itself be differentiable, so the rules below
# express each gradient with forward ops. ``elementwise_add_grad`` (sum a full-shape
# gradient down to X's and Y's shapes) is the one reduction they need; it is linear in
# its Out@GRAD input, so its own gradient is a broadcasting add.

def _sum_to(ctx, full_x=None, full_y=None):
    """Reduce full-shape grads to the shapes of X and Y with elementwise_add_grad."""
    from ..dispatch import run_op
    x, y = ctx.inputs
    axis = ctx.attr("axis")
    gx = run_op("elementwise_add_grad", x, y, full_x, axis=axis)[0] if full_x is not None else None
    gy = run_op("elementwise_add_grad", x, y, full_y, axis=axis)[1] if full_y is not None else None
    return gx, gy


def _add_grad_grad(ctx, ddx, ddy):
    from ..dispatch import run_op
    x, y, dout = ctx.inputs
    acc = run_op("scale", dout, scale=0.0)   # zeros of Out@GRAD's (broadcast) shape
    for dd in (ddx, ddy):
        if dd is not None:
            acc = run_op("elementwise_add", acc, dd, axis=-1)
    return None, None, acc


def _is_complex(*ts):
    return any(t.dtype.np.kind == "c" for t in ts)


def _composite(op_type):
    from ..dispatch import run_op

    def rule(ctx, dout):
        x, y = ctx.inputs
        if op_type == "elementwise_add":
            return _sum_to(ctx, dout, dout)
        if op_type == "elementwise_sub":
            return _sum_to(ctx, dout, run_op("scale", dout, scale=-1.0))
        if op_type in ("elementwise_mul", "elementwise_div") and _is_complex(x, y, dout):
            x, y = run_op("conj", x), run_op("conj", y)   # Paddle's complex grads conjugate (see _mul_grad)
        if op_type == "elementwise_mul":
            return _sum_to(ctx, run_op("elementwise_mul", dout, y), run_op("elementwise_mul", dout, x))
        if op_type == "elementwise_div":
            gx = run_op("elementwise_div", dout, y)
            gy = run_op("scale", run_op("elementwise_div", run_op("elementwise_mul", gx, x), y), scale=-1.0)
            return _sum_to(ctx, gx, gy)
        if op_type == "elementwise_pow":
            out = run_op("elementwise_pow", x, y)
            gx = run_op("elementwise_mul", dout, run_op("elementwise_div", run_op("elementwise_mul", out, y), x))
            gy = run_op("elementwise_mul", run_op("elementwise_mul", dout, out), run_op("log", x))
            return _sum_to(ctx, gx, gy)
        raise AssertionError(op_type)
    return rule


def _with_higher_order(op_type):
    """Use the fast grad op normally, the composite rule when the backward is being recorded."""
    from ..framework import state
    fwd = _lookup(op_type)
    fast, composite = fwd.grad, _composite(op_type)

    def rule(ctx, *douts):
        if state.grad_enabled and not state.static:
            return composite(ctx, *douts)
        return fast(ctx, *douts)
    fwd.grad = rule


from .registry import lookup as _lookup  # noqa: E402
_lookup("elementwise_add_grad").grad = _add_grad_grad
for _t in ("elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div", "elementwise_pow"):
    _with_higher_order(_t)
