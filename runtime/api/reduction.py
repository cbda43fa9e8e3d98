"""Reductions: sum, mean, max/min, amax/amin, prod, all/any, var/std, median, count_nonzero.

``axis=None`` (or every axis) reduces the whole tensor to a 0-D result; ``keepdim`` keeps
reduced dimensions as size 1. var/std/median are composites of registered ops.
"""
from __future__ import annotations

import builtins
import numbers

import numpy as np

from ..dtype import default_float
from ..dispatch import run_op
from ..tensor import Tensor, tensor_method
from ..ops.meta import normalize_axis
from .arg_checks import static_check_dtype
from .creation import dtype_code
from .param_alias import param_alias
from ._helpers import is_var

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "prod", "all", "any", "var", "std", "median",
           "count_nonzero"]


def _np_dtype(x):
    d = x.dtype
    return d.np if hasattr(d, "np") else np.dtype(d)


def reduce_axes(x, axis, op):
    """(dim, reduce_all) attrs for a user ``axis``: None, an int, a list/tuple, or a tensor."""
    if isinstance(axis, Tensor):
        axis = [int(v) for v in axis.numpy().reshape(-1)]
    if axis is None:
        return [], True
    if isinstance(axis, (numbers.Integral, np.integer)) and not isinstance(axis, bool):
        axis = [int(axis)]
    if not isinstance(axis, (list, tuple)) or not builtins.all(
            isinstance(a, (numbers.Integral, np.integer)) and not isinstance(a, bool) for a in axis):
        raise TypeError(f"{op}: axis must be None, an int, or a list/tuple of ints, got {axis!r}")
    ndim = len(x.shape)
    dims = [normalize_axis(int(a), ndim, "axis") if ndim else int(a) for a in axis]
    if ndim == 0:
        for a in axis:
            normalize_axis(int(a), 0, "axis")
    if len(set(dims)) != len(dims):
        raise ValueError(f"{op}: axis {list(axis)} names the same dimension more than once")
    if len(dims) == 0 or len(dims) == ndim:
        return [], True
    return [int(a) for a in axis], False


def _reduce(op_type, x, axis, keepdim, name, **attrs):
    if not is_var(x):
        from .arg_checks import ArgumentTypeError
        raise ArgumentTypeError(f"{name}: x must be a Tensor, got {type(x).__name__}; convert it with "
                                "paddle.to_tensor first")
    dim, reduce_all = reduce_axes(x, axis, name)
    return run_op(op_type, x, dim=dim, keep_dim=bool(keepdim), reduce_all=reduce_all, **attrs)


@tensor_method
def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over ``axis``; bool and int32 inputs give int64 unless ``dtype`` says otherwise."""
    attrs = {}
    if dtype is not None:
        attrs = {"in_dtype": dtype_code(x.dtype), "out_dtype": dtype_code(dtype)}
    return _reduce("reduce_sum", x, axis, keepdim, "sum", **attrs)


@tensor_method
@param_alias(x="input", axis="dim")
def mean(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_mean", x, axis, keepdim, "mean")


@tensor_method
def max(x, axis=None, keepdim=False, name=None):
    """Maximum over ``axis``; the gradient is shared equally between tied maxima."""
    return _reduce("reduce_max", x, axis, keepdim, "max")


@tensor_method
def min(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_min", x, axis, keepdim, "min")


@tensor_method
def amax(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_max", x, axis, keepdim, "amax")


@tensor_method
def amin(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_min", x, axis, keepdim, "amin")


@tensor_method
@param_alias(x="input", axis="dim")
def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    attrs = {}
    if dtype is not None:
        attrs = {"in_dtype": dtype_code(x.dtype), "out_dtype": dtype_code(dtype)}
    return _reduce("reduce_prod", x, axis, keepdim, "prod", **attrs)


@tensor_method
def all(x, axis=None, keepdim=False, name=None):
    dim, reduce_all = reduce_axes(x, axis, "all")
    return run_op("reduce_all", x, None, None, dim=dim, keep_dim=bool(keepdim), reduce_all=reduce_all)


@tensor_method
def any(x, axis=None, keepdim=False, name=None):
    dim, reduce_all = reduce_axes(x, axis, "any")
    return run_op("reduce_any", x, None, None, dim=dim, keep_dim=bool(keepdim), reduce_all=reduce_all)


def _as_float(x, op):
    kind = _np_dtype(x).kind
    if kind in "fc":
        return x
    if kind in "iub":
        return run_op("cast", x, in_dtype=dtype_code(x.dtype), out_dtype=default_float().proto)
    raise TypeError(f"{op}: unsupported dtype {x.dtype}")


def _reduced_count(x, dim, reduce_all, keepdim):
    """Elements per output: an int, or (static programs with a -1 dim) a tensor shaped like the result."""
    shape = list(x.shape)
    axes = range(len(shape)) if reduce_all else [normalize_axis(a, len(shape)) for a in dim]
    sizes = [shape[a] for a in axes]
    if -1 not in sizes:
        return int(np.prod(sizes, dtype=np.int64))
    ones = run_op("fill_any_like", x, value=1.0, dtype=-1)
    return run_op("reduce_sum", ones, dim=list(dim), keep_dim=bool(keepdim), reduce_all=reduce_all)


@tensor_method
def var(x, axis=None, unbiased=None, keepdim=False, name=None, *, correction=1):
    """Variance over ``axis``, divided by ``N - correction`` (``unbiased=False`` means correction 0)."""
    if unbiased is not None:
        correction = 1 if unbiased else 0
    static_check_dtype(x.dtype, "x", ("float16", "float32", "float64"), "var")
    x = _as_float(x, "var")
    npd = _np_dtype(x)
    dim, reduce_all = reduce_axes(x, axis, "var")
    m = run_op("reduce_mean", x, dim=dim, keep_dim=True, reduce_all=reduce_all)
    d = run_op("elementwise_sub", x, m)
    ss = run_op("reduce_sum", run_op("elementwise_mul", d, d), dim=dim, keep_dim=bool(keepdim),
                reduce_all=reduce_all)
    n = _reduced_count(x, dim, reduce_all, keepdim)
    if isinstance(n, int):
        return run_op("elementwise_div", ss, np.asarray(n - correction, dtype=npd))
    return run_op("elementwise_div", ss, run_op("elementwise_sub", n, np.asarray(correction, dtype=npd)))


@tensor_method
def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Standard deviation: the square root of `var`."""
    static_check_dtype(x.dtype, "x", ("float16", "float32", "float64"), "std")
    v = var(x, axis, unbiased, keepdim)
    return run_op("elementwise_pow", v, np.asarray(0.5, dtype=_np_dtype(v)))


