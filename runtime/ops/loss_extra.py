"""Sampled and tree-structured classification losses as Paddle's ops: ``hierarchical_sigmoid``
(hsigmoid_loss), ``margin_cross_entropy`` (ArcFace-style margins, single process) and
``class_center_sample`` (PartialFC's class-centre sampling, single process).

hierarchical_sigmoid follows Paddle's kernel to the letter, quirks included: the pre-activations
are clipped to [-40, 40], and every one of the ``code_length`` columns adds softplus(0) = log 2 for
paths shorter than the longest one (Paddle's kernel does not subtract that; it is constant, so the
gradients are unaffected).
"""
from __future__ import annotations

import numpy as np

from ..random import generator
from .registry import Meta, register, grad_op


# ---- hierarchical_sigmoid -----------------------------------------------------------------

def _bit_length(v):
    return int(v).bit_length()


def _hsig_paths(label, num_classes, path_table, path_code, n_rows):
    """(index [N, L], bit [N, L], valid [N, L]) of every sample's path from leaf to root."""
    label = np.asarray(label).reshape(-1).astype(np.int64)
    n = label.shape[0]
    if path_table is not None:
        if path_code is None:
            raise ValueError("hierarchical_sigmoid: path_code is required with path_table (a custom tree)")
        table = np.asarray(path_table).astype(np.int64)
        code = np.asarray(path_code).astype(np.int64)
        if table.ndim != 2 or table.shape[0] != n or code.shape != table.shape:
            raise ValueError(f"hierarchical_sigmoid: path_table and path_code must both be [N ({n}), L], got "
                             f"{list(table.shape)} and {list(code.shape)}")
        # a path ends at its first negative table entry
        neg = table < 0
        length = np.where(neg.any(axis=1), neg.argmax(axis=1), table.shape[1])
        valid = np.arange(table.shape[1])[None, :] < length[:, None]
        index = np.where(valid, table, 0)
        bit = valid & (code != 0)
    else:
        if num_classes < 2:
            raise ValueError(f"hierarchical_sigmoid: num_classes must be >= 2, got {num_classes}")
        if n and (label.min() < 0 or label.max() >= num_classes):
            raise ValueError(f"hierarchical_sigmoid: labels must lie in [0, num_classes) = [0, {num_classes}), "
                             f"got values in [{label.min()}, {label.max()}]")
        width = _bit_length(num_classes - 1)
        c = label + num_classes                                 # the leaf's node code in the heap order
        length = np.array([_bit_length(v) - 1 for v in c], dtype=np.int64)
        j = np.arange(width)[None, :]
        valid = j < length[:, None]
        index = np.where(valid, (c[:, None] >> (j + 1)) - 1, 0)
        bit = valid & (((c[:, None] >> j) & 1) == 1)
    if index.size and (index.min() < 0 or index.max() >= n_rows):
        raise ValueError(f"hierarchical_sigmoid: a path visits node {int(index.max())}, but the weight has only "
                         f"{n_rows} rows (one per non-leaf node)")
    return index, bit, valid


def _hsig_pre(x, w, index, valid, bias):
    pre = np.einsum("nd,nld->nl", x, w[index])
    if bias is not None:
        pre = pre + bias.reshape(-1)[index]
    return np.clip(np.where(valid, pre, 0.0), -40.0, 40.0)


def _softplus(z):
    return np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))


def _hsigmoid(x, w, label, path_table=None, path_code=None, bias=None, num_classes=2, trainer_id=0,
              height_sections=(), epmap=(), table_names=(), is_sparse=False, **_):
    index, bit, valid = _hsig_paths(label, num_classes, path_table, path_code, w.shape[0])
    pre = _hsig_pre(x, w, index, valid, bias)
    out = np.sum(_softplus(pre), axis=1, keepdims=True) - np.sum(np.where(bit, pre, 0.0), axis=1, keepdims=True)
    return out.astype(x.dtype, copy=False)


def _hsigmoid_meta(x, w, label, path_table=None, *_, num_classes=2, **__):
    n = x.shape[0]
    width = path_table.shape[1] if path_table is not None else _bit_length(max(int(num_classes) - 1, 1))
    return Meta((n, 1), x.dtype), Meta((n, width), x.dtype), Meta(tuple(w.shape), w.dtype)


