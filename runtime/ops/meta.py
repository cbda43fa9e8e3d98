"""Shape/dtype inference helpers shared by many ops (``infer_meta`` building blocks)."""
from __future__ import annotations

import numpy as np

from .registry import Meta


def same_as_x(x, *_, **__):
    """Output has the input's shape and dtype (unary elementwise ops)."""
    return Meta(tuple(x.shape), x.dtype)


def broadcast_shapes(a, b, axis=-1):
    """Broadcast two shapes that may hold -1 (unknown) dims, with Paddle's legacy ``axis``."""
    a, b = tuple(a), tuple(b)
    if axis != -1 and len(a) != len(b):
        if not 0 <= axis <= max(len(a), len(b)):
            # checked first: the padding below is (1,) * (rank difference - axis), and an axis read from a
            # model file (-2**30) made that a tuple of a billion entries (8 GB) during load
            raise ValueError(f"axis {axis} is out of range for shapes {list(a)} and {list(b)} (expected -1 or "
                             f"0..{max(len(a), len(b))})")
        if len(a) > len(b):
            b = b + (1,) * (len(a) - axis - len(b))
        else:
            a = a + (1,) * (len(b) - axis - len(a))
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    out = []
    for i, (p, q) in enumerate(zip(a, b)):
        if p == q:
            out.append(p)
        elif p == 1:
            out.append(q)
        elif q == 1:
            out.append(p)
        elif p == -1:
            out.append(q)
        elif q == -1:
            out.append(p)
        else:
            raise ValueError(f"shapes {list(a)} and {list(b)} cannot be broadcast together "
                             f"(dimension {i}: {p} vs {q})")
    return tuple(out)


def broadcast_meta(x, y, axis=-1, **_):
    return Meta(broadcast_shapes(x.shape, y.shape, axis), np.result_type(x.dtype, y.dtype))


def compare_meta(x, y, axis=-1, **_):
    return Meta(broadcast_shapes(x.shape, y.shape, axis), np.dtype(np.bool_))


def normalize_axis(axis, ndim, what="axis"):
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise ValueError(f"{what} {axis} is out of range for a tensor of rank {ndim} "
                         f"(expected -{max(ndim, 1)} <= {what} < {max(ndim, 1)})")
    return axis + ndim if axis < 0 else axis


def reduce_shape(shape, axes, keepdim, reduce_all=False):
    """Output shape of a reduction over ``axes`` (empty/None axes or reduce_all: every axis)."""
    ndim = len(shape)
    if reduce_all or axes is None or len(axes) == 0:
        axes = range(ndim)
    axes = {normalize_axis(a, ndim) for a in axes}
    if keepdim:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)
