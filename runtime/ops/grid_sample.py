"""Spatial-transformer ops: grid_sampler (sample X at normalised grid points) and affine_grid.

grid_sampler works for 4-D X ([N, C, H, W], Grid [N, Ho, Wo, 2]) and 5-D X ([N, C, D, H, W],
Grid [N, Do, Ho, Wo, 3]); the grid's last dim lists x (width) first. A grid value g in [-1, 1]
maps to the pixel coordinate (g+1)(size-1)/2 with align_corners, else (g+1)size/2 - 0.5; then
'border' clamps it into [0, size-1] and 'reflection' mirrors it at the borders (at the corner
centres with align_corners, else at the outer edges, then clamps), as Paddle's CPU kernel does.
'bilinear' (trilinear for 5-D) weighs the 2**d neighbouring pixels, 'zeros' reading 0 outside;
'nearest' rounds half to even. The grads flow to X (scatter-add) and, for bilinear, to Grid.
affine_grid maps the base grid [x, y, (z,) 1] through Theta ([N, 2, 3] or [N, 3, 4]); the base
runs over linspace(-1, 1, n), scaled by (n-1)/n without align_corners.
"""
from __future__ import annotations

import itertools

import numpy as np

from .registry import Meta, grad_op, register

_MODES = ("bilinear", "nearest")
_PADDINGS = ("zeros", "border", "reflection")


def _check(x_shape, grid_shape, mode, padding_mode):
    nd = len(x_shape) - 2
    if nd not in (2, 3):
        raise ValueError(f"grid_sampler: X must be 4-D [N, C, H, W] or 5-D [N, C, D, H, W], got shape "
                         f"{list(x_shape)}")
    if len(grid_shape) != nd + 2 or grid_shape[-1] not in (nd, -1):
        raise ValueError(f"grid_sampler: Grid of a {nd + 2}-D X must be [N, {'Do, ' if nd == 3 else ''}Ho, Wo, "
                         f"{nd}], got shape {list(grid_shape)}")
    if x_shape[0] >= 0 and grid_shape[0] >= 0 and x_shape[0] != grid_shape[0]:
        raise ValueError(f"grid_sampler: X and Grid must have the same batch size, got {x_shape[0]} and "
                         f"{grid_shape[0]}")
    if mode not in _MODES:
        raise ValueError(f"grid_sampler: mode must be one of {list(_MODES)}, got {mode!r}")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"grid_sampler: padding_mode must be one of {list(_PADDINGS)}, got {padding_mode!r}")
    return nd


def _coordinate(g, size, padding_mode, align_corners):
    """Pixel coordinate of normalised ``g`` along an axis of ``size`` and d(coordinate)/dg."""
    one = g.dtype.type(1)
    if align_corners:
        scale = g.dtype.type((size - 1) * 0.5)
        c = (g + one) * scale
    else:
        scale = g.dtype.type(size * 0.5)
        c = (g + one) * scale - g.dtype.type(0.5)
    d = np.full(g.shape, scale, dtype=g.dtype)
    hi = g.dtype.type(size - 1)
    if padding_mode == "reflection":
        if align_corners:
            span, shift = g.dtype.type(2 * (size - 1)), g.dtype.type(0)
        else:
            span, shift = g.dtype.type(2 * size), g.dtype.type(0.5)
        if span > 0:
            shifted = c + shift
            sign = np.where(shifted < 0, -one, one)
            a = np.abs(shifted)
            extra = a - np.floor(a / span) * span
            flip = extra > span - extra
            c = np.where(flip, span - extra, extra) - shift
            d = d * sign * np.where(flip, -one, one)
        else:
            c = np.zeros_like(c)
            d = np.zeros_like(d)
    if padding_mode in ("border", "reflection"):
        inside = (c > 0) & (c < hi)
        c = np.clip(c, 0, hi)
        d = np.where(inside, d, 0)
    return c, d


def _coordinates(x_shape, grid, padding_mode, align_corners):
    """Per spatial axis of X (D, H, W order): coordinates and their derivatives."""
    sizes = x_shape[2:]
    nd = len(sizes)
    cs, ds = [], []
    for axis, size in enumerate(sizes):
        c, d = _coordinate(grid[..., nd - 1 - axis], size, padding_mode, align_corners)
        cs.append(c)
        ds.append(d)
    return cs, ds


