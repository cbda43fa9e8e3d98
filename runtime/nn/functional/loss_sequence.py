"""Sequence losses of ``paddle.nn.functional``: ctc_loss (over the ``warpctc`` op) and rnnt_loss
(over ``warprnnt``), with Paddle's reductions: ctc_loss's 'mean' divides each loss by its label
length before averaging (a label length of 0 gives inf, as in Paddle); rnnt_loss's 'mean' divides
the sum by the batch size.
"""
from __future__ import annotations

from ...dispatch import run_op
from ...dtype import convert_dtype
from ...ops.linalg import UnsupportedDtypeError

__all__ = ["ctc_loss", "rnnt_loss"]


def _paddle():
    import runtime  # late: the functional package is imported while runtime initialises
    return runtime


def _dtype_name(t):
    return convert_dtype(t.dtype).name


class IndexDtypeError(ValueError, TypeError):
    """An integer input of the wrong width: Paddle's kernel raises ValueError for it in eager mode, its
    static dtype check TypeError; this error is both."""


def _check_float(t, fn, what):
    if _dtype_name(t) not in ("float32", "float64"):
        raise UnsupportedDtypeError(f"{fn}: {what} must be float32 or float64, got {_dtype_name(t)}")


def _check_int(t, fn, what, dtype):
    if t is None:
        raise ValueError(f"{fn}: {what} must not be None")
    if _dtype_name(t) != dtype:
        raise IndexDtypeError(f"{fn}: {what} must be {dtype}, got {_dtype_name(t)}; cast it with .astype('{dtype}')")


def _check_reduction(reduction, fn):
    if reduction not in ("mean", "sum", "none"):
        # AssertionError, as Paddle (which checks this with an assert statement)
        raise AssertionError(f"{fn}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean", norm_by_times=False,
             zero_infinity=False):
    """CTC loss of ``log_probs`` ([max_T, batch, num_classes + 1], unscaled: softmax is applied inside,
    as Warp-CTC does) against padded ``labels`` ([batch, max_label_length], int32)."""
    paddle = _paddle()
    _check_reduction(reduction, "ctc_loss")
    _check_float(log_probs, "ctc_loss", "log_probs")
    _check_int(labels, "ctc_loss", "labels", "int32")
    _check_int(input_lengths, "ctc_loss", "input_lengths", "int64")
    _check_int(label_lengths, "ctc_loss", "label_lengths", "int64")
    loss = run_op("warpctc", log_probs, labels, input_lengths, label_lengths, blank=int(blank),
                  norm_by_times=bool(norm_by_times))
    loss = paddle.squeeze(loss, [-1])
    if zero_infinity:
        loss = paddle.where(paddle.isinf(loss), paddle.zeros_like(loss), loss)
    if reduction == "mean":
        return paddle.mean(loss / label_lengths.astype(loss.dtype))
    if reduction == "sum":
        return paddle.sum(loss)
    return loss


def rnnt_loss(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001, reduction="mean",
              name=None):
    """RNN-T loss of ``input`` ([B, max_T, max_U + 1, D], used as log-probabilities as given, like
    Paddle's CPU kernel) against padded ``label`` ([B, max_U], int32). ``fastemit_lambda`` scales the
    gradient of label emissions by 1 + lambda (FastEmit) and leaves the loss value unchanged."""
    paddle = _paddle()
    _check_reduction(reduction, "rnnt_loss")
    _check_float(input, "rnnt_loss", "input")
    _check_int(label, "rnnt_loss", "label", "int32")
    _check_int(input_lengths, "rnnt_loss", "input_lengths", "int32")
    _check_int(label_lengths, "rnnt_loss", "label_lengths", "int32")
    batch = input.shape[0]
    loss = run_op("warprnnt", input, label, input_lengths, label_lengths, blank=int(blank),
                  fastemit_lambda=float(fastemit_lambda))
    if reduction == "mean":
        return paddle.sum(loss) / batch
    if reduction == "sum":
        return paddle.sum(loss)
    return loss
