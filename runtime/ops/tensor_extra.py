"""Assorted tensor ops with a Paddle op type of their own: kron, diag_embed, index_add, lerp,
renorm, reverse, tril_indices and triu_indices (gradients where Paddle has them)."""
from __future__ import annotations

import numpy as np

from .elementwise import unbroadcast
from .meta import broadcast_shapes, normalize_axis
from .registry import Meta, register, grad_op

_INDEX = {2: np.dtype(np.int32), 3: np.dtype(np.int64)}


# -- kron ----------------------------------------------------------------------------------------

def _pad_rank(a, n):
    return a.reshape((1,) * (n - a.ndim) + a.shape)


def _kron(x, y, **_):
    return np.kron(x, y)


def _kron_meta(x, y, **_):
    n = max(len(x.shape), len(y.shape))
    xs = (1,) * (n - len(x.shape)) + tuple(x.shape)
    ys = (1,) * (n - len(y.shape)) + tuple(y.shape)
    return Meta(tuple(-1 if a < 0 or b < 0 else a * b for a, b in zip(xs, ys)), np.result_type(x.dtype, y.dtype))


def _kron_grad(x, y, dout, **_):
    n = max(x.ndim, y.ndim)
    xp, yp = _pad_rank(x, n), _pad_rank(y, n)
    # out[i0*y0 + j0, ...] = x[i0, ...] * y[j0, ...]: view dout as (x0, y0, x1, y1, ...)
    d = dout.reshape(tuple(v for pair in zip(xp.shape, yp.shape) for v in pair))
    letters = "abcdefghijklmnopqrstuvwxyz"
    xi = letters[:n]
    yi = letters[n:2 * n]
    di = "".join(a + b for a, b in zip(xi, yi))
    gx = np.einsum(f"{di},{yi}->{xi}", d, yp).reshape(x.shape).astype(x.dtype, copy=False)
    gy = np.einsum(f"{di},{xi}->{yi}", d, xp).reshape(y.shape).astype(y.dtype, copy=False)
    return gx, gy


