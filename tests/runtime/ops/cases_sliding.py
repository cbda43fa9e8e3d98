"""Table rows for unfold, fold, pixel_unshuffle and channel_shuffle.

The references index every element by hand: unfold reads x[n, c, oh*sh - top + i*dh, ow*sw - left + j*dw]
(zero outside) into column c*kh*kw + i*kw + j, block oh*out_w + ow; fold adds each column entry back to
that pixel; pixel_unshuffle moves x[n, c, h*r + i, w*r + j] to channel c*r*r + i*r + j; channel_shuffle
sends channel g*(C/g) + k to k*groups + g.
"""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(31)


def r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


def _blocks(H, W, kernel_sizes, strides, paddings, dilations):
    (kh, kw), (sh, sw), (dh, dw) = kernel_sizes, strides, dilations
    top, left, bottom, right = paddings
    oh = (H + top + bottom - (dh * (kh - 1) + 1)) // sh + 1
    ow = (W + left + right - (dw * (kw - 1) + 1)) // sw + 1
    for a in range(oh):
        for b in range(ow):
            for i in range(kh):
                for j in range(kw):
                    yield a * ow + b, i * kw + j, a * sh - top + i * dh, b * sw - left + j * dw
    yield oh * ow, None, None, None


def unfold_ref(X, kernel_sizes, strides, paddings, dilations, **_):
    N, C, H, W = X.shape
    kk = kernel_sizes[0] * kernel_sizes[1]
    entries = list(_blocks(H, W, kernel_sizes, strides, paddings, dilations))
    out = np.zeros((N, C * kk, entries[-1][0]), dtype=X.dtype)
    for blk, tap, y, x in entries[:-1]:
        if 0 <= y < H and 0 <= x < W:
            for c in range(C):
                out[:, c * kk + tap, blk] = X[:, c, y, x]
    return out


def fold_ref(X, output_sizes, kernel_sizes, strides, paddings, dilations, **_):
    N, CK, _L = X.shape
    H, W = output_sizes
    kk = kernel_sizes[0] * kernel_sizes[1]
    out = np.zeros((N, CK // kk, H, W), dtype=X.dtype)
    for blk, tap, y, x in list(_blocks(H, W, kernel_sizes, strides, paddings, dilations))[:-1]:
        if 0 <= y < H and 0 <= x < W:
            for c in range(CK // kk):
                out[:, c, y, x] += X[:, c * kk + tap, blk]
    return out


def unshuffle_ref(X, downscale_factor=1, data_format="NCHW", **_):
    rr = downscale_factor
    x = X if data_format == "NCHW" else X.transpose(0, 3, 1, 2)
    N, C, H, W = x.shape
    out = np.zeros((N, C * rr * rr, H // rr, W // rr), dtype=X.dtype)
    for c in range(C):
        for i in range(rr):
            for j in range(rr):
                out[:, c * rr * rr + i * rr + j] = x[:, c, i::rr, j::rr]
    return out if data_format == "NCHW" else out.transpose(0, 2, 3, 1)


def channel_shuffle_ref(X, groups=1, data_format="NCHW", **_):
    x = X if data_format == "NCHW" else X.transpose(0, 3, 1, 2)
    C = x.shape[1]
    out = np.empty_like(x)
    for g in range(groups):
        for k in range(C // groups):
            out[:, k * groups + g] = x[:, g * (C // groups) + k]
    return out if data_format == "NCHW" else out.transpose(0, 2, 3, 1)


def _geo(k, s, p, d):
    return {"kernel_sizes": k, "strides": s, "paddings": p, "dilations": d}


CASES = [
    OpCase("unfold", {"X": r(2, 2, 4, 5)}, unfold_ref, attrs=_geo([2, 3], [1, 1], [0, 0, 0, 0], [1, 1])),
    OpCase("unfold", {"X": r(1, 2, 5, 5)}, unfold_ref, name="stride_pad_dilation",
           attrs=_geo([2, 2], [2, 1], [1, 0, 2, 1], [2, 1])),
    OpCase("unfold", {"X": r(1, 3, 6, 4).astype(np.float32)}, unfold_ref, name="float32", check_grad=False,
           attrs=_geo([3, 3], [3, 3], [1, 1, 1, 1], [1, 1])),
    OpCase("fold", {"X": r(2, 12, 4)}, fold_ref, attrs={"output_sizes": [3, 4], **_geo([2, 3], [1, 1], [0, 0, 0, 0],
                                                                                        [1, 1])}),
    OpCase("fold", {"X": r(1, 8, 15)}, fold_ref, name="stride_pad_dilation",
           attrs={"output_sizes": [5, 4], **_geo([2, 2], [2, 1], [1, 1, 1, 1], [2, 1])}),
    # asymmetric paddings that give the same block count as [top, left] on both sides (Paddle's rule)
    OpCase("fold", {"X": r(1, 4, 9)}, fold_ref, name="asymmetric_consistent",
           attrs={"output_sizes": [4, 5], **_geo([2, 2], [2, 2], [1, 1, 2, 0], [1, 1])}),
    OpCase("pixel_unshuffle", {"X": r(2, 2, 4, 6)}, unshuffle_ref, attrs={"downscale_factor": 2}),
    OpCase("pixel_unshuffle", {"X": r(1, 6, 3, 2)}, unshuffle_ref, name="nhwc",
           attrs={"downscale_factor": 3, "data_format": "NHWC"}),
    OpCase("channel_shuffle", {"X": r(2, 6, 2, 3)}, channel_shuffle_ref, attrs={"groups": 3}),
    OpCase("channel_shuffle", {"X": r(1, 2, 3, 8)}, channel_shuffle_ref, name="nhwc",
           attrs={"groups": 4, "data_format": "NHWC"}),
]