def _corners(x_shape, cs, mode):
    """For each neighbour: (clamped int indices per axis, in-bounds mask, weight, per-axis signs or None)."""
    sizes = x_shape[2:]
    if mode == "nearest":
        idx = [np.rint(c).astype(np.int64) for c in cs]
        mask = np.logical_and.reduce([(i >= 0) & (i < n) for i, n in zip(idx, sizes)])
        clamped = [np.clip(i, 0, n - 1) for i, n in zip(idx, sizes)]
        yield clamped, mask, np.ones(cs[0].shape, dtype=cs[0].dtype), None
        return
    lows = [np.floor(c) for c in cs]
    fracs = [c - lo for c, lo in zip(cs, lows)]
    lows = [lo.astype(np.int64) for lo in lows]
    for offs in itertools.product((0, 1), repeat=len(cs)):
        idx = [lo + o for lo, o in zip(lows, offs)]
        mask = np.logical_and.reduce([(i >= 0) & (i < n) for i, n in zip(idx, sizes)])
        clamped = [np.clip(i, 0, n - 1) for i, n in zip(idx, sizes)]
        factors = [f if o else 1 - f for f, o in zip(fracs, offs)]
        weight = np.prod(factors, axis=0)
        yield clamped, mask, weight, (offs, factors)


def _gather(xt, n_idx, clamped):
    return xt[(n_idx,) + tuple(clamped)]


def _batch_index(shape):
    return np.arange(shape[0]).reshape((-1,) + (1,) * (len(shape) - 1))


def _grid_sampler(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True):
    _check(x.shape, grid.shape, mode, padding_mode)
    grid = grid.astype(x.dtype, copy=False)
    cs, _ = _coordinates(x.shape, grid, padding_mode, align_corners)
    xt = np.moveaxis(x, 1, -1)               # [N, *S, C]
    n_idx = _batch_index(grid.shape[:-1])
    out = np.zeros(grid.shape[:-1] + (x.shape[1],), dtype=x.dtype)
    for clamped, mask, weight, _ in _corners(x.shape, cs, mode):
        out += (weight * mask)[..., None] * _gather(xt, n_idx, clamped)
    return np.ascontiguousarray(np.moveaxis(out, -1, 1))


def _grid_sampler_grad(x, grid, dout, mode="bilinear", padding_mode="zeros", align_corners=True):
    _check(x.shape, grid.shape, mode, padding_mode)
    g = grid.astype(x.dtype, copy=False)
    cs, ds = _coordinates(x.shape, g, padding_mode, align_corners)
    nd = len(cs)
    xt = np.moveaxis(x, 1, -1)
    dt = np.moveaxis(dout, 1, -1)            # [N, *O, C]
    n_idx = _batch_index(grid.shape[:-1])
    gxt = np.zeros_like(xt)
    dc = [np.zeros(cs[0].shape, dtype=x.dtype) for _ in range(nd)]
    for clamped, mask, weight, signs in _corners(x.shape, cs, mode):
        np.add.at(gxt, (n_idx,) + tuple(clamped), (weight * mask)[..., None] * dt)
        if signs is None:
            continue
        offs, factors = signs
        # d(out)/d(coordinate along axis a) for this neighbour: the other axes' factors, +-1 on a
        dv = np.sum(dt * _gather(xt, n_idx, clamped), axis=-1) * mask
        for a in range(nd):
            others = np.prod([f for b, f in enumerate(factors) if b != a], axis=0) if nd > 1 else 1
            dc[a] += dv * others * (1 if offs[a] else -1)
    ggrid = np.zeros(grid.shape, dtype=x.dtype)
    if mode == "bilinear":
        for a in range(nd):
            ggrid[..., nd - 1 - a] = dc[a] * ds[a]
    return np.ascontiguousarray(np.moveaxis(gxt, -1, 1)), ggrid.astype(grid.dtype, copy=False)


def _grid_sampler_meta(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, **_):
    _check(x.shape, grid.shape, mode, padding_mode)
    return Meta((x.shape[0] if x.shape[0] >= 0 else grid.shape[0], x.shape[1]) + tuple(grid.shape[1:-1]), x.dtype)


