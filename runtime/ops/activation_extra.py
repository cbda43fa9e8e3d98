"""Paddle's dedicated ops for the less common activations and two small structural ops:
selu, celu, hard_shrink, softshrink, tanh_shrink, mish, logsigmoid, thresholded_relu, brelu
(hardtanh), prelu, maxout, bmm.

Paddle writes these op types into its model files (legacy ``.pdmodel`` and PIR ``.json`` alike), so
our readers need them to load Paddle's models; slots, attribute names and defaults are Paddle's
(``softshrink``'s threshold is the attribute ``lambda``, ``hardtanh`` is the op ``brelu``).
Gradient rules follow Paddle's kernels at the kinks (``x > threshold`` is strict, ``maxout`` sends
the gradient to the first maximum of each group only).
"""
from __future__ import annotations

import numpy as np

from .activation import as_float, float_meta
from .registry import Meta, register, grad_op


def _unary(type_, kernel, grad_kernel, attrs=None):
    register(type_, ["X"], ["Out"], attrs or {}, kernel=kernel, infer_meta=float_meta)
    grad_op(type_, ["X", "Out@GRAD"], ["X@GRAD"], grad_kernel)


# -- selu / celu --------------------------------------------------------------------------------------
_SELU_SCALE, _SELU_ALPHA = 1.0507009873554805, 1.6732632423543772


def _selu(x, scale=_SELU_SCALE, alpha=_SELU_ALPHA, **_):
    x = as_float(x)
    with np.errstate(over="ignore"):
        return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))) * x.dtype.type(scale)


def _selu_grad(x, dout, scale=_SELU_SCALE, alpha=_SELU_ALPHA, **_):
    return dout * np.where(x > 0, scale, scale * alpha * np.exp(np.minimum(x, 0))).astype(dout.dtype)


def _celu(x, alpha=1.0, **_):
    x = as_float(x)
    return np.maximum(x, 0) + np.minimum(alpha * np.expm1(np.minimum(x, 0) / alpha), 0)


def _celu_grad(x, dout, alpha=1.0, **_):
    return dout * np.where(x > 0, 1, np.exp(np.minimum(x, 0) / alpha)).astype(dout.dtype)


_unary("selu", _selu, _selu_grad, {"scale": ("FLOAT", _SELU_SCALE), "alpha": ("FLOAT", _SELU_ALPHA)})
_unary("celu", _celu, _celu_grad, {"alpha": ("FLOAT", 1.0)})


# -- shrinks and thresholds ---------------------------------------------------------------------------
def _hard_shrink(x, threshold=0.5, **_):
    x = as_float(x)
    return np.where(np.abs(x) > threshold, x, 0).astype(x.dtype)


def _hard_shrink_grad(x, dout, threshold=0.5, **_):
    return dout * (np.abs(x) > threshold)


def _softshrink(x, **attrs):
    lam = attrs.get("lambda", 0.5)           # Paddle's attribute is named ``lambda``
    x = as_float(x)
    return np.where(x > lam, x - lam, np.where(x < -lam, x + lam, 0)).astype(x.dtype)


def _softshrink_grad(x, dout, **attrs):
    return dout * (np.abs(x) > attrs.get("lambda", 0.5))


def _tanh_shrink(x, **_):
    x = as_float(x)
    return x - np.tanh(x)


def _tanh_shrink_grad(x, dout, **_):
    t = np.tanh(x)
    return dout * t * t


def _thresholded_relu(x, threshold=1.0, value=0.0, **_):
    x = as_float(x)
    return np.where(x > threshold, x, value).astype(x.dtype)


def _thresholded_relu_grad(x, dout, threshold=1.0, value=0.0, **_):
    return dout * (x > threshold)


def _brelu(x, t_min=0.0, t_max=24.0, **_):
    x = as_float(x)
    return np.clip(x, t_min, t_max).astype(x.dtype)


def _brelu_grad(x, dout, t_min=0.0, t_max=24.0, **_):
    return dout * ((x > t_min) & (x < t_max))


