"""Gradient clipping: ClipGradByValue, ClipGradByNorm, ClipGradByGlobalNorm, clip_grad_norm_/value_.

A clip object is a callable on a list of ``(param, grad)`` pairs that returns the clipped
pairs, like Paddle's; optimizers call it on each parameter group before regularisation.
Parameters with ``need_clip=False`` and missing gradients pass through untouched.
"""
from __future__ import annotations

import math

import numpy as np

from ..dispatch import run_op
from ..framework import no_grad
from ..tensor import Tensor

__all__ = ["ClipGradBase", "ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm",
           "clip_grad_norm_", "clip_grad_value_"]


def _const(value, dtype):
    return np.asarray(value, dtype=dtype)


def _cast(t, dtype):
    """``t`` as ``dtype`` (through the cast op once it is registered)."""
    from ..ops.registry import _OPS
    from ..dtype import from_numpy_dtype
    dtype = np.dtype(dtype)
    if t._data.dtype == dtype:
        return t
    if "cast" in _OPS:
        return run_op("cast", t, in_dtype=from_numpy_dtype(t._data.dtype).proto,
                      out_dtype=from_numpy_dtype(dtype).proto)
    return Tensor._wrap(t._data.astype(dtype))


def _needs_clip(param, grad):
    return grad is not None and getattr(param, "need_clip", True)


def _check_number(value, what, cls):
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{cls}: {what} must be a float, got {type(value).__name__}")
    return float(value)


class ClipGradBase:
    """Base of the gradient-clip strategies (``isinstance`` checks in optimizers use it)."""

    def __call__(self, params_grads):
        with no_grad():
            return self._dygraph_clip(list(params_grads))

    def _dygraph_clip(self, params_grads):
        """Clip each gradient on its own (strategies that look at all grads together override this)."""
        return [(p, self._clip_one(g) if _needs_clip(p, g) else g) for p, g in params_grads]

    def _clip_one(self, g):
        raise NotImplementedError


class ClipGradByValue(ClipGradBase):
    """Clamp every gradient element into ``[min, max]`` (``min`` defaults to ``-max``)."""

    def __init__(self, max, min=None):
        max = _check_number(max, "max", "ClipGradByValue")
        if min is None:
            if max <= 0.0:
                raise ValueError(f"ClipGradByValue: when min is not given, max must be > 0 "
                                 f"(min defaults to -max), got max={max}")
            min = -max
        min = _check_number(min, "min", "ClipGradByValue")
        if min > max:
            raise ValueError(f"ClipGradByValue: min ({min}) must not be greater than max ({max})")
        self.max = max
        self.min = min

    def __str__(self):
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"

    def _clip_one(self, g):
        return _clamp(g, self.min, self.max)


def _clamp(g, lo, hi):
    dt = g._data.dtype
    return run_op("elementwise_min", run_op("elementwise_max", g, _const(lo, dt)), _const(hi, dt))


class ClipGradByNorm(ClipGradBase):
    """Rescale each gradient on its own so its L2 norm is at most ``clip_norm``."""

    def __init__(self, clip_norm):
        self.clip_norm = _check_number(clip_norm, "clip_norm", "ClipGradByNorm")

    def __str__(self):
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"

    def _clip_one(self, g):
        return run_op("clip_by_norm", g, max_norm=self.clip_norm)


def _global_norm(grads):
    """sqrt(sum of squares) over ``grads``, summed in float32 (float64 when every grad is float64)."""
    acc_dtype = np.float64 if all(g._data.dtype == np.float64 for g in grads) else np.float32
    total = None
    for g in grads:
        sq = run_op("squared_l2_norm", g)
        sq = _cast(sq, acc_dtype)
        total = sq if total is None else run_op("elementwise_add", total, sq)
    return run_op("elementwise_pow", total, _const(0.5, acc_dtype))


class ClipGradByGlobalNorm(ClipGradBase):
    """Scale all gradients by ``clip_norm / max(global_norm, clip_norm)``, the global norm taken
    over every gradient that needs clipping. Like Paddle, the clipped values are also written into
    each parameter's ``.grad``."""

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        if not isinstance(group_name, str):
            raise TypeError(f"ClipGradByGlobalNorm: group_name must be a str, got {type(group_name).__name__}")
        self.clip_norm = _check_number(clip_norm, "clip_norm", "ClipGradByGlobalNorm")
        self.group_name = group_name
        self.auto_skip_clip = auto_skip_clip

    def __str__(self):
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"

    def _dygraph_clip(self, params_grads):
        grads = [g for p, g in params_grads if _needs_clip(p, g)]
        if not grads:
            return params_grads
        norm = _global_norm(grads)
        if self.auto_skip_clip and float(norm.item()) <= self.clip_norm:
            return params_grads
        max_norm = _const([self.clip_norm], norm._data.dtype)
        scale = run_op("elementwise_div", max_norm, run_op("elementwise_max", norm, max_norm))
        out = []
        for p, g in params_grads:
            if not _needs_clip(p, g):
                out.append((p, g))
                continue
            new = run_op("elementwise_mul", g, _cast(scale, g._data.dtype))
            if new._data.shape != g._data.shape:   # a 0-D grad times the [1]-shaped scale
                new = Tensor._wrap(new._data.reshape(g._data.shape))
            if p.grad is g:
                g._data = new._data   # Paddle scales the gradient in place
            out.append((p, new))
        return out


def _param_list(parameters):
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale the ``.grad`` of ``parameters`` in place so their joint ``norm_type``-norm is at most
    ``max_norm``; returns the norm before clipping (a 0-D tensor)."""
    params = [p for p in _param_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if not params:
        return Tensor(np.asarray(0.0, dtype=np.float32))
    with no_grad():
        grads = [p.grad for p in params]
        dt = grads[0]._data.dtype
        if norm_type == 2.0:
            total = _global_norm(grads)
        elif math.isinf(norm_type):
            total = None
            for g in grads:
                m = run_op("reduce_max", run_op("abs", g), reduce_all=True)
                total = m if total is None else run_op("elementwise_max", total, m)
        else:
            total = None
            for g in grads:
                s = run_op("reduce_sum", run_op("elementwise_pow", run_op("abs", g), _const(norm_type, dt)),
                           reduce_all=True)
                total = s if total is None else run_op("elementwise_add", total, s)
            total = run_op("elementwise_pow", total, _const(1.0 / norm_type, total._data.dtype))
        total = Tensor._wrap(np.asarray(total._data, dtype=dt).reshape(()))
        value = float(total.item())
        if error_if_nonfinite and not math.isfinite(value):
            raise RuntimeError(f"clip_grad_norm_: the total norm of order {norm_type} of the gradients is "
                               f"non-finite ({value}); pass error_if_nonfinite=False to clip anyway")
        coef = run_op("elementwise_div", _const(max_norm, dt), run_op("elementwise_add", total, _const(1e-6, dt)))
        coef = run_op("elementwise_min", coef, _const(1.0, dt))
        for g in grads:
            g._data = run_op("elementwise_mul", g, coef._data.astype(g._data.dtype)).numpy()
    return total


def clip_grad_value_(parameters, clip_value):
    """Clamp the ``.grad`` of ``parameters`` in place into ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _param_list(parameters):
            if p.grad is not None:
                p.grad._data = _clamp(p.grad, -clip_value, clip_value).numpy()
