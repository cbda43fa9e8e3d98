"""Reductions: reduce_sum/mean/max/min/prod/all/any and mean (all elements), with grads.

``dim`` lists the reduced axes; an empty ``dim`` or ``reduce_all`` reduces every axis
(Paddle's convention; jit.save writes full reductions as ``dim=[], reduce_all=True``).
``out_dtype`` is a VarType number (-1: unset). Like Paddle, reduce_sum of bool or int32
gives int64 when ``out_dtype`` is unset; reduce_mean of an integer tensor keeps the
integer dtype (truncating toward zero).
"""
from __future__ import annotations

import numpy as np

from ..dtype import from_proto
from .lastaxis import SUM_MIN_SIZE, extreme_ok, row_extreme, row_sum, sum_ok
from .meta import normalize_axis, reduce_shape
from .registry import Meta, register, grad_op

_ATTRS = {"dim": ("INTS", [0]), "keep_dim": ("BOOLEAN", False), "reduce_all": ("BOOLEAN", False),
          "in_dtype": ("INT", -1), "out_dtype": ("INT", -1)}
_BOOL_ATTRS = dict(_ATTRS, dim=("LONGS", [0]))


def reduce_axes(ndim, dim, reduce_all):
    """The reduced axes as a sorted tuple (every axis for reduce_all / empty dim / 0-D input)."""
    if reduce_all or dim is None or len(dim) == 0 or ndim == 0:
        if ndim == 0 and dim:
            for a in dim:
                normalize_axis(int(a), 0, "dim")
        return tuple(range(ndim))
    axes = [normalize_axis(int(a), ndim, "dim") for a in dim]
    if len(set(axes)) != len(axes):
        raise ValueError(f"reduction axes {list(dim)} name the same dimension more than once")
    return tuple(sorted(axes))


def _out_np_dtype(x_dtype, out_dtype, op):
    if out_dtype is not None and out_dtype != -1:
        return from_proto(int(out_dtype)).np
    if op == "reduce_sum" and (x_dtype == np.bool_ or x_dtype == np.int32):
        return np.dtype(np.int64)
    return np.dtype(x_dtype)


def _keep_shape(shape, axes):
    """``shape`` with the reduced axes set to 1 (the keep_dim form, used to broadcast back)."""
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


# -- forward kernels -----------------------------------------------------------------------------

def _trailing_rows(x, axes):
    """``x`` as rows of its reduced axes when those are its trailing axes (the last axis, or the
    last few merged, which needs C order), else None: the shape `runtime.ops.lastaxis` reduces."""
    k = len(axes)
    if k == 0 or k == x.ndim or axes[0] != x.ndim - k or axes[-1] != x.ndim - 1:
        return None
    if k == 1:
        return x
    if not x.flags.c_contiguous:
        return None
    return x.reshape(x.shape[:x.ndim - k] + (-1,))


def _row_sum_or_none(x, axes, od, keep_dim):
    """The sum over ``axes`` from einsum when they are trailing and x is float32/float64 summed in
    its own dtype (`runtime.ops.lastaxis.row_sum`), else None."""
    if od != x.dtype or not sum_ok(x):
        return None
    rows = _trailing_rows(x, axes)
    if rows is None:
        return None
    s = np.asarray(row_sum(rows, keepdims=False))
    return s.reshape(_keep_shape(x.shape, axes)) if keep_dim else s


def _reduce_sum(x, dim=[0], keep_dim=False, reduce_all=False, in_dtype=-1, out_dtype=-1, **_):
    axes = reduce_axes(x.ndim, dim, reduce_all)
    od = _out_np_dtype(x.dtype, out_dtype, "reduce_sum")
    if od == np.float16:   # accumulate half precision in float32, as Paddle does
        return np.asarray(np.sum(x, axis=axes, dtype=np.float32, keepdims=keep_dim)).astype(od)
    s = _row_sum_or_none(x, axes, od, keep_dim) if x.size >= SUM_MIN_SIZE and len(axes) < x.ndim else None
    if s is not None:
        return s
    return np.asarray(np.sum(x, axis=axes, dtype=od, keepdims=keep_dim))


