"""Table rows for fractional_max_pool2d/3d, spectral_norm, temporal_shift, rms_norm, swiglu and
viterbi_decode (references written as plain loops, independent of the kernels)."""
import itertools
import math

import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(66)
R = lambda *s: rng.standard_normal(s)  # noqa: E731


def _windows(n_in, n_out, k, u):
    """Fractional pooling windows as Paddle 3.3.1 computes them (measured), in float32:
    start_i = floor(alpha (i + u)) - floor(alpha u); end_i = start_(i+1) or start_i + k."""
    f = np.float32
    alpha = f(n_in - k) / f(n_out - (1 if k else 0))
    if not k:
        base = n_in // n_out
        u = f(u) * min(f(base + 2) / alpha - f(1), f(n_in + 1 - base) / alpha - f(n_out - 1))
    else:
        u = f(u)
    a = [math.floor(alpha * (f(i) + u)) - math.floor(alpha * u) for i in range(n_out + 1)]
    return [(max(a[i], 0), min(a[i] + k if k else a[i + 1], n_in)) for i in range(n_out)]


def _frac_ref(x, output_size, kernel_size=None, random_u=0.0, **_):
    nd = x.ndim - 2
    ks = list(kernel_size) if kernel_size else [0] * nd
    wins = [_windows(x.shape[2 + d], output_size[d], ks[d], random_u) for d in range(nd)]
    out = np.zeros(x.shape[:2] + tuple(output_size), x.dtype)
    mask = np.zeros(out.shape, np.int32)
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for pos in itertools.product(*[range(o) for o in output_size]):
            best, arg = -np.inf, -1
            cells = itertools.product(*[range(*wins[d][pos[d]]) for d in range(nd)])
            for cell in cells:
                v = x[(n, c) + cell]
                if v > best:
                    best, arg = v, int(np.ravel_multi_index(cell, x.shape[2:]))
            out[(n, c) + pos], mask[(n, c) + pos] = best, arg
    return out, mask


def _spectral_ref(Weight, U, V, dim=0, power_iters=1, eps=1e-12, **_):
    perm = [dim] + [i for i in range(Weight.ndim) if i != dim]
    mat = Weight.transpose(perm).reshape(Weight.shape[dim], -1)
    u, v = U.copy(), V.copy()
    for _ in range(power_iters):
        v = mat.T.dot(u)
        v = v / (np.linalg.norm(v) + eps)
        u = mat.dot(v)
        u = u / (np.linalg.norm(u) + eps)
    return Weight / u.dot(mat).dot(v)


def _shift_ref(X, seg_num, shift_ratio=0.25, data_format="NCHW", **_):
    x = X if data_format == "NCHW" else X.transpose(0, 3, 1, 2)
    nt, c = x.shape[:2]
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    out = np.zeros_like(x)
    for i in range(nt):
        t = i % seg_num
        for ch in range(c):
            src = t - 1 if ch < c1 else (t + 1 if ch < c2 else t)
            if 0 <= src < seg_num:
                out[i, ch] = x[i - t + src, ch]
    return out if data_format == "NCHW" else out.transpose(0, 2, 3, 1)


def _rms_ref(x, scale=None, normalized_shape=(), epsilon=1e-5, **_):
    k = len(normalized_shape)
    rows = x.reshape(-1, int(np.prod(x.shape[x.ndim - k:])))
    inv = 1 / np.sqrt((rows ** 2).mean(1) + epsilon)
    y = (rows * inv[:, None]).reshape(x.shape)
    if scale is not None:
        y = y * scale
    return y, inv


def _swiglu_ref(x, y=None, **_):
    if y is None:
        x, y = np.split(x, 2, axis=-1)
    return x / (1 + np.exp(-x)) * y


