"""paddle.nn.functional losses: cross_entropy, softmax_with_cross_entropy, nll_loss, mse_loss,
l1_loss, binary_cross_entropy(_with_logits), smooth_l1_loss, kl_div, margin_ranking_loss,
square_error_cost, log_loss.

Reductions follow Paddle exactly, including its quirks: cross_entropy's plain 'mean' over
hard labels divides by the number of non-ignored labels only when ``ignore_index >= 0``
(otherwise by the number of labels), and the weighted 'mean' divides by the sum of the
weights of the non-ignored labels (0 when every label is ignored).
"""
from __future__ import annotations

import numpy as np

from ...dispatch import run_op
from ...dtype import convert_dtype
from ...api._helpers import scalar_like
from ...api.arg_checks import check_variable_and_dtype
from ...api.out_names import name_output
from .common import (_cast, _reshape, _squeeze, _unsqueeze, _reduce_sum, _reduce_mean, _mul, _add,
                     _sub)

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "mse_loss", "l1_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "smooth_l1_loss", "kl_div",
           "margin_ranking_loss", "square_error_cost", "log_loss"]

_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(reduction, what):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{what}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")


def _reduce(loss, reduction):
    if reduction == "sum":
        return _reduce_sum(loss)
    if reduction == "mean":
        return _reduce_mean(loss)
    return loss


def _is_int(t):
    return convert_dtype(t.dtype).np.kind in "iu"


def _safe_div(num, den):
    """num / den, with den clamped to the dtype's tiniest normal (so 0 / 0 gives 0, as in Paddle)."""
    tiny = np.finfo(convert_dtype(den.dtype).np).tiny
    return run_op("elementwise_div", num, run_op("elementwise_max", den, scalar_like(float(tiny), den)))


def _valid_mask(label, ignore_index, dtype):
    return _cast(run_op("not_equal", label, scalar_like(int(ignore_index), label)), dtype)


def _class_weight(label, weight, ignore_index, n_class):
    """weight[label] with 0 where label == ignore_index; same shape as ``label``."""
    w2 = _reshape(weight, [n_class, 1])
    if 0 <= ignore_index < n_class:
        g = run_op("lookup_table_v2", label, w2, padding_idx=int(ignore_index))
    else:
        # ignored labels lie outside the table: look up class 0 for them, then zero them
        valid = _valid_mask(label, ignore_index, label.dtype)
        g = run_op("lookup_table_v2", run_op("elementwise_mul", label, valid), w2, padding_idx=-1)
        g = run_op("elementwise_mul", g, _unsqueeze(_cast(valid, weight.dtype), [-1]))
    return _squeeze(g, [-1])


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean", soft_label=False, axis=-1,
                  use_softmax=True, label_smoothing=0.0, name=None):
    """Softmax (unless ``use_softmax=False``) followed by cross entropy against ``label``.

    Hard labels are integer class ids shaped like ``input`` without (or with size 1 at) the
    class ``axis``; soft labels are distributions shaped like ``input``. ``weight`` rescales
    each class; labels equal to ``ignore_index`` contribute zero loss. ``label_smoothing``
    turns hard labels into smoothed one-hot distributions.
    """
    _check_reduction(reduction, "cross_entropy")
    ndim = len(input.shape)
    if not -ndim <= axis < ndim:
        raise ValueError(f"cross_entropy: axis {axis} is out of range for an input of rank {ndim}")
    ax = axis + ndim if axis < 0 else axis
    n_class = input.shape[ax]
    if weight is not None and n_class != -1 and weight.shape[0] not in (-1, n_class):
        raise ValueError(f"cross_entropy: input's class dimension ({n_class}) must equal weight's class "
                         f"dimension ({weight.shape[0]}) when weight is provided")
    if label_smoothing:
        if not 0.0 < label_smoothing <= 1.0:
            raise ValueError(f"cross_entropy: label_smoothing must be in [0, 1], got {label_smoothing}")
        if _is_int(label):
            lab = _squeeze(label, [ax]) if len(label.shape) == ndim else label
            lab = run_op("one_hot_v2", lab, None, depth=int(n_class), dtype=convert_dtype(input.dtype).proto,
                         allow_out_of_range=False)
            if ax != ndim - 1:
                perm = list(range(ndim - 1))
                perm.insert(ax, ndim - 1)
                lab = run_op("transpose2", lab, axis=perm)
            label = lab
        label = run_op("label_smooth", label, None, epsilon=float(label_smoothing))
        soft_label = True

    if soft_label:
        _, loss = run_op("softmax_with_cross_entropy", input, label, soft_label=True, use_softmax=bool(use_softmax),
                         numeric_stable_mode=True, ignore_index=int(ignore_index), axis=ax)
        w = None
        if weight is not None:
            w = _reduce_sum(run_op("elementwise_mul", label, weight, axis=ax), [ax], keepdim=True)
            loss = run_op("elementwise_mul", loss, w)
        if reduction == "mean" and w is not None:
            return _safe_div(_reduce_sum(loss), _reduce_sum(w))
        return _reduce(loss, reduction)

    if not _is_int(label):
        raise TypeError(f"cross_entropy: hard labels must be an integer tensor (int32/int64), got {label.dtype}; "
                        "pass soft_label=True for probability labels")
    squeezed = len(label.shape) == ndim - 1
    # the op takes labels with or without the class axis; add it only where shapes must line up
    lab = _unsqueeze(label, [ax]) if squeezed and (weight is not None or reduction == "none") else label
    _, loss = run_op("softmax_with_cross_entropy", input, lab, soft_label=False, use_softmax=bool(use_softmax),
                     numeric_stable_mode=True, ignore_index=int(ignore_index), axis=ax)
    w = None
    if weight is not None:
        w = _class_weight(lab, weight, int(ignore_index), weight.shape[0])
        loss = run_op("elementwise_mul", loss, w)
    if reduction == "none":
        return _squeeze(loss, [ax]) if squeezed else loss
    if reduction == "sum":
        return _reduce_sum(loss)
    if w is not None:
        return _safe_div(_reduce_sum(loss), _reduce_sum(w))
    if ignore_index >= 0:
        count = _reduce_sum(_valid_mask(lab, ignore_index, input.dtype))
        return _safe_div(_reduce_sum(loss), count)
    return _reduce_mean(loss)


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100, numeric_stable_mode=True,
                               return_softmax=False, axis=-1):
    """The fused op: loss (size 1 at ``axis``) and, with ``return_softmax``, the softmax too."""
    softmax, loss = run_op("softmax_with_cross_entropy", logits, label, soft_label=bool(soft_label),
                           use_softmax=True, numeric_stable_mode=bool(numeric_stable_mode),
                           ignore_index=int(ignore_index), axis=int(axis))
    return (loss, softmax) if return_softmax else loss


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """Negative log likelihood of log-probabilities ``input`` ([N, C, ...]) at integer ``label`` ([N, ...])."""
    _check_reduction(reduction, "nll_loss")
    if len(input.shape) < 2:
        raise ValueError(f"nll_loss: input must have 2 or more dimensions ([N, C, ...]), got shape {list(input.shape)}")
    out, _ = run_op("nll_loss", input, label, weight, ignore_index=int(ignore_index), reduction=reduction)
    return out


