"""Table rows for pool2d and max_pool2d_with_index.

The reference walks every output window with Paddle's rule (checked numerically against real
Paddle on random configurations): a window starts at ``i*stride - pad_before`` and ends at
``min(start + k, size + pad_before)``; non-exclusive averages divide by ``end - start``,
exclusive ones by the number of input elements covered; a window with no input element gives
-FLT_MAX (max) or NaN (exclusive avg). Adaptive bins are [floor(i*H/o), ceil((i+1)*H/o)).
"""
import math

import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(11)
FLT_MAX = float(np.finfo(np.float32).max)


def r(*shape):
    # a permutation of well-separated values: no ties for max, stable finite differences
    n = int(np.prod(shape))
    return (rng.permutation(n) / n - 0.5 + rng.uniform(-1e-3, 1e-3, n)).reshape(shape)


def _windows(size, k, s, p0, p1, ceil_mode, adaptive):
    if adaptive:
        return [((i * size) // k, math.ceil((i + 1) * size / k), None) for i in range(k)]
    n = (size - k + p0 + p1 + (s - 1 if ceil_mode else 0)) // s + 1
    res = []
    for i in range(n):
        start = i * s - p0
        end = min(start + k, size + p0)
        res.append((max(start, 0), min(end, size), end - start))
    return res


def pool_ref(X, ksize, strides=(1, 1), paddings=(0, 0), ceil_mode=False, exclusive=True, data_format="NCHW",
             pooling_type="max", global_pooling=False, adaptive=False, padding_algorithm="EXPLICIT", **_):
    x = X.transpose(0, 3, 1, 2) if data_format == "NHWC" else X
    N, C, H, W = x.shape
    p = list(paddings)
    pt, pb, pl, pr = (p[0], p[0], p[1], p[1]) if len(p) == 2 else p
    kh, kw = ksize
    if global_pooling:
        kh, kw, pt, pb, pl, pr = H, W, 0, 0, 0, 0
    elif padding_algorithm == "SAME":
        def same(n, k, s):
            tot = max((-(-n // s) - 1) * s + k - n, 0)
            return tot // 2, tot - tot // 2
        (pt, pb), (pl, pr) = same(H, kh, strides[0]), same(W, kw, strides[1])
    elif padding_algorithm == "VALID":
        pt = pb = pl = pr = 0
    rows = _windows(H, kh, strides[0], pt, pb, ceil_mode, adaptive and not global_pooling)
    cols = _windows(W, kw, strides[1], pl, pr, ceil_mode, adaptive and not global_pooling)
    out = np.zeros((N, C, len(rows), len(cols)))
    for i, (h0, h1, hn) in enumerate(rows):
        for j, (w0, w1, wn) in enumerate(cols):
            win = x[:, :, h0:h1, w0:w1]
            if pooling_type == "max":
                out[:, :, i, j] = win.max(axis=(2, 3)) if win.size else -FLT_MAX
            else:
                count = (h1 - h0) * (w1 - w0) if (exclusive or hn is None) else hn * wn
                with np.errstate(invalid="ignore", divide="ignore"):
                    out[:, :, i, j] = win.sum(axis=(2, 3)) / count
    out = out.astype(X.dtype)
    return out.transpose(0, 2, 3, 1) if data_format == "NHWC" else out


def index_ref(X, ksize, strides=(1, 1), paddings=(0, 0), ceil_mode=False, adaptive=False, global_pooling=False, **_):
    N, C, H, W = X.shape
    p = list(paddings)
    pt, pb, pl, pr = (p[0], p[0], p[1], p[1]) if len(p) == 2 else p
    kh, kw = (H, W) if global_pooling else ksize
    rows = _windows(H, kh, strides[0], pt, pb, ceil_mode, adaptive)
    cols = _windows(W, kw, strides[1], pl, pr, ceil_mode, adaptive)
    out = np.full((N, C, len(rows), len(cols)), -FLT_MAX)
    mask = np.full((N, C, len(rows), len(cols)), -1, dtype=np.int32)
    for n in range(N):
        for c in range(C):
            for i, (h0, h1, _n) in enumerate(rows):
                for j, (w0, w1, _m) in enumerate(cols):
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            if X[n, c, h, w] > out[n, c, i, j]:
                                out[n, c, i, j] = X[n, c, h, w]
                                mask[n, c, i, j] = h * W + w
    return out.astype(X.dtype), mask


CASES = [
    OpCase("pool2d", {"X": r(2, 2, 4, 4)}, pool_ref, attrs={"ksize": [2, 2], "strides": [2, 2], "pooling_type": "max"}),
    OpCase("pool2d", {"X": r(1, 2, 5, 5)}, pool_ref, name="avg",
           attrs={"ksize": [3, 2], "strides": [1, 2], "pooling_type": "avg"}),
    OpCase("pool2d", {"X": r(1, 2, 6, 6)}, pool_ref, name="max_pad_ceil",
           attrs={"ksize": [2, 2], "strides": [2, 2], "paddings": [1, 1], "ceil_mode": True, "pooling_type": "max"}),
    OpCase("pool2d", {"X": r(1, 2, 6, 6)}, pool_ref, name="avg_ceil_inclusive",
           attrs={"ksize": [3, 3], "strides": [3, 3], "paddings": [1, 1], "ceil_mode": True, "exclusive": False,
                  "pooling_type": "avg"}),
    OpCase("pool2d", {"X": r(1, 2, 6, 5)}, pool_ref, name="avg_pad4_exclusive",
           attrs={"ksize": [3, 2], "strides": [2, 1], "paddings": [1, 2, 0, 1], "pooling_type": "avg"}),
    OpCase("pool2d", {"X": r(1, 2, 6, 5)}, pool_ref, name="avg_pad4_inclusive",
           attrs={"ksize": [3, 2], "strides": [2, 1], "paddings": [2, 1, 1, 0], "exclusive": False,
                  "pooling_type": "avg"}),
    # the window past the input holds no element: -FLT_MAX / 0 / NaN as Paddle (no grad check)
    OpCase("pool2d", {"X": r(1, 1, 5, 5)}, pool_ref, name="empty_window_max", check_grad=False,
           attrs={"ksize": [2, 2], "strides": [2, 2], "paddings": [1, 1], "ceil_mode": True, "pooling_type": "max",
                  "padding_algorithm": "EXPLICIT"}),
    OpCase("pool2d", {"X": r(1, 1, 5, 5)}, pool_ref, name="empty_window_avg", check_grad=False,
           attrs={"ksize": [2, 2], "strides": [2, 2], "paddings": [1, 1], "ceil_mode": True, "pooling_type": "avg"}),
    OpCase("pool2d", {"X": r(1, 2, 5, 5)}, pool_ref, name="same_max",
           attrs={"ksize": [2, 3], "strides": [2, 2], "padding_algorithm": "SAME", "pooling_type": "max"}),
    OpCase("pool2d", {"X": r(1, 2, 5, 4)}, pool_ref, name="same_avg_inclusive",
           attrs={"ksize": [2, 2], "strides": [1, 1], "padding_algorithm": "SAME", "exclusive": False,
                  "pooling_type": "avg"}),
    OpCase("pool2d", {"X": r(1, 2, 5, 5)}, pool_ref, name="valid",
           attrs={"ksize": [2, 2], "strides": [2, 2], "paddings": [1, 1], "padding_algorithm": "VALID",
                  "pooling_type": "avg"}),
    OpCase("pool2d", {"X": r(2, 3, 3, 4)}, pool_ref, name="global_avg",
           attrs={"ksize": [1, 1], "global_pooling": True, "pooling_type": "avg"}),
    OpCase("pool2d", {"X": r(2, 3, 3, 4)}, pool_ref, name="global_max",
           attrs={"ksize": [1, 1], "global_pooling": True, "pooling_type": "max"}),
    OpCase("pool2d", {"X": r(1, 2, 7, 5)}, pool_ref, name="adaptive_avg",
           attrs={"ksize": [3, 2], "adaptive": True, "pooling_type": "avg"}),
    OpCase("pool2d", {"X": r(1, 2, 3, 5)}, pool_ref, name="adaptive_avg_upsample",
           attrs={"ksize": [5, 3], "adaptive": True, "pooling_type": "avg"}),
    OpCase("pool2d", {"X": r(1, 2, 7, 5)}, pool_ref, name="adaptive_max",
           attrs={"ksize": [3, 2], "adaptive": True, "pooling_type": "max"}),
    OpCase("pool2d", {"X": r(2, 5, 4, 3)}, pool_ref, name="nhwc_max",
           attrs={"ksize": [2, 2], "strides": [1, 1], "paddings": [1, 0], "pooling_type": "max",
                  "data_format": "NHWC"}),
    OpCase("pool2d", {"X": r(2, 5, 4, 3)}, pool_ref, name="nhwc_avg",
           attrs={"ksize": [3, 2], "strides": [2, 1], "paddings": [1, 0], "ceil_mode": True, "pooling_type": "avg",
                  "data_format": "NHWC"}),
    OpCase("pool2d", {"X": r(2, 3, 6, 6).astype(np.float32)}, pool_ref, name="float32", check_grad=False,
           attrs={"ksize": [2, 2], "strides": [2, 2], "pooling_type": "max"}),
    # windows tiling the input exactly (stride == ksize, no padding): the avg grad's broadcast path
    OpCase("pool2d", {"X": r(2, 3, 4, 6)}, pool_ref, name="avg_tiled",
           attrs={"ksize": [2, 3], "strides": [2, 3], "pooling_type": "avg"}),
    OpCase("pool2d", {"X": r(1, 4, 6, 2)}, pool_ref, name="avg_tiled_nhwc_inclusive",
           attrs={"ksize": [2, 2], "strides": [2, 2], "pooling_type": "avg", "exclusive": False,
                  "data_format": "NHWC"}),
    OpCase("pool2d", {"X": r(1, 2, 5, 6)}, pool_ref, name="avg_stride_eq_k_not_divisible",
           attrs={"ksize": [2, 2], "strides": [2, 2], "pooling_type": "avg"}),
    OpCase("pool2d", {"X": r(1, 2, 4, 4)}, pool_ref, name="avg_stride_eq_k_padded",
           attrs={"ksize": [2, 2], "strides": [2, 2], "paddings": [1, 1], "pooling_type": "avg"}),
    OpCase("pool2d", {"X": r(2, 3, 4, 6)}, pool_ref, name="max_tiled",
           attrs={"ksize": [2, 3], "strides": [2, 3], "pooling_type": "max"}),
    OpCase("max_pool2d_with_index", {"X": r(2, 2, 4, 5)}, index_ref,
           attrs={"ksize": [2, 2], "strides": [2, 2]}),
    OpCase("max_pool2d_with_index", {"X": r(1, 2, 5, 5)}, index_ref, name="overlap_pad",
           attrs={"ksize": [3, 3], "strides": [1, 2], "paddings": [1, 1]}),
    OpCase("max_pool2d_with_index", {"X": r(1, 2, 5, 5)}, index_ref, name="ceil_empty", check_grad=False,
           attrs={"ksize": [2, 2], "strides": [2, 2], "paddings": [1, 1], "ceil_mode": True}),
    OpCase("max_pool2d_with_index", {"X": r(1, 2, 7, 5)}, index_ref, name="adaptive",
           attrs={"ksize": [3, 2], "adaptive": True}),
    OpCase("max_pool2d_with_index", {"X": r(1, 2, 3, 4)}, index_ref, name="global",
           attrs={"ksize": [1, 1], "global_pooling": True}),
]
