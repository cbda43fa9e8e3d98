"""``index_put``: ``x[indices] = value`` (or ``+=`` with ``accumulate``) as one op, Paddle's slots
(``x``, ``indices`` — a list of integer index tensors or one boolean mask —, ``value``; output ``out``).

Paddle writes it for item assignment with tensor indices (``z[mask] = 0.0``), in legacy and PIR files.
The gradient: ``out`` takes ``dout`` where ``x`` survives (everywhere with ``accumulate``), and
``value`` the sum of ``dout`` over the positions it was written to (without ``accumulate``, only the
last of several writes to one position counts, as only it reaches ``out``), reduced to its own shape.
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, register, grad_op


def _index(x, indices):
    if not indices:
        raise ValueError("index_put: indices must hold at least one index tensor")
    idx = []
    for i in indices:
        i = np.asarray(i)
        if i.dtype == np.bool_:
            if len(indices) != 1:
                raise ValueError("index_put: a boolean mask must be the only index")
            if i.shape != x.shape[:i.ndim]:
                raise ValueError(f"index_put: the mask's shape {list(i.shape)} must match the leading dims of x "
                                 f"{list(x.shape)}")
            return np.nonzero(i)
        if i.dtype.kind not in "iu":
            raise TypeError(f"index_put: indices must be int32, int64 or bool tensors, got {i.dtype}")
        idx.append(i)
    if len(idx) > x.ndim:
        raise ValueError(f"index_put: {len(idx)} index tensors for a tensor of rank {x.ndim}")
    return tuple(idx)


def _index_put(x, indices, value, accumulate=False, **_):
    idx = _index(x, indices)
    out = x.copy()
    target_shape = out[idx].shape
    v = np.broadcast_to(np.asarray(value, dtype=x.dtype), target_shape)
    if accumulate:
        np.add.at(out, idx, v)
    else:
        out[idx] = v
    return out


def _index_put_meta(x, indices, value, accumulate=False, **_):
    return Meta(tuple(x.shape), x.dtype)


def _unbroadcast(g, shape):
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for a, n in enumerate(shape):
        if n == 1 and g.shape[a] != 1:
            g = g.sum(axis=a, keepdims=True)
    return g.reshape(shape)


def _overwritten(x_shape, idx):
    """Mask (over the broadcast index shape) of the writes a later write to the same position replaces:
    numpy assigns in order, so only the last write to a position reaches ``out``."""
    arrays = np.broadcast_arrays(*idx)
    dims = x_shape[:len(arrays)]
    lin = np.ravel_multi_index(tuple(np.where(a < 0, a + n, a) for a, n in zip(arrays, dims)), dims).reshape(-1)
    keep = np.zeros(lin.shape, dtype=bool)
    _, first_from_end = np.unique(lin[::-1], return_index=True)
    keep[len(lin) - 1 - first_from_end] = True
    return ~keep.reshape(arrays[0].shape)


def _index_put_grad(x, indices, value, dout, accumulate=False, **_):
    idx = _index(x, indices)
    dx = dout.copy()
    g = np.array(dout[idx])
    if not accumulate:
        dx[idx] = 0
        if g.size:
            g[_overwritten(x.shape, idx)] = 0   # a value element written over later gets no gradient
    dv = _unbroadcast(g, np.shape(value)).astype(np.asarray(value).dtype)
    return dx, dv


register("index_put", ["x", "indices[]", "value"], ["out"], {"accumulate": ("BOOLEAN", False)},
         kernel=_index_put, infer_meta=_index_put_meta)
grad_op("index_put", ["x", "indices[]", "value", "out@GRAD"], ["x@GRAD", "value@GRAD"], _index_put_grad)
