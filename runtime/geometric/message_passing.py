"""Message passing on graphs: ``send_u_recv`` (gather source rows, reduce at destinations), ``send_ue_recv``
(combine with edge features first), ``send_uv`` (combine source and destination rows per edge)."""
from __future__ import annotations

from ..tensor import Tensor
from ..api.manipulation import gather, reshape
from .math import scatter_reduce, _check_index

__all__ = ["send_u_recv", "send_ue_recv", "send_uv"]

_REDUCE = ("sum", "mean", "max", "min")
_MESSAGE = ("add", "sub", "mul", "div")


def _out_rows(out_size, x, where):
    if out_size is None:
        return x.shape[0]
    if isinstance(out_size, Tensor):
        if out_size.size != 1:
            raise ValueError(f"{where}: out_size must hold one value, got shape {list(out_size.shape)}")
        out_size = int(out_size.numpy().reshape(-1)[0])
    elif isinstance(out_size, (list, tuple)):
        out_size = int(out_size[0]) if out_size else 0
    out_size = int(out_size)
    return x.shape[0] if out_size <= 0 else out_size


def _check(x, src_index, dst_index, where):
    if x.dtype.name not in ("float16", "float32", "float64", "int32", "int64"):
        raise TypeError(f"{where}: x must be float16, float32, float64, int32 or int64, got {x.dtype.name}")
    _check_index(src_index, "src_index", where)
    _check_index(dst_index, "dst_index", where)
    if src_index.dtype != dst_index.dtype:
        raise TypeError(f"{where}: src_index and dst_index must have the same dtype, got {src_index.dtype.name} "
                        f"and {dst_index.dtype.name}")


def _lhs_rhs(x, y):
    """Reshape ``x`` ([N, ...]) and ``y`` ([E, ...]) to the same rank so their features broadcast (Paddle's rule:
    1-D becomes [N, 1]; the shorter gets 1s after the first dimension)."""
    if len(x.shape) == 1:
        x = reshape(x, [-1, 1])
    if len(y.shape) == 1:
        y = reshape(y, [-1, 1])
    if len(x.shape) != len(y.shape):
        rank = max(len(x.shape), len(y.shape))
        x = reshape(x, [x.shape[0]] + [1] * (rank - len(x.shape)) + list(x.shape[1:]))
        y = reshape(y, [y.shape[0]] + [1] * (rank - len(y.shape)) + list(y.shape[1:]))
    return x, y


def _message(a, b, message_op):
    if message_op == "add":
        return a + b
    if message_op == "sub":
        return a + (-b)
    if message_op == "mul":
        return a * b
    return a * (1.0 / (b + 1e-12))


def send_u_recv(x, src_index, dst_index, reduce_op="sum", out_size=None, name=None):
    """``out[d] = reduce_{e: dst[e] = d} x[src[e]]``; ``out`` has ``out_size`` rows (``x``'s row count when
    ``out_size`` is None or <= 0)."""
    if reduce_op not in _REDUCE:
        raise ValueError(f"reduce_op should be `sum`, `mean`, `max` or `min`, but received {reduce_op}")
    _check(x, src_index, dst_index, "send_u_recv")
    msgs = gather(x, src_index, axis=0)
    return scatter_reduce(msgs, dst_index, _out_rows(out_size, x, "send_u_recv"), reduce_op, "send_u_recv")


def send_ue_recv(x, y, src_index, dst_index, message_op="add", reduce_op="sum", out_size=None, name=None):
    """``out[d] = reduce_{e: dst[e] = d} (x[src[e]] message_op y[e])``; ``y`` holds one feature row per edge."""
    if message_op not in _MESSAGE:
        raise ValueError(f"message_op should be `add`, `sub`, `mul`, `div`, but received {message_op}")
    if reduce_op not in _REDUCE:
        raise ValueError(f"reduce_op should be `sum`, `mean`, `max` or `min`, but received {reduce_op}")
    _check(x, src_index, dst_index, "send_ue_recv")
    rows = _out_rows(out_size, x, "send_ue_recv")
    x, y = _lhs_rhs(x, y)
    msgs = _message(gather(x, src_index, axis=0), y, message_op)
    return scatter_reduce(msgs, dst_index, rows, reduce_op, "send_ue_recv")


def send_uv(x, y, src_index, dst_index, message_op="add", name=None):
    """One row per edge: ``x[src[e]] message_op y[dst[e]]``."""
    if message_op not in _MESSAGE:
        raise ValueError(f"message_op should be `add`, `sub`, `mul`, `div`, but received {message_op}")
    _check(x, src_index, dst_index, "send_uv")
    x, y = _lhs_rhs(x, y)
    return _message(gather(x, src_index, axis=0), gather(y, dst_index, axis=0), message_op)
