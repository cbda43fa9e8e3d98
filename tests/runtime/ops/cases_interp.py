"""Table rows for bilinear_interp_v2, nearest_interp_v2, pad3d, pad and pixel_shuffle.

The interpolation references compute every output pixel from Paddle's coordinate rules (float32
ratio: (in-1)/(out-1) with align_corners, 1/scale when a scale is given, in/out otherwise;
align_mode 0 samples at ratio*(k+0.5)-0.5 clamped at 0, align_mode 1 and align_corners at
ratio*k; nearest rounds with align_corners and truncates otherwise). These rules were checked
numerically against real Paddle.
"""
import numpy as np


from .op_harness import OpCase

rng = np.random.default_rng(5)


def r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


def _ratio(n_in, n_out, align_corners, scale):
    if n_out <= 1:
        return 0.0
    if align_corners:
        return float(np.float32(n_in - 1) / np.float32(n_out - 1))
    if scale > 0:
        return float(np.float32(1.0 / scale))
    return float(np.float32(n_in) / np.float32(n_out))


def _sizes(X, OutSize, SizeTensor, Scale, out_d, out_h, out_w, scale, spatial):
    in_sizes = [X.shape[a] for a in spatial]
    sc = [-1.0] * len(spatial)
    if Scale is not None:
        v = list(np.asarray(Scale, dtype=np.float64).reshape(-1))
        sc = v * len(spatial) if len(v) == 1 else v
    elif scale:
        sc = list(scale)
    if sc[0] > 0:
        outs = [int(np.float32(n) * np.float32(s)) for n, s in zip(in_sizes, sc)]
    else:
        outs = [out_d, out_h, out_w][-len(spatial):]
    if OutSize is not None:
        outs = [int(v) for v in OutSize]
    if SizeTensor is not None:
        outs = [int(t[0]) for t in SizeTensor]
    return in_sizes, outs, sc


def bilinear_ref(X, OutSize=None, SizeTensor=None, Scale=None, out_h=0, out_w=0, scale=(), align_corners=True,
                 align_mode=1, data_layout="NCHW", **_):
    x = X.transpose(0, 3, 1, 2) if data_layout == "NHWC" else X
    (H, W), (oh, ow), sc = _sizes(x, OutSize, SizeTensor, Scale, 0, out_h, out_w, scale, [2, 3])
    rh, rw = _ratio(H, oh, align_corners, sc[0]), _ratio(W, ow, align_corners, sc[1])
    half = align_mode == 0 and not align_corners

    def src(k, ratio, n):
        if half:
            pos = max(ratio * (k + 0.5) - 0.5, 0.0)
        else:
            pos = float(np.float32(ratio) * np.float32(k))
        lo = int(pos)
        return lo, min(lo + 1, n - 1), pos - lo

    out = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        y0, y1, fy = src(i, rh, H)
        for j in range(ow):
            x0, x1, fx = src(j, rw, W)
            out[:, :, i, j] = ((1 - fy) * (1 - fx) * x[:, :, y0, x0] + (1 - fy) * fx * x[:, :, y0, x1]
                               + fy * (1 - fx) * x[:, :, y1, x0] + fy * fx * x[:, :, y1, x1])
    out = out.astype(X.dtype)
    return out.transpose(0, 2, 3, 1) if data_layout == "NHWC" else out


def nearest_ref(X, OutSize=None, SizeTensor=None, Scale=None, out_d=0, out_h=0, out_w=0, scale=(),
                align_corners=True, data_layout="NCHW", **_):
    nd = X.ndim - 2
    spatial = list(range(2, X.ndim)) if data_layout == "NCHW" else list(range(1, X.ndim - 1))
    in_sizes, outs, sc = _sizes(X, OutSize, SizeTensor, Scale, out_d, out_h, out_w, scale, spatial)
    y = X
    for d in range(nd):
        ratio = _ratio(in_sizes[d], outs[d], align_corners, sc[d])
        idx = []
        for k in range(outs[d]):
            pos = float(np.float32(ratio) * np.float32(k))
            idx.append(min(int(pos + 0.5) if align_corners else int(pos), in_sizes[d] - 1))
        y = np.stack([np.take(y, i, axis=spatial[d]) for i in idx], axis=spatial[d])
    return y


