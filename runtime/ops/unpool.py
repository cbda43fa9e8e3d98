"""Max unpooling: unpool (4-D) and unpool3d (5-D) scatter each input value to the flat spatial
position its max-pooling mask recorded, in a zero output of ``output_size``; the grad gathers back.

Positions are indices into one channel's output plane (h * W + w, or d * H * W + h * W + w), as
max_pool2d/3d_with_index produce; later writes win when two indices coincide, as in Paddle's loop.
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, grad_op, register


def _plan(op, x_shape, idx_shape, ksize, output_size, nd):
    if len(x_shape) != nd + 2:
        raise ValueError(f"{op}: X must be {nd + 2}-D, got shape {list(x_shape)}")
    if tuple(idx_shape) != tuple(x_shape):
        raise ValueError(f"{op}: Indices must have X's shape {list(x_shape)}, got {list(idx_shape)}")
    if len(ksize) != nd:
        raise ValueError(f"{op}: ksize must have {nd} values, got {list(ksize)}")
    outs = [int(v) for v in output_size]
    if len(outs) != nd or any(v <= 0 for v in outs):
        raise ValueError(f"{op}: output_size must be {nd} positive ints, got {outs}")
    return outs


def _flat(op, indices, plane):
    idx = indices.reshape(indices.shape[0], indices.shape[1], -1).astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= plane):
        bad = int(idx.min() if idx.min() < 0 else idx.max())
        raise ValueError(f"{op}: index {bad} is out of range for an output plane of {plane} elements "
                         "(indices must come from max pooling to this output_size)")
    return idx


def _unpool_kernel(op, nd):
    def kernel(x, indices, ksize=(), unpooling_type="max", strides=(1, 1), paddings=(0, 0), output_size=(0, 0),
               data_format="NCHW"):
        outs = _plan(op, x.shape, indices.shape, ksize, output_size, nd)
        N, C = x.shape[:2]
        plane = int(np.prod(outs))
        idx = _flat(op, indices, plane)
        out = np.zeros((N, C, plane), dtype=x.dtype)
        n, c = np.meshgrid(np.arange(N), np.arange(C), indexing="ij")
        # numpy assignment with repeated indices keeps the last value, as Paddle's sequential loop
        out[n[..., None], c[..., None], idx] = x.reshape(N, C, -1)
        return out.reshape((N, C) + tuple(outs))
    return kernel


def _unpool_grad_kernel(op, nd):
    def kernel(x, indices, dout, ksize=(), unpooling_type="max", strides=(1, 1), paddings=(0, 0),
               output_size=(0, 0), data_format="NCHW"):
        outs = _plan(op, x.shape, indices.shape, ksize, output_size, nd)
        N, C = x.shape[:2]
        idx = _flat(op, indices, int(np.prod(outs)))
        g = np.take_along_axis(dout.reshape(N, C, -1), idx, axis=2)
        return g.reshape(x.shape).astype(x.dtype, copy=False)
    return kernel


def _unpool_meta(op, nd):
    def meta(x, indices, ksize=(), output_size=(), **_):
        outs = _plan(op, x.shape, indices.shape, ksize, output_size, nd)
        return Meta(tuple(x.shape[:2]) + tuple(outs), x.dtype)
    return meta


_2D = {"ksize": ("INTS", []), "unpooling_type": ("STRING", "max"), "strides": ("INTS", [1, 1]),
       "paddings": ("INTS", [0, 0]), "output_size": ("INTS", [0, 0]), "data_format": ("STRING", "NCHW")}
_3D = {"ksize": ("INTS", []), "strides": ("INTS", [1, 1, 1]), "paddings": ("INTS", [0, 0, 0]),
       "output_size": ("INTS", [0, 0, 0]), "data_format": ("STRING", "NCDHW")}

register("unpool", ["X", "Indices"], ["Out"], _2D, kernel=_unpool_kernel("unpool", 2),
         infer_meta=_unpool_meta("unpool", 2), differentiable=("X",))
grad_op("unpool", ["X", "Indices", "Out@GRAD"], ["X@GRAD"], _unpool_grad_kernel("unpool", 2))


def _unpool3d(x, indices, ksize=(), strides=(1, 1, 1), paddings=(0, 0, 0), output_size=(0, 0, 0),
              data_format="NCDHW"):
    return _unpool_kernel("unpool3d", 3)(x, indices, ksize=ksize, output_size=output_size)


def _unpool3d_grad(x, indices, dout, ksize=(), strides=(1, 1, 1), paddings=(0, 0, 0), output_size=(0, 0, 0),
                   data_format="NCDHW"):
    return _unpool_grad_kernel("unpool3d", 3)(x, indices, dout, ksize=ksize, output_size=output_size)


register("unpool3d", ["X", "Indices"], ["Out"], _3D, kernel=_unpool3d, infer_meta=_unpool_meta("unpool3d", 3),
         differentiable=("X",))
grad_op("unpool3d", ["X", "Indices", "Out@GRAD"], ["X@GRAD"], _unpool3d_grad)
