"""Functions Paddle composes in Python from other ops (no op type of their own): diff,
nan_to_num, outer, inner, tensordot, quantile, nanquantile, take, rot90, index_fill,
masked_scatter, cartesian_prod, combinations, vander. Gradients come from the parts."""
from __future__ import annotations

import itertools
import numbers

import numpy as np

from ..tensor import Tensor, tensor_method
from ..ops.meta import normalize_axis
from ._helpers import is_var
from .creation import arange, full, full_like, meshgrid, to_tensor
from .linalg import matmul
from .logic import isnan, logical_not, logical_xor
from .manipulation import (broadcast_to, cast, concat, flatten, flip, gather, index_select, moveaxis,
                           reshape, slice, squeeze, stack, take_along_axis, transpose, where, _inplace)
from .manipulation import _paddle_version_count
from .math import clip, cumsum, multiply, subtract, remainder
from .reduction import any as _any, sum as _sum
from .search import sort
from .tensor_extra import lerp
from .param_alias import param_alias

__all__ = ["diff", "nan_to_num", "nan_to_num_", "outer", "inner", "tensordot", "quantile", "nanquantile",
           "take", "rot90", "index_fill", "index_fill_", "masked_scatter", "masked_scatter_", "cartesian_prod",
           "combinations", "vander"]


def _ndim(x):
    return len(x.shape)


def _dtype_name(x):
    return x.dtype.name if hasattr(x.dtype, "name") else str(x.dtype)


@tensor_method
def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """n-th forward difference along ``axis`` (logical xor for bool), after joining ``prepend``/``append``."""
    if not isinstance(n, (numbers.Integral, np.integer)) or n < 1:
        raise ValueError(f"diff: n must be a positive int, got {n!r}")
    ax = normalize_axis(int(axis), _ndim(x))
    parts = [p for p in (prepend, x, append) if p is not None]
    out = concat(parts, axis=ax) if len(parts) > 1 else x
    for _ in range(int(n)):
        size = out.shape[ax]
        front = slice(out, [ax], [0], [size - 1])
        back = slice(out, [ax], [1], [size])
        out = logical_xor(back, front) if _dtype_name(out) == "bool" else subtract(back, front)
    return out


@tensor_method
def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """``x`` with NaN -> ``nan``, +inf -> ``posinf`` and -inf -> ``neginf`` (default: the dtype's extremes)."""
    name_ = _dtype_name(x)
    if name_ not in ("float32", "float64", "float16"):
        raise TypeError(f"nan_to_num: x must be a floating-point tensor, got {name_}")
    info = np.finfo(np.dtype(name_))
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = where(isnan(x), full_like(x, nan), x)
    out = where(out == full_like(x, float("inf")), full_like(x, posinf), out)
    return where(out == full_like(x, float("-inf")), full_like(x, neginf), out)


nan_to_num_ = _paddle_version_count(_inplace("nan_to_num_", nan_to_num), 3)   # 3 steps in Paddle's version


@tensor_method
def outer(x, y, name=None, *, out=None):
    """Outer product of the flattened ``x`` and ``y``: shape [x.numel(), y.numel()]."""
    res = multiply(reshape(x, [-1, 1]), reshape(y, [1, -1]))
    if out is not None:
        from .creation import assign
        return assign(res, output=out)
    return res


@tensor_method
def inner(x, y, name=None):
    """Sum product over the last axes of ``x`` and ``y`` (a plain product when either is a scalar)."""
    xs, ys = list(x.shape), list(y.shape)
    if int(np.prod(xs)) == 1 or int(np.prod(ys)) == 1:
        return multiply(x, y)
    if xs[-1] != ys[-1]:
        raise ValueError(f"inner: the last dims of x and y must match, got shapes {xs} and {ys}")
    res = matmul(reshape(x, [-1, xs[-1]]), reshape(y, [-1, ys[-1]]), transpose_y=True)
    return reshape(res, xs[:-1] + ys[:-1])