_unary("hard_shrink", _hard_shrink, _hard_shrink_grad, {"threshold": ("FLOAT", 0.5)})
_unary("softshrink", _softshrink, _softshrink_grad, {"lambda": ("FLOAT", 0.5)})
_unary("tanh_shrink", _tanh_shrink, _tanh_shrink_grad)
_unary("thresholded_relu", _thresholded_relu, _thresholded_relu_grad,
       {"threshold": ("FLOAT", 1.0), "value": ("FLOAT", 0.0)})
_unary("brelu", _brelu, _brelu_grad, {"t_min": ("FLOAT", 0.0), "t_max": ("FLOAT", 24.0)})


# -- mish / logsigmoid --------------------------------------------------------------------------------
def _softplus_thresholded(x, threshold):
    # log(1 + e^x) without overflow; above ``threshold`` it is x itself (Paddle's mish rule)
    sp = np.logaddexp(x, 0).astype(x.dtype)
    return np.where(x > threshold, x, sp)


def _mish(x, threshold=20.0, **_):
    x = as_float(x)
    return x * np.tanh(_softplus_thresholded(x, threshold))


def _mish_grad(x, dout, threshold=20.0, **_):
    t = np.tanh(_softplus_thresholded(x, threshold))
    dsp = np.where(x > threshold, 1, 1 / (1 + np.exp(-np.maximum(x, -80)))).astype(x.dtype)
    return dout * (t + x * (1 - t * t) * dsp)


def _logsigmoid(x, **_):
    x = as_float(x)
    return -np.logaddexp(-x, 0).astype(x.dtype)


def _logsigmoid_grad(x, dout, **_):
    # d/dx log(sigmoid(x)) = sigmoid(-x) = 1 / (1 + e^x)
    return dout / (1 + np.exp(np.minimum(x, 80)))


_unary("mish", _mish, _mish_grad, {"threshold": ("FLOAT", 20.0)})
_unary("logsigmoid", _logsigmoid, _logsigmoid_grad)


# -- prelu --------------------------------------------------------------------------------------------
_PRELU_MODES = ("all", "channel", "element")


def _alpha_view(x, alpha, data_format, mode):
    """``alpha`` reshaped to broadcast against ``x`` for ``mode``."""
    if mode not in _PRELU_MODES:
        raise ValueError(f"prelu: mode must be one of {_PRELU_MODES}, got {mode!r}")
    if mode == "all":
        if alpha.size != 1:
            raise ValueError(f"prelu: mode 'all' takes a 1-element alpha, got shape {list(alpha.shape)}")
        return alpha.reshape(())
    if mode == "channel":
        channel_last = data_format in ("NLC", "NHWC", "NDHWC")
        axis = x.ndim - 1 if channel_last else 1
        if x.ndim < 2 or alpha.size != x.shape[axis]:
            raise ValueError(f"prelu: mode 'channel' takes one alpha per channel ({x.shape[axis] if x.ndim > 1 else '?'}"
                             f" for input shape {list(x.shape)}, {data_format}), got {alpha.size}")
        shape = [1] * x.ndim
        shape[axis] = alpha.size
        return alpha.reshape(shape)
    if alpha.size != int(np.prod(x.shape[1:])):
        raise ValueError(f"prelu: mode 'element' takes one alpha per element of a sample "
                         f"({list(x.shape[1:])}), got shape {list(alpha.shape)}")
    return alpha.reshape((1,) + tuple(x.shape[1:]))


def _prelu(x, alpha, data_format="NCHW", mode="all", **_):
    a = _alpha_view(x, alpha, data_format, mode)
    return np.where(x > 0, x, a * x).astype(x.dtype)


def _prelu_meta(x, alpha, data_format="NCHW", mode="all", **_):
    return Meta(tuple(x.shape), x.dtype)


def _prelu_grad(x, alpha, dout, data_format="NCHW", mode="all", **_):
    a = _alpha_view(x, alpha, data_format, mode)
    pos = x > 0
    dx = np.where(pos, dout, a * dout).astype(x.dtype)
    da_full = np.where(pos, 0, x * dout)
    # sum over the axes alpha was broadcast along
    axes = tuple(i for i in range(x.ndim) if a.ndim == 0 or a.shape[i] == 1)
    da = np.sum(da_full, axis=axes if a.ndim else None).reshape(alpha.shape).astype(alpha.dtype)
    return dx, da