@tensor_method
@param_alias(x="input", axis="dim")
def median(x, axis=None, keepdim=False, mode="avg", name=None):
    """Median over ``axis``. ``mode='avg'`` averages the two middle values of an even count;
    ``mode='min'`` takes the lower one and, when ``axis`` is given, also returns its indices."""
    if mode not in ("avg", "min"):
        raise ValueError(f"median: mode must be 'avg' or 'min', got {mode!r}")
    shape = list(x.shape)
    if axis is None:
        src = run_op("reshape2", x, None, None, shape=[-1]) if len(shape) != 1 else x
        ax = 0
    else:
        if not isinstance(axis, (numbers.Integral, np.integer)):
            raise TypeError(f"median: axis must be an int or None, got {axis!r}")
        ax = normalize_axis(int(axis), len(shape), "axis") if shape else 0
        src = x
    n = int(np.prod(shape, dtype=np.int64)) if axis is None else (shape[ax] if shape else 1)
    if n == -1 or (axis is None and -1 in shape):
        raise ValueError("median: the reduced dimension must be known (it is -1 in this static program)")
    if n == 0:
        raise ValueError(f"median: cannot take the median over an empty dimension (x has shape {shape})")
    if mode == "avg" and _np_dtype(src).kind not in "fc":
        src = _as_float(src, "median")
    vals, idx = run_op("argsort", src, axis=ax if len(src.shape) else -1)
    # weights picking the middle element(s) of the sorted axis
    lo = (n - 1) // 2
    w = np.zeros(n, dtype=_np_dtype(vals) if _np_dtype(vals).kind in "fc" else np.int64)
    if mode == "avg" and n % 2 == 0:
        w[lo] = w[lo + 1] = 0.5
    else:
        w[lo] = 1
    rank = len(src.shape)
    if rank:
        w = w.reshape([n if i == ax else 1 for i in range(rank)])
    else:
        w = w.reshape(())
    red = dict(dim=[ax] if rank else [], keep_dim=bool(keepdim) and axis is not None, reduce_all=rank <= 1)
    out = run_op("reduce_sum", run_op("elementwise_mul", vals, w), **red)
    if axis is None:
        if keepdim:
            out = run_op("reshape2", out, None, None, shape=[1] * len(shape))
        return out
    if mode == "min":
        index = run_op("reduce_sum", run_op("elementwise_mul", idx, w.astype(np.int64)), **red)
        return out, index
    return out


@tensor_method
def count_nonzero(x, axis=None, keepdim=False, name=None):
    """Number of nonzero elements over ``axis`` (int64)."""
    nz = run_op("not_equal", x, np.zeros((), dtype=_np_dtype(x)))
    return _reduce("reduce_sum", nz, axis, keepdim, "count_nonzero")