def _tensordot_axes(axes, nx, ny):
    if isinstance(axes, Tensor):
        axes = axes.numpy().tolist()
    if isinstance(axes, (numbers.Integral, np.integer)):
        if axes < 0:
            raise ValueError(f"tensordot: an int axes must be non-negative, got {axes}")
        return list(range(nx - int(axes), nx)), list(range(int(axes)))
    axes = list(axes)
    if not axes:
        return [], []
    if all(isinstance(a, (numbers.Integral, np.integer)) for a in axes):
        return [int(a) for a in axes], [int(a) for a in axes]
    ax_x = [int(a) for a in axes[0]]
    ax_y = [int(a) for a in axes[1]] if len(axes) > 1 else list(ax_x)
    if len(ax_x) < len(ax_y):
        ax_x += ax_y[len(ax_x):]
    elif len(ax_y) < len(ax_x):
        ax_y += ax_x[len(ax_y):]
    return ax_x, ax_y


@tensor_method
def tensordot(x, y, axes=2, name=None):
    """Contract ``x`` and ``y`` over the paired ``axes`` (int: last n of x with first n of y)."""
    nx, ny = _ndim(x), _ndim(y)
    ax_x, ax_y = _tensordot_axes(axes, nx, ny)
    ax_x = [normalize_axis(a, nx) for a in ax_x]
    ax_y = [normalize_axis(a, ny) for a in ax_y]
    for a, b in zip(ax_x, ax_y):
        if x.shape[a] != y.shape[b] and x.shape[a] != -1 and y.shape[b] != -1:
            raise ValueError(f"tensordot: x dim {a} (size {x.shape[a]}) and y dim {b} (size {y.shape[b]}) "
                             "must match to be contracted")
    free_x = [i for i in range(nx) if i not in ax_x]
    free_y = [i for i in range(ny) if i not in ax_y]
    k = int(np.prod([x.shape[a] for a in ax_x])) if ax_x else 1
    xt = reshape(transpose(x, free_x + ax_x), [-1, k])
    yt = reshape(transpose(y, ax_y + free_y), [k, -1])
    return reshape(matmul(xt, yt), [x.shape[i] for i in free_x] + [y.shape[i] for i in free_y])


def _quantile(x, q, axis, keepdim, interpolation, ignore_nan, op):
    if not is_var(x):
        raise TypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")
    if _dtype_name(x) not in ("float32", "float64"):
        raise TypeError(f"{op}: x must be float32 or float64, got {_dtype_name(x)}")
    if isinstance(q, Tensor):
        if _ndim(q) > 1:
            raise ValueError(f"{op}: q must be a 0-D or 1-D tensor")
        q = q.numpy().reshape(-1).tolist() if _ndim(q) else [q.item()]
    elif isinstance(q, (numbers.Number, np.number)):
        q = [q]
    elif isinstance(q, (list, tuple)):
        if not q:
            raise ValueError(f"{op}: q must not be empty")
    else:
        raise TypeError(f"{op}: q must be a float, a list of floats or a Tensor, got {type(q).__name__}")
    for v in q:
        if v < 0 or v > 1:
            raise ValueError(f"{op}: every q must be in [0, 1], got {v}")
    if interpolation not in ("linear", "lower", "higher", "nearest", "midpoint"):
        raise ValueError(f"{op}: interpolation must be one of 'linear', 'lower', 'higher', 'nearest' or "
                         f"'midpoint', got {interpolation!r}")
    dims = _ndim(x)
    out_shape = list(x.shape)
    if axis is None:
        x, axis, out_shape = flatten(x), 0, [1] * dims
    elif isinstance(axis, (list, tuple)):
        src = []
        for a in axis:
            if not isinstance(a, int) or not -dims <= a < dims:
                raise ValueError(f"{op}: axis must be None, an int or a list of ints in [-{dims}, {dims})")
            src.append(a % dims)
            out_shape[a % dims] = 1
        dst = list(range(-len(src), 0))
        if not src:
            x, axis = flatten(x), 0
        else:
            x = flatten(moveaxis(x, src, dst), dims - len(src), dims - 1)
            axis = dims - len(src)
    else:
        if not isinstance(axis, int) or not -dims <= axis < dims:
            raise ValueError(f"{op}: axis must be None, an int or a list of ints in [-{dims}, {dims})")
        axis %= dims
        out_shape[axis] = 1
    mask = isnan(x)
    valid = cast(_sum(logical_not(mask), axis=axis, keepdim=True), x.dtype)
    srt = sort(x, axis=axis)
    outs = []
    for qv in q:
        index = (valid - 1) * float(qv)
        if not ignore_nan:
            last = full_like(index, x.shape[axis] - 1)
            index = where(_any(mask, axis=axis, keepdim=True), last, index)
        outs.append(_pick(srt, index, axis, interpolation, x.dtype))
    res = []
    for r in outs:
        res.append(reshape(r, out_shape) if keepdim else squeeze(r, axis=axis))
    return stack(res, 0) if len(res) > 1 else res[0]


