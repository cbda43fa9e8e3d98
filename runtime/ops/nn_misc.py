"""Assorted nn ops: dropout, lookup_table_v2 (embedding), one_hot_v2, label_smooth, accuracy.

dropout returns its keep-mask as a second output (uint8, Paddle's ``Mask`` slot) so
that ``dropout_grad`` reads the very mask the forward drew, in eager and static
programs alike; Paddle's protos call Mask an extra output, but an op that must replay
its own randomness has to hand the mask on somehow.
"""
from __future__ import annotations

import numpy as np

from ..dtype import from_proto
from ..random import generator
from .registry import Meta, register, grad_op


# ---- dropout -------------------------------------------------------------------------------

def _dropout(x, seed=None, dropout_prob=0.5, is_test=False, dropout_implementation="downgrade_in_infer", **_):
    p = float(dropout_prob)
    upscale = dropout_implementation == "upscale_in_train"
    if is_test:
        out = x.copy() if upscale else (x * (1.0 - p)).astype(x.dtype, copy=False)
        return out, np.ones(x.shape, dtype=np.uint8)
    if p >= 1.0:
        mask = np.zeros(x.shape, dtype=np.uint8)
        return np.zeros_like(x), mask
    rng = generator(int(np.asarray(seed).reshape(-1)[0]) if seed is not None else 0)
    keep = rng.random(x.shape, dtype=np.float32) >= p
    out = x * keep
    if upscale:
        out *= 1.0 / (1.0 - p)
    return out.astype(x.dtype, copy=False), keep.view(np.uint8)


def _dropout_meta(x, seed=None, **_):
    return Meta(tuple(x.shape), x.dtype), Meta(tuple(x.shape), np.dtype(np.uint8))


def _dropout_grad(mask, dout, dropout_prob=0.5, is_test=False, dropout_implementation="downgrade_in_infer", **_):
    p = float(dropout_prob)
    upscale = dropout_implementation == "upscale_in_train"
    if is_test:
        return dout.copy() if upscale else (dout * (1.0 - p)).astype(dout.dtype, copy=False)
    if p >= 1.0:
        return np.zeros_like(dout)
    g = dout * mask.astype(bool)
    if upscale:
        g *= 1.0 / (1.0 - p)
    return g.astype(dout.dtype, copy=False)


register("dropout", ["X", "Seed?"], ["Out", "Mask"],
         {"dropout_prob": ("FLOAT", 0.5), "is_test": ("BOOLEAN", False),
          "dropout_implementation": ("STRING", "downgrade_in_infer")},
         kernel=_dropout, infer_meta=_dropout_meta, random=True, differentiable=("X",))
grad_op("dropout", ["Mask", "Out@GRAD"], ["X@GRAD"], _dropout_grad,
        infer_meta=lambda mask, dout, **_: Meta(tuple(dout.shape), dout.dtype))


# ---- lookup_table_v2 -----------------------------------------------------------------------

def _check_ids(ids, n, what):
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{what}: ids must be an integer tensor (int32/int64), got {ids.dtype}")
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        bad = ids.min() if ids.min() < 0 else ids.max()
        raise ValueError(f"{what}: id {int(bad)} is out of range; ids must satisfy 0 <= id < {n} "
                         f"(the number of rows of the weight)")


def _lookup_table_v2(ids, w, padding_idx=-1, **_):
    _check_ids(ids, w.shape[0], "embedding (lookup_table_v2)")
    out = np.take(w, ids, axis=0)
    if padding_idx != -1:
        out[ids == padding_idx] = 0
    return out


def _lookup_meta(ids, w, **_):
    return Meta(tuple(ids.shape) + (w.shape[1],), w.dtype)


def _lookup_table_v2_grad(ids, w, dout, padding_idx=-1, **_):
    gw = np.zeros_like(w)
    np.add.at(gw, ids.reshape(-1), dout.reshape(-1, w.shape[1]))
    if padding_idx != -1:
        gw[padding_idx] = 0
    return gw


