"""Sequence losses as Paddle's ops: ``warpctc`` (CTC, softmax built in, as the Warp-CTC library
Paddle wraps) and ``warprnnt`` (RNN-T, as Warp-Transducer's CPU path: the input is used as
log-probabilities as given, with no normalisation).

Both are log-space forward-backward recursions in numpy, computed in float64 and returned in the
input's dtype. Their gradients are dedicated ``*_grad`` ops that rerun the recursion (Paddle keeps
the gradient in the intermediate ``WarpCTCGrad`` / ``warprnntgrad`` output; eager mode has no
intermediate outputs, so the grad op recomputes it). Warp-CTC's conventions are kept: an alignment
that cannot exist (label length plus repeats longer than the input) costs 0 with gradient 0, frames
past a sequence's length get gradient 0, ``norm_by_times`` scales only the gradient (by 1 / length).
Warp-Transducer's FastEmit scales only the gradient of label emissions (by 1 + fastemit_lambda).
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, register, grad_op

_NEG_INF = -np.inf


def _lengths(arr, batch, what, op):
    if arr is None:
        raise ValueError(f"{op}: {what} is required (Paddle's LoD form without lengths is not supported); "
                         f"pass a 1-D integer tensor of shape [{batch}]")
    arr = np.asarray(arr)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{op}: {what} must be an integer tensor, got {arr.dtype}")
    arr = arr.reshape(-1).astype(np.int64)
    if arr.shape[0] != batch:
        raise ValueError(f"{op}: {what} must hold one length per sequence ({batch}), got shape {list(arr.shape)}")
    return arr


def _log_softmax(x):
    s = x - np.max(x, axis=-1, keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis=-1, keepdims=True))


# ---- warpctc ------------------------------------------------------------------------------

def _ctc_one(logits, labels, blank):
    """(loss, d loss / d logits) of one sequence; logits [T, C] float64, labels [L]."""
    T, C = logits.shape
    L = len(labels)
    grad = np.zeros_like(logits)
    repeats = int(np.sum(labels[1:] == labels[:-1])) if L > 1 else 0
    if L + repeats > T:
        return 0.0, grad        # Warp-CTC: no alignment exists; it reports cost 0 and no gradient
    lp = _log_softmax(logits)
    ext = np.full(2 * L + 1, blank, dtype=np.int64)
    ext[1::2] = labels
    S = ext.size
    # a label may be reached from two states back unless it is blank or equals the label two back
    skip = np.zeros(S, dtype=bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    emit = lp[:, ext]                                     # [T, S]
    alpha = np.full((T, S), _NEG_INF)
    alpha[0, 0] = emit[0, 0]
    if S > 1:
        alpha[0, 1] = emit[0, 1]
    for t in range(1, T):
        prev = alpha[t - 1]
        a = prev.copy()
        a[1:] = np.logaddexp(a[1:], prev[:-1])
        a[2:] = np.where(skip[2:], np.logaddexp(a[2:], prev[:-2]), a[2:])
        alpha[t] = a + emit[t]
    beta = np.full((T, S), _NEG_INF)
    beta[T - 1, S - 1] = emit[T - 1, S - 1]
    if S > 1:
        beta[T - 1, S - 2] = emit[T - 1, S - 2]
    for t in range(T - 2, -1, -1):
        nxt = beta[t + 1]
        b = nxt.copy()
        b[:-1] = np.logaddexp(b[:-1], nxt[1:])
        b[:-2] = np.where(skip[2:], np.logaddexp(b[:-2], nxt[2:]), b[:-2])
        beta[t] = b + emit[t]
    ll = np.logaddexp(alpha[T - 1, S - 1], alpha[T - 1, S - 2]) if S > 1 else alpha[T - 1, 0]
    if not np.isfinite(ll):
        return np.inf, grad
    # occupancy of each extended state, summed per class
    with np.errstate(invalid="ignore"):
        post = np.exp(alpha + beta - emit - ll)
    post = np.nan_to_num(post)
    occ = np.zeros((T, C))
    np.add.at(occ.T, ext, post.T)
    grad[:] = np.exp(lp) - occ
    return float(-ll), grad


def _ctc_all(logits, label, logits_length, label_length, blank, op="warpctc"):
    if logits.ndim != 3:
        raise ValueError(f"{op}: Logits must be 3-D [max_logit_length, batch_size, num_classes + 1], "
                         f"got shape {list(logits.shape)}")
    Tmax, B, C = logits.shape
    if not 0 <= blank < C:
        raise ValueError(f"{op}: blank ({blank}) must be in [0, num_classes + 1) = [0, {C})")
    label = np.asarray(label)
    if label.dtype.kind not in "iu":
        raise TypeError(f"{op}: Label must be an int32 tensor, got {label.dtype}")
    if label.ndim != 2 or label.shape[0] != B:
        raise ValueError(f"{op}: Label must be 2-D [batch_size ({B}), max_label_length], got shape "
                         f"{list(label.shape)}")
    tl = _lengths(logits_length, B, "LogitsLength (input_lengths)", op)
    ll = _lengths(label_length, B, "LabelLength (label_lengths)", op)
    if (tl < 0).any() or (tl > Tmax).any():
        raise ValueError(f"{op}: input_lengths must lie in [0, {Tmax}] (the padded input length), got {tl.tolist()}")
    if (ll < 0).any() or (ll > label.shape[1]).any():
        raise ValueError(f"{op}: label_lengths must lie in [0, {label.shape[1]}] (the padded label length), "
                         f"got {ll.tolist()}")
    x = logits.astype(np.float64)
    loss = np.zeros((B, 1))
    grad = np.zeros_like(x)
    for b in range(B):
        labs = label[b, :ll[b]].astype(np.int64)
        if labs.size and (labs.min() < 0 or labs.max() >= C or (labs == blank).any()):
            raise ValueError(f"{op}: labels of sequence {b} must lie in [0, {C}) and differ from blank "
                             f"({blank}), got {labs.tolist()}")
        if tl[b] == 0:
            continue    # an empty input: no alignment, cost 0 (as Warp-CTC)
        loss[b, 0], grad[:tl[b], b] = _ctc_one(x[:tl[b], b], labs, blank)
    return loss, grad, tl


def _warpctc(logits, label, logits_length=None, label_length=None, blank=0, norm_by_times=False, **_):
    loss, _g, _ = _ctc_all(logits, label, logits_length, label_length, blank)
    return loss.astype(logits.dtype, copy=False)


def _warpctc_meta(logits, label, logits_length=None, label_length=None, **_):
    batch = logits.shape[1] if len(logits.shape) == 3 else -1
    return Meta((batch, 1), logits.dtype), Meta(tuple(logits.shape), logits.dtype)


def _warpctc_grad(logits, label, logits_length, label_length, dloss, blank=0, norm_by_times=False, **_):
    _loss, grad, tl = _ctc_all(logits, label, logits_length, label_length, blank)
    scale = np.asarray(dloss, dtype=np.float64).reshape(1, -1, 1)
    if norm_by_times:
        with np.errstate(divide="ignore"):
            scale = scale / np.maximum(tl, 1).reshape(1, -1, 1)
    return (grad * scale).astype(logits.dtype, copy=False)


register("warpctc", ["Logits", "Label", "LogitsLength?", "LabelLength?"], ["Loss", "WarpCTCGrad(intermediate)"],
         {"blank": ("INT", 0), "norm_by_times": ("BOOLEAN", False)},
         kernel=_warpctc, infer_meta=_warpctc_meta, differentiable=("Logits",))
grad_op("warpctc", ["Logits", "Label", "LogitsLength?", "LabelLength?", "Loss@GRAD"], ["Logits@GRAD"],
        _warpctc_grad)


# ---- warprnnt -----------------------------------------------------------------------------

def _rnnt_one(x, labels, blank, fastemit_lambda):
    """(loss, gradient) of one utterance; x [T, U + 1, D] log-probabilities (float64), labels [U]."""
    T, U1, _ = x.shape
    grad = np.zeros_like(x)
    blank_lp = x[:, :, blank]                                    # [T, U+1]
    emit_lp = np.take_along_axis(x[:, :U1 - 1, :], labels.reshape(1, -1, 1), axis=2)[..., 0] \
        if U1 > 1 else np.zeros((T, 0))                          # [T, U]
    # Along u, each recursion is a log-space prefix sum: with E[u] the summed label log-probs before u,
    # alpha[t, u] = E[u] + logcumsumexp_k<=u(from_above[k] - E[k]), and beta mirrors it from the end.
    E = np.zeros((T, U1))
    if U1 > 1:
        E[:, 1:] = np.cumsum(emit_lp, axis=1)
    alpha = np.full((T, U1), _NEG_INF)
    above = np.full(U1, _NEG_INF)
    above[0] = 0.0
    for t in range(T):
        if t > 0:
            above = alpha[t - 1] + blank_lp[t - 1]
        alpha[t] = E[t] + np.logaddexp.accumulate(above - E[t])
    beta = np.full((T, U1), _NEG_INF)
    below = np.full(U1, _NEG_INF)
    below[U1 - 1] = blank_lp[T - 1, U1 - 1]
    for t in range(T - 1, -1, -1):
        if t < T - 1:
            below = beta[t + 1] + blank_lp[t]
        beta[t] = np.logaddexp.accumulate((below + E[t])[::-1])[::-1] - E[t]
    ll = beta[0, 0]
    # occupancy of each transition: alpha before it, its log-prob, beta after it
    after_blank = np.full((T, U1), _NEG_INF)
    after_blank[:-1] = beta[1:]
    after_blank[T - 1, U1 - 1] = 0.0
    grad[:, :, blank] = -np.exp(alpha + blank_lp + after_blank - ll)
    if U1 > 1:
        g = -(1.0 + fastemit_lambda) * np.exp(alpha[:, :-1] + emit_lp + beta[:, 1:] - ll)
        tt, uu = np.meshgrid(np.arange(T), np.arange(U1 - 1), indexing="ij")
        np.add.at(grad, (tt, uu, np.broadcast_to(labels, (T, U1 - 1))), g)
    return float(-ll), grad


def _rnnt_all(x, label, input_lengths, label_lengths, blank, fastemit_lambda, op="warprnnt"):
    if x.ndim != 4:
        raise ValueError(f"{op}: input must be 4-D [batch_size, max_T, max_U + 1, num_classes], "
                         f"got shape {list(x.shape)}")
    B, Tmax, U1max, D = x.shape
    if not 0 <= blank < D:
        raise ValueError(f"{op}: blank ({blank}) must be in [0, num_classes) = [0, {D})")
    label = np.asarray(label)
    if label.dtype.kind not in "iu":
        raise TypeError(f"{op}: label must be an int32 tensor, got {label.dtype}")
    if label.ndim != 2 or label.shape[0] != B or label.shape[1] != U1max - 1:
        raise ValueError(f"{op}: label must be 2-D [batch_size ({B}), max_U ({U1max - 1})] where input is "
                         f"[batch_size, max_T, max_U + 1, num_classes]; got label shape {list(label.shape)}")
    tl = _lengths(input_lengths, B, "input_lengths", op)
    ul = _lengths(label_lengths, B, "label_lengths", op)
    if (tl < 1).any() or (tl > Tmax).any():
        raise ValueError(f"{op}: input_lengths must lie in [1, {Tmax}] (the padded input length), got {tl.tolist()}")
    if (ul < 0).any() or (ul > U1max - 1).any():
        raise ValueError(f"{op}: label_lengths must lie in [0, {U1max - 1}] (the padded label length), "
                         f"got {ul.tolist()}")
    xx = x.astype(np.float64)
    loss = np.zeros(B)
    grad = np.zeros_like(xx)
    for b in range(B):
        labs = label[b, :ul[b]].astype(np.int64)
        if labs.size and (labs.min() < 0 or labs.max() >= D):
            raise ValueError(f"{op}: labels of utterance {b} must lie in [0, {D}), got {labs.tolist()}")
        loss[b], grad[b, :tl[b], :ul[b] + 1] = _rnnt_one(xx[b, :tl[b], :ul[b] + 1], labs, blank, fastemit_lambda)
    return loss, grad


def _warprnnt(x, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.0, **_):
    loss, _g = _rnnt_all(x, label, input_lengths, label_lengths, blank, fastemit_lambda)
    return loss.astype(x.dtype, copy=False)


def _warprnnt_meta(x, *_, **__):
    batch = x.shape[0] if len(x.shape) == 4 else -1
    return Meta((batch,), x.dtype), Meta(tuple(x.shape), x.dtype)


def _warprnnt_grad(x, label, input_lengths, label_lengths, dloss, blank=0, fastemit_lambda=0.0, **_):
    _loss, grad = _rnnt_all(x, label, input_lengths, label_lengths, blank, fastemit_lambda)
    return (grad * np.asarray(dloss, dtype=np.float64).reshape(-1, 1, 1, 1)).astype(x.dtype, copy=False)


register("warprnnt", ["input", "label", "input_lengths", "label_lengths"], ["loss", "warprnntgrad(intermediate)"],
         {"blank": ("INT", 0), "fastemit_lambda": ("FLOAT", 0.0)},
         kernel=_warprnnt, infer_meta=_warprnnt_meta, differentiable=("input",))
grad_op("warprnnt", ["input", "label", "input_lengths", "label_lengths", "loss@GRAD"], ["input@GRAD"],
        _warprnnt_grad)
