"""Table rows for linear_interp_v2, trilinear_interp_v2 and bicubic_interp_v2.

The references compute every output element with explicit loops from Paddle's coordinate rules
(float32 step: (in-1)/(out-1) with align_corners, float32(1/scale) with a scale, else in/out;
linear samples at step*k, or at max(step*(k+0.5)-0.5, 0) for align_mode 0; bicubic at step*k or
step*(k+0.5)-0.5 with Keys' kernel, A = -0.75, over the clamped neighbours floor-1 .. floor+2).
The rules were checked numerically against real Paddle (tests/interop/test_functional_interop.py).
"""
import itertools
import math

import numpy as np

from .cases_interp import _ratio as _step   # the same float32 coordinate step as bilinear/nearest
from .op_harness import OpCase

rng = np.random.default_rng(23)


def r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


def _out_sizes(X, spatial, OutSize, SizeTensor, Scale, out_d, out_h, out_w, scale):
    in_sizes = [X.shape[a] for a in spatial]
    sc = [-1.0] * len(spatial)
    if Scale is not None:
        v = [float(a) for a in np.asarray(Scale).reshape(-1)]
        sc = v * len(spatial) if len(v) == 1 else v
    elif scale:
        sc = list(scale)[:len(spatial)]
    outs = ([int(np.float32(n) * np.float32(s)) for n, s in zip(in_sizes, sc)] if sc[0] > 0
            else [out_d, out_h, out_w][3 - len(spatial):])
    if OutSize is not None:
        outs = [int(v) for v in OutSize]
    if SizeTensor is not None:
        outs = [int(t[0]) for t in SizeTensor]
    return in_sizes, outs, sc


def _linear_taps(n_in, n_out, step, align_corners, align_mode):
    taps = []
    for k in range(n_out):
        if align_mode == 0 and not align_corners:
            pos = max(step * (k + 0.5) - 0.5, 0.0)
        else:
            pos = float(np.float32(step) * np.float32(k))
        lo = min(int(pos), n_in - 1)
        taps.append([(lo, 1.0 - (pos - int(pos))), (min(lo + 1, n_in - 1), pos - int(pos))])
    return taps


def _cubic(d):
    a, d = -0.75, abs(d)
    if d <= 1:
        return ((a + 2) * d - (a + 3)) * d * d + 1
    if d < 2:
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return 0.0


def _cubic_taps(n_in, n_out, step, align_corners):
    taps = []
    for k in range(n_out):
        pos = step * k if align_corners else step * (k + 0.5) - 0.5
        base = math.floor(pos)
        taps.append([(min(max(base - 1 + i, 0), n_in - 1), _cubic(pos - (base - 1 + i))) for i in range(4)])
    return taps


def _resample(X, spatial, taps_per_dim):
    """out[..., o1, o2, ...] = sum over tap combinations of the product of weights times X."""
    shape = list(X.shape)
    for a, taps in zip(spatial, taps_per_dim):
        shape[a] = len(taps)
    out = np.zeros(shape, dtype=np.float64)
    for idx in itertools.product(*[range(len(t)) for t in taps_per_dim]):
        for combo in itertools.product(*[taps_per_dim[d][i] for d, i in enumerate(idx)]):
            w = np.prod([c[1] for c in combo])
            src, dst = [slice(None)] * X.ndim, [slice(None)] * X.ndim
            for a, c, i in zip(spatial, combo, idx):
                src[a], dst[a] = c[0], i
            out[tuple(dst)] += w * X[tuple(src)]
    return out.astype(X.dtype)


def interp_ref(X, OutSize=None, SizeTensor=None, Scale=None, out_d=0, out_h=0, out_w=0, scale=(),
               align_corners=True, align_mode=1, data_layout="NCHW", cubic=False, **_):
    spatial = list(range(2, X.ndim)) if data_layout == "NCHW" else list(range(1, X.ndim - 1))
    in_sizes, outs, sc = _out_sizes(X, spatial, OutSize, SizeTensor, Scale, out_d, out_h, out_w, scale)
    taps = []
    for n, o, s in zip(in_sizes, outs, sc):
        step = _step(n, o, align_corners, s)
        taps.append(_cubic_taps(n, o, step, align_corners) if cubic
                    else _linear_taps(n, o, step, align_corners, align_mode))
    return _resample(X, spatial, taps)


