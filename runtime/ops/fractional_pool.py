"""fractional_max_pool2d / fractional_max_pool3d (Graham's fractional max-pooling) and their grads.

Window bounds follow Paddle 3.3.1's kernel, in float32 as it computes them (measured against it,
including the float32 cases where ``alpha * (i + u)`` is an exact integer): per dimension
``alpha = (in - k) / (out - (k > 0))``; without a kernel size the draw ``u`` is scaled to
``u * min((in // out + 2) / alpha - 1, (in + 1 - in // out) / alpha - (out - 1))``; window ``i``
starts at ``floor(alpha * (i + u)) - floor(alpha * u)`` and ends where window ``i + 1`` starts (or
``start + k`` with a kernel size), clipped to the input; an empty window gives -FLT_MAX and mask -1.
``random_u = 0`` means "draw u": Paddle draws it from its own engine, we from ``paddle.seed``'s
generator, so only an explicit ``random_u`` reproduces Paddle's windows exactly. Mask holds the flat
in-plane index of each maximum (int32), first maximum on ties.
"""
from __future__ import annotations

import numpy as np

from ..random import generator
from .registry import Meta, grad_op, register

_F = np.float32


def _bounds(n_in, n_out, k, u):
    """[start, end) of each of the ``n_out`` windows over a dimension of ``n_in``."""
    steps = n_out - (1 if k > 0 else 0)
    # one window of a given size: Paddle starts it at 0 (its alpha would be k / 0)
    alpha = _F(n_in - k) / _F(steps) if steps else _F(0)
    if k <= 0:
        base = n_in // n_out
        u_max1 = _F(base + 2) / alpha - _F(1)
        u_max2 = _F(n_in + 1 - base) / alpha - _F(n_out - 1)
        u = _F(u) * min(u_max1, u_max2)
    else:
        u = _F(u)
    bounds = []
    offset = int(np.floor(alpha * u))
    for i in range(n_out):
        start = int(np.floor(alpha * (_F(i) + u))) - offset
        if k > 0:
            end = start + k
        else:
            end = int(np.floor(alpha * (_F(i + 1) + u))) - offset
        bounds.append((max(start, 0), min(end, n_in)))
    return bounds


def _check(op, shape, output_size, kernel_size, nd):
    if len(shape) != nd + 2:
        layout = "NCHW" if nd == 2 else "NCDHW"
        raise ValueError(f"{op}: x must be {nd + 2}-D ({layout}), got shape {list(shape)}")
    if len(output_size) != nd:
        raise ValueError(f"{op}: output_size must have {nd} values, got {list(output_size)}")
    ks = list(kernel_size) if len(kernel_size) else [0] * nd
    if len(ks) != nd:
        raise ValueError(f"{op}: kernel_size must have {nd} values (or be empty), got {list(kernel_size)}")
    for o in output_size:
        if int(o) <= 0:
            raise ValueError(f"{op}: output_size values must be positive, got {list(output_size)}")
    names = ("height", "width") if nd == 2 else ("depth", "height", "width")
    for name, n_in, n_out, k in zip(names, shape[2:], output_size, ks):
        need = int(n_out) - 1 + int(k)
        if n_in >= 0 and n_in < need:
            raise ValueError(f"{op}: input_{name} [{n_in}] is less than valid output_{name} [{need}] "
                             f"(output_size - 1 + kernel_size); lower output_size or kernel_size")
    return [int(o) for o in output_size], [int(k) for k in ks]


def _kernel(op, nd):
    def kernel(x, output_size=(), kernel_size=(0,) * nd, random_u=0.0, return_mask=True):
        outs, ks = _check(op, x.shape, output_size, kernel_size, nd)
        u = float(random_u)
        if u == 0.0:
            u = float(generator(0).random())
        spatial = x.shape[2:]
        per_dim = [_bounds(spatial[d], outs[d], ks[d], u) for d in range(nd)]
        lead = x.shape[:2]
        flat = x.reshape(lead + (-1,))
        out = np.empty(lead + tuple(outs), dtype=x.dtype)
        mask = np.empty(lead + tuple(outs), dtype=np.int32)
        strides = [int(np.prod(spatial[d + 1:])) for d in range(nd)]
        for pos in np.ndindex(*outs):
            ranges = [np.arange(*per_dim[d][pos[d]]) for d in range(nd)]
            if any(r.size == 0 for r in ranges):
                out[(Ellipsis,) + pos] = -np.finfo(np.float32).max
                mask[(Ellipsis,) + pos] = -1
                continue
            grid = np.meshgrid(*ranges, indexing="ij")
            idx = sum(g.ravel() * s for g, s in zip(grid, strides))
            vals = flat[..., idx]
            best = np.argmax(vals, axis=-1)
            out[(Ellipsis,) + pos] = np.take_along_axis(vals, best[..., None], -1)[..., 0]
            mask[(Ellipsis,) + pos] = idx[best]
        return out, mask
    return kernel


def _grad_kernel(x, mask, dout, **_):
    n_planes = x.shape[0] * x.shape[1]
    plane = int(np.prod(x.shape[2:]))
    m = mask.reshape(n_planes, -1).astype(np.int64)
    valid = m >= 0
    flat = (m + np.arange(n_planes)[:, None] * plane)[valid]
    dx = np.bincount(flat, weights=dout.reshape(n_planes, -1)[valid], minlength=n_planes * plane)
    return dx.reshape(x.shape).astype(x.dtype, copy=False)


def _meta(op, nd):
    def meta(x, output_size=(), kernel_size=(0,) * nd, **_):
        outs, _ks = _check(op, x.shape, output_size, kernel_size, nd)
        shape = tuple(x.shape[:2]) + tuple(outs)
        return Meta(shape, x.dtype), Meta(shape, np.dtype(np.int32))
    return meta


for _op, _nd in (("fractional_max_pool2d", 2), ("fractional_max_pool3d", 3)):
    register(_op, ["x"], ["out", "mask"],
             {"output_size": ("INTS", []), "kernel_size": ("INTS", [0] * _nd), "random_u": ("FLOAT", 0.0),
              "return_mask": ("BOOLEAN", True)},
             kernel=_kernel(_op, _nd), infer_meta=_meta(_op, _nd), random=True)
    grad_op(_op, ["x", "mask", "out@GRAD"], ["x@GRAD"], _grad_kernel)
