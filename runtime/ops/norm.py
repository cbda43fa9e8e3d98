"""Normalisation ops: batch_norm, layer_norm, instance_norm, group_norm, and their grads.

The statistics outputs Paddle marks intermediate (SavedMean, Mean, Variance ...) are not
returned by the kernels, so each ``*_grad`` kernel recomputes the statistics it needs
from X; that costs one extra reduction and keeps eager and static programs identical.
"""
from __future__ import annotations

import numpy as np

from .lastaxis import row_sum, sum_ok
from .registry import Meta, register, grad_op

_EPS = 9.999999747378752e-06       # Paddle's float32 1e-5, as its protos record it
_MOMENTUM = 0.8999999761581421     # float32 0.9


def _normalize(x, axes, eps):
    """(x - mean) / sqrt(var + eps) over ``axes``; also returns mean, biased var and 1/std."""
    mu = np.mean(x, axis=axes, keepdims=True)
    xc = x - mu
    var = np.mean(xc * xc, axis=axes, keepdims=True)
    inv = 1.0 / np.sqrt(var + eps)
    return xc * inv, mu, var, inv


def _input_grad(g, xhat, inv, axes):
    """Gradient w.r.t. x of xhat = normalize(x) over ``axes``, given g = dL/dxhat."""
    gm = np.mean(g, axis=axes, keepdims=True)
    gxm = np.mean(g * xhat, axis=axes, keepdims=True)
    return inv * (g - gm - xhat * gxm)


def _dim(d):
    return -1 if d is None else d


def _prod(dims):
    n = 1
    for d in dims:
        if d < 0:
            return -1
        n *= d
    return n


# ---- batch_norm ----------------------------------------------------------------------------

def _channel_axis(ndim, layout):
    if ndim < 2:
        raise ValueError(f"batch_norm expects an input of rank >= 2 ([N, C, ...]), got rank {ndim}")
    return 1 if layout == "NCHW" else ndim - 1


def _bn_setup(x, layout):
    c = _channel_axis(x.ndim, layout)
    axes = tuple(i for i in range(x.ndim) if i != c)
    bshape = [1] * x.ndim
    bshape[c] = x.shape[c]
    return axes, tuple(bshape)


def _bn_mode(is_test, use_global_stats, trainable_statistics):
    """True when the running statistics (not the batch's) normalise the input."""
    return (is_test and not trainable_statistics) or use_global_stats


def _momentum(momentum_tensor, momentum):
    if momentum_tensor is not None:
        return float(np.asarray(momentum_tensor).reshape(-1)[0])
    return momentum


def _batch_norm(x, scale, bias, mean, variance, momentum_tensor=None, is_test=False, momentum=_MOMENTUM,
                epsilon=_EPS, data_layout="NCHW", use_global_stats=False, trainable_statistics=False, **_):
    axes, bshape = _bn_setup(x, data_layout)
    if _bn_mode(is_test, use_global_stats, trainable_statistics):
        # running statistics: one per-channel affine map, two passes over x instead of four
        a, shift = bn_eval_affine(x.dtype, scale, bias, mean, variance, epsilon)
        y = np.multiply(x, a.reshape(bshape))
        y = _inplace(np.add, y, shift.reshape(bshape))
        return y.astype(x.dtype, copy=False), mean.copy(), variance.copy()
    else:
        y, mu, var, _ = _normalize(x, axes, epsilon)
        m = _momentum(momentum_tensor, momentum)
        mean_out = (m * mean + (1.0 - m) * mu.reshape(-1)).astype(mean.dtype, copy=False)
        var_out = (m * variance + (1.0 - m) * var.reshape(-1)).astype(variance.dtype, copy=False)
    # y is this kernel's own temporary: scale and shift it in place (the same ufuncs on the same
    # dtypes as ``y * scale + bias``, so the same bits, without two more arrays of x's size)
    if scale is not None:
        y = _inplace(np.multiply, y, scale.astype(x.dtype, copy=False).reshape(bshape))
    if bias is not None:
        y = _inplace(np.add, y, bias.astype(x.dtype, copy=False).reshape(bshape))
    return y.astype(x.dtype, copy=False), mean_out, var_out


