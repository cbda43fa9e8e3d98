"""Counting and binning ops: bincount, histogram, searchsorted (none has a gradient in Paddle).

Dtypes follow Paddle 3.3.1's CPU kernels (measured): bincount counts are int64, weighted sums
float32 for float32 weights and float64 otherwise; histogram counts are int64, and float32 as
soon as a weight or ``density`` is given (whatever the input dtype).
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, register


# -- bincount ------------------------------------------------------------------------------------

def _bincount_dtype(weights):
    if weights is None:
        return np.dtype(np.int64)
    return np.dtype(np.float32) if np.dtype(weights) == np.float32 else np.dtype(np.float64)


def _bincount(x, weights=None, minlength=0, **_):
    if x.ndim != 1:
        raise ValueError(f"bincount: the input must be 1-D, got shape {list(x.shape)}")
    if x.dtype.kind not in "iu":
        raise TypeError(f"bincount: the input must be an int32 or int64 tensor, got {x.dtype}")
    if x.size and x.min() < 0:
        raise ValueError("bincount: the elements of the input must be non-negative ints, "
                         f"got minimum {x.min()}")
    if int(minlength) < 0:
        raise ValueError(f"bincount: minlength must be non-negative, got {minlength}")
    if weights is not None and weights.shape != x.shape:
        raise ValueError(f"bincount: weights must have the input's shape {list(x.shape)}, "
                         f"got {list(weights.shape)}")
    od = _bincount_dtype(None if weights is None else weights.dtype)
    w = None if weights is None else weights.astype(np.float64)
    return np.bincount(x, weights=w, minlength=int(minlength)).astype(od)


register("bincount", ["X", "Weights?"], ["Out"], {"minlength": ("INT", 0)},
         kernel=_bincount, differentiable=(),
         infer_meta=lambda x, w=None, **_: Meta((-1,), _bincount_dtype(None if w is None else w.dtype)))


# -- histogram -----------------------------------------------------------------------------------

def _histogram(x, weight=None, bins=100, min=0.0, max=0.0, density=False, **_):
    bins = int(bins)
    if bins < 1:
        raise ValueError(f"histogram: bins must be >= 1, got {bins}")
    if max < min:
        raise ValueError(f"histogram: max must be larger than or equal to min, got min={min}, max={max}")
    if weight is not None and weight.shape != x.shape:
        raise ValueError(f"histogram: weight must have the input's shape {list(x.shape)}, "
                         f"got {list(weight.shape)}")
    data = x.reshape(-1).astype(np.float64)
    lo, hi = float(min), float(max)
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    keep = (data >= lo) & (data <= hi)
    pos = ((data[keep] - lo) * bins / (hi - lo)).astype(np.int64)
    pos = np.minimum(pos, bins - 1)
    w = None if weight is None else weight.reshape(-1).astype(np.float64)[keep]
    counts = np.bincount(pos, weights=w, minlength=bins)
    if density:
        total = counts.sum()
        counts = counts / (total * (hi - lo) / bins) if total else counts * 0.0
    od = np.float32 if (weight is not None or density) else np.int64
    return counts.astype(od)


register("histogram", ["X", "Weight?"], ["Out"],
         {"bins": ("LONG", 100), "min": ("FLOAT", 0.0), "max": ("FLOAT", 0.0), "density": ("BOOLEAN", False)},
         kernel=_histogram, differentiable=(),
         infer_meta=lambda x, w=None, bins=100, density=False, **_: Meta(
             (int(bins),), np.dtype(np.float32 if (w is not None or density) else np.int64)))


# -- searchsorted --------------------------------------------------------------------------------

def _searchsorted(seq, values, out_int32=False, right=False, **_):
    od = np.int32 if out_int32 else np.int64
    side = "right" if right else "left"
    if seq.ndim == 1:
        return np.searchsorted(seq, values, side=side).astype(od)
    if seq.shape[:-1] != values.shape[:-1]:
        raise ValueError("searchsorted: sorted_sequence and values must agree on every dimension but the "
                         f"last, got {list(seq.shape)} and {list(values.shape)}")
    s2 = seq.reshape(-1, seq.shape[-1])
    v2 = values.reshape(-1, values.shape[-1])
    out = np.stack([np.searchsorted(s2[i], v2[i], side=side) for i in range(s2.shape[0])]) \
        if s2.shape[0] else np.zeros(v2.shape, np.int64)
    return out.reshape(values.shape).astype(od)


register("searchsorted", ["SortedSequence", "Values"], ["Out"],
         {"out_int32": ("BOOLEAN", False), "right": ("BOOLEAN", False)},
         kernel=_searchsorted, differentiable=(),
         infer_meta=lambda s, v, out_int32=False, **_: Meta(tuple(v.shape),
                                                            np.dtype(np.int32 if out_int32 else np.int64)))
