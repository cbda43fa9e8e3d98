"""``fused_layer_norm`` and ``fused_rms_norm`` as Paddle's CPU build computes them (its AVX kernels, float32
only): an optional pre-add ``h = x + bias + residual_alpha * residual`` (the bias is added only together with a
residual), then the normalisation over the axes from ``begin_norm_axis`` on.

What the CPU kernels return is kept: layer norm gives ``(out, residual_out, mean, inv_std)`` (its "variance"
output holds ``1 / sqrt(var + epsilon)``) and no gradient (every output stops gradient); RMS norm gives
``(out, residual_out)`` with an empty ``residual_out`` without residual, and its backward raises as Paddle's
(no CPU grad kernel). int8 quantisation (``quant_scale > 0``) is refused with Paddle's OSError.

In static programs (``to_static``, ``jit.save``) the same values are built from registered ops (mean, rsqrt,
reshape ...) so the saved model runs anywhere; every output stops gradient there (Paddle's static backward of
``fused_rms_norm`` would fail on CPU instead).
"""
from __future__ import annotations

import functools

import numpy as np

from ....tensor import Tensor
from ....framework import state

__all__ = ["fused_layer_norm", "fused_rms_norm"]


def _float32_only(x, kernel):
    if x.dtype.name != "float32":
        raise RuntimeError(f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {x.dtype.name}) of kernel "
                           f"`{kernel}` is not registered. Selected wrong DataType `{x.dtype.name}`. Paddle support "
                           "following DataTypes: float32. (cast the inputs with .astype('float32'))")


def _no_quant(quant_scale, kernel_file):
    if quant_scale > 0:
        raise OSError(f"NOT supported quant int8. (Paddle's CPU kernel {kernel_file} has no int8 output; "
                      "use quant_scale=-1)")


def _weight(w, rows, name, kernel):
    if w is None:
        return None
    a = np.asarray(w.numpy(), dtype=np.float32).reshape(-1)
    if a.size != rows:
        raise ValueError(f"(InvalidArgument) The normalized size of Input(X) must equal to be the size of {name}, "
                         f"but received normalized size of Input(X) is [{rows}], received size of {name} is "
                         f"[{a.size}] ({kernel})")
    return a


def _pre_add(x, bias, residual, alpha):
    h = np.asarray(x.numpy(), dtype=np.float32)
    if residual is not None:
        if bias is not None:
            h = h + np.asarray(bias.numpy(), np.float32)
        h = h + np.float32(alpha) * np.asarray(residual.numpy(), np.float32)
    return h


def fused_layer_norm(x, norm_weight, norm_bias, epsilon, residual_alpha=1.0, begin_norm_axis=1, bias=None,
                     residual=None, quant_scale=-1, quant_round_type=0, quant_max_bound=0, quant_min_bound=0):
    """Layer norm of ``x`` (+ ``bias`` + ``residual_alpha * residual``). Returns ``(out, residual_out, mean,
    inv_std)``; without a residual, ``residual_out`` is ``x`` (Paddle leaves that output unallocated)."""
    _float32_only(x, "fused_bias_residual_layernorm")
    _no_quant(quant_scale, "fused_layer_norm_avx_kernel.cc")
    shape = list(x.shape)
    if not 0 <= begin_norm_axis < len(shape):
        raise ValueError(f"(InvalidArgument) begin_norm_axis must be in [0, {len(shape)}) for fused_layer_norm, "
                         f"got {begin_norm_axis} (negative axes are not normalised by Paddle's kernel)")
    if norm_weight is None or norm_bias is None:
        raise NotImplementedError("fused_layer_norm without norm_weight and norm_bias: Paddle's CPU kernel then "
                                  "returns x un-normalised with uninitialised mean/variance outputs, which this "
                                  "package does not imitate. Pass norm_weight=paddle.ones([d]) and "
                                  "norm_bias=paddle.zeros([d]) for a plain layer norm")
    if state.static:
        return _static_norm(x, norm_weight, norm_bias, epsilon, begin_norm_axis, bias, residual, residual_alpha,
                            rms=False)
    rows = int(np.prod(shape[:begin_norm_axis], dtype=np.int64))
    cols = int(np.prod(shape[begin_norm_axis:], dtype=np.int64))
    w = _weight(norm_weight, cols, "Weight", "fused_layer_norm")
    b = _weight(norm_bias, cols, "Bias", "fused_layer_norm")
    h = _pre_add(x, bias, residual, residual_alpha)
    h2 = h.reshape(rows, cols)
    mean = h2.mean(axis=1, dtype=np.float32)
    var = ((h2 - mean[:, None]) ** 2).mean(axis=1, dtype=np.float32)
    inv_std = (1.0 / np.sqrt(var + np.float32(epsilon))).astype(np.float32)
    out = (h2 - mean[:, None]) * inv_std[:, None]
    if w is not None:
        out = out * w
    if b is not None:
        out = out + b
    outs = (Tensor(out.astype(np.float32).reshape(shape)), Tensor(h.reshape(shape)), Tensor(mean),
            Tensor(inv_std))
    return outs