register("lookup_table_v2", ["Ids", "W"], ["Out"], {"padding_idx": ("LONG", -1)},
         kernel=_lookup_table_v2, infer_meta=_lookup_meta, differentiable=("W",))
grad_op("lookup_table_v2", ["Ids", "W", "Out@GRAD"], ["W@GRAD"], _lookup_table_v2_grad)


# ---- one_hot_v2 ----------------------------------------------------------------------------

def _one_hot_v2(x, depth_tensor=None, depth=-1, dtype=5, allow_out_of_range=False, **_):
    if depth_tensor is not None:
        depth = int(np.asarray(depth_tensor).reshape(-1)[0])
    if x.dtype.kind not in "iu":
        raise TypeError(f"one_hot: x must be an integer tensor, got {x.dtype}")
    if depth == -1:   # Paddle infers the class count from the largest label
        depth = int(x.max()) + 1 if x.size else 0
    elif depth < 1:
        raise ValueError(f"one_hot: num_classes (depth) must be a positive integer, got {depth}")
    valid = (x >= 0) & (x < depth)
    if not allow_out_of_range and not valid.all():
        bad = x[~valid].reshape(-1)[0]
        raise ValueError(f"one_hot: label value {int(bad)} is out of range; values must satisfy "
                         f"0 <= value < num_classes ({depth})")
    out = np.zeros(x.shape + (depth,), dtype=from_proto(dtype).np)
    idx = np.where(valid, x, 0)[..., None]
    np.put_along_axis(out, idx, valid[..., None].astype(out.dtype), axis=-1)
    return out


def _one_hot_meta(x, depth_tensor=None, depth=-1, dtype=5, **_):
    d = -1 if depth_tensor is not None else depth
    return Meta(tuple(x.shape) + (d,), from_proto(dtype).np)


register("one_hot_v2", ["X", "depth_tensor?"], ["Out"],
         {"depth": ("INT", -1), "dtype": ("INT", 5), "allow_out_of_range": ("BOOLEAN", False)},
         kernel=_one_hot_v2, infer_meta=_one_hot_meta, differentiable=())


# ---- label_smooth --------------------------------------------------------------------------

def _label_smooth(x, prior_dist=None, epsilon=0.0, **_):
    if prior_dist is not None:
        smooth = prior_dist.astype(x.dtype, copy=False).reshape((1,) * (x.ndim - 1) + (-1,))
        out = (1.0 - epsilon) * x + epsilon * smooth
    else:
        out = (1.0 - epsilon) * x + epsilon / x.shape[-1]
    return out.astype(x.dtype, copy=False)


def _label_smooth_grad(dout, epsilon=0.0, **_):
    return ((1.0 - epsilon) * dout).astype(dout.dtype, copy=False)


register("label_smooth", ["X", "PriorDist?"], ["Out"], {"epsilon": ("FLOAT", 0.0)},
         kernel=_label_smooth, infer_meta=lambda x, *_, **__: Meta(tuple(x.shape), x.dtype),
         differentiable=("X",))
grad_op("label_smooth", ["Out@GRAD"], ["X@GRAD"], _label_smooth_grad,
        infer_meta=lambda dout, **_: Meta(tuple(dout.shape), dout.dtype))


# ---- accuracy ------------------------------------------------------------------------------

def _accuracy(out, indices, label, **_):
    n = indices.shape[0]
    lab = label.reshape(n, -1)[:, :1]
    correct = int(np.any(indices.reshape(n, -1) == lab, axis=1).sum())
    acc = np.asarray(correct / n if n else 0.0, dtype=np.float32)
    return acc, np.asarray(correct, dtype=np.int32), np.asarray(n, dtype=np.int32)


def _accuracy_meta(out, indices, label, **_):
    return Meta((), np.dtype(np.float32)), Meta((), np.dtype(np.int32)), Meta((), np.dtype(np.int32))


register("accuracy", ["Out", "Indices", "Label"], ["Accuracy", "Correct", "Total"], {},
         kernel=_accuracy, infer_meta=_accuracy_meta, differentiable=())
