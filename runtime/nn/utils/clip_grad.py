"""``clip_grad_norm_`` / ``clip_grad_value_``: clip the gradients of a parameter list in place (eager only)."""
from __future__ import annotations

import math

import numpy as np

from ...framework import in_dynamic_mode
from ...tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _params(parameters):
    if not in_dynamic_mode():
        raise RuntimeError("this API can only run in dynamic mode.")
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def _norm(a, p):
    a = np.abs(a.astype(np.float64)).reshape(-1)
    if p == math.inf:
        return a.max() if a.size else 0.0
    if p == 0:
        return float(np.count_nonzero(a))
    if p == 1:
        return a.sum()
    return math.sqrt(float((a * a).sum()))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale every gradient by ``min(1, max_norm / (total_norm + 1e-6))``, ``total_norm`` being the
    ``norm_type`` norm of all gradients joined into one vector; returns ``total_norm`` (a 0-D tensor)."""
    params = _params(parameters)
    supported = [float("inf"), 0, 1, 2]
    if norm_type not in supported:
        raise ValueError(f"norm_type only support {supported}")
    grads = [p.grad for p in params if p.grad is not None]
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return Tensor(np.array(0.0, np.float32))
    dtype = grads[0]._data.dtype
    norms = np.array([_norm(g._data, norm_type) for g in grads])
    total = np.array(_norm(norms, norm_type), dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of {norm_type} order of the gradients from `parameters` is non-finite, "
                           "so it cannot be clipped. In any case, disable this error and scale the gradient by "
                           "non-finite norm, set `error_if_nonfinite=False`")
    coef = min(np.asarray(max_norm / (total + dtype.type(1e-6)), dtype), dtype.type(1.0))
    for g in grads:
        g._data = (g._data * coef).astype(g._data.dtype, copy=False)
    return Tensor(total)


def clip_grad_value_(parameters, clip_value):
    """Clip every gradient elementwise into ``[-clip_value, clip_value]`` in place; returns None."""
    params = _params(parameters)
    clip_value = float(clip_value)
    for p in params:
        if p.grad is not None:
            g = p.grad._data
            p.grad._data = np.clip(g, -clip_value, clip_value).astype(g.dtype, copy=False)
