"""Randomised activations: rrelu (random leaky slopes) and gumbel_softmax, with their grads.

rrelu: x >= 0 passes; a negative x is scaled by a slope drawn from U(lower, upper) per element
in training, by (lower + upper) / 2 with ``is_test``. Its grad recovers each slope from Out / X,
so the Noise output Paddle declares (an extra, intermediate slot) need not be kept.
gumbel_softmax: softmax((x + g) / temperature) with Gumbel noise g = -log(-log(U)); ``hard``
returns the one-hot of its argmax. The grad is Paddle's, out * (dout - sum(out * dout)) along
``axis`` (measured on Paddle 3.3.1: it does not divide by the temperature; zero when hard).
"""
from __future__ import annotations

import numpy as np

from ..random import generator
from .registry import Meta, grad_op, register


def _check_float(op, x):
    if x.dtype.kind != "f":
        raise TypeError(f"{op}: X must be a floating-point tensor, got {x.dtype}")


# -- rrelu ----------------------------------------------------------------------------------------

def _rrelu(x, lower=0.125, upper=0.3333333432674408, is_test=False):
    _check_float("rrelu", x)
    lo, hi = np.float32(lower), np.float32(upper)
    if not 0 <= lo <= hi <= 1:
        raise ValueError(f"rrelu: need 0 <= lower <= upper <= 1, got lower={lower}, upper={upper}")
    if is_test:
        slope = x.dtype.type((lo + hi) / np.float32(2))
    else:
        slope = (generator().random(x.shape) * (float(hi) - float(lo)) + float(lo)).astype(x.dtype)
    return np.where(x >= 0, x, x * slope).astype(x.dtype, copy=False)


def _rrelu_grad(x, out, dout, lower=0.125, upper=0.3333333432674408, is_test=False):
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = np.where(x >= 0, 1, out / np.where(x == 0, 1, x))
    return (dout * slope).astype(x.dtype, copy=False)


register("rrelu", ["X"], ["Out", "Noise(intermediate)"],
         {"lower": ("FLOAT", 0.125), "upper": ("FLOAT", 0.3333333432674408), "is_test": ("BOOLEAN", False)},
         kernel=_rrelu, infer_meta=lambda x, **_: (Meta(tuple(x.shape), x.dtype), Meta(tuple(x.shape), x.dtype)),
         random=True)
grad_op("rrelu", ["X", "Out", "Out@GRAD"], ["X@GRAD"], _rrelu_grad)


# -- gumbel_softmax -------------------------------------------------------------------------------

def _axis(op, axis, ndim):
    a = int(axis)
    if not -max(ndim, 1) <= a < max(ndim, 1):
        raise ValueError(f"{op}: axis {axis} is out of range for a {ndim}-D input")
    return a % max(ndim, 1)


def _gumbel_softmax(x, temperature=1.0, hard=False, axis=-1):
    _check_float("gumbel_softmax", x)
    if temperature <= 0:
        raise ValueError(f"gumbel_softmax: temperature must be positive, got {temperature}")
    a = _axis("gumbel_softmax", axis, x.ndim)
    u = generator().random(x.shape)
    with np.errstate(divide="ignore"):
        g = -np.log(-np.log(u))
    z = (x + g.astype(x.dtype)) / x.dtype.type(temperature)
    z = z - z.max(axis=a, keepdims=True)
    e = np.exp(z)
    y = e / e.sum(axis=a, keepdims=True)
    if hard:
        hot = np.zeros_like(y)
        np.put_along_axis(hot, np.expand_dims(y.argmax(axis=a), a), 1, axis=a)
        y = hot
    return y.astype(x.dtype, copy=False)


def _gumbel_softmax_grad(out, dout, temperature=1.0, hard=False, axis=-1):
    a = _axis("gumbel_softmax_grad", axis, out.ndim)
    return (out * (dout - (out * dout).sum(axis=a, keepdims=True))).astype(out.dtype, copy=False)


register("gumbel_softmax", ["X"], ["Out"],
         {"temperature": ("FLOAT", 1.0), "hard": ("BOOLEAN", False), "axis": ("INT", -1)},
         kernel=_gumbel_softmax, infer_meta=lambda x, **_: Meta(tuple(x.shape), x.dtype), random=True)
grad_op("gumbel_softmax", ["Out", "Out@GRAD"], ["X@GRAD"], _gumbel_softmax_grad,
        infer_meta=lambda out, dout, **_: Meta(tuple(out.shape), out.dtype))
