"""Matrix, reduction and sequence functions: trace, mv, addmm(_), baddbmm(_), nansum, nanmean, nanmedian,
kthvalue, msort, trapezoid, cumulative_trapezoid, logspace, cdist, pdist (paddle.X and, where Paddle
has one, Tensor.X), with Paddle 3.3.1's argument checks and errors."""
from __future__ import annotations

import numpy as np

from ..dispatch import run_op
from ..dtype import convert_dtype
from ..tensor import tensor_method
from ._helpers import is_var
from .inplace_extra import _make
from .linalg import norm as _norm
from .param_alias import param_alias

__all__ = ["trace", "mv", "addmm", "baddbmm", "nansum", "nanmean", "nanmedian", "kthvalue", "msort", "trapezoid",
           "cumulative_trapezoid", "logspace", "cdist", "pdist", "addmm_", "baddbmm_"]


def _P():
    import runtime
    return runtime


def _tensor(x, api, what="x"):
    if not is_var(x):
        raise TypeError(f"{api}: {what} must be a Tensor, got {type(x).__name__}")


def _np_dtype(x):
    return x.dtype.np if hasattr(x.dtype, "np") else np.dtype(x.dtype)


@tensor_method
@param_alias(x="input")
def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """The sum of the diagonal (offset ``offset``) of the 2-D planes spanned by axis1 and axis2."""
    _tensor(x, "trace")
    return run_op("trace", x, offset=int(offset), axis1=int(axis1), axis2=int(axis2))


@tensor_method
def mv(x, vec, name=None):
    """The product of the matrix x [M, N] and the vector vec [N] (float tensors)."""
    _tensor(x, "mv")
    _tensor(vec, "mv", "vec")
    return run_op("mv", x, vec)


def _addmm_check(i, x, y):
    if not len(x) == len(y) == 2:
        raise ValueError(f"The dimension of x, y should be 2 but receive x's shape: {x}, y's shape: {y}")
    if x[1] != y[0]:
        raise ValueError(f"The input Variable x's width must be equal with Variable y' height. But received x's "
                         f"shape = {x}, y's shape = {y}.")
    if len(i) == 2:
        if i[0] != x[0]:
            if i[0] != 1:
                raise ValueError(f"When x's dimension[0] is not equal with input's dimension[0], input's "
                                 f"dimension[0] must be 1 but got {i[0]}")
            if i[1] != y[1] and i[1] != 1:
                raise ValueError(f"When y's dimension[1] is not equal with input's dimension[1], input's "
                                 f"dimension[1] must be 1 but got {i[1]}")
        if i[1] != y[1] and i[1] != 1:
            raise ValueError(f"When y's dimension[1] is not equal with input's dimension[1], input's "
                             f"dimension[1] must be 1 but got {i[1]}")
    elif len(i) == 1:
        if i[0] not in (y[1], 1):
            raise ValueError(f"The input's shape: {i} is not broadcastable with [x.shape[0], y.shape[1]]: "
                             f"[{x[0]},{y[1]}]")
    else:
        raise ValueError(f"The dimension of input should be 2 or 1 but receive input's shape: {i}")


def _baddbmm_check(i, x, y):
    if not len(x) == len(y) == 3:
        raise ValueError(f"The dimension of x, y should be 3 but receive x's shape: {x}, y's shape: {y}")
    if x[2] != y[1]:
        raise ValueError(f"The input Variable x's width must be equal with Variable y's height. But received x's "
                         f"shape = {x}, y's shape = {y}.")
    if len(i) == 3:
        for dim, ref in ((0, x[0]), (1, x[1]), (2, y[2])):
            if i[dim] != ref and i[dim] != 1:
                raise ValueError(f"If input's dimension[{dim}] is not equal to the product's dimension[{dim}] "
                                 f"({ref}), input's dimension[{dim}] must be 1. But received input's shape = {i}, "
                                 f"x's shape = {x}, y's shape = {y}")
    elif len(i) == 2:
        if i[0] != x[0]:
            raise ValueError(f"The batch size of input must be equal to the batch size of x. But received input's "
                             f"batch size = {i[0]}, x's batch size = {x[0]}")
        if i[1] not in (y[2], 1):
            raise ValueError(f"The input's shape: {i} is not broadcastable with [x.shape[0], x.shape[1], "
                             f"y.shape[2]]: [{x[0]},{x[1]},{y[2]}]")
    else:
        raise ValueError(f"The dimension of input should be 3 or 2 but received input's shape: {i}")


