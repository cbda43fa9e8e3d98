"""Loss ops: softmax_with_cross_entropy, cross_entropy2, sigmoid_cross_entropy_with_logits,
bce_loss, huber_loss, nll_loss, kldiv_loss, and their fused grads; fused_softmax_ce_mean, the
compiled training step's softmax cross-entropy with its mean.

Each loss has a dedicated ``*_grad`` op: the fused forms (softmax minus one-hot ...) are
both faster and numerically steadier than differentiating the pieces.
"""
from __future__ import annotations

import math

import numpy as np

from .lastaxis import row_max_shift, row_sum, sum_ok
from .meta import normalize_axis
from .reduce import _reduce_mean
from .registry import Meta, register, grad_op


def _shifted(x, axis):
    """``x - max(x)`` over ``axis`` and its exp; the class axis last takes runtime/ops/lastaxis.py's
    fast row maximum (as softmax does)."""
    last = axis == x.ndim - 1 and x.ndim > 0
    s = np.subtract(x, row_max_shift(x) if last else np.max(x, axis=axis, keepdims=True))
    return s, np.exp(s), last


def _row_total(e, axis, last):
    return row_sum(e) if last and sum_ok(e) else np.sum(e, axis=axis, keepdims=True)


def _softmax(x, axis):
    _, e, last = _shifted(x, axis)
    return e / _row_total(e, axis, last)


def _log_softmax(x, axis):
    s, e, last = _shifted(x, axis)
    return s - np.log(_row_total(e, axis, last))


def _hard_label(label, ndim, axis, n_class, ignore_index, what, logits_shape=None):
    """Label with a size-1 ``axis`` dim, its validity mask and a gather-safe copy."""
    if label.ndim == ndim - 1:
        label = np.expand_dims(label, axis)
    if logits_shape is not None and (label.ndim != ndim or label.shape[axis] != 1 or any(
            a != b for i, (a, b) in enumerate(zip(label.shape, logits_shape)) if i != axis)):
        raise ValueError(f"{what}: hard labels of shape {list(label.shape)} do not match the input shape "
                         f"{list(logits_shape)}: they must equal it except for size 1 (or no dimension) "
                         f"at the class axis {axis}")
    if label.dtype.kind not in "iu":
        raise TypeError(f"{what}: hard labels must be an integer tensor, got {label.dtype}; "
                        "pass soft_label=True for probability labels")
    label = label.astype(np.int64, copy=False)
    valid = label != ignore_index
    safe = np.where(valid, label, 0)
    if safe.size and (safe.min() < 0 or safe.max() >= n_class):
        bad = safe.min() if safe.min() < 0 else safe.max()
        raise IndexError(f"{what}: label value {int(bad)} is out of range; labels must satisfy "
                         f"0 <= label < {n_class} (the size of the class axis) or equal ignore_index "
                         f"({ignore_index})")
    return safe, valid


def _last_axis_labels(label, shape, ignore_index):
    """Fast path of `_hard_label` for the class axis last: the labels as one flat intp array when every
    one is a valid class id (none equal to ``ignore_index``), else None (the general path then runs and
    raises the errors)."""
    if label.dtype.kind not in "iu" or not label.dtype.isnative or label.size == 0:
        return None
    lead = shape[:-1]
    if label.shape != (*lead, 1) and label.shape != tuple(lead):
        return None
    flat = label.reshape(-1)
    n_class = shape[-1]
    # one reduction checks 0 <= label < n_class: read as unsigned, a negative id is huge
    u = flat.view(_UNSIGNED[flat.dtype.itemsize]) if flat.dtype.kind == "i" else flat
    if np.maximum.reduce(u) >= n_class:
        return None
    if 0 <= ignore_index < n_class and (flat == ignore_index).any():
        return None
    return flat.astype(np.intp, copy=False)