def fused_rms_norm(x, norm_weight, norm_bias, epsilon, begin_norm_axis=1, bias=None, residual=None, quant_scale=-1,
                   quant_round_type=0, quant_max_bound=0, quant_min_bound=0):
    """RMS norm ``h / sqrt(mean(h^2) + epsilon) * norm_weight (+ norm_bias)`` with ``h = x (+ bias + residual)``.
    Returns ``(out, residual_out)``; ``residual_out`` is empty ([0]) without a residual."""
    rank = len(x.shape)
    if begin_norm_axis < 0:
        begin_norm_axis += rank
    if begin_norm_axis < 0 or begin_norm_axis >= rank:
        raise ValueError(f"begin_norm_axis must be in range [0, {rank}), but got {begin_norm_axis}"
                         + (f" (originally {begin_norm_axis - rank})" if begin_norm_axis < 0 else ""))
    if norm_weight is None:
        raise ValueError("(InvalidArgument) fused_rms_norm_quant(): argument 'norm_weight' (position 3) must be "
                         "Tensor, but got None")
    _float32_only(x, "fused_rms_norm_quant")
    _no_quant(quant_scale, "fused_rms_norm_quant_avx_kernel.cc")
    if state.static:
        return _static_norm(x, norm_weight, norm_bias, epsilon, begin_norm_axis, bias, residual, 1.0, rms=True)
    shape = list(x.shape)
    rows = int(np.prod(shape[:begin_norm_axis], dtype=np.int64))
    cols = int(np.prod(shape[begin_norm_axis:], dtype=np.int64))
    w = _weight(norm_weight, cols, "Weight", "fused_rms_norm")
    b = _weight(norm_bias, cols, "Bias", "fused_rms_norm")
    h = _pre_add(x, bias, residual, 1.0)
    h2 = h.reshape(rows, cols)
    inv = (1.0 / np.sqrt((h2 * h2).mean(axis=1, dtype=np.float32) + np.float32(epsilon))).astype(np.float32)
    out = h2 * inv[:, None] * w
    if b is not None:
        out = out + b
    out_t = Tensor(out.astype(np.float32).reshape(shape))
    res_t = Tensor(h.reshape(shape)) if residual is not None else Tensor(np.zeros([0], np.float32))
    inputs = [t for t in (x, bias, residual, norm_weight, norm_bias) if isinstance(t, Tensor)]
    if any(not t.stop_gradient for t in inputs):
        out_t, res_t = _no_cpu_grad().apply(out_t, res_t, *inputs)
    return out_t, res_t


@functools.lru_cache(maxsize=None)
def _no_cpu_grad():
    """A PyLayer whose outputs take part in autograd but whose backward raises, as Paddle's CPU build (built on
    first use: the PyLayer machinery is imported after this module)."""
    from ....autograd_pylayer import PyLayer

    class NoCpuGrad(PyLayer):
        @staticmethod
        def forward(ctx, out, res, *inputs):
            return out.clone(), res.clone()

        @staticmethod
        def backward(ctx, *grads):
            raise RuntimeError("(NotFound) The kernel `fused_rms_norm_quant_grad` is not registered. (Paddle's CPU "
                               "build has no backward for fused_rms_norm; to train, compute RMS norm from "
                               "paddle.rsqrt and paddle.mean, which have gradients)")
    return NoCpuGrad


def _static_norm(x, w, b, epsilon, axis, bias, residual, alpha, rms):
    """The static-program form: the same outputs from registered ops, all stopping gradient."""
    from ....api.reduction import mean as _mean
    from ....api.manipulation import reshape
    from ....api.math import rsqrt
    from ....api.creation import zeros
    rank = len(x.shape)
    axes = list(range(axis, rank))
    norm_shape = list(x.shape[axis:])
    if any(d is None or d < 0 for d in norm_shape):
        raise ValueError(f"fused_{'rms' if rms else 'layer'}_norm: the normalised dims {norm_shape} must be known "
                         "when building a static program (only the leading dims may be -1)")
    h = x
    if residual is not None:
        if bias is not None:
            h = h + bias
        h = h + residual * alpha if alpha != 1.0 else h + residual
    if rms:
        inv = rsqrt(_mean(h * h, axis=axes, keepdim=True) + epsilon)
        out = h * inv * reshape(w, norm_shape)
        if b is not None:
            out = out + reshape(b, norm_shape)
        outs = (out, h if residual is not None else zeros([0], "float32"))
    else:
        mu = _mean(h, axis=axes, keepdim=True)
        centred = h - mu
        inv = rsqrt(_mean(centred * centred, axis=axes, keepdim=True) + epsilon)
        out = centred * inv * reshape(w, norm_shape) + reshape(b, norm_shape)
        outs = (out, h, reshape(mu, [-1]), reshape(inv, [-1]))
    for t in outs:
        t.stop_gradient = True
    return outs