def _src(p, n, mode):
    if mode == "reflect":
        p = -p if p < 0 else p
        return 2 * (n - 1) - p if p >= n else p
    if mode == "replicate":
        return min(max(p, 0), n - 1)
    return p % n


def pad3d_ref(X, Paddings=None, paddings=(), mode="constant", value=0.0, data_format="NCDHW", **_):
    p = list(Paddings) if Paddings is not None else list(paddings)
    x = X if data_format == "NCDHW" else X.transpose(0, 4, 1, 2, 3)
    N, C, D, H, W = x.shape
    out = np.full((N, C, D + p[4] + p[5], H + p[2] + p[3], W + p[0] + p[1]), value, dtype=X.dtype)
    for d in range(out.shape[2]):
        for h in range(out.shape[3]):
            for w in range(out.shape[4]):
                sd, sh, sw = d - p[4], h - p[2], w - p[0]
                if mode == "constant":
                    if 0 <= sd < D and 0 <= sh < H and 0 <= sw < W:
                        out[:, :, d, h, w] = x[:, :, sd, sh, sw]
                else:
                    out[:, :, d, h, w] = x[:, :, _src(sd, D, mode), _src(sh, H, mode), _src(sw, W, mode)]
    return out if data_format == "NCDHW" else out.transpose(0, 2, 3, 4, 1)


def pad_ref(X, paddings=(), pad_value=0.0, **_):
    shape = tuple(n + paddings[2 * i] + paddings[2 * i + 1] for i, n in enumerate(X.shape))
    out = np.full(shape, pad_value, dtype=X.dtype)
    out[tuple(slice(paddings[2 * i], paddings[2 * i] + n) for i, n in enumerate(X.shape))] = X
    return out