_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _label_positions(label, shape, ignore_index, what):
    """Classes last: ``(pos, valid)``, the flat index of each row's label entry in a C-ordered array of
    ``shape`` (an ignored row points at its class 0, as `_hard_label`'s gather-safe copy does) and the
    row mask of valid labels, None when every label is valid. Raises `_hard_label`'s errors."""
    n_class = shape[-1]
    flat = _last_axis_labels(label, shape, ignore_index)
    valid = None
    if flat is None:
        safe, valid = _hard_label(label, len(shape), len(shape) - 1, n_class, ignore_index, what, shape)
        flat, valid = safe.reshape(-1), (None if valid.all() else valid.reshape(-1))
    pos = np.arange(0, flat.size * n_class, n_class) if n_class else np.zeros(flat.size, np.intp)
    pos += flat
    return pos, valid


def _swce_last(logits, label, ignore_index, what="softmax_with_cross_entropy"):
    """Softmax, per-row loss (class axis kept, size 1), label positions and valid mask (see
    `_label_positions`) of hard labels with the class axis last."""
    # hard labels need log p only at the label: one exp pass, loss = log(sum e^s) - s[label]
    s = np.asarray(np.subtract(logits, row_max_shift(logits)))     # (fast for many short rows)
    pos, valid = _label_positions(label, logits.shape, ignore_index, what)
    picked = s.reshape(-1)[pos]
    sm = np.exp(s, out=s) if s.dtype.kind == "f" else np.exp(s)     # (s is a fresh array)
    z = np.add.reduce(sm, axis=-1, keepdims=True)
    sm /= z
    loss = np.log(z)
    loss -= picked.reshape(loss.shape)
    if valid is not None:
        loss[~valid.reshape(loss.shape)] = 0
    return sm.astype(logits.dtype, copy=False), loss.astype(logits.dtype, copy=False), pos, valid


# ---- softmax_with_cross_entropy -----------------------------------------------------------

def _swce(logits, label, soft_label=False, use_softmax=True, numeric_stable_mode=True, ignore_index=-100,
          axis=-1, **_):
    ax = normalize_axis(axis, logits.ndim)
    if use_softmax and not soft_label:
        if ax == logits.ndim - 1:
            sm, loss, _, _ = _swce_last(logits, label, ignore_index)
            return sm, loss
        s = np.asarray(np.subtract(logits, np.maximum.reduce(logits, axis=ax, keepdims=True)))
        sm = np.exp(s)
        z = np.add.reduce(sm, axis=ax, keepdims=True)
        sm /= z
        safe, valid = _hard_label(label, logits.ndim, ax, logits.shape[ax], ignore_index,
                                  "softmax_with_cross_entropy", logits.shape)
        loss = np.log(z)
        loss -= np.take_along_axis(s, safe, axis=ax)
        if not valid.all():
            loss[~valid] = 0
        return sm.astype(logits.dtype, copy=False), loss.astype(logits.dtype, copy=False)
    if use_softmax:
        logp = _log_softmax(logits, ax)
        sm = np.exp(logp)
    else:
        sm = logits.copy()
        with np.errstate(divide="ignore"):
            logp = np.log(logits)
    if soft_label:
        if label.shape != logits.shape:
            raise ValueError(f"softmax_with_cross_entropy: soft labels must have the input's shape "
                             f"{list(logits.shape)}, got {list(label.shape)}")
        loss = -np.sum(label.astype(logits.dtype, copy=False) * logp, axis=ax, keepdims=True)
    else:
        safe, valid = _hard_label(label, logits.ndim, ax, logits.shape[ax], ignore_index,
                                  "softmax_with_cross_entropy", logits.shape)
        loss = np.where(valid, -np.take_along_axis(logp, safe, axis=ax), 0)
    return sm.astype(logits.dtype, copy=False), loss.astype(logits.dtype, copy=False)


def _swce_meta(logits, label, axis=-1, **_):
    ax = normalize_axis(axis, len(logits.shape))
    shape = list(logits.shape)
    shape[ax] = 1
    return Meta(tuple(logits.shape), logits.dtype), Meta(tuple(shape), logits.dtype)


