"""Table rows for lp_pool2d and gather_tree.

lp_pool2d's reference sums x**p (signed, zero padding) over each window [i*s - p0, i*s - p0 + k) and
takes the 1/p power (max for p = inf); gather_tree's walks each beam's parent chain back from the
last step one element at a time. The finite powers are summed in float32 (as Paddle's kernel does,
even for float64), so those rows compare at float32 precision and take finite differences with a
wider step (``_F32``).
"""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(81)


def lp_ref(x, kernel_size=(), strides=(1, 1), paddings=(0, 0), ceil_mode=False, norm_type=2.0, data_format="NCHW",
           **_):
    x = np.moveaxis(x, -1, 1) if data_format == "NHWC" else x
    p = list(paddings) * 2 if len(paddings) == 2 else list(paddings)
    pads = [p[0], p[0], p[1], p[1]] if len(paddings) == 2 else p
    N, C, H, W = x.shape
    k, s = kernel_size, strides
    oh = (H - k[0] + pads[0] + pads[1] + (s[0] - 1 if ceil_mode else 0)) // s[0] + 1
    ow = (W - k[1] + pads[2] + pads[3] + (s[1] - 1 if ceil_mode else 0)) // s[1] + 1
    out = np.zeros((N, C, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - pads[0], j * s[1] - pads[2]
            win = x[:, :, max(h0, 0):min(h0 + k[0], H), max(w0, 0):min(w0 + k[1], W)]
            if np.isinf(norm_type):
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                out[:, :, i, j] = (win ** norm_type).sum(axis=(2, 3)) ** (1 / norm_type)
    out = out.astype(x.dtype)
    return np.moveaxis(out, 1, -1) if data_format == "NHWC" else out


def gather_tree_ref(Ids, Parents):
    T, B, K = Ids.shape
    out = np.zeros_like(Ids)
    for b in range(B):
        for k in range(K):
            beam = k
            for t in range(T - 1, -1, -1):
                out[t, b, k] = Ids[t, b, beam]
                beam = Parents[t, b, beam]
    return out


POS = rng.uniform(0.2, 1.5, (2, 2, 5, 6))
_F32 = {"rtol": 2e-6, "atol": 2e-6, "eps": 1e-3, "grad_rtol": 2e-3, "grad_atol": 2e-4}
CASES = [
    OpCase("lp_pool2d", {"x": POS}, lp_ref, name="p2", **_F32, attrs={"kernel_size": [2, 3], "strides": [2, 2],
                                                              "norm_type": 2.0}),
    OpCase("lp_pool2d", {"x": POS}, lp_ref, name="p3_pad_ceil", **_F32,
           attrs={"kernel_size": [3, 2], "strides": [2, 2], "paddings": [1, 0], "ceil_mode": True, "norm_type": 3.0}),
    OpCase("lp_pool2d", {"x": rng.uniform(-1, 1, (1, 2, 4, 4))}, lp_ref, name="p1_signed", **_F32,
           attrs={"kernel_size": [2, 2], "strides": [1, 1], "norm_type": 1.0}),
    OpCase("lp_pool2d", {"x": rng.uniform(-1, 1, (1, 2, 4, 6))}, lp_ref, name="inf",
           attrs={"kernel_size": [2, 3], "strides": [2, 3], "norm_type": float("inf")}),
    OpCase("lp_pool2d", {"x": rng.uniform(0.2, 1.5, (1, 4, 5, 2))}, lp_ref, name="nhwc_p1_5", **_F32,
           attrs={"kernel_size": [2, 2], "strides": [1, 2], "paddings": [0, 1, 1, 0], "norm_type": 1.5,
                  "data_format": "NHWC"}),
    OpCase("gather_tree", {"Ids": rng.integers(0, 10, (4, 2, 3)), "Parents": rng.integers(0, 3, (4, 2, 3))},
           gather_tree_ref),
    OpCase("gather_tree", {"Ids": rng.integers(0, 10, (3, 1, 2)).astype(np.int32),
                           "Parents": rng.integers(0, 2, (3, 1, 2)).astype(np.int32)}, gather_tree_ref, name="int32"),
]