def shuffle_ref(X, upscale_factor=1, data_format="NCHW", **_):
    rr = upscale_factor
    x = X if data_format == "NCHW" else X.transpose(0, 3, 1, 2)
    N, C, H, W = x.shape
    out = np.zeros((N, C // (rr * rr), H * rr, W * rr), dtype=X.dtype)
    for c in range(C // (rr * rr)):
        for i in range(rr):
            for j in range(rr):
                out[:, c, i::rr, j::rr] = x[:, c * rr * rr + i * rr + j]
    return out if data_format == "NCHW" else out.transpose(0, 2, 3, 1)


_I32 = np.int32
CASES = [
    OpCase("bilinear_interp_v2", {"X": r(2, 2, 3, 4)}, bilinear_ref, name="align_corners",
           attrs={"out_h": 5, "out_w": 7, "align_corners": True, "align_mode": 1}),
    OpCase("bilinear_interp_v2", {"X": r(1, 2, 3, 4)}, bilinear_ref, name="half_pixel",
           attrs={"out_h": 7, "out_w": 3, "align_corners": False, "align_mode": 0}),
    OpCase("bilinear_interp_v2", {"X": r(1, 2, 4, 3)}, bilinear_ref, name="align_mode1",
           attrs={"out_h": 6, "out_w": 5, "align_corners": False, "align_mode": 1}),
    OpCase("bilinear_interp_v2", {"X": r(1, 2, 3, 4)}, bilinear_ref, name="scale_attr",
           attrs={"scale": [1.5, 2.5], "out_h": 9, "out_w": 9, "align_corners": False, "align_mode": 0}),
    OpCase("bilinear_interp_v2", {"X": r(1, 2, 3, 4), "OutSize": np.array([5, 2], _I32)}, bilinear_ref,
           name="out_size_tensor", attrs={"out_h": 9, "out_w": 9, "align_corners": False, "align_mode": 0}),
    OpCase("bilinear_interp_v2", {"X": r(1, 2, 3, 4), "OutSize": np.array([5, 2], _I32),
                                  "SizeTensor": [np.array([4], _I32), np.array([6], _I32)]}, bilinear_ref,
           name="size_tensor_wins", attrs={"align_corners": True}),
    OpCase("bilinear_interp_v2", {"X": r(1, 2, 3, 4), "Scale": np.array([2.0], np.float32)}, bilinear_ref,
           name="scale_tensor", attrs={"out_h": 9, "out_w": 9, "align_corners": False, "align_mode": 0}),
    OpCase("bilinear_interp_v2", {"X": r(1, 4, 5, 3)}, bilinear_ref, name="nhwc_downsample",
           attrs={"out_h": 3, "out_w": 2, "align_corners": False, "align_mode": 0, "data_layout": "NHWC"}),
    OpCase("bilinear_interp_v2", {"X": r(2, 3, 4, 4).astype(np.float32)}, bilinear_ref, name="float32",
           check_grad=False, attrs={"scale": [2.0, 2.0], "align_corners": False, "align_mode": 0}),
    OpCase("nearest_interp_v2", {"X": r(2, 2, 3, 4)}, nearest_ref,
           attrs={"out_h": 5, "out_w": 7, "align_corners": False, "interp_method": "nearest"}),
    OpCase("nearest_interp_v2", {"X": r(1, 2, 5, 4)}, nearest_ref, name="align_corners",
           attrs={"out_h": 8, "out_w": 3, "align_corners": True, "interp_method": "nearest"}),
    OpCase("nearest_interp_v2", {"X": r(1, 2, 3, 4)}, nearest_ref, name="scale",
           attrs={"scale": [2.0, 1.5], "align_corners": False, "interp_method": "nearest"}),
    OpCase("nearest_interp_v2", {"X": r(1, 3, 4, 2), "OutSize": np.array([3, 5], _I32)}, nearest_ref,
           name="nhwc_out_size", attrs={"align_corners": False, "data_layout": "NHWC", "interp_method": "nearest"}),
    OpCase("nearest_interp_v2", {"X": r(1, 2, 5)}, nearest_ref, name="3d",
           attrs={"out_w": 8, "align_corners": False, "interp_method": "nearest"}),
    OpCase("nearest_interp_v2", {"X": r(1, 1, 2, 3, 2)}, nearest_ref, name="5d",
           attrs={"out_d": 3, "out_h": 4, "out_w": 5, "align_corners": False, "interp_method": "nearest"}),
    OpCase("pad3d", {"X": r(1, 2, 2, 3, 3)}, pad3d_ref, name="constant",
           attrs={"paddings": [1, 0, 0, 2, 1, 1], "mode": "constant", "value": 0.5}),
    OpCase("pad3d", {"X": r(1, 2, 3, 3, 4)}, pad3d_ref, name="reflect",
           attrs={"paddings": [2, 3, 1, 2, 2, 0], "mode": "reflect"}),
    OpCase("pad3d", {"X": r(1, 1, 2, 3, 2)}, pad3d_ref, name="replicate",
           attrs={"paddings": [3, 1, 0, 2, 1, 2], "mode": "replicate"}),
    OpCase("pad3d", {"X": r(1, 1, 2, 3, 2)}, pad3d_ref, name="circular",
           attrs={"paddings": [3, 1, 0, 4, 1, 2], "mode": "circular"}),
    OpCase("pad3d", {"X": r(1, 2, 3, 2, 3)}, pad3d_ref, name="ndhwc",
           attrs={"paddings": [1, 1, 0, 1, 1, 0], "mode": "reflect", "data_format": "NDHWC"}),
    OpCase("pad3d", {"X": r(1, 1, 1, 3, 3), "Paddings": np.array([1, 2, 2, 1, 0, 0], _I32)}, pad3d_ref,
           name="paddings_tensor", attrs={"paddings": [], "mode": "replicate"}),
    OpCase("pad3d", {"X": np.arange(12).reshape(1, 1, 1, 3, 4)}, pad3d_ref, name="int64_constant",
           attrs={"paddings": [1, 1, 1, 1, 0, 0], "value": 7.0}),
    OpCase("pad", {"X": r(2, 3, 2)}, pad_ref, attrs={"paddings": [0, 1, 2, 0, 1, 1], "pad_value": -1.5}),
    OpCase("pixel_shuffle", {"X": r(2, 8, 2, 3)}, shuffle_ref, attrs={"upscale_factor": 2}),
    OpCase("pixel_shuffle", {"X": r(1, 2, 2, 9)}, shuffle_ref, name="nhwc",
           attrs={"upscale_factor": 3, "data_format": "NHWC"}),
]