register("prelu", ["X", "Alpha"], ["Out"], {"data_format": ("STRING", "NCHW"), "mode": ("STRING", "all")},
         kernel=_prelu, infer_meta=_prelu_meta)
grad_op("prelu", ["X", "Alpha", "Out@GRAD"], ["X@GRAD", "Alpha@GRAD"], _prelu_grad)


# -- maxout -------------------------------------------------------------------------------------------
def _maxout_axis(ndim, axis, groups, channels=None):
    if ndim != 4:
        raise ValueError(f"maxout: the input must be 4-D (NCHW or NHWC), got rank {ndim}")
    if axis not in (1, -1, 3):
        raise ValueError(f"maxout: axis must be 1, -1 or 3, got {axis}")
    axis = axis % ndim
    if groups <= 0 or (channels is not None and channels >= 0 and channels % groups):
        raise ValueError(f"maxout: the channel count ({channels}) must be divisible by groups ({groups})")
    return axis


def _grouped(x, groups, axis):
    c = x.shape[axis]
    return x.reshape(x.shape[:axis] + (c // groups, groups) + x.shape[axis + 1:])


def _maxout(x, groups=2, axis=1, **_):
    ax = _maxout_axis(x.ndim, axis, groups, x.shape[axis % max(x.ndim, 1)] if x.ndim == 4 else None)
    return _grouped(x, groups, ax).max(axis=ax + 1)


def _maxout_meta(x, groups=2, axis=1, **_):
    ax = _maxout_axis(len(x.shape), axis, groups, x.shape[axis % 4] if len(x.shape) == 4 else None)
    shape = list(x.shape)
    shape[ax] = shape[ax] // groups if shape[ax] >= 0 else -1
    return Meta(tuple(shape), x.dtype)


def _maxout_grad(x, dout, groups=2, axis=1, **_):
    ax = _maxout_axis(x.ndim, axis, groups, x.shape[axis % 4])
    g = _grouped(x, groups, ax)
    first = np.expand_dims(np.argmax(g, axis=ax + 1), ax + 1)      # the first maximum of each group
    dg = np.zeros(g.shape, dtype=dout.dtype)
    np.put_along_axis(dg, first, np.expand_dims(dout, ax + 1), axis=ax + 1)
    return dg.reshape(x.shape)


register("maxout", ["X"], ["Out"], {"groups": ("INT", 2), "axis": ("INT", 1)}, kernel=_maxout,
         infer_meta=_maxout_meta)
grad_op("maxout", ["X", "Out@GRAD"], ["X@GRAD"], _maxout_grad)


# -- bmm ----------------------------------------------------------------------------------------------
def _bmm_check(xs, ys):
    if len(xs) != 3 or len(ys) != 3:
        raise ValueError(f"bmm: both inputs must be 3-D, got shapes {list(xs)} and {list(ys)}")
    if xs[0] >= 0 and ys[0] >= 0 and xs[0] != ys[0]:
        raise ValueError(f"bmm: batch sizes differ: {xs[0]} and {ys[0]}")
    if xs[2] >= 0 and ys[1] >= 0 and xs[2] != ys[1]:
        raise ValueError(f"bmm: x's last dim ({xs[2]}) must equal y's middle dim ({ys[1]})")


def _bmm(x, y, **_):
    _bmm_check(x.shape, y.shape)
    return np.matmul(x, y)


def _bmm_meta(x, y, **_):
    _bmm_check(tuple(x.shape), tuple(y.shape))
    return Meta((x.shape[0] if x.shape[0] >= 0 else y.shape[0], x.shape[1], y.shape[2]), x.dtype)


def _bmm_grad(x, y, dout, **_):
    return np.matmul(dout, y.transpose(0, 2, 1)), np.matmul(x.transpose(0, 2, 1), dout)


register("bmm", ["X", "Y"], ["Out"], {}, kernel=_bmm, infer_meta=_bmm_meta)
grad_op("bmm", ["X", "Y", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _bmm_grad)