def _swce_grad(label, softmax, dloss, dsoftmax, soft_label=False, use_softmax=True, numeric_stable_mode=True,
               ignore_index=-100, axis=-1, **_):
    ax = normalize_axis(axis, softmax.ndim)
    sm = softmax
    g = None
    if dloss is not None:
        if use_softmax:
            if soft_label:
                lab = label.astype(sm.dtype, copy=False)
                g = (sm * np.sum(lab, axis=ax, keepdims=True) - lab) * dloss
            else:
                flat = _last_axis_labels(label, sm.shape, ignore_index) if ax == sm.ndim - 1 else None
                if flat is not None:        # every label valid, classes last: the same arithmetic, indexed
                    g = sm.copy()
                    g.reshape(flat.size, -1)[np.arange(flat.size), flat] -= 1
                    g *= dloss
                else:
                    safe, valid = _hard_label(label, sm.ndim, ax, sm.shape[ax], ignore_index,
                                              "softmax_with_cross_entropy")
                    g = sm.copy()
                    np.put_along_axis(g, safe, np.take_along_axis(g, safe, axis=ax) - 1, axis=ax)
                    g *= dloss * valid
        else:
            if soft_label:
                g = -label.astype(sm.dtype, copy=False) / sm * dloss
            else:
                safe, valid = _hard_label(label, sm.ndim, ax, sm.shape[ax], ignore_index,
                                          "softmax_with_cross_entropy")
                p = np.take_along_axis(sm, safe, axis=ax)
                with np.errstate(divide="ignore", invalid="ignore"):
                    pick = np.where(valid, -dloss / p, 0)
                g = np.zeros_like(sm)
                np.put_along_axis(g, safe, pick.astype(g.dtype, copy=False), axis=ax)
    if dsoftmax is not None:
        if g is None:
            g = np.zeros_like(sm)
        if use_softmax:
            g = g + sm * (dsoftmax - np.sum(dsoftmax * sm, axis=ax, keepdims=True))
        else:
            g = g + dsoftmax
    if g is None:
        g = np.zeros_like(sm)
    return g.astype(sm.dtype, copy=False)


register("softmax_with_cross_entropy", ["Logits", "Label"], ["Softmax", "Loss"],
         {"soft_label": ("BOOLEAN", False), "use_softmax": ("BOOLEAN", True),
          "numeric_stable_mode": ("BOOLEAN", True), "ignore_index": ("INT", -100), "axis": ("INT", -1)},
         kernel=_swce, infer_meta=_swce_meta, differentiable=("Logits",))
grad_op("softmax_with_cross_entropy", ["Label", "Softmax", "Loss@GRAD?", "Softmax@GRAD?"], ["Logits@GRAD"],
        _swce_grad, infer_meta=lambda label, sm, *_, **__: Meta(tuple(sm.shape), sm.dtype))


# ---- fused_softmax_ce_mean (internal: a training program's cross_entropy(reduction='mean')) -----------
# dy2st/training_fusion.py puts it into the compiled clones of a training step where the program has
# softmax_with_cross_entropy (hard labels, classes last) whose Loss only a full reduce_mean reads, and the
# backward's reduce_mean_grad + softmax_with_cross_entropy_grad pair into its grad. The forward validates
# the labels once and hands the backward their flat positions (Index) and, when some label equals
# ignore_index, the valid-row mask (Valid; empty when every label is valid). Same arithmetic as the pair of
# ops it replaces, so the same bits.