def _mm(op, check):
    def fn(input, x, y, beta=1.0, alpha=1.0, name=None):
        for v, what in ((input, "input"), (x, "x"), (y, "y")):
            _tensor(v, op, what)
        check(list(input.shape), list(x.shape), list(y.shape))
        return run_op(op, input, x, y, Beta=float(beta), Alpha=float(alpha))
    fn.__name__ = fn.__qualname__ = op
    product = "x @ y" if op == "addmm" else "bmm(x, y)"
    fn.__doc__ = f"beta * input + alpha * ({product}), input broadcast to the product's shape."
    return tensor_method(fn)


addmm = _mm("addmm", _addmm_check)
baddbmm = _mm("baddbmm", _baddbmm_check)


def _axis_list(axis):
    if axis is None:
        return None
    return [axis] if isinstance(axis, int) else list(axis)


@tensor_method
def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over ``axis`` treating NaN as 0 (int32 inputs give int64, as ``sum``)."""
    _tensor(x, "nansum")
    if not isinstance(axis, (int, list, tuple, type(None))):
        raise TypeError(f"nansum: axis must be int, list, tuple or None, got {type(axis).__name__}")
    P = _P()
    tmp = P.where(P.isnan(x), P.zeros_like(x), x)
    return P.sum(tmp, axis=axis, dtype=dtype, keepdim=keepdim)


@tensor_method
def nanmean(x, axis=None, keepdim=False, name=None):
    """Mean over ``axis`` of the non-NaN elements (NaN where all are NaN)."""
    _tensor(x, "nanmean")
    P = _P()
    axis = _axis_list(axis)
    cnt = P.sum(P.logical_not(P.isnan(x)), axis=axis, keepdim=keepdim)
    total = nansum(x, axis=axis, keepdim=keepdim)
    if _np_dtype(x).kind in "iu":      # integer division in Paddle promotes to float32
        return P.divide(P.cast(total, "float32"), P.cast(cnt, "float32"))
    return P.divide(total, P.cast(cnt, x.dtype))


@tensor_method
def nanmedian(x, axis=None, keepdim=False, mode="avg", name=None):
    """Median over ``axis`` ignoring NaN: 'avg' averages the two middle values, 'min' takes the lower one
    and, for a single int axis, also returns its index."""
    if not is_var(x):
        raise TypeError("In median, the input x should be a Tensor.")
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        raise ValueError("Axis list should not be empty.")
    if mode not in ("avg", "min"):
        raise ValueError(f"Mode {mode} is not supported. Must be avg or min.")
    need_index = axis is not None and not isinstance(axis, (list, tuple))
    axes = [] if axis is None else _axis_list(axis)
    out, index = run_op("nanmedian", x, axis=axes, keepdim=bool(keepdim), mode=mode)
    index.stop_gradient = True
    return (out, index) if mode == "min" and need_index else out


@tensor_method
def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """The k-th smallest value along ``axis`` (default the last) and its index."""
    _tensor(x, "kthvalue")
    out, idx = run_op("kthvalue", x, k=int(k), axis=-1 if axis is None else int(axis), keepdim=bool(keepdim))
    idx.stop_gradient = True
    return out, idx


def msort(input, *, out=None):
    """``input`` sorted along its first axis."""
    _tensor(input, "msort", "input")
    P = _P()
    res = P.sort(input, axis=0)
    if out is not None:
        P.assign(res, out)
        return out
    return res


def _trapezoid(y, x, dx, axis, cumulative):
    P = _P()
    if not (x is None or dx is None):
        raise ValueError("Not permitted to specify both x and dx input args.")
    if _np_dtype(y).kind != "f":
        raise TypeError(f"The data type of input must be Tensor, and dtype should be one of ['paddle.float16', "
                        f"'paddle.float32', 'paddle.float64'], but got {y.dtype}")
    length = y.shape[axis]
    if axis < 0:
        axis += len(y.shape)
    if x is None:
        dx = P.to_tensor(1.0 if dx is None else dx)
        if len(dx.shape) > 1:
            raise ValueError(f"Expected dx to be a scalar, got dx={dx}")
    else:
        if _np_dtype(x).kind != "f":
            raise TypeError(f"The data type of input must be Tensor, and dtype should be one of ['paddle.float16', "
                            f"'paddle.float32', 'paddle.float64'], but got {x.dtype}")
        if len(x.shape) == 1:
            dx = P.diff(x)
            shape = [1] * len(y.shape)
            shape[axis] = dx.shape[0]
            dx = P.reshape(dx, shape)
        else:
            dx = P.diff(x, axis=axis)
    pairs = P.gather(y, P.arange(1, length), axis=axis) + P.gather(y, P.arange(0, length - 1), axis=axis)
    total = (P.cumsum if cumulative else P.sum)(pairs * dx, axis=axis)
    return 0.5 * total


def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The trapezoid-rule integral of y along ``axis`` (sample points x, or spacing dx, default 1)."""
    _tensor(y, "trapezoid", "y")
    return _trapezoid(y, x, dx, axis, False)


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The running trapezoid-rule integral of y along ``axis``."""
    _tensor(y, "cumulative_trapezoid", "y")
    return _trapezoid(y, x, dx, axis, True)


tensor_method(msort)
tensor_method(trapezoid)
tensor_method(cumulative_trapezoid)


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """``num`` values base ** t for t evenly spaced from start to stop (start/stop/base read in ``dtype``)."""
    P = _P()
    d = convert_dtype(dtype if dtype is not None else P.get_default_dtype())
    if d.name not in ("int32", "int64", "float32", "float64"):
        raise TypeError(f"logspace: dtype must be int32, int64, float32 or float64, got {d.name}")
    if not is_var(num) and not isinstance(num, (int, float, np.number)):
        raise TypeError(f"The type of 'num' in logspace must be int, but received {type(num)}.")

    def one(v, dt):
        return v if is_var(v) else P.full([1], v, dtype=dt)
    return run_op("logspace", one(start, d), one(stop, d), one(num, "int32"), one(base, d), dtype=d.proto)


@tensor_method
def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """p-norm distances between the rows of x [.., R1, C] and y [.., R2, C]: [.., R1, R2]."""
    _tensor(x, "cdist")
    _tensor(y, "cdist", "y")
    P = _P()
    for v, what in ((x, "x"), (y, "y")):
        if _np_dtype(v) not in (np.float32, np.float64):
            raise TypeError(f"cdist: {what} must be float32 or float64, got {_np_dtype(v).name}")
    if not isinstance(p, (float, int)) or isinstance(p, bool):
        raise TypeError(f"The type of 'p' in cdist must be float or int, but received {type(p)}.")
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")
    if compute_mode not in modes:
        raise ValueError("The compute_mode should be 'use_mm_for_euclid_dist_if_necessary', 'use_mm_for_euclid_dist' "
                         f"or 'donot_use_mm_for_euclid_dist', but received compute_mode is {compute_mode}.")
    mode = modes.index(compute_mode)
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) < 2 or len(ys) < 2:
        raise AssertionError(f"The x and y must be at least 2-dimensional, got shapes {xs} and {ys}")
    if xs[-1] != ys[-1]:
        raise AssertionError(f"The x and y must have same last dimension, got {xs[-1]} and {ys[-1]}")
    if p < 0:
        raise AssertionError(f"The p must be greater than or equal to 0, But received p is {p}.\n")
    r1, r2, c1 = xs[-2], ys[-2], xs[-1]
    p = float(p)
    if r1 == 0 or r2 == 0:
        return P.empty((r1, r2), dtype=x.dtype)
    if c1 == 0:
        return P.zeros((r1, r2), dtype=x.dtype)
    if p == 2.0 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        # |x|^2 - 2 x.y + |y|^2, clipped at 0: the matrix-product form Paddle uses for many rows
        nd = len(ys)
        x_norm = P.sum(P.pow(x, 2), axis=-1, keepdim=True)
        y_norm = P.sum(P.pow(y, 2), axis=-1, keepdim=True)
        perm = list(range(nd - 2)) + [nd - 1, nd - 2]
        res = P.matmul(x, P.transpose(y, perm)) * -2 + P.transpose(y_norm, perm) + x_norm
        return P.sqrt(P.clip(res, min=0.0))
    return _norm(P.unsqueeze(x, -2) - P.unsqueeze(y, -3), p=p, axis=-1)


def pdist(x, p=2.0, name=None):
    """The p-norm distances between every pair of rows of the 2-D x, upper triangle row by row."""
    _tensor(x, "pdist")
    P = _P()
    if len(x.shape) != 2:
        raise AssertionError("The x must be 2-dimensional")
    d = _norm(P.unsqueeze(x, -2) - P.unsqueeze(x, -3), p=p, axis=-1)
    mask = P.logical_not(P.tril(P.ones(d.shape, dtype="bool")))
    return P.masked_select(d, mask)


def _inplace(api, fn):
    made = _make(api, fn)
    tensor_method(made, name=api)
    return made


addmm_ = _inplace("addmm_", addmm)
baddbmm_ = _inplace("baddbmm_", baddbmm)