def _reduce_mean(x, dim=[0], keep_dim=False, reduce_all=False, in_dtype=-1, out_dtype=-1, **_):
    axes = reduce_axes(x.ndim, dim, reduce_all)
    od = _out_np_dtype(x.dtype, out_dtype, "reduce_mean")
    if od.kind in "fc":
        acc = np.float32 if od == np.float16 else od
        if x.size and acc == x.dtype:
            # np.mean's own steps (one add.reduce, one true_divide by the count) without its Python
            # wrapper, which costs more than the reduction on small tensors: identical results
            s = _row_sum_or_none(x, axes, od, keep_dim) if x.size >= SUM_MIN_SIZE and len(axes) < x.ndim else None
            if s is None:
                s = np.add.reduce(x, axis=axes, dtype=acc, keepdims=keep_dim)
            n = x.size // max(s.size, 1)
            # real floats: ``/``, the same IEEE division as np.true_divide (a Python int operand is weak in
            # both), but on the numpy scalar of a full reduction it skips the ufunc machinery (0.05 µs
            # against 1.3); complex keeps the ufunc (its division algorithm is the reference)
            return np.asarray(s / n if od.kind == "f" else np.true_divide(s, n)).astype(od, copy=False)
        return np.asarray(np.mean(x, axis=axes, dtype=acc, keepdims=keep_dim)).astype(od, copy=False)
    # integer / bool mean: Paddle keeps the dtype, truncating toward zero
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    s = np.sum(x, axis=axes, dtype=np.int64, keepdims=keep_dim)
    if od.kind == "b":
        return np.asarray(s != 0) if n else np.asarray(s, dtype=od)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.trunc(s / n) if n else np.zeros_like(s, dtype=np.float64)
    return np.asarray(q).astype(od)


def _extreme(fn, name):
    ufunc = np.maximum if fn is np.max else np.minimum
    def kernel(x, dim=[0], keep_dim=False, reduce_all=False, in_dtype=-1, out_dtype=-1, **_):
        axes = reduce_axes(x.ndim, dim, reduce_all)
        for a in axes:
            if x.shape[a] == 0:
                raise ValueError(f"{name}: cannot reduce over dimension {a} of size 0 (input shape "
                                 f"{list(x.shape)}): the result of an empty max/min is undefined")
        rows = _trailing_rows(x, axes) if x.ndim > 1 and x.size >= 64 else None
        if rows is not None and extreme_ok(rows):
            # many short trailing rows: a few whole-array ufunc calls, numpy's values bit for bit
            out = row_extreme(ufunc, rows, False)
            if keep_dim:
                out = out.reshape(_keep_shape(x.shape, axes))
        else:
            # the ufunc's reduce is what np.max/np.min call, without their Python wrapper (~1 µs)
            out = np.asarray(ufunc.reduce(x, axis=axes, keepdims=keep_dim))
        od = _out_np_dtype(x.dtype, out_dtype, name)
        return out if out.dtype == od else out.astype(od)
    return kernel


def _reduce_prod(x, dim=[0], keep_dim=False, reduce_all=False, in_dtype=-1, out_dtype=-1, **_):
    axes = reduce_axes(x.ndim, dim, reduce_all)
    od = _out_np_dtype(x.dtype, out_dtype, "reduce_prod")
    return np.asarray(np.prod(x, axis=axes, dtype=od, keepdims=keep_dim))


def _axes_from_tensors(dim, axis_tensor, axis_list):
    if axis_tensor is not None:
        return [int(v) for v in np.asarray(axis_tensor).reshape(-1)]
    if axis_list:
        return [int(np.asarray(v).reshape(-1)[0]) for v in axis_list]
    return dim


def _bool_reduce(fn):
    def kernel(x, axis_tensor=None, axis_list=None, dim=[0], keep_dim=False, reduce_all=False,
               in_dtype=-1, out_dtype=-1, **_):
        axes = reduce_axes(x.ndim, _axes_from_tensors(dim, axis_tensor, axis_list), reduce_all)
        xb = x if x.dtype == np.bool_ else (x != 0)
        return np.asarray(fn(xb, axis=axes, keepdims=keep_dim))
    return kernel


# -- infer_meta --------------------------------------------------------------------------------

def _meta_for(op):
    def infer(x, dim=[0], keep_dim=False, reduce_all=False, out_dtype=-1, **_):
        shape = reduce_shape(x.shape, list(dim), keep_dim, reduce_all or len(x.shape) == 0)
        return Meta(shape, _out_np_dtype(np.dtype(x.dtype), out_dtype, op))
    return infer


def _bool_meta(x, axis_tensor=None, axis_list=None, dim=[0], keep_dim=False, reduce_all=False, **_):
    if axis_tensor is not None or axis_list:
        # the axes are only known at run time
        n = len(x.shape)
        if keep_dim:
            return Meta((-1,) * n, np.dtype(np.bool_))
        k = axis_tensor.shape[0] if axis_tensor is not None and len(axis_tensor.shape) == 1 else \
            (len(axis_list) if axis_list else -1)
        if k == -1:
            return Meta((), np.dtype(np.bool_))   # rank unknown: callers should not rely on it
        return Meta((-1,) * max(n - k, 0), np.dtype(np.bool_))
    shape = reduce_shape(x.shape, list(dim), keep_dim, reduce_all or len(x.shape) == 0)
    return Meta(shape, np.dtype(np.bool_))