def _fused_ce_mean(logits, label, ignore_index=-100, keep_dim=False, **_):
    sm, loss, pos, valid = _swce_last(logits, label, ignore_index)
    if loss.size and loss.dtype.kind == "f" and loss.dtype != np.float16:
        # reduce_mean's kernel for this case (runtime/ops/reduce.py), without its generic checks
        total = np.add.reduce(loss, axis=tuple(range(loss.ndim)), dtype=loss.dtype, keepdims=keep_dim)
        out = np.asarray(total / (loss.size // max(total.size, 1))).astype(loss.dtype, copy=False)
    else:
        out = _reduce_mean(loss, dim=[], keep_dim=keep_dim, reduce_all=True)
    return sm, out, pos, (np.zeros(0, np.bool_) if valid is None else valid)


def _fused_ce_mean_meta(logits, label, keep_dim=False, **_):
    out = (1,) * len(logits.shape) if keep_dim else ()
    return (Meta(tuple(logits.shape), logits.dtype), Meta(out, logits.dtype),
            Meta((-1,), np.dtype(np.intp)), Meta((-1,), np.dtype(np.bool_)))


def _fused_ce_mean_grad(sm, index, valid, dout, dsoftmax, **_):
    g = None
    if dout is not None:
        # reduce_mean_grad's ``dout / n`` in dout's dtype, cast to the loss dtype; then the grad of
        # softmax_with_cross_entropy: softmax minus one at the label, times that (zero for ignored rows)
        n = math.prod(sm.shape[:-1])
        scale = np.asarray(np.asarray(dout).reshape(()) / max(n, 1)).astype(sm.dtype, copy=False)
        g = sm.copy()       # C order: ``index`` counts in it
        g.reshape(-1)[index] -= 1
        if valid.size:
            g *= scale * valid.reshape(sm.shape[:-1] + (1,))
        else:
            g *= scale
    if dsoftmax is not None:
        if g is None:
            g = np.zeros_like(sm)
        g = g + sm * (dsoftmax - np.sum(dsoftmax * sm, axis=-1, keepdims=True))
    if g is None:
        g = np.zeros_like(sm)
    return g.astype(sm.dtype, copy=False)


register("fused_softmax_ce_mean", ["Logits", "Label"], ["Softmax", "Out", "Index", "Valid"],
         {"ignore_index": ("INT", -100), "keep_dim": ("BOOLEAN", False)},
         kernel=_fused_ce_mean, infer_meta=_fused_ce_mean_meta, differentiable=("Logits",), internal=True)
grad_op("fused_softmax_ce_mean", ["Softmax", "Index", "Valid", "Out@GRAD?", "Softmax@GRAD?"], ["Logits@GRAD"],
        _fused_ce_mean_grad, infer_meta=lambda sm, *_, **__: Meta(tuple(sm.shape), sm.dtype), internal=True)


# ---- cross_entropy2 (X holds probabilities; class axis last) ------------------------------

def _cross_entropy2(x, label, ignore_index=-100, **_):
    safe, valid = _hard_label(label, x.ndim, x.ndim - 1, x.shape[-1], ignore_index, "cross_entropy2", x.shape)
    match = np.where(valid, np.take_along_axis(x, safe, axis=-1), 0).astype(x.dtype, copy=False)
    with np.errstate(divide="ignore"):
        y = np.where(valid, -np.log(np.where(valid, match, 1)), 0).astype(x.dtype, copy=False)
    return y, np.zeros((0,) + x.shape, dtype=x.dtype), match


def _cross_entropy2_meta(x, label, **_):
    shape = tuple(x.shape[:-1]) + (1,)
    return Meta(shape, x.dtype), Meta((0,) + tuple(x.shape), x.dtype), Meta(shape, x.dtype)


def _cross_entropy2_grad(x, label, dy, dmatch, ignore_index=-100, **_):
    safe, valid = _hard_label(label, x.ndim, x.ndim - 1, x.shape[-1], ignore_index, "cross_entropy2")
    p = np.take_along_axis(x, safe, axis=-1)
    pick = np.zeros_like(p)
    if dy is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            pick = pick + np.where(valid, -dy / p, 0)
    if dmatch is not None:
        pick = pick + np.where(valid, dmatch, 0)
    g = np.zeros_like(x)
    np.put_along_axis(g, safe, pick.astype(x.dtype, copy=False), axis=-1)
    return g


register("cross_entropy2", ["X", "Label"], ["Y", "XShape", "MatchX"], {"ignore_index": ("INT", -100)},
         kernel=_cross_entropy2, infer_meta=_cross_entropy2_meta, differentiable=("X",))
grad_op("cross_entropy2", ["X", "Label", "Y@GRAD?", "MatchX@GRAD?"], ["X@GRAD"], _cross_entropy2_grad)


# ---- sigmoid_cross_entropy_with_logits ----------------------------------------------------

def _sce_parts(x, label, pos_weight, ignore_index):
    valid = label != ignore_index
    y = np.where(valid, label, 0).astype(x.dtype, copy=False)
    w = None if pos_weight is None else 1.0 + (pos_weight.astype(x.dtype, copy=False) - 1.0) * y
    return y, valid, w


def _sce_norm(valid, normalize):
    return max(int(valid.sum()), 1) if normalize else 1


def _sigmoid_ce(x, label, pos_weight=None, normalize=False, ignore_index=-100, **_):
    y, valid, w = _sce_parts(x, label, pos_weight, ignore_index)
    softplus_neg = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)   # log(1 + exp(-x)), stable
    if w is None:
        loss = (1.0 - y) * x + softplus_neg
    else:
        loss = (1.0 - y) * x + w * softplus_neg
    loss = np.where(valid, loss, 0) / _sce_norm(valid, normalize)
    return loss.astype(x.dtype, copy=False)


def _sigmoid_ce_grad(x, label, pos_weight, dout, normalize=False, ignore_index=-100, **_):
    y, valid, w = _sce_parts(x, label, pos_weight, ignore_index)
    sig = 0.5 * (1.0 + np.tanh(0.5 * x))   # overflow-free sigmoid
    if w is None:
        g = sig - y
    else:
        g = (1.0 - y) + w * (sig - 1.0)
    g = np.where(valid, g * dout, 0) / _sce_norm(valid, normalize)
    return g.astype(x.dtype, copy=False)


register("sigmoid_cross_entropy_with_logits", ["X", "Label", "pos_weight?"], ["Out"],
         {"normalize": ("BOOLEAN", False), "ignore_index": ("INT", -100)},
         kernel=_sigmoid_ce, infer_meta=lambda x, *_, **__: Meta(tuple(x.shape), x.dtype),
         differentiable=("X",))
grad_op("sigmoid_cross_entropy_with_logits", ["X", "Label", "pos_weight?", "Out@GRAD"], ["X@GRAD"],
        _sigmoid_ce_grad)


# ---- bce_loss (X holds probabilities) -----------------------------------------------------

def _bce_loss(x, label, **_):
    with np.errstate(divide="ignore"):
        # Paddle clamps each log at -100 so that p = 0 or 1 gives a finite loss
        a = np.maximum(np.log(x), -100.0)
        b = np.maximum(np.log(1.0 - x), -100.0)
    return (-(label * a + (1.0 - label) * b)).astype(x.dtype, copy=False)


def _bce_loss_grad(x, label, dout, **_):
    return (dout * (x - label) / np.maximum((1.0 - x) * x, 1e-12)).astype(x.dtype, copy=False)


register("bce_loss", ["X", "Label"], ["Out"], {}, kernel=_bce_loss,
         infer_meta=lambda x, *_, **__: Meta(tuple(x.shape), x.dtype), differentiable=("X",))
grad_op("bce_loss", ["X", "Label", "Out@GRAD"], ["X@GRAD"], _bce_loss_grad)


# ---- huber_loss ---------------------------------------------------------------------------

def _huber_loss(x, y, delta=1.0, **_):
    r = y - x
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta)).astype(x.dtype, copy=False)


