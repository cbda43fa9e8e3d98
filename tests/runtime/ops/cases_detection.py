"""Table rows for the RoI and deformable-convolution ops of paddle.vision.ops: roi_align, roi_pool,
psroi_pool, deformable_conv(_v1). References are plain loops over boxes, bins and samples written from
Paddle's kernel description (the kernels are vectorised), in float64."""
import math

import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(131)


def c_round(v):
    return math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1)


def f32(v):
    """A FLOAT attribute as Paddle's kernels read it (stored as float32)."""
    return float(np.float32(v))


def batch_of(n_rois, rois_num):
    return np.repeat(np.arange(len(rois_num)), rois_num) if rois_num is not None else np.zeros(n_rois, int)


def bilinear_align(plane, y, x):
    """Paddle roi_align's sample: 0 outside [-1, size], clamped to the last row/column."""
    h, w = plane.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * plane[y0, x0] + (1 - ly) * lx * plane[y0, x1] + ly * (1 - lx) * plane[y1, x0]
            + ly * lx * plane[y1, x1])


def roi_align_ref(X, ROIs, RoisNum=None, pooled_height=1, pooled_width=1, spatial_scale=1.0, sampling_ratio=-1,
                  aligned=False, **_):
    ids = batch_of(len(ROIs), RoisNum)
    out = np.zeros((len(ROIs), X.shape[1], pooled_height, pooled_width))
    off = 0.5 if aligned else 0.0
    for r, box in enumerate(ROIs):
        x1, y1, x2, y2 = (float(v) * f32(spatial_scale) - off for v in box)
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = sampling_ratio if sampling_ratio > 0 else math.ceil(rh / pooled_height)
        gw = sampling_ratio if sampling_ratio > 0 else math.ceil(rw / pooled_width)
        for c in range(X.shape[1]):
            for i in range(pooled_height):
                for j in range(pooled_width):
                    acc = 0.0
                    for iy in range(gh):
                        y = y1 + rh / pooled_height * (i + (iy + 0.5) / gh)
                        for ix in range(gw):
                            x = x1 + rw / pooled_width * (j + (ix + 0.5) / gw)
                            acc += bilinear_align(X[ids[r], c], y, x)
                    out[r, c, i, j] = acc / max(gh * gw, 1) if gh * gw else 0.0
    return out.astype(X.dtype)


def roi_pool_ref(X, ROIs, RoisNum=None, pooled_height=1, pooled_width=1, spatial_scale=1.0, **_):
    ids = batch_of(len(ROIs), RoisNum)
    h, w = X.shape[2:]
    out = np.zeros((len(ROIs), X.shape[1], pooled_height, pooled_width))
    for r, box in enumerate(ROIs):
        sw, sh, ew, eh = (c_round(float(v) * f32(spatial_scale)) for v in box)
        bh = np.float32(max(eh - sh + 1, 1)) / np.float32(pooled_height)
        bw = np.float32(max(ew - sw + 1, 1)) / np.float32(pooled_width)
        for i in range(pooled_height):
            hs = min(max(math.floor(i * bh) + sh, 0), h)
            he = min(max(math.ceil((i + 1) * bh) + sh, 0), h)
            for j in range(pooled_width):
                ws = min(max(math.floor(j * bw) + sw, 0), w)
                we = min(max(math.ceil((j + 1) * bw) + sw, 0), w)
                if he > hs and we > ws:
                    out[r, :, i, j] = X[ids[r], :, hs:he, ws:we].max(axis=(1, 2))
    return out.astype(X.dtype)


def psroi_pool_ref(X, ROIs, RoisNum=None, pooled_height=1, pooled_width=1, output_channels=1, spatial_scale=1.0,
                   **_):
    ids = batch_of(len(ROIs), RoisNum)
    h, w = X.shape[2:]
    ph, pw = pooled_height, pooled_width
    out = np.zeros((len(ROIs), output_channels, ph, pw))
    spatial_scale = f32(spatial_scale)
    for r, box in enumerate(ROIs):
        sw, sh = c_round(box[0]) * spatial_scale, c_round(box[1]) * spatial_scale
        ew, eh = (c_round(box[2]) + 1) * spatial_scale, (c_round(box[3]) + 1) * spatial_scale
        bh, bw = max(eh - sh, 0.1) / ph, max(ew - sw, 0.1) / pw
        for c in range(output_channels):
            for i in range(ph):
                hs, he = min(max(math.floor(i * bh + sh), 0), h), min(max(math.ceil((i + 1) * bh + sh), 0), h)
                for j in range(pw):
                    ws, we = min(max(math.floor(j * bw + sw), 0), w), min(max(math.ceil((j + 1) * bw + sw), 0), w)
                    if he > hs and we > ws:
                        out[r, c, i, j] = X[ids[r], (c * ph + i) * pw + j, hs:he, ws:we].mean()
    return out.astype(X.dtype)