def mse_loss(input, label, reduction="mean", name=None):
    """(input - label)^2, reduced."""
    _check_reduction(reduction, "mse_loss")
    check_variable_and_dtype(input, "input", ("float32", "float64"), "mse_loss", 0)
    check_variable_and_dtype(label, "label", ("float32", "float64"), "mse_loss", 1)
    return _reduce(run_op("square", run_op("elementwise_sub", input, label)), reduction)


def square_error_cost(input, label):
    """(input - label)^2, elementwise."""
    return run_op("square", run_op("elementwise_sub", input, label))


def l1_loss(input, label, reduction="mean", name=None):
    """|input - label|, reduced."""
    _check_reduction(reduction, "l1_loss")
    return name_output(_reduce(run_op("abs", run_op("elementwise_sub", input, label)), reduction), name)


def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    """-(label * log(p) + (1 - label) * log(1 - p)) for probabilities ``input`` (logs clamped at -100)."""
    _check_reduction(reduction, "binary_cross_entropy")
    out = run_op("bce_loss", input, label)
    if weight is not None:
        out = run_op("elementwise_mul", out, weight)
    return _reduce(out, reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean", pos_weight=None, name=None):
    """Sigmoid + binary cross entropy, computed stably from logits; ``pos_weight`` weights positives."""
    _check_reduction(reduction, "binary_cross_entropy_with_logits")
    out = run_op("sigmoid_cross_entropy_with_logits", logit, label, pos_weight, normalize=False, ignore_index=-100)
    if weight is not None:
        out = run_op("elementwise_mul", out, weight)
    return _reduce(out, reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True, name=None):
    """Huber loss: 0.5 r^2 where |r| <= delta, else delta * (|r| - delta / 2); divided by
    ``delta`` when ``is_huber`` is False."""
    _check_reduction(reduction, "smooth_l1_loss")
    out = run_op("huber_loss", input, label, delta=float(delta))
    if not is_huber:
        out = _mul(out, 1.0 / float(delta))
    return _reduce(out, reduction)


def kl_div(input, label, reduction="mean", log_target=False, name=None):
    """Kullback-Leibler divergence of ``label`` from log-probabilities ``input``."""
    if reduction not in ("none", "batchmean", "mean", "sum"):
        raise ValueError(f"kl_div: reduction must be 'none', 'batchmean', 'mean' or 'sum', got {reduction!r}")
    return run_op("kldiv_loss", input, label, reduction=reduction, log_target=bool(log_target))


def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):
    """max(0, -label * (input - other) + margin), reduced."""
    _check_reduction(reduction, "margin_ranking_loss")
    out = run_op("elementwise_mul", label, run_op("elementwise_sub", other, input))
    if margin:
        out = _add(out, float(margin))
    return _reduce(run_op("relu", out), reduction)


def log_loss(input, label, epsilon=0.0001, name=None):
    """-label * log(input + eps) - (1 - label) * log(1 - input + eps), elementwise."""
    pos = run_op("elementwise_mul", label, run_op("log", _add(input, float(epsilon))))
    one_minus = _sub(_mul(input, -1.0), -1.0 - float(epsilon))          # 1 - input + eps
    neg = run_op("elementwise_mul", _sub(_mul(label, -1.0), -1.0), run_op("log", one_minus))   # (1 - label) * ...
    return _mul(run_op("elementwise_add", pos, neg), -1.0)