def _pick(srt, index, axis, interpolation, dtype):
    from .math import ceil, floor, round as _round
    if interpolation == "nearest":
        return take_along_axis(srt, cast(_round(index), "int32"), axis=axis)
    below_i = cast(floor(index), "int32")
    below = take_along_axis(srt, below_i, axis=axis)
    if interpolation == "lower":
        return below
    upper = take_along_axis(srt, cast(ceil(index), "int32"), axis=axis)
    if interpolation == "higher":
        return upper
    if interpolation == "midpoint":
        return (upper + below) / 2
    return lerp(below, upper, cast(index - cast(below_i, index.dtype), dtype))


@tensor_method
@param_alias(x="input", axis="dim")
def quantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The q-th quantile(s) along ``axis``; a reduced row holding NaN gives NaN."""
    return _quantile(x, q, axis, keepdim, interpolation, False, "quantile")


@tensor_method
def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """`quantile` ignoring NaNs."""
    return _quantile(x, q, axis, keepdim, interpolation, True, "nanquantile")


@tensor_method
def take(x, index, mode="raise", name=None):
    """Elements of the flattened ``x`` at ``index`` (shape of ``index``); ``mode`` handles
    out-of-range indices: 'raise' (negative ones count from the end), 'wrap' or 'clip'."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    if _dtype_name(index) not in ("int32", "int64"):
        raise TypeError(f"take: index must be an int32 or int64 tensor, got {_dtype_name(index)}")
    flat = flatten(x)
    n = int(np.prod(x.shape))
    idx = flatten(index)
    if mode == "raise":
        if isinstance(idx, Tensor) and idx.shape[0]:
            arr = idx.numpy()
            if arr.min() < -n or arr.max() >= n:
                raise IndexError(f"take: index out of range [{-n}, {n}) for a tensor of {n} elements "
                                 "(use mode='wrap' or 'clip' to map such indices)")
        idx = where(idx < 0, idx + n, idx)
    elif mode == "wrap":
        idx = remainder(idx, full([], n, dtype=idx.dtype))
    else:
        idx = clip(idx, 0, n - 1)
    return reshape(index_select(flat, idx), list(index.shape))


@tensor_method
def rot90(x, k=1, axes=(0, 1), name=None):
    """Rotate ``x`` by 90 degrees ``k`` times in the plane ``axes`` (from axes[0] towards axes[1])."""
    axes = list(axes)
    nd = _ndim(x)
    if len(axes) != 2:
        raise ValueError(f"rot90: axes must hold exactly 2 dims, got {axes}")
    if nd < 2:
        raise ValueError(f"rot90: x must have at least 2 dims, got {nd}")
    a0, a1 = normalize_axis(int(axes[0]), nd), normalize_axis(int(axes[1]), nd)
    if a0 == a1:
        raise ValueError(f"rot90: the two axes must differ, got {axes}")
    k = int(k) % 4
    if k == 0:
        return x.clone() if isinstance(x, Tensor) else x
    if k == 2:
        return flip(flip(x, [a0]), [a1])
    perm = list(range(nd))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return transpose(flip(x, [a1]), perm)
    return flip(transpose(x, perm), [a1])