def _huber_loss_meta(x, y, **_):
    m = Meta(tuple(x.shape), x.dtype)
    return m, m


def _huber_loss_grad(x, y, dout, delta=1.0, **_):
    r = y - x
    dr = np.clip(r, -delta, delta) * dout
    return (-dr).astype(x.dtype, copy=False), dr.astype(y.dtype, copy=False)


register("huber_loss", ["X", "Y"], ["Out", "Residual(intermediate)"], {"delta": ("FLOAT", 1.0)},
         kernel=_huber_loss, infer_meta=_huber_loss_meta)
grad_op("huber_loss", ["X", "Y", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _huber_loss_grad)


# ---- nll_loss (X holds log-probabilities, class axis 1) -----------------------------------

def _nll_parts(x, label, weight, ignore_index):
    if x.ndim < 1:
        raise ValueError("nll_loss: input must have a class axis")
    if x.ndim == 1:
        x = x[None]
        label = np.asarray(label).reshape(1)
    if label.ndim == x.ndim:      # [N, 1, ...] labels
        label = np.squeeze(label, 1)
    safe, valid = _hard_label(label, x.ndim, 1, x.shape[1], ignore_index, "nll_loss", x.shape)
    w = (np.ones(x.shape[1], dtype=x.dtype) if weight is None else weight.astype(x.dtype, copy=False))
    wl = np.where(valid, w[safe], 0).astype(x.dtype, copy=False)   # [N, 1, ...]
    return x, safe, valid, wl


def _nll_loss(x, label, weight=None, ignore_index=-100, reduction="mean", **_):
    x2, safe, valid, wl = _nll_parts(x, label, weight, ignore_index)
    per = -np.take_along_axis(x2, safe, axis=1) * wl
    total = np.asarray(wl.sum(), dtype=x.dtype)
    if reduction == "none":
        out = np.squeeze(per, 1).reshape(label.shape if x.ndim > 1 else ())
    elif reduction == "sum":
        out = np.asarray(per.sum(), dtype=x.dtype)
    elif reduction == "mean":
        # every label ignored: Paddle returns 0, not 0/0
        out = np.asarray(per.sum() / total if total else 0, dtype=x.dtype)
    else:
        raise ValueError(f"nll_loss: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")
    return out.astype(x.dtype, copy=False), total


def _nll_loss_meta(x, label, weight=None, reduction="mean", **_):
    shape = tuple(label.shape) if reduction == "none" else ()
    return Meta(shape, x.dtype), Meta((), x.dtype)


def _nll_loss_grad(x, label, weight, dout, ignore_index=-100, reduction="mean", **_):
    x2, safe, valid, wl = _nll_parts(x, label, weight, ignore_index)
    if reduction == "none":
        d = np.asarray(dout).reshape(wl.shape)
        pick = -wl * d
    elif reduction == "sum":
        pick = -wl * dout
    else:
        total = wl.sum()
        pick = -wl * dout / total if total else np.zeros_like(wl)
    g = np.zeros_like(x2)
    np.put_along_axis(g, safe, pick.astype(x.dtype, copy=False), axis=1)
    return g.reshape(x.shape)


register("nll_loss", ["X", "Label", "Weight?"], ["Out", "Total_weight"],
         {"ignore_index": ("LONG", -100), "reduction": ("STRING", "mean")},
         kernel=_nll_loss, infer_meta=_nll_loss_meta, differentiable=("X",))
grad_op("nll_loss", ["X", "Label", "Weight?", "Out@GRAD"], ["X@GRAD"], _nll_loss_grad)


# ---- kldiv_loss (X holds log-probabilities) -----------------------------------------------

_KL_REDUCTIONS = ("none", "batchmean", "mean", "sum")


def _kl_scale(x, reduction):
    if reduction not in _KL_REDUCTIONS:
        raise ValueError(f"kl_div: reduction must be one of {list(_KL_REDUCTIONS)}, got {reduction!r}")
    if reduction == "mean":
        return 1.0 / max(x.size, 1)
    if reduction == "batchmean":
        return 1.0 / max(x.shape[0] if x.ndim else 1, 1)
    return 1.0


def _kldiv_loss(x, target, reduction="mean", log_target=False, **_):
    t = target.astype(x.dtype, copy=False)
    if log_target:
        loss = np.exp(t) * (t - x)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - x), 0)
    if reduction != "none":
        loss = np.asarray(loss.sum() * _kl_scale(x, reduction))
    return loss.astype(x.dtype, copy=False)


def _kldiv_meta(x, target, reduction="mean", **_):
    return Meta(tuple(x.shape) if reduction == "none" else (), x.dtype)


def _kldiv_loss_grad(x, target, dloss, reduction="mean", log_target=False, **_):
    t = target.astype(x.dtype, copy=False)
    coef = -np.exp(t) if log_target else -np.where(t > 0, t, 0)
    return (coef * dloss * _kl_scale(x, reduction)).astype(x.dtype, copy=False)


register("kldiv_loss", ["X", "Target"], ["Loss"], {"reduction": ("STRING", "mean"), "log_target": ("BOOLEAN", False)},
         kernel=_kldiv_loss, infer_meta=_kldiv_meta, differentiable=("X",))
grad_op("kldiv_loss", ["X", "Target", "Loss@GRAD"], ["X@GRAD"], _kldiv_loss_grad)