def bn_eval_affine(dtype, scale, bias, mean, variance, epsilon):
    """Eval-mode batch_norm as ``x * a + shift`` per channel: a = scale / sqrt(variance + epsilon),
    shift = bias - mean * a (1-D arrays of ``dtype``; Scale / Bias may be None)."""
    a = 1.0 / np.sqrt(variance.astype(dtype, copy=False) + epsilon)
    if scale is not None:
        a = a * scale.astype(dtype, copy=False)
    shift = -(mean.astype(dtype, copy=False) * a)
    if bias is not None:
        shift += bias.astype(dtype, copy=False)
    return a.astype(dtype, copy=False), shift.astype(dtype, copy=False)


def _inplace(ufunc, y, other):
    """``ufunc(y, other)`` into ``y`` when the result keeps y's shape and dtype, else a new array."""
    if np.result_type(y, other) == y.dtype and np.broadcast_shapes(y.shape, np.shape(other)) == y.shape:
        return ufunc(y, other, out=y)
    return ufunc(y, other)


def _batch_norm_meta(x, scale, bias, mean, variance, momentum_tensor=None, data_layout="NCHW", **_):
    c = _channel_axis(len(x.shape), data_layout)
    stat = Meta((_dim(x.shape[c]),), mean.dtype)
    return (Meta(tuple(x.shape), x.dtype), Meta(tuple(mean.shape), mean.dtype),
            Meta(tuple(variance.shape), variance.dtype), stat, stat, Meta((0,), x.dtype))