# -- grad kernels --------------------------------------------------------------------------------

def _expand_dout(x, dout, dim, reduce_all):
    axes = reduce_axes(x.ndim, dim, reduce_all)
    return axes, np.broadcast_to(dout.reshape(_keep_shape(x.shape, axes)), x.shape)


def _sum_grad(x, dout, dim=[0], keep_dim=False, reduce_all=False, **_):
    _, g = _expand_dout(x, dout, dim, reduce_all)
    return np.array(g, dtype=x.dtype)


def _mean_grad(x, dout, dim=[0], keep_dim=False, reduce_all=False, **_):
    axes, g = _expand_dout(x, dout, dim, reduce_all)
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    return (g / max(n, 1)).astype(x.dtype, copy=False)


def _extreme_grad(x, out, dout, dim=[0], keep_dim=False, reduce_all=False, **_):
    # Paddle splits the gradient evenly between tied extreme values.
    axes = reduce_axes(x.ndim, dim, reduce_all)
    ks = _keep_shape(x.shape, axes)
    mask = (x == out.reshape(ks))
    count = np.sum(mask, axis=axes, keepdims=True)
    g = mask * (dout.reshape(ks) / np.maximum(count, 1))
    return g.astype(x.dtype, copy=False)


def _prod_grad(x, out, dout, dim=[0], keep_dim=False, reduce_all=False, **_):
    # d out / d x_i = product of the other elements; computed with exclusive cumulative
    # products from both sides so zeros in x give exact (not NaN) gradients.
    axes = reduce_axes(x.ndim, dim, reduce_all)
    keep = [a for a in range(x.ndim) if a not in axes]
    perm = keep + list(axes)
    xt = np.transpose(x, perm)
    lead = xt.shape[:len(keep)]
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    if n == 0 or x.size == 0:
        return np.zeros_like(x)
    flat = xt.reshape(lead + (n,))
    ones = np.ones(lead + (1,), dtype=x.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = np.flip(np.cumprod(np.concatenate([ones, np.flip(flat, -1)[..., :-1]], axis=-1), axis=-1), -1)
    others = (left * right).reshape(xt.shape)
    g_t = others * dout.reshape(lead + (1,) * len(axes))
    inv = np.argsort(perm)
    return np.transpose(g_t, inv).astype(x.dtype, copy=False)


def _mean_all(x, **_):
    return _reduce_mean(x, dim=[], reduce_all=True)


def _mean_all_grad(x, dout, **_):
    return np.full(x.shape, dout / max(x.size, 1), dtype=x.dtype)


register("reduce_sum", ["X"], ["Out"], _ATTRS, kernel=_reduce_sum, infer_meta=_meta_for("reduce_sum"))
grad_op("reduce_sum", ["X", "Out@GRAD"], ["X@GRAD"], _sum_grad)
register("reduce_mean", ["X"], ["Out"], _ATTRS, kernel=_reduce_mean, infer_meta=_meta_for("reduce_mean"))
grad_op("reduce_mean", ["X", "Out@GRAD"], ["X@GRAD"], _mean_grad)
register("reduce_max", ["X"], ["Out"], _ATTRS, kernel=_extreme(np.max, "reduce_max"),
         infer_meta=_meta_for("reduce_max"))
grad_op("reduce_max", ["X", "Out", "Out@GRAD"], ["X@GRAD"], _extreme_grad)
register("reduce_min", ["X"], ["Out"], _ATTRS, kernel=_extreme(np.min, "reduce_min"),
         infer_meta=_meta_for("reduce_min"))
grad_op("reduce_min", ["X", "Out", "Out@GRAD"], ["X@GRAD"], _extreme_grad)
register("reduce_prod", ["X"], ["Out"], _ATTRS, kernel=_reduce_prod, infer_meta=_meta_for("reduce_prod"))
grad_op("reduce_prod", ["X", "Out", "Out@GRAD"], ["X@GRAD"], _prod_grad)
register("reduce_all", ["X", "AxisTensor?", "AxisTensorList[]?"], ["Out"], _BOOL_ATTRS,
         kernel=_bool_reduce(np.all), infer_meta=_bool_meta, differentiable=())
register("reduce_any", ["X", "AxisTensor?", "AxisTensorList[]?"], ["Out"], _BOOL_ATTRS,
         kernel=_bool_reduce(np.any), infer_meta=_bool_meta, differentiable=())
register("mean", ["X"], ["Out"], {}, kernel=_mean_all, infer_meta=lambda x, **_: Meta((), np.dtype(x.dtype)))
grad_op("mean", ["X", "Out@GRAD"], ["X@GRAD"], _mean_all_grad)