def bilinear_dcn(plane, y, x):
    """Deformable conv's sample: 0 at or beyond one pixel outside, outside corners count 0."""
    h, w = plane.shape
    if not (-1 < y < h and -1 < x < w):
        return 0.0
    y0, x0 = math.floor(y), math.floor(x)
    total = 0.0
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                total += wy * wx * plane[yy, xx]
    return total


def deformable_conv_ref(Input, Offset, Filter, Mask=None, strides=(1, 1), paddings=(0, 0), dilations=(1, 1),
                        deformable_groups=1, groups=1, **_):
    n, c, h, w = Input.shape
    m, cg, kh, kw = Filter.shape
    ho, wo = Offset.shape[2:]
    out = np.zeros((n, m, ho, wo))
    cpg = c // deformable_groups
    for b in range(n):
        for oy in range(ho):
            for ox in range(wo):
                col = np.zeros((c, kh, kw))
                for ch in range(c):
                    g = ch // cpg
                    for i in range(kh):
                        for j in range(kw):
                            k = i * kw + j
                            dy = Offset[b, g * 2 * kh * kw + 2 * k, oy, ox]
                            dx = Offset[b, g * 2 * kh * kw + 2 * k + 1, oy, ox]
                            y = oy * strides[0] - paddings[0] + i * dilations[0] + dy
                            x = ox * strides[1] - paddings[1] + j * dilations[1] + dx
                            v = bilinear_dcn(Input[b, ch], y, x)
                            if Mask is not None:
                                v *= Mask[b, g * kh * kw + k, oy, ox]
                            col[ch, i, j] = v
                mg = m // groups
                for f in range(m):
                    grp = f // mg
                    out[b, f, oy, ox] = (Filter[f] * col[grp * cg:(grp + 1) * cg]).sum()
    return out.astype(Input.dtype)


def deformable_conv_v1_ref(Input, Offset, Filter, **attrs):
    return deformable_conv_ref(Input, Offset, Filter, None, **attrs)


X = rng.uniform(-1, 1, (2, 3, 7, 8))
ROIS = np.array([[0.4, 1.1, 5.2, 6.3], [2.0, 0.5, 7.5, 3.9], [-1.2, -0.4, 2.7, 2.2], [1.3, 2.2, 1.6, 2.9]])
NUM = np.array([1, 3], np.int32)
PS_X = rng.uniform(-1, 1, (2, 2 * 2 * 3, 6, 7))
DX = rng.uniform(-1, 1, (1, 4, 5, 5))
DOFF = rng.uniform(-1.3, 1.3, (1, 2 * 2 * 4, 3, 3))
DW = rng.uniform(-1, 1, (4, 2, 2, 2))
DMASK = rng.uniform(0.2, 1.0, (1, 2 * 4, 3, 3))
DCN_ATTRS = {"strides": [1, 2], "paddings": [0, 1], "dilations": [2, 1], "deformable_groups": 2, "groups": 2}

CASES = [
    OpCase("roi_align", {"X": X, "ROIs": ROIS, "RoisNum": NUM}, roi_align_ref,
           attrs={"pooled_height": 2, "pooled_width": 3, "spatial_scale": 1.0, "sampling_ratio": 2, "aligned": True}),
    OpCase("roi_align", {"X": X, "ROIs": ROIS, "RoisNum": NUM}, roi_align_ref, name="adaptive_unaligned",
           attrs={"pooled_height": 3, "pooled_width": 2, "spatial_scale": 0.75, "sampling_ratio": -1,
                  "aligned": False}),
    OpCase("roi_align", {"X": X[:1].astype(np.float32), "ROIs": ROIS[:2].astype(np.float32)}, roi_align_ref,
           name="float32_no_rois_num", check_grad=False, attrs={"pooled_height": 2, "pooled_width": 2}),
    OpCase("roi_pool", {"X": X, "ROIs": ROIS * 1.1, "RoisNum": NUM}, roi_pool_ref,
           attrs={"pooled_height": 2, "pooled_width": 3, "spatial_scale": 0.9}),
    OpCase("psroi_pool", {"X": PS_X, "ROIs": ROIS, "RoisNum": NUM}, psroi_pool_ref,
           attrs={"pooled_height": 2, "pooled_width": 2, "output_channels": 3, "spatial_scale": 0.8}),
    OpCase("deformable_conv", {"Input": DX, "Offset": DOFF, "Filter": DW, "Mask": DMASK}, deformable_conv_ref,
           attrs=DCN_ATTRS, grad_atol=1e-5),
    OpCase("deformable_conv_v1", {"Input": DX[:, :2], "Offset": DOFF[:, :8], "Filter": DW[:2]},
           deformable_conv_v1_ref, attrs={"strides": [1, 2], "paddings": [0, 1], "dilations": [2, 1]},
           grad_atol=1e-5),
]