def _hsigmoid_grad(x, w, label, path_table, path_code, bias, dout, num_classes=2, **_):
    index, bit, valid = _hsig_paths(label, num_classes, path_table, path_code, w.shape[0])
    pre = _hsig_pre(x, w, index, valid, bias)
    dpre = (0.5 * (1.0 + np.tanh(0.5 * pre)) - bit) * valid * np.asarray(dout).reshape(-1, 1)
    dx = np.einsum("nl,nld->nd", dpre, w[index]).astype(x.dtype, copy=False)
    dw = np.zeros_like(w)
    np.add.at(dw, index[valid], (dpre[:, :, None] * x[:, None, :])[valid].astype(w.dtype, copy=False))
    dbias = None
    if bias is not None:
        flat = np.zeros(bias.size, dtype=bias.dtype)
        np.add.at(flat, index[valid], dpre[valid].astype(bias.dtype, copy=False))
        dbias = flat.reshape(bias.shape)
    return dx, dw, dbias


register("hierarchical_sigmoid", ["X", "W", "Label", "PathTable?", "PathCode?", "Bias?"],
         ["Out", "PreOut(intermediate)", "W_Out(intermediate)"],
         {"num_classes": ("INT", 2), "trainer_id": ("INT", 0), "height_sections": ("LONGS", []),
          "epmap": ("STRINGS", []), "table_names": ("STRINGS", []), "is_sparse": ("BOOLEAN", False)},
         kernel=_hsigmoid, infer_meta=_hsigmoid_meta, differentiable=("X", "W", "Bias"))


def _hsigmoid_grad_meta(x, w, label, path_table, path_code, bias, dout, **_):
    return Meta(tuple(x.shape), x.dtype), Meta(tuple(w.shape), w.dtype), \
        (None if bias is None else Meta(tuple(bias.shape), bias.dtype))


grad_op("hierarchical_sigmoid", ["X", "W", "Label", "PathTable?", "PathCode?", "Bias?", "Out@GRAD"],
        ["X@GRAD", "W@GRAD", "Bias@GRAD?"], _hsigmoid_grad, infer_meta=_hsigmoid_grad_meta)


# ---- margin_cross_entropy -----------------------------------------------------------------

def _mce_check(logits, label, nranks):
    if nranks != 1:
        raise NotImplementedError("margin_cross_entropy: only the single-process form (nranks = 1) is supported; "
                                  "model-parallel class sharding across ranks is not implemented")
    if logits.ndim != 2:
        raise ValueError(f"margin_cross_entropy: logits must be 2-D [N, num_classes], got shape {list(logits.shape)}")
    lab = np.asarray(label)
    if lab.dtype.kind not in "iu":
        raise TypeError(f"margin_cross_entropy: label must be int32 or int64, got {lab.dtype}")
    lab = lab.reshape(-1).astype(np.int64)
    if lab.shape[0] != logits.shape[0]:
        raise ValueError(f"margin_cross_entropy: label must hold one class per row ({logits.shape[0]}), "
                         f"got {lab.shape[0]}")
    if lab.size and (lab.min() < 0 or lab.max() >= logits.shape[1]):
        raise ValueError(f"margin_cross_entropy: labels must lie in [0, {logits.shape[1]}), got values in "
                         f"[{lab.min()}, {lab.max()}]")
    return lab


def _mce_forward(logits, lab, margin1, margin2, margin3, scale):
    x = logits.astype(np.float64)
    rows = np.arange(x.shape[0])
    z = x.copy()
    with np.errstate(invalid="ignore"):
        z[rows, lab] = np.cos(margin1 * np.arccos(x[rows, lab]) + margin2) - margin3
    z *= scale
    s = z - z.max(axis=1, keepdims=True)
    logp = s - np.log(np.exp(s).sum(axis=1, keepdims=True))
    return x, rows, logp


def _margin_ce(logits, label, return_softmax=False, ring_id=0, rank=0, nranks=1, margin1=1.0, margin2=0.5,
               margin3=0.0, scale=64.0, **_):
    lab = _mce_check(logits, label, nranks)
    _x, rows, logp = _mce_forward(logits, lab, margin1, margin2, margin3, scale)
    loss = -logp[rows, lab].reshape(-1, 1)
    return np.exp(logp).astype(logits.dtype, copy=False), loss.astype(logits.dtype, copy=False)


