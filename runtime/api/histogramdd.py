"""``paddle.histogramdd``: a D-dimensional histogram composed, as in Paddle, from linspace,
searchsorted and bincount (so it stages into static programs too)."""
from __future__ import annotations

import numbers

import numpy as np

from ..tensor import Tensor, tensor_method
from .creation import linspace, to_tensor
from .manipulation import cast, reshape, where
from .reduction import max as _max, min as _min, sum as _sum
from .tensor_extra import bincount, searchsorted

__all__ = ["histogramdd"]


def _dtype_name(t):
    return t.dtype.name if hasattr(t.dtype, "name") else str(t.dtype)


@tensor_method
def histogramdd(x, bins=10, ranges=None, density=False, weights=None, name=None):
    """Histogram of the points in ``x``'s innermost dim (D coordinates each): returns the counts
    (shape = the number of bins per dim, dtype of x) and the list of D bin-edge tensors.

    ``bins``: an int, a list of D ints, or a tuple of D 1-D edge tensors; ``ranges``: a flat list
    [min_0, max_0, ..., min_{D-1}, max_{D-1}] (default: each coordinate's data range);
    ``weights``: shape of x without its innermost dim; ``density`` normalises to a density.
    """
    if not isinstance(density, bool):
        raise TypeError(f"histogramdd: density must be a bool, got {type(density).__name__}")
    if len(x.shape) < 2:
        raise ValueError(f"histogramdd: x must have at least 2 dims (points x coordinates), got shape {list(x.shape)}")
    if _dtype_name(x) not in ("float32", "float64"):
        raise TypeError(f"histogramdd: x must be float32 or float64, got {_dtype_name(x)}")
    d = x.shape[-1]
    points = reshape(x, [-1, d])
    w = None
    if weights is not None:
        if list(weights.shape) != list(x.shape[:-1]):
            raise ValueError("histogramdd: weights must have x's shape without its innermost dim "
                             f"({list(x.shape[:-1])}), got {list(weights.shape)}")
        if _dtype_name(weights) != _dtype_name(x):
            raise TypeError(f"histogramdd: weights must have x's dtype {_dtype_name(x)}, got {_dtype_name(weights)}")
        w = reshape(weights, [-1])
    if ranges is None:
        lo, hi = _min(points, axis=0), _max(points, axis=0)
        bounds = [(lo[i], hi[i]) for i in range(d)]
    else:
        if not isinstance(ranges, (list, tuple)) or len(ranges) != 2 * d:
            raise ValueError(f"histogramdd: ranges must be a list of {2 * d} numbers (min, max per dim), "
                             f"got {ranges!r}")
        bounds = [(float(ranges[2 * i]), float(ranges[2 * i + 1])) for i in range(d)]

    edges, shape = [], []
    if isinstance(bins, (numbers.Integral, list)) and not isinstance(bins, bool):
        counts = [int(bins)] * d if isinstance(bins, numbers.Integral) else bins
        if len(counts) != d:
            raise ValueError(f"histogramdd: bins must list {d} ints (one per dim), got {len(counts)}")
        for i, n in enumerate(counts):
            if not isinstance(n, numbers.Integral):
                raise ValueError(f"histogramdd: bins[{i}] must be an int, got {n!r}")
            edges.append(linspace(bounds[i][0], bounds[i][1], int(n) + 1, dtype=x.dtype))
            shape.append(int(n) + 2)
    elif isinstance(bins, tuple):
        for e in bins:
            e = e if isinstance(e, Tensor) or not isinstance(e, (list, np.ndarray)) else to_tensor(e, dtype=x.dtype)
            if _dtype_name(e) != _dtype_name(x):
                raise TypeError(f"histogramdd: bin edges must have x's dtype {_dtype_name(x)}, got {_dtype_name(e)}")
            edges.append(e)
            shape.append(e.shape[0] + 1)
    else:
        raise ValueError("histogramdd: bins must be an int, a list of ints or a tuple of edge tensors, "
                         f"got {type(bins).__name__}")

    flat_index = None
    for i, e in enumerate(edges):
        col = points[:, i]
        pos = searchsorted(e, col, right=True)
        pos = where(col == e[-1], pos - 1, pos)       # the last edge belongs to the last bin
        term = pos * int(np.prod(shape[i + 1:]))
        flat_index = term if flat_index is None else flat_index + term
    hist = cast(reshape(bincount(flat_index, w, minlength=int(np.prod(shape))), shape), x.dtype)
    hist = hist[(slice(1, -1),) * d]                   # drop the under/overflow bins
    if density:
        total = _sum(hist)
        for i, e in enumerate(edges):
            view = [1] * d
            view[i] = shape[i] - 2
            hist = hist / reshape(e[1:] - e[:-1], view)
        hist = hist / total
    return hist, edges