def bicubic_ref(**kw):
    return interp_ref(cubic=True, **kw)


_I32 = np.int32
CASES = [
    OpCase("linear_interp_v2", {"X": r(2, 2, 5)}, interp_ref, name="half_pixel",
           attrs={"out_w": 8, "align_corners": False, "align_mode": 0, "interp_method": "linear"}),
    OpCase("linear_interp_v2", {"X": r(1, 2, 5)}, interp_ref, name="align_corners",
           attrs={"out_w": 3, "align_corners": True, "align_mode": 0, "interp_method": "linear"}),
    OpCase("linear_interp_v2", {"X": r(1, 6, 2)}, interp_ref, name="nwc_align_mode1",
           attrs={"out_w": 9, "align_corners": False, "align_mode": 1, "data_layout": "NHWC",
                  "interp_method": "linear"}),
    OpCase("linear_interp_v2", {"X": r(1, 2, 4)}, interp_ref, name="scale_attr",
           attrs={"scale": [1.75], "align_corners": False, "align_mode": 0, "interp_method": "linear"}),
    OpCase("linear_interp_v2", {"X": r(1, 2, 4).astype(np.float32), "OutSize": np.array([6], _I32)},
           interp_ref, name="float32_out_size", check_grad=False,
           attrs={"align_corners": False, "align_mode": 0, "interp_method": "linear"}),
    OpCase("trilinear_interp_v2", {"X": r(1, 2, 2, 3, 3)}, interp_ref, name="half_pixel",
           attrs={"out_d": 3, "out_h": 4, "out_w": 2, "align_corners": False, "align_mode": 0,
                  "interp_method": "trilinear"}),
    OpCase("trilinear_interp_v2", {"X": r(1, 1, 3, 2, 3)}, interp_ref, name="align_corners",
           attrs={"out_d": 4, "out_h": 3, "out_w": 5, "align_corners": True, "interp_method": "trilinear"}),
    OpCase("trilinear_interp_v2", {"X": r(1, 2, 3, 2, 2), "Scale": np.array([1.5], np.float32)}, interp_ref,
           name="ndhwc_scale_tensor", attrs={"align_corners": False, "align_mode": 1, "data_layout": "NHWC",
                                             "interp_method": "trilinear"}),
    OpCase("trilinear_interp_v2", {"X": r(1, 1, 2, 2, 3),
                                   "SizeTensor": [np.array([3], _I32), np.array([2], _I32), np.array([4], _I32)]},
           interp_ref, name="size_tensor", attrs={"align_corners": False, "align_mode": 0,
                                                  "interp_method": "trilinear"}),
    OpCase("bicubic_interp_v2", {"X": r(1, 2, 4, 5)}, bicubic_ref, name="half_pixel",
           attrs={"out_h": 7, "out_w": 3, "align_corners": False, "align_mode": 0, "interp_method": "bicubic"}),
    OpCase("bicubic_interp_v2", {"X": r(2, 1, 3, 4)}, bicubic_ref, name="align_corners",
           attrs={"out_h": 5, "out_w": 6, "align_corners": True, "interp_method": "bicubic"}),
    OpCase("bicubic_interp_v2", {"X": r(1, 4, 3, 2)}, bicubic_ref, name="nhwc_scale",
           attrs={"scale": [1.6, 2.0], "align_corners": False, "align_mode": 1, "data_layout": "NHWC",
                  "interp_method": "bicubic"}),
    OpCase("bicubic_interp_v2", {"X": r(1, 2, 6, 6).astype(np.float32)}, bicubic_ref, name="float32_downsample",
           check_grad=False, rtol=1e-5, atol=1e-6,
           attrs={"out_h": 4, "out_w": 3, "align_corners": False, "interp_method": "bicubic"}),
]