def _batch_norm_grad(x, scale, bias, mean, variance, momentum_tensor, dy, dmean_out, dvar_out,
                     is_test=False, momentum=_MOMENTUM, epsilon=_EPS, data_layout="NCHW",
                     use_global_stats=False, trainable_statistics=False, **_):
    axes, bshape = _bn_setup(x, data_layout)
    if dy is None:
        dy = np.zeros_like(x)
    s = 1.0 if scale is None else scale.astype(x.dtype, copy=False).reshape(bshape)
    if _bn_mode(is_test, use_global_stats, trainable_statistics):
        inv = (1.0 / np.sqrt(variance.astype(x.dtype, copy=False) + epsilon)).reshape(bshape)
        xhat = (x - mean.astype(x.dtype, copy=False).reshape(bshape)) * inv
        dx = dy * (s * inv)
    else:
        xhat, mu, _, inv = _normalize(x, axes, epsilon)
        dx = _input_grad(dy * s, xhat, inv, axes)
        m = _momentum(momentum_tensor, momentum)
        count = max(x.size // max(x.shape[_channel_axis(x.ndim, data_layout)], 1), 1)
        if dmean_out is not None:
            dx = dx + ((1.0 - m) / count) * dmean_out.astype(x.dtype, copy=False).reshape(bshape)
        if dvar_out is not None:
            dx = dx + ((1.0 - m) * 2.0 / count) * dvar_out.astype(x.dtype, copy=False).reshape(bshape) * (x - mu)
    dscale = None if scale is None else np.sum(dy * xhat, axis=axes).astype(scale.dtype, copy=False)
    dbias = None if bias is None else np.sum(dy, axis=axes).astype(bias.dtype, copy=False)
    return dx.astype(x.dtype, copy=False), dscale, dbias


_BN_ATTRS = {
    "is_test": ("BOOLEAN", False),
    "momentum": ("FLOAT", _MOMENTUM),
    "epsilon": ("FLOAT", _EPS),
    "data_layout": ("STRING", "NCHW"),
    "use_global_stats": ("BOOLEAN", False),
    "trainable_statistics": ("BOOLEAN", False),
}

register("batch_norm", ["X", "Scale?", "Bias?", "Mean", "Variance", "MomentumTensor?"],
         ["Y", "MeanOut", "VarianceOut", "SavedMean(intermediate)", "SavedVariance(intermediate)",
          "ReserveSpace?(extra)"],
         _BN_ATTRS, kernel=_batch_norm, infer_meta=_batch_norm_meta, differentiable=("X", "Scale", "Bias"),
         # static programs update the running statistics in place, as Paddle's do
         inplace={"MeanOut": "Mean", "VarianceOut": "Variance"})
grad_op("batch_norm", ["X", "Scale?", "Bias?", "Mean", "Variance", "MomentumTensor?",
                       "Y@GRAD?", "MeanOut@GRAD?", "VarianceOut@GRAD?"],
        ["X@GRAD", "Scale@GRAD?", "Bias@GRAD?"], _batch_norm_grad)


# fused_bn_eval_act (internal: made by the fuse_conv graph pass for batch_norm + relu / relu6 that no
# convolution precedes, e.g. DenseNet's pre-activation layers): the activation in batch_norm's own buffer
_BN_ACTIVATIONS = ("relu", "relu6")


def _bn_eval_act(x, scale, bias, mean, variance, epsilon=_EPS, data_layout="NCHW", activation="relu", **_):
    if activation not in _BN_ACTIVATIONS:
        raise ValueError(f"fused_bn_eval_act: activation must be one of {_BN_ACTIVATIONS}, got {activation!r}")
    _, bshape = _bn_setup(x, data_layout)
    a, shift = bn_eval_affine(x.dtype, scale, bias, mean, variance, epsilon)
    y = np.multiply(x, a.reshape(bshape))
    y = _inplace(np.add, y, shift.reshape(bshape)).astype(x.dtype, copy=False)
    if activation == "relu":
        return np.maximum(y, 0, out=y)
    return np.clip(y, 0, 6, out=y)


def _bn_eval_act_meta(x, scale, bias, mean, variance, data_layout="NCHW", **_):
    _channel_axis(len(x.shape), data_layout)
    return Meta(tuple(x.shape), x.dtype)


register("fused_bn_eval_act", ["X", "Scale?", "Bias?", "Mean", "Variance"], ["Y"],
         {"epsilon": ("FLOAT", _EPS), "data_layout": ("STRING", "NCHW"), "activation": ("STRING", "relu")},
         kernel=_bn_eval_act, infer_meta=_bn_eval_act_meta, differentiable=(), internal=True)


# ---- layer_norm ----------------------------------------------------------------------------

def _ln_split(shape, begin_norm_axis):
    if not 0 <= begin_norm_axis < len(shape):
        raise ValueError(f"layer_norm: begin_norm_axis {begin_norm_axis} is out of range for an input of "
                         f"rank {len(shape)} (expected 0 <= begin_norm_axis < {len(shape)})")
    return _prod(shape[:begin_norm_axis]), _prod(shape[begin_norm_axis:])


def _ln_normalize(x2, epsilon):
    """Rows of ``x2`` normalised in place of one new array; also 1/std per row. The row sums
    of squares come from einsum, which needs no full-size square temporary."""
    n = x2.shape[1]
    mu = row_sum(x2) if sum_ok(x2) else np.add.reduce(x2, axis=1, keepdims=True)
    mu /= n
    xc = np.subtract(x2, mu)
    var = np.einsum("ij,ij->i", xc, xc)[:, None]
    var /= n
    var += epsilon
    inv = np.sqrt(var, out=var)
    np.divide(1.0, inv, out=inv)
    xc *= inv
    return xc, inv


def _layer_norm(x, scale, bias, epsilon=_EPS, begin_norm_axis=1, **_):
    left, right = _ln_split(x.shape, begin_norm_axis)
    y, _ = _ln_normalize(x.reshape(left, right), epsilon)
    if scale is not None:
        y *= scale.astype(x.dtype, copy=False).reshape(1, right)
    if bias is not None:
        y += bias.astype(x.dtype, copy=False).reshape(1, right)
    return y.reshape(x.shape).astype(x.dtype, copy=False)


def _layer_norm_meta(x, scale, bias, begin_norm_axis=1, **_):
    left, _ = _ln_split(tuple(x.shape), begin_norm_axis)
    stat = Meta((left,), x.dtype)
    return Meta(tuple(x.shape), x.dtype), stat, stat


def _layer_norm_grad(x, scale, bias, dy, epsilon=_EPS, begin_norm_axis=1, **_):
    left, right = _ln_split(x.shape, begin_norm_axis)
    dy2 = dy.reshape(left, right)
    xhat, inv = _ln_normalize(x.reshape(left, right), epsilon)
    g = dy2.copy() if scale is None else dy2 * scale.astype(x.dtype, copy=False).reshape(1, right)
    # dx = inv * (g - mean(g) - xhat * mean(g * xhat)), built in g's buffer
    gxm = np.einsum("ij,ij->i", g, xhat)[:, None]
    gxm /= right
    gm = row_sum(g) if sum_ok(g) else np.add.reduce(g, axis=1, keepdims=True)
    gm /= right
    g -= gm
    dscale = None
    if scale is not None:
        # sum over rows of xhat * dy, before xhat's buffer is reused below
        dscale = np.einsum("ij,ij->j", xhat, dy2).reshape(scale.shape).astype(scale.dtype, copy=False)
    xhat *= gxm
    g -= xhat
    g *= inv
    dbias = None if bias is None else np.add.reduce(dy2, axis=0).reshape(bias.shape).astype(bias.dtype, copy=False)
    return g.reshape(x.shape).astype(x.dtype, copy=False), dscale, dbias


register("layer_norm", ["X", "Scale?", "Bias?"], ["Y", "Mean(intermediate)", "Variance(intermediate)"],
         {"epsilon": ("FLOAT", _EPS), "begin_norm_axis": ("INT", 1)},
         kernel=_layer_norm, infer_meta=_layer_norm_meta)
grad_op("layer_norm", ["X", "Scale?", "Bias?", "Y@GRAD"], ["X@GRAD", "Scale@GRAD?", "Bias@GRAD?"],
        _layer_norm_grad)


# ---- instance_norm -------------------------------------------------------------------------

def _in_check(x):
    if x.ndim < 2:
        raise ValueError(f"instance_norm expects an input of rank >= 2 ([N, C, ...]), got rank {x.ndim}")
    axes = tuple(range(2, x.ndim))
    bshape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    return axes, bshape


def _instance_norm(x, scale, bias, epsilon=_EPS, **_):
    axes, bshape = _in_check(x)
    y, _, _, _ = _normalize(x, axes, epsilon)
    if scale is not None:
        y = y * scale.astype(x.dtype, copy=False).reshape(bshape)
    if bias is not None:
        y = y + bias.astype(x.dtype, copy=False).reshape(bshape)
    return y.astype(x.dtype, copy=False)


def _instance_norm_meta(x, scale, bias, **_):
    nc = _prod(tuple(x.shape[:2]))
    stat = Meta((nc,), x.dtype)
    return Meta(tuple(x.shape), x.dtype), stat, stat


def _instance_norm_grad(x, scale, bias, dy, epsilon=_EPS, **_):
    axes, bshape = _in_check(x)
    xhat, _, _, inv = _normalize(x, axes, epsilon)
    g = dy if scale is None else dy * scale.astype(x.dtype, copy=False).reshape(bshape)
    dx = _input_grad(g, xhat, inv, axes)
    red = (0,) + axes
    dscale = None if scale is None else np.sum(dy * xhat, axis=red).astype(scale.dtype, copy=False)
    dbias = None if bias is None else np.sum(dy, axis=red).astype(bias.dtype, copy=False)
    return dx.astype(x.dtype, copy=False), dscale, dbias


register("instance_norm", ["X", "Scale?", "Bias?"],
         ["Y", "SavedMean(extra)(intermediate)", "SavedVariance(extra)(intermediate)"],
         {"epsilon": ("FLOAT", _EPS)}, kernel=_instance_norm, infer_meta=_instance_norm_meta)
grad_op("instance_norm", ["X", "Scale?", "Bias?", "Y@GRAD"], ["X@GRAD", "Scale@GRAD?", "Bias@GRAD?"],
        _instance_norm_grad)


# ---- group_norm ----------------------------------------------------------------------------

def _gn_view(x, groups, layout):
    """x reshaped so that one group is axes (1, 3) (NHWC) or (2, 3) (NCHW), plus the channel shape."""
    if x.ndim < 2:
        raise ValueError(f"group_norm expects an input of rank >= 2, got rank {x.ndim}")
    nhwc = layout == "NHWC"
    c = x.shape[-1] if nhwc else x.shape[1]
    if groups <= 0 or c % groups:
        raise ValueError(f"group_norm: groups must be a positive divisor of the channel count {c}, got {groups}")
    n = x.shape[0]
    if nhwc:
        v = x.reshape(n, -1, groups, c // groups)
        axes = (1, 3)
        cshape = (1, 1, groups, c // groups)
    else:
        v = x.reshape(n, groups, c // groups, -1)
        axes = (2, 3)
        cshape = (1, groups, c // groups, 1)
    return v, axes, cshape


def _group_norm(x, scale, bias, epsilon=_EPS, groups=-1, data_layout="NCHW", **_):
    v, axes, cshape = _gn_view(x, groups, data_layout)
    y, _, _, _ = _normalize(v, axes, epsilon)
    if scale is not None:
        y = y * scale.astype(x.dtype, copy=False).reshape(cshape)
    if bias is not None:
        y = y + bias.astype(x.dtype, copy=False).reshape(cshape)
    return y.reshape(x.shape).astype(x.dtype, copy=False)


def _group_norm_meta(x, scale, bias, groups=-1, **_):
    stat = Meta((_dim(x.shape[0]), groups), x.dtype)
    return Meta(tuple(x.shape), x.dtype), stat, stat


def _group_norm_grad(x, scale, bias, dy, epsilon=_EPS, groups=-1, data_layout="NCHW", **_):
    v, axes, cshape = _gn_view(x, groups, data_layout)
    dyv = dy.reshape(v.shape)
    xhat, _, _, inv = _normalize(v, axes, epsilon)
    g = dyv if scale is None else dyv * scale.astype(x.dtype, copy=False).reshape(cshape)
    dx = _input_grad(g, xhat, inv, axes).reshape(x.shape)
    red = (0, 1) if data_layout == "NHWC" else (0, 3)
    dscale = None if scale is None else np.sum(dyv * xhat, axis=red).reshape(scale.shape).astype(scale.dtype, copy=False)
    dbias = None if bias is None else np.sum(dyv, axis=red).reshape(bias.shape).astype(bias.dtype, copy=False)
    return dx.astype(x.dtype, copy=False), dscale, dbias


register("group_norm", ["X", "Scale?", "Bias?"], ["Y", "Mean(intermediate)", "Variance(intermediate)"],
         {"epsilon": ("FLOAT", _EPS), "groups": ("INT", -1), "data_layout": ("STRING", "NCHW")},
         kernel=_group_norm, infer_meta=_group_norm_meta)
grad_op("group_norm", ["X", "Scale?", "Bias?", "Y@GRAD"], ["X@GRAD", "Scale@GRAD?", "Bias@GRAD?"],
        _group_norm_grad)