def _margin_ce_meta(logits, label, **_):
    return Meta(tuple(logits.shape), logits.dtype), Meta((logits.shape[0], 1), logits.dtype)


def _margin_ce_grad(logits, label, softmax, dloss, dsoftmax, return_softmax=False, ring_id=0, rank=0, nranks=1,
                    margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0, **_):
    lab = _mce_check(logits, label, nranks)
    x, rows, logp = _mce_forward(logits, lab, margin1, margin2, margin3, scale)
    sm = np.exp(logp)
    dz = np.zeros_like(sm)
    if dloss is not None:
        onehot = np.zeros_like(sm)
        onehot[rows, lab] = 1.0
        dz += (sm - onehot) * np.asarray(dloss, dtype=np.float64).reshape(-1, 1)
    if dsoftmax is not None:   # Paddle's kernel ignores this path; it is the exact derivative
        ds = np.asarray(dsoftmax, dtype=np.float64)
        dz += sm * (ds - np.sum(ds * sm, axis=1, keepdims=True))
    dx = dz * scale
    if abs(margin1 - 1.0) > 1e-8 or abs(margin2) > 1e-8:
        xl = x[rows, lab]
        with np.errstate(invalid="ignore", divide="ignore"):
            d = margin1 * np.sin(margin1 * np.arccos(xl) + margin2) / np.sqrt(1.0 - xl * xl)
        dx[rows, lab] *= d
    return dx.astype(logits.dtype, copy=False)


register("margin_cross_entropy", ["Logits", "Label"], ["Softmax", "Loss"],
         {"return_softmax": ("BOOLEAN", False), "ring_id": ("INT", 0), "rank": ("INT", 0), "nranks": ("INT", 1),
          "margin1": ("FLOAT", 1.0), "margin2": ("FLOAT", 0.5), "margin3": ("FLOAT", 0.0), "scale": ("FLOAT", 64.0)},
         kernel=_margin_ce, infer_meta=_margin_ce_meta, differentiable=("Logits",))
grad_op("margin_cross_entropy", ["Logits", "Label", "Softmax", "Loss@GRAD?", "Softmax@GRAD?"], ["Logits@GRAD"],
        _margin_ce_grad)


# ---- class_center_sample ------------------------------------------------------------------

def _class_center_sample(label, num_classes=0, num_samples=0, ring_id=0, rank=0, nranks=1, fix_seed=False,
                         seed=0, **_):
    if nranks != 1:
        raise NotImplementedError("class_center_sample: only the single-process form (nranks = 1) is supported")
    lab = np.asarray(label)
    if lab.dtype.kind not in "iu":
        raise TypeError(f"class_center_sample: label must be int32 or int64, got {lab.dtype}")
    flat = lab.reshape(-1).astype(np.int64)
    if flat.size and (flat.min() < 0 or flat.max() >= num_classes):
        raise ValueError(f"class_center_sample: labels must lie in [0, num_classes) = [0, {num_classes}), got "
                         f"values in [{flat.min()}, {flat.max()}]")
    positive = np.unique(flat)                     # sorted, as Paddle's std::set
    sampled = list(positive)
    if num_samples > positive.size:
        # negatives: drawn uniformly among the classes not yet taken, in draw order (Paddle draws with
        # rejection from [0, num_classes); the set drawn differs, its properties do not)
        rng = generator(int(seed) if fix_seed else 0)
        rest = np.setdiff1d(np.arange(num_classes, dtype=np.int64), positive)
        sampled.extend(rng.permutation(rest)[:num_samples - positive.size].tolist())
    sampled = np.asarray(sampled, dtype=np.int64)
    remap = np.searchsorted(positive, flat)
    return remap.reshape(lab.shape).astype(lab.dtype), sampled.astype(lab.dtype)


def _class_center_sample_meta(label, **_):
    return Meta(tuple(label.shape), label.dtype), Meta((-1,), label.dtype)


register("class_center_sample", ["Label"], ["RemappedLabel", "SampledLocalClassCenter"],
         {"num_classes": ("INT", 0), "num_samples": ("INT", 0), "ring_id": ("INT", 0), "rank": ("INT", 0),
          "nranks": ("INT", 1), "fix_seed": ("BOOLEAN", False), "seed": ("INT", 0)},
         kernel=_class_center_sample, infer_meta=_class_center_sample_meta, random=True, differentiable=())