register("grid_sampler", ["X", "Grid"], ["Output"],
         {"mode": ("STRING", "bilinear"), "padding_mode": ("STRING", "zeros"), "align_corners": ("BOOLEAN", True)},
         kernel=_grid_sampler, infer_meta=_grid_sampler_meta)
grad_op("grid_sampler", ["X", "Grid", "Output@GRAD"], ["X@GRAD", "Grid@GRAD"], _grid_sampler_grad)


# -- affine_grid ----------------------------------------------------------------------------------

def _linspace(n, align_corners, dtype):
    if n == 1:
        return np.zeros(1, dtype=dtype)
    v = np.linspace(-1.0, 1.0, n)
    if not align_corners:
        v = v * (n - 1) / n
    return v.astype(dtype)


def _affine_shape(theta_shape, output_shape_t, output_shape):
    shape = [int(v) for v in (np.asarray(output_shape_t).reshape(-1) if output_shape_t is not None
                              else output_shape)]
    if len(shape) not in (4, 5):
        raise ValueError(f"affine_grid: the output shape must be [N, C, H, W] or [N, C, D, H, W], got {shape}")
    rows, cols = (2, 3) if len(shape) == 4 else (3, 4)
    if len(theta_shape) != 3 or tuple(theta_shape[1:]) != (rows, cols):
        raise ValueError(f"affine_grid: Theta for a {len(shape)}-D output shape must be [N, {rows}, {cols}], got "
                         f"shape {list(theta_shape)}")
    if theta_shape[0] >= 0 and shape[0] != theta_shape[0]:
        raise ValueError(f"affine_grid: the output shape's batch {shape[0]} differs from Theta's {theta_shape[0]}")
    return shape


def _base_grid(shape, align_corners, dtype):
    """[*spatial, nd + 1]: x (width) first, then y, (z), then 1."""
    spatial = shape[2:]
    axes = [_linspace(n, align_corners, dtype) for n in spatial]          # D, H, W order
    mesh = np.meshgrid(*axes, indexing="ij")
    comps = list(reversed(mesh)) + [np.ones(tuple(spatial), dtype=dtype)]
    return np.stack(comps, axis=-1)


def _affine_grid(theta, output_shape_t=None, output_shape=(), align_corners=True):
    shape = _affine_shape(theta.shape, output_shape_t, output_shape)
    base = _base_grid(shape, align_corners, theta.dtype)
    nd = len(shape) - 2
    flat = base.reshape(-1, nd + 1)
    out = np.einsum("pk,nik->npi", flat, theta)
    return np.ascontiguousarray(out.reshape((theta.shape[0],) + tuple(shape[2:]) + (nd,)), dtype=theta.dtype)


def _affine_grid_grad(theta, output_shape_t, dout, output_shape=(), align_corners=True):
    shape = _affine_shape(theta.shape, output_shape_t, output_shape)
    nd = len(shape) - 2
    flat = _base_grid(shape, align_corners, theta.dtype).reshape(-1, nd + 1)
    d = dout.reshape(dout.shape[0], -1, nd)
    return np.einsum("npi,pk->nik", d, flat).astype(theta.dtype, copy=False)


def _affine_grid_meta(theta, output_shape_t=None, output_shape=(), align_corners=True, **_):
    if output_shape_t is not None:
        n = output_shape_t.shape[0] if output_shape_t.shape else -1
        if n not in (4, 5):
            rows = theta.shape[1] if len(theta.shape) == 3 else -1
            n = 4 if rows == 2 else 5
        nd = n - 2
        return Meta((theta.shape[0],) + (-1,) * nd + (nd,), theta.dtype)
    shape = _affine_shape(theta.shape, None, output_shape)
    nd = len(shape) - 2
    return Meta((theta.shape[0],) + tuple(shape[2:]) + (nd,), theta.dtype)


register("affine_grid", ["Theta", "OutputShape?"], ["Output"],
         {"output_shape": ("INTS", []), "align_corners": ("BOOLEAN", True)},
         kernel=_affine_grid, infer_meta=_affine_grid_meta, differentiable=("Theta",))
grad_op("affine_grid", ["Theta", "OutputShape?", "Output@GRAD"], ["Theta@GRAD"], _affine_grid_grad)
