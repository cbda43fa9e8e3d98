"""Margin, embedding and likelihood losses (``paddle.nn.functional``): hinge_embedding_loss,
cosine_embedding_loss, triplet_margin_loss, triplet_margin_with_distance_loss, multi_margin_loss,
multi_label_soft_margin_loss, multi_label_margin_loss, soft_margin_loss, poisson_nll_loss,
gaussian_nll_loss.

Paddle composes each of these from ordinary ops (it has no op type of their own), so they are
written over the public tensor API here too, step for step as Paddle does, which keeps the
values, dtypes and gradients Paddle gives (gaussian_nll_loss passes no gradient to ``variance``,
as Paddle clamps it under no_grad).
"""
from __future__ import annotations

import math

import numpy as np

from ...tensor import Tensor
from .similarity import pairwise_distance

__all__ = ["hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss", "multi_margin_loss", "multi_label_soft_margin_loss",
           "multi_label_margin_loss", "soft_margin_loss", "poisson_nll_loss", "gaussian_nll_loss"]


def _paddle():
    import runtime  # late: the functional package is imported while runtime initialises
    return runtime


def _reduction(reduction, fn):
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(f"{fn}: reduction must be 'sum', 'mean' or 'none', got {reduction!r}")


def _reduce(loss, reduction):
    paddle = _paddle()
    if reduction == "mean":
        return paddle.mean(loss)
    if reduction == "sum":
        return paddle.sum(loss)
    return loss


def _eager(t):
    """A tensor whose value is known now (not a static-graph Variable)."""
    return isinstance(t, Tensor)


def _float_dtype(t, fn, what, allowed=("float32", "float64")):
    name = str(t.dtype).replace("paddle.", "")
    if name not in allowed:
        raise TypeError(f"{fn}: {what} must have one of the dtypes {list(allowed)}, got {name}")


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    """``input`` where label is 1, ``relu(margin - input)`` where it is -1."""
    fn = "hinge_embedding_loss"
    _reduction(reduction, fn)
    paddle = _paddle()
    zero = paddle.zeros([1], dtype=input.dtype)
    loss = paddle.where(label == 1.0, input, zero) + \
        paddle.where(label == -1.0, paddle.nn.functional.relu(margin - input), zero)
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """``1 - cos`` for label 1, ``max(cos - margin, 0)`` for label -1 (cosine along the last axis)."""
    fn = "cosine_embedding_loss"
    paddle = _paddle()
    if len(label.shape) != 1:
        raise ValueError(f"{fn}: label must be 1-D (one target per sample), got shape {list(label.shape)}")
    if list(input1.shape) != list(input2.shape):
        raise ValueError(f"{fn}: input1 and input2 must have the same shape, got {list(input1.shape)} and "
                         f"{list(input2.shape)}")
    if len(input1.shape) > 2:
        raise ValueError(f"{fn}: inputs must be 1-D or 2-D, got shape {list(input1.shape)}")
    if str(input1.dtype).replace("paddle.", "") not in ("float32", "float64"):
        raise ValueError(f"{fn}: input1 must be float32 or float64, got {input1.dtype}")
    if str(label.dtype).replace("paddle.", "") not in ("int32", "int64", "float32", "float64"):
        raise ValueError(f"{fn}: label must be int32, int64, float32 or float64, got {label.dtype}")
    _reduction(reduction, fn)
    prod_sum = (input1 * input2).sum(axis=-1)
    mag1 = paddle.square(input1).sum(axis=-1) + 10e-12
    mag2 = paddle.square(input2).sum(axis=-1) + 10e-12
    cos = prod_sum / paddle.sqrt(mag1 * mag2)
    zeros = paddle.zeros_like(cos)
    out = paddle.where(label == 1, 1 - cos, zeros) + paddle.where(label == -1, paddle.clip(cos - margin, min=0), zeros)
    return _reduce(out, reduction)