def _viterbi_ref(Input, Transition, Length, include_bos_eos_tag=True, **_):
    """Brute force over every tag sequence."""
    B, _, n = Input.shape
    scores, paths = np.zeros(B, Input.dtype), np.zeros((B, Length.max()), np.int64)
    for b in range(B):
        L = int(Length[b])
        best, arg = -np.inf, None
        for seq in itertools.product(range(n), repeat=L):
            s = sum(Input[b, t, seq[t]] for t in range(L)) + sum(Transition[seq[t - 1], seq[t]] for t in range(1, L))
            if include_bos_eos_tag:
                s += Transition[n - 1, seq[0]] + Transition[n - 2, seq[-1]]
            if s > best:
                best, arg = s, seq
        scores[b], paths[b, :L] = best, arg
    return scores, paths


X7 = np.array([2, 4, 3, 1, 5, 2, 3], np.float64).reshape(1, 1, 1, 7)
U_W, V_W = R(4), R(6)

CASES = [
    OpCase("fractional_max_pool2d", {"x": X7}, _frac_ref,
           attrs={"output_size": [1, 5], "random_u": 0.3}, name="docs_example"),
    OpCase("fractional_max_pool2d", {"x": R(2, 2, 7, 9)}, _frac_ref,
           attrs={"output_size": [3, 4], "random_u": 0.65}),
    OpCase("fractional_max_pool2d", {"x": R(1, 2, 8, 8)}, _frac_ref,
           attrs={"output_size": [3, 3], "kernel_size": [3, 2], "random_u": 0.4}, name="kernel"),
    OpCase("fractional_max_pool3d", {"x": R(1, 2, 5, 6, 7)}, _frac_ref,
           attrs={"output_size": [2, 3, 4], "random_u": 0.8}),
    OpCase("fractional_max_pool3d", {"x": R(1, 1, 6, 6, 6)}, _frac_ref,
           attrs={"output_size": [3, 2, 4], "kernel_size": [2, 3, 2], "random_u": 0.2}, name="kernel"),
    OpCase("spectral_norm", {"Weight": R(4, 6), "U": U_W, "V": V_W}, _spectral_ref,
           attrs={"power_iters": 2}, check_grad=False),
    # Paddle's spectral_norm_grad is not the derivative of the forward (see runtime/ops/spectral_norm.py),
    # so finite differences do not apply: grad=() skips them; tests/runtime/nn/test_nn_rest.py checks
    # the grad against numpy and tests/interop/test_nn_rest_interop.py against Paddle
    OpCase("spectral_norm", {"Weight": R(3, 4, 2), "U": R(4), "V": R(6)}, _spectral_ref,
           attrs={"dim": 1, "power_iters": 3}, name="dim1", grad=()),
    OpCase("temporal_shift", {"X": R(6, 8, 2, 3)}, _shift_ref, attrs={"seg_num": 3}),
    OpCase("temporal_shift", {"X": R(4, 2, 3, 10)}, _shift_ref,
           attrs={"seg_num": 2, "shift_ratio": 0.3, "data_format": "NHWC"}, name="nhwc"),
    OpCase("rms_norm", {"x": R(2, 3, 4), "scale": R(3, 4)}, _rms_ref, attrs={"normalized_shape": [3, 4]}),
    OpCase("rms_norm", {"x": R(3, 5)}, _rms_ref, attrs={"normalized_shape": [5], "epsilon": 1e-3},
           name="no_scale"),
    OpCase("rms_norm", {"x": R(2, 6).astype(np.float32), "scale": R(6).astype(np.float32)},
           lambda x, scale, **a: tuple(np.float32(v) for v in _rms_ref(x.astype(np.float64), scale, **a)),
           attrs={"normalized_shape": [6]}, name="float32", check_grad=False, rtol=1e-5),
    OpCase("swiglu", {"x": R(3, 4), "y": R(3, 4)}, _swiglu_ref),
    OpCase("swiglu", {"x": R(2, 3, 6)}, _swiglu_ref, name="split"),
    OpCase("viterbi_decode", {"Input": R(3, 4, 3), "Transition": R(3, 3),
                              "Length": np.array([2, 4, 1], np.int64)}, _viterbi_ref),
    OpCase("viterbi_decode", {"Input": R(2, 5, 4), "Transition": R(4, 4),
                              "Length": np.array([5, 3], np.int64)}, _viterbi_ref,
           attrs={"include_bos_eos_tag": False}, name="no_bos_eos"),
]
