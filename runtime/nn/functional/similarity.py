"""Distance and bilinear functionals: pairwise_distance and bilinear (``paddle.nn.functional``).

pairwise_distance is Paddle's composite: ||x - y + epsilon||_p over the last axis (the p_norm op);
bilinear maps onto the bilinear_tensor_product op.
"""
from __future__ import annotations

from ...dispatch import run_op
from .common import _full, _is_tensor

__all__ = ["pairwise_distance", "bilinear"]


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """The p-norm of ``x - y + epsilon`` along the last axis (broadcasting x and y)."""
    fn = "pairwise_distance"
    if not _is_tensor(x) or not _is_tensor(y):
        raise TypeError(f"{fn}: x and y must be Tensors, got {type(x).__name__} and {type(y).__name__}")
    if not isinstance(p, (int, float)) or isinstance(p, bool):
        raise TypeError(f"{fn}: p must be a number, got {p!r}")
    if not isinstance(keepdim, bool):
        raise TypeError(f"{fn}: keepdim must be a bool, got {keepdim!r}")
    sub = run_op("elementwise_sub", x, y)
    if epsilon != 0.0:
        sub = run_op("elementwise_add", sub, _full([1], epsilon, sub.dtype))
    return run_op("p_norm", sub, porder=float(p), axis=-1, epsilon=0.0, keepdim=keepdim, asvector=False)


def bilinear(x1, x2, weight, bias=None, name=None):
    """``out[b, o] = x1[b] @ weight[o] @ x2[b] + bias[0, o]``; weight is [out, in1, in2], bias [1, out]."""
    fn = "bilinear"
    for what, t in (("x1", x1), ("x2", x2), ("weight", weight)):
        if not _is_tensor(t):
            raise TypeError(f"{fn}: {what} must be a Tensor, got {type(t).__name__}")
    if len(x1.shape) != 2 or len(x2.shape) != 2:
        raise ValueError(f"{fn}: x1 and x2 must be 2-D [batch, features], got shapes {list(x1.shape)} and "
                         f"{list(x2.shape)}")
    if len(weight.shape) != 3:
        raise ValueError(f"{fn}: weight must be 3-D [out_features, in1_features, in2_features], got shape "
                         f"{list(weight.shape)}")
    return run_op("bilinear_tensor_product", x1, x2, weight, bias)