def _axis_mask(x, index, axis):
    ax = normalize_axis(int(axis), _ndim(x))
    n = x.shape[ax]
    hits = arange(n, dtype=index.dtype).unsqueeze(1) == flatten(index).unsqueeze(0)
    shape = [1] * _ndim(x)
    shape[ax] = n
    return reshape(_any(hits, axis=1), shape)


@tensor_method
def index_fill(x, index, axis, value, name=None):
    """``x`` with the slices at ``index`` along ``axis`` set to ``value`` (a scalar or 0-D tensor)."""
    fill = value if is_var(value) else full([], value, dtype=x.dtype)
    return where(broadcast_to(_axis_mask(x, index, axis), list(x.shape)), cast(fill, x.dtype) + x * 0, x)


index_fill_ = _paddle_version_count(_inplace("index_fill_", index_fill), 3)   # 3 steps in Paddle's version


@tensor_method
def masked_scatter(x, mask, value, name=None):
    """``x`` with the positions where ``mask`` (broadcast to x) is True filled, in order, from ``value``."""
    m = broadcast_to(mask, list(x.shape))
    src = flatten(value)
    if isinstance(m, Tensor):
        count = int(m.numpy().sum())
        if count > int(np.prod(value.shape)):
            raise ValueError(f"masked_scatter: mask selects {count} positions but value has only "
                             f"{int(np.prod(value.shape))} elements")
    pos = clip(cumsum(cast(flatten(m), "int64")) - 1, 0, None)
    picked = reshape(gather(src, pos), list(x.shape))
    return where(m, cast(picked, x.dtype), x)


masked_scatter_ = _inplace("masked_scatter_", masked_scatter)


def cartesian_prod(x, name=None):
    """Cartesian product of a list of 1-D tensors: [N, len(x)] (the tensor itself for one input)."""
    if not isinstance(x, (list, tuple)):
        raise TypeError(f"cartesian_prod: x must be a list or tuple of 1-D tensors, got {type(x).__name__}")
    for t in x:
        if _ndim(t) != 1:
            raise ValueError(f"cartesian_prod: every tensor must be 1-D, got shape {list(t.shape)}")
    if len(x) == 1:
        return x[0]
    grids = meshgrid(*x)
    return stack([flatten(g) for g in grids], axis=1)


@tensor_method
def combinations(x, r=2, with_replacement=False, name=None):
    """All length-``r`` combinations of the 1-D ``x``'s elements: shape [M, r] ([0] when r is 0)."""
    if _ndim(x) != 1:
        raise TypeError(f"combinations: x must be 1-D, got shape {list(x.shape)}")
    if not isinstance(r, (numbers.Integral, np.integer)) or r < 0:
        raise ValueError(f"combinations: r must be a non-negative int, got {r!r}")
    n = x.shape[0]
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    combos = list(pick(range(n), int(r)))
    if r == 0 or not combos:
        return reshape(index_select(x, to_tensor(np.zeros(0, np.int64))), [0] if r == 0 else [0, int(r)])
    cols = [index_select(x, to_tensor(np.array([c[j] for c in combos], np.int64))) for j in range(int(r))]
    return stack(cols, axis=1)


@tensor_method
def vander(x, n=None, increasing=False, name=None):
    """Vandermonde matrix of 1-D ``x``: columns x**(n-1) ... x**0 (reversed when ``increasing``)."""
    if _ndim(x) != 1:
        raise ValueError(f"vander: x must be 1-D, got shape {list(x.shape)}")
    n = x.shape[0] if n is None else int(n)
    if n < 0:
        raise ValueError(f"vander: n must be non-negative, got {n}")
    if n == 0:
        return reshape(multiply(x, full([], 0, dtype=x.dtype)), [-1, 1])[:, :0]
    cols = [full_like(x, 1)]
    for _ in range(1, n):
        cols.append(multiply(cols[-1], x))
    out = stack(cols, axis=1)
    return out if increasing else flip(out, [1])
