"""Table rows for grid_sampler and affine_grid.

The grid_sampler reference walks every output point: it maps each grid value to a pixel coordinate
((g+1)(n-1)/2 with align_corners, else ((g+1)n-1)/2), mirrors it by repeated reflection at the
corner centres (align_corners) or the outer pixel edges, or clamps it for 'border', then reads the
2**d neighbours (zero outside for 'zeros') with bilinear weights, or the nearest pixel (ties to even).
affine_grid's reference multiplies Theta by each base point [x, y, (z,) 1] in a loop.
"""
import itertools

import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(41)


def r(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape)


def _coord(g, n, padding_mode, align_corners):
    c = (g + 1) * (n - 1) / 2 if align_corners else ((g + 1) * n - 1) / 2
    if padding_mode == "reflection":
        lo, hi = (0.0, n - 1.0) if align_corners else (-0.5, n - 0.5)
        if hi > lo:
            while c < lo or c > hi:
                c = 2 * lo - c if c < lo else 2 * hi - c
        else:
            c = 0.0
    if padding_mode in ("border", "reflection"):
        c = min(max(c, 0.0), n - 1.0)
    return c


def grid_sampler_ref(X, Grid, mode="bilinear", padding_mode="zeros", align_corners=True, **_):
    sizes = X.shape[2:]
    nd = len(sizes)
    out = np.zeros((X.shape[0], X.shape[1]) + Grid.shape[1:-1])
    for n in range(X.shape[0]):
        for pos in itertools.product(*[range(s) for s in Grid.shape[1:-1]]):
            g = Grid[(n,) + pos]
            cs = [_coord(float(g[nd - 1 - a]), sizes[a], padding_mode, align_corners) for a in range(nd)]
            if mode == "nearest":
                idx = [int(np.round(c)) for c in cs]
                if all(0 <= i < s for i, s in zip(idx, sizes)):
                    out[(n, slice(None)) + pos] = X[(n, slice(None)) + tuple(idx)]
                continue
            for offs in itertools.product((0, 1), repeat=nd):
                idx = [int(np.floor(c)) + o for c, o in zip(cs, offs)]
                w = np.prod([1 - abs(c - i) for c, i in zip(cs, idx)])
                if all(0 <= i < s for i, s in zip(idx, sizes)):
                    out[(n, slice(None)) + pos] += w * X[(n, slice(None)) + tuple(idx)]
    return out.astype(X.dtype)


def affine_grid_ref(Theta, OutputShape=None, output_shape=(), align_corners=True, **_):
    shape = list(OutputShape) if OutputShape is not None else list(output_shape)
    spatial = shape[2:]
    nd = len(spatial)

    def lin(k, n):
        if n == 1:
            return 0.0
        v = -1.0 + 2.0 * k / (n - 1)
        return v if align_corners else v * (n - 1) / n

    out = np.zeros((Theta.shape[0],) + tuple(spatial) + (nd,))
    for n in range(Theta.shape[0]):
        for pos in itertools.product(*[range(s) for s in spatial]):
            point = [lin(pos[nd - 1 - a], spatial[nd - 1 - a]) for a in range(nd)] + [1.0]
            out[(n,) + pos] = Theta[n] @ np.array(point)
    return out.astype(Theta.dtype)


def _gs(name, x, grid, **attrs):
    return OpCase("grid_sampler", {"X": x, "Grid": grid}, grid_sampler_ref, name=name, attrs=attrs)


CASES = [
    _gs("bilinear_zeros", r(2, 2, 3, 4), r(2, 3, 2, 2, lo=-1.2, hi=1.2), align_corners=True),
    _gs("bilinear_zeros_no_align", r(1, 2, 4, 3), r(1, 2, 3, 2, lo=-1.3, hi=1.3), align_corners=False),
    _gs("bilinear_border", r(1, 1, 3, 4), r(1, 3, 3, 2, lo=-1.4, hi=1.4), padding_mode="border",
        align_corners=False),
    _gs("bilinear_reflection", r(1, 2, 3, 3), r(1, 2, 3, 2, lo=-2.5, hi=2.5), padding_mode="reflection",
        align_corners=True),
    _gs("bilinear_reflection_no_align", r(1, 1, 4, 3), r(1, 3, 2, 2, lo=-2.5, hi=2.5), padding_mode="reflection",
        align_corners=False),
    _gs("nearest", r(1, 2, 3, 4), r(1, 2, 3, 2, lo=-1.2, hi=1.2), mode="nearest", align_corners=False),
    _gs("nearest_border", r(1, 1, 3, 3), r(1, 3, 2, 2, lo=-1.5, hi=1.5), mode="nearest", padding_mode="border"),
    _gs("trilinear_5d", r(1, 2, 2, 3, 3), r(1, 2, 2, 2, 3, lo=-1.1, hi=1.1), align_corners=False),
    _gs("nearest_5d_reflection", r(1, 1, 2, 3, 2), r(1, 2, 1, 2, 3, lo=-2, hi=2), mode="nearest",
        padding_mode="reflection"),
    OpCase("grid_sampler", {"X": r(1, 3, 4, 4).astype(np.float32), "Grid": r(1, 3, 3, 2).astype(np.float32)},
           grid_sampler_ref, name="float32", check_grad=False, rtol=1e-5, atol=1e-6),
    OpCase("affine_grid", {"Theta": r(2, 2, 3)}, affine_grid_ref, attrs={"output_shape": [2, 3, 4, 5]}),
    OpCase("affine_grid", {"Theta": r(1, 2, 3)}, affine_grid_ref, name="no_align",
           attrs={"output_shape": [1, 1, 3, 2], "align_corners": False}),
    OpCase("affine_grid", {"Theta": r(1, 3, 4), "OutputShape": np.array([1, 2, 2, 3, 4], np.int32)},
           affine_grid_ref, name="5d_shape_tensor", attrs={"align_corners": False}),
]
