"""Hot op kernels at the issue-7 workload sizes against the fastest numpy formulations we know.

    python3 benchmarks/kernels.py [--repeats 9] [--min-time 0.01] [--cases conv,pool] [--json out.json]
                                  [--baseline DIR] [--blas]

Every case calls one registered kernel (``lookup(op).kernel``, forward or ``*_grad``) on arrays
of a workload's size, next to hand-written numpy alternatives computing the same values (checked
before timing). Each round times every side back to back (the order rotated each round); the
report gives the median ns per call of each side and ``ratio`` = median over rounds of
ours / the fastest alternative (1.00 = as fast as the best formulation we could write).

``--baseline DIR`` adds a ``before`` column: DIR holds a package ``kbase`` whose ``kbase.ops``
is a snapshot of earlier runtime/ops files (registry, meta, elementwise, activation, math, conv,
pool, norm, loss); its kernels are timed in the same rounds and ``before/ours`` is reported.

``--blas`` also times matrix products at the workload sizes with 1 and 2 BLAS threads
(threadpoolctl), and what one switch of the thread limit costs.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import math
import os
import platform
import statistics
import sys
import time

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from runtime.ops.registry import lookup  # noqa: E402
import runtime  # noqa: E402,F401  (registers every op)

f32 = np.float32
rng = np.random.default_rng(0)


def rand(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(f32)


def distinct(*shape):
    """Well-separated values (no ties inside pooling windows)."""
    n = math.prod(shape)
    return (rng.permutation(n).astype(np.float64) / n - 0.5).reshape(shape).astype(f32)


# -- numpy alternatives -----------------------------------------------------------------------

def conv_strided_tensordot(x, w, pad):
    """Padded input, a (N, C, OH, OW, kh, kw) strided view, one tensordot over (C, kh, kw)."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))) if pad else x
    M, C, kh, kw = w.shape
    v = sliding_window_view(xp, (kh, kw), axis=(2, 3))          # (N, C, OH, OW, kh, kw)
    out = np.tensordot(v, w, axes=([1, 4, 5], [1, 2, 3]))        # (N, OH, OW, M)
    return np.ascontiguousarray(out.transpose(0, 3, 1, 2))


def conv_im2col_fancy(x, w, pad, _cache={}):
    """im2col by one fancy-index gather with a cached index array, then one batched matmul."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))) if pad else x
    N, C, H, W = xp.shape
    M, _, kh, kw = w.shape
    oh, ow = H - kh + 1, W - kw + 1
    key = (C, H, W, kh, kw)
    idx = _cache.get(key)
    if idx is None:
        c, i, j = np.meshgrid(np.arange(C), np.arange(kh), np.arange(kw), indexing="ij")
        base = (c * H * W + i * W + j).reshape(-1, 1)
        off = (np.arange(oh)[:, None] * W + np.arange(ow)[None, :]).reshape(1, -1)
        idx = _cache[key] = (base + off).astype(np.intp)
    cols = xp.reshape(N, -1)[:, idx]                              # (N, C*kh*kw, OH*OW)
    return np.matmul(w.reshape(M, -1), cols).reshape(N, M, oh, ow)


def conv_offset_accumulate(x, w, pad):
    """One small GEMM per kernel offset, accumulated."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))) if pad else x
    N, C, H, W = xp.shape
    M, _, kh, kw = w.shape
    oh, ow = H - kh + 1, W - kw + 1
    out = np.zeros((N, M, oh, ow), f32)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("mc,nchw->nmhw", w[:, :, i, j], xp[:, :, i:i + oh, j:j + ow], optimize=True)
    return out