register("kron", ["X", "Y"], ["Out"], {}, kernel=_kron, infer_meta=_kron_meta)
grad_op("kron", ["X", "Y", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _kron_grad)


# -- diag_embed ----------------------------------------------------------------------------------

def _diag_dims(ndim_out, offset, dim1, dim2):
    d1, d2 = normalize_axis(int(dim1), ndim_out, "dim1"), normalize_axis(int(dim2), ndim_out, "dim2")
    if d1 == d2:
        raise ValueError(f"diag_embed: dim1 and dim2 must differ, got {dim1} and {dim2}")
    return d1, d2


def _diag_embed(x, offset=0, dim1=-2, dim2=-1, **_):
    nd = x.ndim + 1
    d1, d2 = _diag_dims(nd, offset, dim1, dim2)
    n = x.shape[-1] + abs(int(offset))
    out = np.zeros(x.shape[:-1] + (n, n), x.dtype)
    k = np.arange(x.shape[-1])
    r, c = (k, k + offset) if offset >= 0 else (k - offset, k)
    out[..., r, c] = x
    # the two new dims sit last; move them to dim1/dim2
    rest = [i for i in range(nd) if i not in (d1, d2)]
    perm = [0] * nd
    for src, dst in enumerate(rest + [d1, d2]):
        perm[dst] = src
    return np.ascontiguousarray(np.transpose(out, perm))


def _diag_embed_meta(x, offset=0, dim1=-2, dim2=-1, **_):
    nd = len(x.shape) + 1
    d1, d2 = _diag_dims(nd, offset, dim1, dim2)
    n = x.shape[-1] + abs(int(offset)) if x.shape and x.shape[-1] >= 0 else -1
    lead = list(x.shape[:-1])
    out = []
    for i in range(nd):
        out.append(n if i in (d1, d2) else lead.pop(0))
    return Meta(tuple(out), x.dtype)


# Paddle 3.3.1 defines no gradient for diag_embed (its input's grad stays None): nor do we
register("diag_embed", ["Input"], ["Out"], {"offset": ("INT", 0), "dim1": ("INT", -2), "dim2": ("INT", -1)},
         kernel=_diag_embed, infer_meta=_diag_embed_meta, differentiable=())


# -- index_add -----------------------------------------------------------------------------------

def _index_add(x, index, add_value, axis=0, **_):
    ax = normalize_axis(int(axis), x.ndim)
    if index.ndim != 1:
        raise ValueError(f"index_add: index must be 1-D, got shape {list(index.shape)}")
    n = x.shape[ax]
    if index.size and (index.min() < -n or index.max() >= n):
        raise IndexError(f"index_add: index out of range [{-n}, {n}) for axis {axis} of size {n}")
    expect = x.shape[:ax] + (index.shape[0],) + x.shape[ax + 1:]
    if add_value.shape != expect:
        raise ValueError(f"index_add: value must have shape {list(expect)}, got {list(add_value.shape)}")
    out = np.moveaxis(x.copy(), ax, 0)
    np.add.at(out, index.astype(np.int64) % max(n, 1), np.moveaxis(add_value, ax, 0).astype(x.dtype))
    return np.ascontiguousarray(np.moveaxis(out, 0, ax))


def _index_add_grad(index, dout, axis=0, **_):
    ax = normalize_axis(int(axis), dout.ndim)
    n = dout.shape[ax]
    return dout.copy(), np.ascontiguousarray(np.take(dout, index.astype(np.int64) % max(n, 1), axis=ax))


def _index_add_grad_meta(index, dout, axis=0, **_):
    ax = normalize_axis(int(axis), len(dout.shape))
    shape = list(dout.shape)
    shape[ax] = index.shape[0]
    return Meta(tuple(dout.shape), dout.dtype), Meta(tuple(shape), dout.dtype)


register("index_add", ["X", "Index", "AddValue"], ["Out"], {"axis": ("INT", 0)},
         kernel=_index_add, infer_meta=lambda x, i, v, **_: Meta(tuple(x.shape), x.dtype),
         differentiable=("X", "AddValue"))
grad_op("index_add", ["Index", "Out@GRAD"], ["X@GRAD", "AddValue@GRAD"], _index_add_grad,
        infer_meta=_index_add_grad_meta)


# -- lerp ----------------------------------------------------------------------------------------

def _lerp(x, y, weight, **_):
    return (x + weight * (y - x)).astype(np.result_type(x, y), copy=False)


def _lerp_grad(x, y, weight, dout, **_):
    gx = unbroadcast(dout * (1 - weight), x.shape).astype(x.dtype, copy=False)
    gy = unbroadcast(dout * weight, y.shape).astype(y.dtype, copy=False)
    return gx, gy


# as in Paddle's lerp_grad, gradients go to X and Y only (Weight's stays None)
register("lerp", ["X", "Y", "Weight"], ["Out"], {}, kernel=_lerp, differentiable=("X", "Y"),
         infer_meta=lambda x, y, w, **_: Meta(broadcast_shapes(broadcast_shapes(x.shape, y.shape), w.shape),
                                              x.dtype))
grad_op("lerp", ["X", "Y", "Weight", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _lerp_grad)


# -- renorm --------------------------------------------------------------------------------------

def _renorm_parts(x, p, axis):
    ax = normalize_axis(int(axis), x.ndim)
    others = tuple(i for i in range(x.ndim) if i != ax)
    norm = np.sum(np.abs(x) ** p, axis=others, keepdims=True) ** (1.0 / p)
    return others, norm


def _renorm(x, p=None, axis=None, max_norm=None, **_):
    if p is None or axis is None or max_norm is None:
        raise TypeError("renorm: the attributes p, axis and max_norm are required")
    _, norm = _renorm_parts(x, float(p), axis)
    # measured: Paddle 3.3.1 scales by max_norm / norm exactly (no epsilon)
    scale = np.where(norm > max_norm, max_norm / (norm), 1.0)
    return (x * scale).astype(x.dtype, copy=False)


def _renorm_grad(x, dout, p=None, axis=None, max_norm=None, **_):
    p = float(p)
    others, norm = _renorm_parts(x, p, axis)
    big = norm > max_norm
    scale = np.where(big, max_norm / (norm), 1.0)
    # d norm / dx = |x|^(p-1) sign(x) / norm^(p-1); d scale / d norm = -max_norm / norm^2
    safe = np.where(norm > 0, norm, 1.0)
    dnorm = np.abs(x) ** (p - 1) * np.sign(x) / safe ** (p - 1)
    dot = np.sum(dout * x, axis=others, keepdims=True)
    g = dout * scale + np.where(big, -max_norm / (norm) ** 2 * dot * dnorm, 0.0)
    return g.astype(x.dtype, copy=False)


register("renorm", ["X"], ["Out"], {"p": ("FLOAT", None), "axis": ("INT", None), "max_norm": ("FLOAT", None)},
         kernel=_renorm, infer_meta=lambda x, **_: Meta(tuple(x.shape), x.dtype))
grad_op("renorm", ["X", "Out@GRAD"], ["X@GRAD"], _renorm_grad)


# -- reverse -------------------------------------------------------------------------------------

def _reverse(x, axis=None, **_):
    if axis is None:
        raise TypeError("reverse: the attribute axis is required")
    axes = tuple(normalize_axis(int(a), x.ndim) for a in axis)
    return np.ascontiguousarray(np.flip(x, axes)) if axes else x.copy()


register("reverse", ["X"], ["Out"], {"axis": ("INTS", None)}, kernel=_reverse,
         infer_meta=lambda x, **_: Meta(tuple(x.shape), x.dtype))
grad_op("reverse", ["Out@GRAD"], ["X@GRAD"], lambda dout, axis=None, **_: _reverse(dout, axis=axis),
        infer_meta=lambda d, **_: d)


# -- tril_indices / triu_indices -----------------------------------------------------------------

def _tri_indices(fn, op):
    def kernel(rows, cols, offset, dtype):
        od = _INDEX.get(int(dtype))
        if od is None:
            raise ValueError(f"{op}: dtype must be int32 (2) or int64 (3), got VarType {dtype}")
        if rows < 0 or cols < 0:
            raise ValueError(f"{op}: row and col must be non-negative, got {rows} and {cols}")
        r, c = fn(int(rows), int(offset), int(cols))
        return np.stack([r, c]).astype(od)
    return kernel


_tril = _tri_indices(np.tril_indices, "tril_indices")
_triu = _tri_indices(np.triu_indices, "triu_indices")


def _tri_count(rows, cols, offset, lower):
    r, c = (np.tril_indices if lower else np.triu_indices)(int(rows), int(offset), int(cols))
    return len(r)


register("tril_indices", [], ["out"],
         {"rows": ("INT", 0), "cols": ("INT", 0), "offset": ("INT", 0), "dtype": ("INT", 3)},
         kernel=lambda rows=0, cols=0, offset=0, dtype=3, **_: _tril(rows, cols, offset, dtype),
         infer_meta=lambda rows=0, cols=0, offset=0, dtype=3, **_: Meta(
             (2, _tri_count(rows, cols, offset, True)), _INDEX.get(int(dtype), np.dtype(np.int64))),
         differentiable=())
register("triu_indices", [], ["out"],
         {"row": ("INT", 0), "col": ("INT", 0), "offset": ("INT", 0), "dtype": ("INT", 3)},
         kernel=lambda row=0, col=0, offset=0, dtype=3, **_: _triu(row, col, offset, dtype),
         infer_meta=lambda row=0, col=0, offset=0, dtype=3, **_: Meta(
             (2, _tri_count(row, col, offset, False)), _INDEX.get(int(dtype), np.dtype(np.int64))),
         differentiable=())