def _triplet(fn, input, positive, negative, distance, margin, swap, reduction, check_distances):
    _reduction(reduction, fn)
    if margin < 0:
        raise ValueError(f"{fn}: margin must be non-negative, got {margin}")
    if not (list(input.shape) == list(positive.shape) == list(negative.shape)):
        raise ValueError(f"{fn}: input, positive and negative must have the same shape, got {list(input.shape)}, "
                         f"{list(positive.shape)}, {list(negative.shape)}")
    paddle = _paddle()
    pos = distance(input, positive)
    neg = distance(input, negative)
    if swap:
        neg = paddle.minimum(neg, distance(positive, negative))
    if check_distances and _eager(pos) and _eager(neg) and \
            not (bool(paddle.all(pos >= 0)) and bool(paddle.all(neg >= 0))):
        raise ValueError(f"{fn}: the distance function returned a negative distance; distances must be >= 0")
    return _reduce(paddle.clip(pos - neg + margin, min=0.0), reduction)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-6, swap=False, reduction="mean",
                        name=None):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with the p-norm distance (``swap``: d(n) = min(d(a, n), d(p, n)))."""
    fn = "triplet_margin_loss"
    for what, t in (("input", input), ("positive", positive), ("negative", negative)):
        _float_dtype(t, fn, what)
    return _triplet(fn, input, positive, negative, lambda a, b: pairwise_distance(a, b, p, epsilon=epsilon),
                    margin, swap, reduction, False)


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean", name=None):
    """The triplet margin loss with any distance (default: the Euclidean pairwise distance)."""
    fn = "triplet_margin_with_distance_loss"
    distance = distance_function if distance_function is not None else (lambda a, b: pairwise_distance(a, b, 2))
    return _triplet(fn, input, positive, negative, distance, margin, swap, reduction, True)


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean", name=None):
    """Per sample: mean over classes of ``w[y] * max(margin - x[y] + x[i], 0)**p``, less the i = y term."""
    fn = "multi_margin_loss"
    _reduction(reduction, fn)
    paddle = _paddle()
    if input.shape[0] >= 0 and label.shape[0] >= 0 and input.shape[0] != label.shape[0]:
        raise ValueError(f"{fn}: label.shape[0] must equal input.shape[0], got {label.shape[0]} and "
                         f"{input.shape[0]}")
    label = label.reshape((-1, 1))
    picked = paddle.index_sample(input, label)
    if input.shape[1] >= 0:
        # Paddle divides by paddle.shape(input)[1], an int tensor, so the constant is a float32
        const = float(np.float32(margin ** p) / np.float32(input.shape[1]))
    else:
        const = paddle.cast(margin ** p / paddle.shape(input)[1], "float32")
    hinge = paddle.pow(paddle.clip(margin - picked + input, min=0.0), p)
    if weight is not None:
        if input.shape[1] >= 0 and weight.shape[0] >= 0 and input.shape[1] != weight.shape[0]:
            raise ValueError(f"{fn}: weight.shape[0] must equal input.shape[1], got {weight.shape[0]} and "
                             f"{input.shape[1]}")
        w = paddle.gather(weight, label, axis=0).reshape((-1, 1))
        loss = paddle.mean(w * hinge, axis=1) - (w * const).squeeze()
    else:
        loss = paddle.mean(hinge, axis=1) - const
    return _reduce(loss, reduction)


def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):
    """Per sample: the mean over classes of ``-(y log sigmoid(x) + (1 - y) log sigmoid(-x))`` (times weight)."""
    fn = "multi_label_soft_margin_loss"
    _reduction(reduction, fn)
    if list(input.shape) != list(label.shape):
        raise ValueError(f"{fn}: input and label must have the same shape, got {list(input.shape)} and "
                         f"{list(label.shape)}")
    F = _paddle().nn.functional
    loss = -(label * F.log_sigmoid(input) + (1 - label) * F.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.mean(axis=-1), reduction)


def multi_label_margin_loss(input, label, reduction="mean", name=None):
    """Per sample: ``sum over targets j and non-targets k of max(0, 1 - x[j] + x[k]) / C``; the targets
    are the label entries before the first -1.

    Paddle gathers the (sample, target) pairs with data-dependent shapes; the same sums are taken
    here over dense masks (valid target positions x classes), so static graphs keep fixed shapes.
    """
    fn = "multi_label_margin_loss"
    _reduction(reduction, fn)
    _float_dtype(input, fn, "input")
    _float_dtype(label, fn, "label", ("int32", "int64"))
    if len(input.shape) != 2:
        raise ValueError(f"{fn}: input must be 2-D [N, C], got {len(input.shape)}-D")
    if len(label.shape) != 2:
        raise ValueError(f"{fn}: label must be 2-D [N, C], got {len(label.shape)}-D")
    paddle = _paddle()
    C = input.shape[1]
    if _eager(label) and label.numel() > 0:
        lo, hi = int(paddle.min(label)), int(paddle.max(label))
        if lo < -1:
            raise ValueError(f"{fn}: label values must be >= -1, got {lo}")
        if hi >= C:
            raise ValueError(f"{fn}: label values must be < {C} (the number of classes), got {hi}")
    valid = paddle.cumprod((label != -1).astype("int64"), dim=1)                     # [N, L]
    safe = paddle.where(valid > 0, label, paddle.zeros_like(label))
    hot = _one_hot(safe, C).astype(input.dtype) * valid.unsqueeze(-1).astype(input.dtype)   # [N, L, C]
    is_target = paddle.max(hot, axis=1)                                              # [N, C]
    x_target = paddle.index_sample(input, safe)                                      # [N, L]
    margin = 1 - x_target.unsqueeze(-1) + input.unsqueeze(1)                         # [N, L, C]
    margin = paddle.maximum(margin, paddle.zeros_like(margin))
    weight = valid.unsqueeze(-1).astype(input.dtype) * (1 - is_target).unsqueeze(1)
    losses = (margin * weight).sum(axis=[1, 2]) / C
    return _reduce(losses, reduction)


def _one_hot(x, num_classes):
    return _paddle().nn.functional.one_hot(x, num_classes)


def soft_margin_loss(input, label, reduction="mean", name=None):
    """``log(1 + exp(-label * input))`` elementwise."""
    fn = "soft_margin_loss"
    _reduction(reduction, fn)
    _float_dtype(input, fn, "input")
    _float_dtype(label, fn, "label", ("int32", "int64", "float32", "float64"))
    if list(input.shape) != list(label.shape):
        raise ValueError(f"{fn}: input and label must have the same shape, got {list(input.shape)} and "
                         f"{list(label.shape)}")
    paddle = _paddle()
    label = paddle.cast(label, input.dtype)
    return _reduce(paddle.log(1 + paddle.exp(-label * input)), reduction)


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8, reduction="mean", name=None):
    """``exp(x) - y x`` (log_input) or ``x - y log(x + epsilon)``, plus Stirling's term for y > 1 when ``full``."""
    fn = "poisson_nll_loss"
    if epsilon <= 0:
        raise ValueError(f"{fn}: epsilon must be positive, got {epsilon}")
    _reduction(reduction, fn)
    allowed = ("float16", "bfloat16", "float32", "float64")
    _float_dtype(input, fn, "input", allowed)
    _float_dtype(label, fn, "label", allowed)
    if list(input.shape) != list(label.shape):
        raise ValueError(f"{fn}: input and label must have the same shape, got {list(input.shape)} and "
                         f"{list(label.shape)}")
    paddle = _paddle()
    if log_input:
        loss = paddle.exp(input) - label * input
    else:
        loss = input - label * paddle.log(input + epsilon)
    if full:
        stirling = label * paddle.log(label) - label + 0.5 * paddle.log(2 * math.pi * label)
        loss = loss + paddle.where(label > 1, stirling, paddle.zeros_like(stirling))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6, reduction="mean", name=None):
    """``0.5 * (log(max(var, eps)) + (input - label)**2 / max(var, eps))`` (+ 0.5 log(2 pi) when ``full``)."""
    fn = "gaussian_nll_loss"
    paddle = _paddle()
    if list(variance.shape) != list(input.shape):
        if list(input.shape[:-1]) == list(variance.shape):
            variance = paddle.unsqueeze(variance, -1)
        elif not (list(input.shape[:-1]) == list(variance.shape[:-1]) and variance.shape[-1] == 1):
            raise ValueError(f"{fn}: variance of shape {list(variance.shape)} does not fit input of shape "
                             f"{list(input.shape)} (same shape, or one fewer / a size-1 last dim)")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{fn}: reduction must be 'sum', 'mean' or 'none', got {reduction!r}")
    for what, t in (("input", input), ("label", label), ("variance", variance)):
        _float_dtype(t, fn, what)
    if _eager(variance) and bool(paddle.any(variance < 0)):
        raise ValueError(f"{fn}: variance has negative entries")
    variance = variance.clone()
    with paddle.no_grad():
        variance = paddle.clip(variance, min=epsilon)
    loss = 0.5 * (paddle.log(variance) + paddle.square(input - label) / variance)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)