def conv_grad_strided(x, w, d, pad):
    """dW: tensordot of the strided view with dout; dX: full correlation of dout with the flipped
    filter through another strided view + tensordot."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))) if pad else x
    M, C, kh, kw = w.shape
    v = sliding_window_view(xp, (kh, kw), axis=(2, 3))          # (N, C, OH, OW, kh, kw)
    dw = np.tensordot(d, v, axes=([0, 2, 3], [0, 2, 3]))         # (M, C, kh, kw)
    dp = np.pad(d, ((0, 0), (0, 0), (kh - 1, kh - 1), (kw - 1, kw - 1)))
    vd = sliding_window_view(dp, (kh, kw), axis=(2, 3))          # (N, M, H+2p, W+2p, kh, kw)
    dxp = np.tensordot(vd, w[:, :, ::-1, ::-1], axes=([1, 4, 5], [0, 2, 3]))   # (N, Hp, Wp, C)
    dxp = dxp.transpose(0, 3, 1, 2)
    H, W = x.shape[2:]
    return np.ascontiguousarray(dxp[:, :, pad:pad + H, pad:pad + W]), dw


def maxpool_reshape(x, k):
    N, C, H, W = x.shape
    return x.reshape(N, C, H // k, k, W // k, k).max(axis=(3, 5))


def maxpool_slices(x, k):
    out = x[:, :, ::k, ::k].copy()
    for i in range(k):
        for j in range(k):
            if i or j:
                np.maximum(out, x[:, :, i::k, j::k], out=out)
    return out


def avgpool_reshape(x, k):
    N, C, H, W = x.shape
    return x.reshape(N, C, H // k, k, W // k, k).mean(axis=(3, 5), dtype=f32)


def maxpool_grad_reshape(x, out, d, k):
    """Non-overlapping windows: first maximum of each window via argmax of a (.., k*k) copy."""
    N, C, H, W = x.shape
    oh, ow = H // k, W // k
    win = x.reshape(N, C, oh, k, ow, k).transpose(0, 1, 2, 4, 3, 5).reshape(N, C, oh, ow, k * k)
    a = win.argmax(axis=-1)
    dx = np.zeros((N, C, oh, ow, k * k), f32)
    np.put_along_axis(dx, a[..., None], d[..., None], axis=-1)
    return np.ascontiguousarray(dx.reshape(N, C, oh, ow, k, k).transpose(0, 1, 2, 4, 3, 5).reshape(N, C, H, W))


def maxpool_grad_mask(x, out, d, k):
    """Non-overlapping windows: equality mask against the broadcast output (first hit only)."""
    N, C, H, W = x.shape
    xr = x.reshape(N, C, H // k, k, W // k, k)
    hit = xr == out[:, :, :, None, :, None]
    dx = np.where(hit, d[:, :, :, None, :, None], f32(0))
    return dx.reshape(N, C, H, W)


def avgpool_grad_repeat(x, out, d, k):
    N, C, H, W = x.shape
    g = d * f32(1.0 / (k * k))
    return np.broadcast_to(g[:, :, :, None, :, None], (N, C, H // k, k, W // k, k)).reshape(N, C, H, W)


def softmax_np(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    e /= e.sum(axis=-1, keepdims=True)
    return e


def softmax_inplace(x):
    e = np.subtract(x, x.max(axis=-1, keepdims=True))
    np.exp(e, out=e)
    np.divide(e, np.add.reduce(e, axis=-1, keepdims=True), out=e)
    return e


def softmax_grad_np(out, d):
    g = d * out
    g -= out * g.sum(axis=-1, keepdims=True)
    return g


def softmax_grad_einsum(out, d):
    s = np.einsum("...i,...i->...", d, out)[..., None]
    g = d - s
    g *= out
    return g


def log_softmax_np(x):
    s = x - x.max(axis=-1, keepdims=True)
    s -= np.log(np.exp(s).sum(axis=-1, keepdims=True))
    return s


def layer_norm_np(x, g, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(axis=-1, keepdims=True)
    y = xc * (1.0 / np.sqrt(var + f32(eps)))
    y *= g
    y += b
    return y


def layer_norm_einsum(x, g, b, eps=1e-5):
    n = x.shape[-1]
    mu = np.add.reduce(x, axis=-1, keepdims=True)
    mu *= f32(1.0 / n)
    xc = x - mu
    var = np.einsum("...i,...i->...", xc, xc)[..., None]
    var *= f32(1.0 / n)
    var += f32(eps)
    np.sqrt(var, out=var)
    np.divide(xc, var, out=xc)
    xc *= g
    xc += b
    return xc


def layer_norm_grad_np(x, g, b, dy, eps=1e-5):
    n = x.shape[-1]
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    inv = 1.0 / np.sqrt(np.einsum("...i,...i->...", xc, xc)[..., None] / f32(n) + f32(eps))
    xhat = xc * inv
    gy = dy * g
    dx = inv * (gy - gy.mean(axis=-1, keepdims=True) - xhat * np.einsum("...i,...i->...", gy, xhat)[..., None] / f32(n))
    red = tuple(range(x.ndim - 1))
    return dx, (dy * xhat).sum(axis=red), dy.sum(axis=red)


def gelu_tanh_np(x):
    inner = x * x
    inner *= f32(0.044715)
    inner += 1
    inner *= x
    inner *= f32(math.sqrt(2 / math.pi))
    np.tanh(inner, out=inner)
    inner += 1
    inner *= x
    inner *= f32(0.5)
    return inner


def _erfc_nr(z):
    """erfc to ~1.2e-7 relative (the Chebyshev-fitted form of Numerical Recipes), float64 in."""
    a = np.abs(z)
    t = 1.0 / (1.0 + 0.5 * a)
    p = t * (-0.82215223 + t * 0.17087277)
    p = t * (1.48851587 + p)
    p = t * (-1.13520398 + p)
    p = t * (0.27886807 + p)
    p = t * (-0.18628806 + p)
    p = t * (0.09678418 + p)
    p = t * (0.37409196 + p)
    p = t * (1.00002368 + p)
    r = t * np.exp(-a * a - 1.26551223 + p)
    return np.where(z >= 0, r, 2.0 - r)


def gelu_erf_nr(x):
    x64 = x.astype(np.float64)
    return (0.5 * x64 * _erfc_nr(-x64 * (1 / math.sqrt(2)))).astype(f32)


def gelu_erf_scipy(x):
    from scipy.special import erf
    return (x * f32(0.5)) * (1 + erf(x * f32(1 / math.sqrt(2))))


def swce_np(logits, label):
    s = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(s)
    z = e.sum(axis=-1, keepdims=True)
    e /= z
    loss = np.log(z) - np.take_along_axis(s, label, axis=-1)
    return e, loss


def swce_grad_np(label, sm, dloss):
    g = sm.copy()
    rows = np.arange(sm.shape[0])
    g[rows, label[:, 0]] -= 1
    g *= dloss
    return g


def matmul_grad_np(x, w, d):
    return d @ w.T, x.T @ d


# -- cases -------------------------------------------------------------------------------------
# name -> (op type, input arrays in slot order, attrs, {alternative: fn(*inputs)})

def _conv_attrs(pad):
    return {"strides": [1, 1], "paddings": [pad, pad], "dilations": [1, 1], "groups": 1, "data_format": "NCHW",
            "padding_algorithm": "EXPLICIT"}


def _pool_attrs(kind):
    return {"ksize": [2, 2], "strides": [2, 2], "paddings": [0, 0], "pooling_type": kind, "ceil_mode": False,
            "exclusive": True, "data_format": "NCHW", "global_pooling": False, "adaptive": False,
            "padding_algorithm": "EXPLICIT"}


def build_cases():
    c = {}
    # LeNet-5 convolutions: conv1 1->6 5x5 pad 2 on 28x28, conv2 6->16 5x5 on 14x14
    for n in (1, 32, 256):
        for name, cin, cout, hw, pad in (("conv1", 1, 6, 28, 2), ("conv2", 6, 16, 14, 0)):
            x, w = rand(n, cin, hw, hw), rand(cout, cin, 5, 5, scale=0.2)
            c[f"{name}_n{n}"] = ("conv2d", [x, w], _conv_attrs(pad), {
                "strided_tensordot": lambda x, w, p=pad: conv_strided_tensordot(x, w, p),
                "im2col_cached_index": lambda x, w, p=pad: conv_im2col_fancy(x, w, p),
                "offset_accumulate": lambda x, w, p=pad: conv_offset_accumulate(x, w, p),
            })
            if n == 256:
                continue
            oh = hw + 2 * pad - 4
            d = rand(n, cout, oh, oh)
            c[f"{name}_grad_n{n}"] = ("conv2d_grad", [x, w, d], _conv_attrs(pad), {
                "strided_tensordot": lambda x, w, d, p=pad: conv_grad_strided(x, w, d, p),
            })
    x, w = rand(32, 6, 14, 14), rand(6, 1, 3, 3)
    dw_attrs = dict(_conv_attrs(1), groups=6)
    c["depthwise_n32"] = ("depthwise_conv2d", [x, w], dw_attrs, {
        "slice_accumulate": lambda x, w: _depthwise_np(x, w),
    })
    # LeNet pools (2x2 stride 2) after each conv
    for n in (1, 32, 256):
        for name, ch, hw in (("pool1", 6, 28), ("pool2", 16, 10)):
            x = distinct(n, ch, hw, hw)
            c[f"max{name}_n{n}"] = ("pool2d", [x], _pool_attrs("max"), {
                "reshape_max": lambda x: maxpool_reshape(x, 2), "strided_slices": lambda x: maxpool_slices(x, 2)})
            if n == 32:
                c[f"avg{name}_n{n}"] = ("pool2d", [x], _pool_attrs("avg"), {
                    "reshape_mean": lambda x: avgpool_reshape(x, 2)})
                out = maxpool_reshape(x, 2)
                d = rand(*out.shape)
                c[f"max{name}_grad_n{n}"] = ("pool2d_grad", [x, out, d], _pool_attrs("max"), {
                    "argmax_put": lambda x, o, d: maxpool_grad_reshape(x, o, d, 2),
                    "eq_mask": lambda x, o, d: maxpool_grad_mask(x, o, d, 2)})
                aout = avgpool_reshape(x, 2)
                c[f"avg{name}_grad_n{n}"] = ("pool2d_grad", [x, aout, d], _pool_attrs("avg"), {
                    "broadcast_repeat": lambda x, o, d: avgpool_grad_repeat(x, o, d, 2)})
    # softmax family
    for name, shape in (("mlp_b1", (1, 10)), ("mlp_b64", (64, 10)), ("attn", (8, 4, 32, 32))):
        x = rand(*shape)
        c[f"softmax_{name}"] = ("softmax", [x], {"axis": -1},
                                {"textbook": softmax_np, "in_place": softmax_inplace})
        out = softmax_np(x)
        d = rand(*shape)
        c[f"softmax_grad_{name}"] = ("softmax_grad", [out, d], {"axis": -1},
                                     {"textbook": softmax_grad_np, "einsum_dot": softmax_grad_einsum})
    x = rand(64, 10)
    c["log_softmax_b64"] = ("log_softmax", [x], {"axis": -1}, {"textbook": log_softmax_np})
    label = rng.integers(0, 10, (64, 1)).astype(np.int64)
    c["swce_b64"] = ("softmax_with_cross_entropy", [x, label], {}, {"fused_np": swce_np})
    sm, _ = swce_np(x, label)
    c["swce_grad_b64"] = ("softmax_with_cross_entropy_grad", [label, sm, rand(64, 1), None], {},
                          {"index_sub": lambda lab, s, dl, _: swce_grad_np(lab, s, dl)})
    # layer_norm over d_model 64 (transformer)
    x, g, b = rand(8, 32, 64), rand(64), rand(64)
    c["layer_norm_t"] = ("layer_norm", [x, g, b], {"begin_norm_axis": 2, "epsilon": 1e-5},
                         {"textbook": layer_norm_np, "einsum_inplace": layer_norm_einsum})
    dy = rand(8, 32, 64)
    c["layer_norm_grad_t"] = ("layer_norm_grad", [x, g, b, dy], {"begin_norm_axis": 2, "epsilon": 1e-5},
                              {"einsum": layer_norm_grad_np})
    # activations
    xg = rand(8, 32, 256)
    c["gelu_tanh_t"] = ("gelu", [xg], {"approximate": True}, {"in_place": gelu_tanh_np})
    alts = {"nr_erfc_f64": gelu_erf_nr}
    if importlib.util.find_spec("scipy") is not None:   # imported on first use only
        alts["scipy_erf"] = gelu_erf_scipy
    c["gelu_erf_t"] = ("gelu", [xg], {"approximate": False}, alts)
    c["gelu_grad_tanh_t"] = ("gelu_grad", [xg, rand(8, 32, 256)], {"approximate": True}, {})
    c["gelu_grad_erf_t"] = ("gelu_grad", [xg, rand(8, 32, 256)], {"approximate": False}, {})
    for name, shape in (("b1", (1, 256)), ("b64", (64, 256)), ("lenet", (32, 6, 28, 28))):
        x = rand(*shape)
        c[f"relu_{name}"] = ("relu", [x], {}, {"maximum": lambda x: np.maximum(x, f32(0))})
        out = np.maximum(x, 0)
        d = rand(*shape)
        c[f"relu_grad_{name}"] = ("relu_grad", [out, d], {}, {
            "where": lambda o, d: np.where(o > 0, d, f32(0)), "mul_mask": lambda o, d: d * (o > 0)})
    x = rand(4, 384)
    c["sigmoid_lstm"] = ("sigmoid", [x], {}, {"textbook": lambda x: 1 / (1 + np.exp(-x)),
                                             "via_tanh": lambda x: np.tanh(x * f32(0.5)) * f32(0.5) + f32(0.5)})
    c["tanh_lstm"] = ("tanh", [rand(4, 128)], {}, {"np_tanh": np.tanh})
    s = 1 / (1 + np.exp(-x))
    c["sigmoid_grad_lstm"] = ("sigmoid_grad", [s, rand(4, 384)], {}, {"textbook": lambda o, d: d * o * (1 - o)})
    # matmul_v2 and bias add at the workload sizes
    for name, a, b in (("mlp1_b1", (1, 784), (784, 256)), ("mlp2_b1", (1, 256), (256, 10)),
                       ("mlp1_b64", (64, 784), (784, 256)), ("cf_b8", (8, 16), (16, 32)),
                       ("lstm_b4", (4, 128), (128, 512)), ("tr_qkv", (8, 32, 64), (64, 64)),
                       ("tr_ffn", (8, 32, 64), (64, 256)), ("lenet_fc1_b32", (32, 400), (400, 120))):
        x, w = rand(*a), rand(*b, scale=0.05)
        c[f"matmul_{name}"] = ("matmul_v2", [x, w], {"trans_x": False, "trans_y": False},
                               {"np_matmul": np.matmul, "np_dot": np.dot})
    q, k = rand(8, 4, 32, 16), rand(8, 4, 32, 16)
    c["matmul_tr_scores"] = ("matmul_v2", [q, k], {"trans_x": False, "trans_y": True},
                             {"np_matmul_swap": lambda q, k: np.matmul(q, k.swapaxes(-1, -2))})
    for name, a, b in (("mlp1_b64", (64, 784), (784, 256)), ("lenet_fc1_b32", (32, 400), (400, 120))):
        x, w = rand(*a), rand(*b, scale=0.05)
        d = rand(a[0], b[1])
        c[f"matmul_grad_{name}"] = ("matmul_v2_grad", [x, w, d], {"trans_x": False, "trans_y": False},
                                    {"two_gemms": matmul_grad_np})
    for name, shape in (("b1", (1, 256)), ("b64", (64, 256))):
        x, bias = rand(*shape), rand(shape[-1])
        c[f"add_bias_{name}"] = ("elementwise_add", [x, bias], {"axis": -1}, {"np_add": np.add})
    x, bias = rand(32, 6, 28, 28), rand(6)
    c["add_conv_bias_n32"] = ("elementwise_add", [x, bias], {"axis": 1},
                              {"np_add_reshaped": lambda x, b: np.add(x, b.reshape(-1, 1, 1))})
    d = rand(64, 256)
    c["add_grad_bias_b64"] = ("elementwise_add_grad", [rand(64, 256), rand(256), d], {"axis": -1},
                              {"sum0": lambda x, b, d: (d, d.sum(axis=0))})
    return c


def _depthwise_np(x, w):
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    N, C, H, W = x.shape
    out = np.zeros((N, C, H, W), f32)
    for i in range(3):
        for j in range(3):
            out += xp[:, :, i:i + H, j:j + W] * w[:, 0, i, j].reshape(1, -1, 1, 1)
    return out


# -- timing ------------------------------------------------------------------------------------

def _time_calls(fn, args, number):
    t0 = time.perf_counter_ns()
    for _ in range(number):
        fn(*args)
    return (time.perf_counter_ns() - t0) / number


def calibrate(fn, args, min_time):
    number = 1
    while True:
        per = _time_calls(fn, args, number)
        if per * number >= min_time * 1e9 or number >= 1 << 20:
            return max(1, int(min_time * 1e9 / max(per, 1.0)))
        number *= 4


def _tuple(x):
    return x if isinstance(x, tuple) else (x,)


def check_same(name, ref, got, what):
    for a, b in zip(_tuple(ref), _tuple(got)):
        if a is None or b is None:
            continue
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            raise AssertionError(f"{name}: {what} shape {b.shape} != ours {a.shape}")
        np.testing.assert_allclose(b, a, rtol=2e-4, atol=2e-5, err_msg=f"{name}: {what} differs from ours")


def bench_case(name, spec, repeats, min_time, base_ops=None):
    op, arrays, attrs, alts = spec
    kernel = lookup(op).kernel
    sides = {"ours": kernel}
    if base_ops is not None:
        try:
            sides["before"] = base_ops.registry.lookup(op).kernel
        except Exception:   # op missing in the snapshot
            pass
    sides.update(alts)
    ref = kernel(*arrays, **attrs)
    for side, fn in sides.items():
        if side == "ours":
            continue
        got = fn(*arrays, **attrs) if side == "before" else fn(*arrays)
        check_same(name, ref, got, side)
    calls = {}
    for side, fn in sides.items():
        call_args = arrays
        if side in ("ours", "before"):
            f = (lambda *a, _k=fn: _k(*a, **attrs))
        else:
            f = fn
        for _ in range(2):
            f(*call_args)
        calls[side] = (f, calibrate(f, call_args, min_time))
    times = {s: [] for s in sides}
    order = list(sides)
    for r in range(repeats):
        rot = order[r % len(order):] + order[:r % len(order)]
        for s in rot:
            f, number = calls[s]
            times[s].append(_time_calls(f, arrays, number))
    res = {"op": op, "ns": {s: statistics.median(v) for s, v in times.items()}}
    alt_names = [s for s in sides if s not in ("ours", "before")]
    if alt_names:
        best = [min(times[a][r] for a in alt_names) for r in range(repeats)]
        res["best_alt"] = min(alt_names, key=lambda a: res["ns"][a])
        res["ratio"] = statistics.median(o / b for o, b in zip(times["ours"], best))
        if "before" in times:
            res["ratio_before"] = statistics.median(o / b for o, b in zip(times["before"], best))
    if "before" in times:
        res["speedup"] = statistics.median(b / o for b, o in zip(times["before"], times["ours"]))
    return res


# -- BLAS threads ------------------------------------------------------------------------------

BLAS_SHAPES = {
    "mlp1_b1": ((1, 784), (784, 256)), "mlp2_b1": ((1, 256), (256, 10)),
    "mlp1_b64": ((64, 784), (784, 256)), "mlp2_b64": ((64, 256), (256, 10)),
    "mlp1_grad_w_b64": ((784, 64), (64, 256)), "cf_b8": ((8, 16), (16, 32)),
    "lstm_b4": ((4, 128), (128, 512)), "tr_qkv": ((256, 64), (64, 64)), "tr_ffn": ((256, 64), (64, 256)),
    "tr_scores": ((32, 32, 16), (32, 16, 32)), "lenet_fc1_b32": ((32, 400), (400, 120)),
    "lenet_conv2_b32": ((32, 16, 150), (150, 100)), "lenet_conv1_b32": ((6, 25), (32, 25, 784)),
    "lenet_conv2_b256": ((16, 150), (256, 150, 100)), "big_512": ((512, 512), (512, 512)),
}


def _numpy_blas():
    """(threadpoolctl controller restricted to numpy's BLAS, ctypes set_num_threads or None)."""
    import ctypes
    from threadpoolctl import ThreadpoolController
    ctl = ThreadpoolController()
    np_dir = os.path.dirname(os.path.dirname(np.__file__))
    libs = [m for m in ctl.lib_controllers if m.user_api == "blas" and
            os.path.dirname(m.filepath).startswith(os.path.join(np_dir, "numpy"))]
    ctl_np = ctl.select(filepath=libs[0].filepath) if libs else ctl.select(user_api="blas")
    setter = None
    if libs and libs[0].internal_api == "openblas":
        lib = ctypes.CDLL(libs[0].filepath)
        for sym in ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_", "openblas_set_num_threads"):
            if hasattr(lib, sym):
                setter = getattr(lib, sym)
                break
    return ctl_np, setter


def bench_blas(repeats, min_time):
    """np.matmul at each workload product with numpy's BLAS limited to 1 and to 2 threads
    (switched with the cheap ctypes setter between timings), plus the cost of a switch."""
    from threadpoolctl import threadpool_limits
    ctl, setter = _numpy_blas()
    info = ctl.info()
    print(f"\nBLAS (numpy's): {[(i['internal_api'], i['version'], i['num_threads'], i.get('threading_layer')) for i in info]}")
    if setter is None:
        print("no ctypes setter found: switching through threadpoolctl")
        setter = lambda n: ctl.limit(limits=n)  # noqa: E731
    res = {}
    print(f"{'product':<20} {'MACs':>10} {'1t median':>10} {'2t median':>10} {'2t/1t':>6} {'1t min':>9} {'2t min':>9} {'2t/1t':>6}")
    for name, (a, b) in BLAS_SHAPES.items():
        x, w = rand(*a), rand(*b)
        def run(): np.matmul(x, w)
        batch = math.prod(np.broadcast_shapes(a[:-2], b[:-2]) or (1,))
        macs = batch * a[-2] * a[-1] * b[-1]
        number = calibrate(run, (), min_time)
        t = {1: [], 2: []}
        for r in range(repeats):
            for nt in ((1, 2) if r % 2 == 0 else (2, 1)):
                setter(nt)
                run()
                t[nt].append(_time_calls(run, (), number))
        setter(2)
        m1, m2 = statistics.median(t[1]), statistics.median(t[2])
        l1, l2 = min(t[1]), min(t[2])
        res[name] = {"macs": macs, "ns_1_median": m1, "ns_2_median": m2, "ns_1_min": l1, "ns_2_min": l2,
                     "ratio_median": m2 / m1, "ratio_min": l2 / l1}
        print(f"{name:<20} {macs:>10} {m1:>10.0f} {m2:>10.0f} {m2 / m1:>6.2f} {l1:>9.0f} {l2:>9.0f} {l2 / l1:>6.2f}")
    switch = {}
    n = 200
    t0 = time.perf_counter_ns()
    for _ in range(n):
        with threadpool_limits(limits=1, user_api="blas"):
            pass
    switch["threadpool_limits_enter_exit_ns"] = (time.perf_counter_ns() - t0) / n
    t0 = time.perf_counter_ns()
    for _ in range(n):
        with ctl.limit(limits=1):
            pass
    switch["controller_limit_enter_exit_ns"] = (time.perf_counter_ns() - t0) / n
    n = 20000
    t0 = time.perf_counter_ns()
    for _ in range(n):
        setter(1)
        setter(2)
    switch["ctypes_setter_1_then_2_ns"] = (time.perf_counter_ns() - t0) / n
    from runtime.ops import blas_threads
    t0 = time.perf_counter_ns()
    for _ in range(n):
        blas_threads.set_threads(1)
        blas_threads.set_threads(2)
    switch["blas_threads_set_1_then_2_ns"] = (time.perf_counter_ns() - t0) / n
    print("switch costs (ns):", {k: round(v) for k, v in switch.items()})
    res["_switch"] = switch
    return res


def main(argv=None):
    p = argparse.ArgumentParser(description="dy2st op kernels against the best numpy formulations")
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--min-time", type=float, default=0.01, help="seconds per timing of each side")
    p.add_argument("--cases", default="", help="comma-separated substrings; a case runs if it contains one")
    p.add_argument("--baseline", metavar="DIR", help="directory holding a kbase.ops snapshot to time as 'before'")
    p.add_argument("--blas", action="store_true", help="also time 1 vs 2 BLAS threads at the workload sizes")
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    base_ops = None
    if args.baseline:
        sys.path.insert(0, args.baseline)
        base_ops = importlib.import_module("kbase.ops")
    cases = build_cases()
    wanted = [w for w in args.cases.split(",") if w]
    names = [n for n in cases if not wanted or any(w in n for w in wanted)]
    results = {}
    head = f"{'case':<24} {'ours ns':>11} {'best alternative':<22} {'alt ns':>11} {'ratio':>7}"
    if base_ops:
        head += f" {'before ns':>11} {'before ratio':>12} {'speedup':>8}"
    print(head)
    for name in names:
        r = bench_case(name, cases[name], args.repeats, args.min_time, base_ops)
        results[name] = r
        ns = r["ns"]
        line = f"{name:<24} {ns['ours']:>11.0f} "
        if "best_alt" in r:
            line += f"{r['best_alt']:<22} {ns[r['best_alt']]:>11.0f} {r['ratio']:>6.2f}x"
        else:
            line += f"{'-':<22} {'-':>11} {'-':>7}"
        if "before" in ns:
            br = f"{r['ratio_before']:>11.2f}x" if "ratio_before" in r else f"{'-':>12}"
            line += f" {ns['before']:>11.0f} {br} {r['speedup']:>7.2f}x"
        print(line, flush=True)
    payload = {"benchmark": "kernels", "python": platform.python_version(), "numpy": np.__version__,
               "machine": platform.machine(), "cpu_count": os.cpu_count(), "repeats": args.repeats,
               "min_time": args.min_time, "results": results}
    if args.blas:
        payload["blas"] = bench_blas(args.repeats, args.min_time)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(payload, f, indent=2)
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
