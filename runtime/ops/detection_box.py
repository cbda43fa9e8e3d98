"""Box ops of paddle.vision.ops: box_coder, prior_box, yolo_box and nms (no gradients: Paddle has none).

Kernels follow Paddle's CPU kernels' arithmetic in the input dtype, vectorised over boxes.
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, register


def _f32(v):
    """A FLOAT attribute as Paddle's kernels see it: stored as float32, then widened."""
    return float(np.float32(v))


# ---------------------------------------------------------------- box_coder


def _center_size(boxes, normalized):
    one = boxes.dtype.type(0 if normalized else 1)
    w = boxes[..., 2] - boxes[..., 0] + one
    h = boxes[..., 3] - boxes[..., 1] + one
    return w, h


def _box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size", box_normalized=True, axis=0,
               variance=()):
    op = "box_coder"
    T = prior_box.dtype.type
    if prior_box_var is not None and len(variance):
        raise ValueError(f"{op}: Input 'PriorBoxVar' and attribute 'variance' should not be used at the same time")
    if len(variance) not in (0, 4):
        raise ValueError(f"{op}: the attribute 'variance' must hold 4 values, got {list(variance)}")
    if prior_box.ndim != 2 or prior_box.shape[1] != 4:
        raise ValueError(f"{op}: PriorBox must have shape [M, 4], got {list(prior_box.shape)}")
    var = None
    if prior_box_var is not None:
        var = prior_box_var.astype(prior_box.dtype, copy=False)
        if var.shape not in (prior_box.shape, (4,)):
            raise ValueError(f"{op}: PriorBoxVar must have PriorBox's shape {list(prior_box.shape)} (or [4]), "
                             f"got {list(var.shape)}")
        var = np.broadcast_to(var, prior_box.shape)
    elif len(variance):
        var = np.broadcast_to(np.asarray(variance, dtype=np.float32).astype(prior_box.dtype), prior_box.shape)
    pw, ph = _center_size(prior_box, box_normalized)
    pcx = prior_box[:, 0] + pw / T(2)
    pcy = prior_box[:, 1] + ph / T(2)
    if code_type == "encode_center_size":
        if target_box.ndim != 2 or target_box.shape[1] != 4:
            raise ValueError(f"{op}: to encode, TargetBox must have shape [N, 4], got {list(target_box.shape)}")
        t = target_box[:, None, :]
        tcx = (t[..., 2] + t[..., 0]) / T(2)
        tcy = (t[..., 3] + t[..., 1]) / T(2)
        tw, th = _center_size(t, box_normalized)
        out = np.stack([(tcx - pcx) / pw, (tcy - pcy) / ph, np.log(np.abs(tw / pw)), np.log(np.abs(th / ph))],
                       axis=-1)
        if var is not None:
            out = out / var[None]
        return out.astype(prior_box.dtype, copy=False)
    if code_type != "decode_center_size":
        raise ValueError(f"{op}: code_type must be 'encode_center_size' or 'decode_center_size', got {code_type!r}")
    if target_box.ndim != 3 or target_box.shape[2] != 4:
        raise ValueError(f"{op}: to decode, TargetBox must have shape [N, M, 4], got {list(target_box.shape)}")
    if axis not in (0, 1):
        raise ValueError(f"{op}: axis must be 0 or 1, got {axis}")
    n_prior = target_box.shape[1 - axis]
    if prior_box.shape[0] != n_prior:
        raise ValueError(f"{op}: with axis={axis}, PriorBox must have {n_prior} rows (TargetBox dim {1 - axis}), "
                         f"got {prior_box.shape[0]}")
    expand = (lambda a: a[None]) if axis == 0 else (lambda a: a[:, None])
    pw, ph, pcx, pcy = (expand(a) for a in (pw, ph, pcx, pcy))
    v = expand(var) if var is not None else np.ones((1, 1, 4), dtype=prior_box.dtype)
    t = target_box
    cx = v[..., 0] * t[..., 0] * pw + pcx
    cy = v[..., 1] * t[..., 1] * ph + pcy
    w = np.exp(v[..., 2] * t[..., 2]) * pw
    h = np.exp(v[..., 3] * t[..., 3]) * ph
    one = T(0 if box_normalized else 1)
    out = np.stack([cx - w / T(2), cy - h / T(2), cx + w / T(2) - one, cy + h / T(2) - one], axis=-1)
    return out.astype(prior_box.dtype, copy=False)


def _box_coder_meta(prior_box, prior_box_var, target_box, code_type="encode_center_size", axis=0, **_):
    if code_type == "encode_center_size":
        shape = (target_box.shape[0], prior_box.shape[0], 4)
    else:
        shape = tuple(target_box.shape)
    return Meta(shape, prior_box.dtype)


register("box_coder", ["PriorBox", "PriorBoxVar?", "TargetBox"], ["OutputBox"],
         {"code_type": ("STRING", "encode_center_size"), "box_normalized": ("BOOLEAN", True), "axis": ("INT", 0),
          "variance": ("FLOATS", [])},
         kernel=_box_coder, infer_meta=_box_coder_meta)


# ---------------------------------------------------------------- prior_box


def expand_aspect_ratios(aspect_ratios, flip):
    """1.0 first, then every new ratio (and its reciprocal when ``flip``), duplicates within 1e-6 dropped."""
    out = [1.0]
    for ar in aspect_ratios:
        ar = float(np.float32(ar))
        if any(abs(ar - o) < 1e-6 for o in out):
            continue
        out.append(ar)
        if flip:
            out.append(float(np.float32(1.0 / ar)))
    return out


def _prior_sizes(min_sizes, max_sizes, aspect_ratios, flip, order):
    """(half width, half height) of each prior at one location, in Paddle's order."""
    # Paddle multiplies and takes roots of these float attributes in float32, then halves in double
    ars = [np.float32(a) for a in expand_aspect_ratios(aspect_ratios, flip)]
    sizes = []
    for s, mn in enumerate(min_sizes):
        mn = np.float32(mn)
        square_max = []
        if max_sizes:
            half = float(np.sqrt(mn * np.float32(max_sizes[s]))) / 2.0
            square_max = [(half, half)]
        ratio = [(float(mn * np.sqrt(ar)) / 2.0, float(mn / np.sqrt(ar)) / 2.0) for ar in ars]
        if order:
            others = [r for ar, r in zip(ars, ratio) if abs(ar - 1.0) >= 1e-6]
            sizes += [(float(mn) / 2.0, float(mn) / 2.0)] + square_max + others
        else:
            sizes += ratio + square_max
    return sizes


def _prior_box(input, image, min_sizes=(), max_sizes=(), aspect_ratios=(), variances=(), flip=True, clip=True,
               step_w=0.0, step_h=0.0, offset=0.5, min_max_aspect_ratios_order=False):
    dtype = input.dtype if input.dtype.kind == "f" else np.dtype(np.float32)
    T = dtype.type
    fh, fw = input.shape[2], input.shape[3]
    ih, iw = image.shape[2], image.shape[3]
    if step_w == 0 or step_h == 0:
        sw, sh = T(iw) / T(fw), T(ih) / T(fh)
    else:
        sw, sh = T(_f32(step_w)), T(_f32(step_h))
    sizes = np.asarray(_prior_sizes(min_sizes, max_sizes, aspect_ratios, flip, min_max_aspect_ratios_order),
                       dtype=np.float64).astype(dtype).reshape(-1, 2)
    cx = (np.arange(fw, dtype=dtype) + T(_f32(offset))) * sw
    cy = (np.arange(fh, dtype=dtype) + T(_f32(offset))) * sh
    cx = cx[None, :, None]
    cy = cy[:, None, None]
    bw, bh = sizes[None, None, :, 0], sizes[None, None, :, 1]
    full = (fh, fw, sizes.shape[0])
    boxes = np.stack([np.broadcast_to((cx - bw) / T(iw), full), np.broadcast_to((cy - bh) / T(ih), full),
                      np.broadcast_to((cx + bw) / T(iw), full), np.broadcast_to((cy + bh) / T(ih), full)], axis=-1)
    if clip:
        boxes = np.clip(boxes, T(0), T(1))
    var = np.broadcast_to(np.asarray(variances, dtype=np.float32).astype(dtype), full + (len(variances),))
    return boxes.astype(dtype, copy=False), np.ascontiguousarray(var)


def _prior_box_meta(input, image, min_sizes=(), max_sizes=(), aspect_ratios=(), variances=(), flip=True,
                    min_max_aspect_ratios_order=False, **_):
    n = len(_prior_sizes(min_sizes, max_sizes, aspect_ratios, flip, min_max_aspect_ratios_order))
    dtype = input.dtype if np.dtype(input.dtype).kind == "f" else np.dtype(np.float32)
    shape = (input.shape[2], input.shape[3], n)
    return Meta(shape + (4,), dtype), Meta(shape + (len(variances),), dtype)


register("prior_box", ["Input", "Image"], ["Boxes", "Variances"],
         {"min_sizes": ("FLOATS", []), "max_sizes": ("FLOATS", []), "aspect_ratios": ("FLOATS", []),
          "variances": ("FLOATS", []), "flip": ("BOOLEAN", True), "clip": ("BOOLEAN", True),
          "step_w": ("FLOAT", 0.0), "step_h": ("FLOAT", 0.0), "offset": ("FLOAT", 0.5),
          "min_max_aspect_ratios_order": ("BOOLEAN", False)},
         kernel=_prior_box, infer_meta=_prior_box_meta)


# ---------------------------------------------------------------- yolo_box


def _sigmoid(v):
    return (1.0 / (1.0 + np.exp(-v).astype(np.float64))).astype(v.dtype)


def _yolo_box(x, img_size, anchors=(), class_num=1, conf_thresh=0.01, downsample_ratio=32, clip_bbox=True,
              scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    op = "yolo_box"
    T = x.dtype.type
    n, c, h, w = x.shape
    an = len(anchors) // 2
    per = 5 + class_num
    expect = an * (per + (1 if iou_aware else 0))
    if c != expect:
        raise ValueError(f"{op}: X must have {expect} channels (anchor count {an} x (5 + class_num {class_num})"
                         f"{' + iou channels' if iou_aware else ''}), got {c}")
    if img_size.shape != (n, 2):
        raise ValueError(f"{op}: ImgSize must have shape [N, 2] = [{n}, 2], got {list(img_size.shape)}")
    body = x[:, an:] if iou_aware else x
    p = body.reshape(n, an, per, h, w)
    conf = _sigmoid(p[:, :, 4])
    if iou_aware:
        iou = _sigmoid(x[:, :an])
        fac = _f32(iou_aware_factor)
        conf = (conf ** T(1.0 - fac)) * (iou ** T(fac))
    keep = conf >= np.float32(conf_thresh)
    img = img_size.astype(np.int64)
    ih = img[:, 0].astype(x.dtype)[:, None, None, None]
    iw = img[:, 1].astype(x.dtype)[:, None, None, None]
    scale = np.float32(scale_x_y)
    bias = np.float32(-0.5) * (scale - np.float32(1))
    gx = np.arange(w, dtype=x.dtype)[None, None, None, :]
    gy = np.arange(h, dtype=x.dtype)[None, None, :, None]
    anc = np.asarray(anchors, dtype=np.int64).reshape(an, 2).astype(x.dtype)
    bx = (gx + _sigmoid(p[:, :, 0]) * T(scale) + T(bias)) * iw / T(w)
    by = (gy + _sigmoid(p[:, :, 1]) * T(scale) + T(bias)) * ih / T(h)
    bw = np.exp(p[:, :, 2]) * anc[None, :, 0, None, None] * iw / T(downsample_ratio * w)
    bh = np.exp(p[:, :, 3]) * anc[None, :, 1, None, None] * ih / T(downsample_ratio * h)
    boxes = np.stack([bx - bw / T(2), by - bh / T(2), bx + bw / T(2), by + bh / T(2)], axis=-1)
    if clip_bbox:
        boxes[..., 0] = np.maximum(boxes[..., 0], T(0))
        boxes[..., 1] = np.maximum(boxes[..., 1], T(0))
        boxes[..., 2] = np.minimum(boxes[..., 2], iw - T(1))
        boxes[..., 3] = np.minimum(boxes[..., 3], ih - T(1))
    boxes = np.where(keep[..., None], boxes, T(0)).astype(x.dtype)
    scores = conf[:, :, None] * _sigmoid(p[:, :, 5:])                 # [n, an, cls, h, w]
    scores = np.where(keep[:, :, None], scores, T(0)).astype(x.dtype)
    return (boxes.reshape(n, an * h * w, 4),
            np.ascontiguousarray(scores.transpose(0, 1, 3, 4, 2)).reshape(n, an * h * w, class_num))


def _yolo_box_meta(x, img_size, anchors=(), class_num=1, **_):
    n, c, h, w = x.shape
    box_num = -1 if h < 0 or w < 0 else len(anchors) // 2 * h * w
    return Meta((n, box_num, 4), x.dtype), Meta((n, box_num, class_num), x.dtype)


register("yolo_box", ["X", "ImgSize"], ["Boxes", "Scores"],
         {"anchors": ("INTS", []), "class_num": ("INT", 1), "conf_thresh": ("FLOAT", 0.01),
          "downsample_ratio": ("INT", 32), "clip_bbox": ("BOOLEAN", True), "scale_x_y": ("FLOAT", 1.0),
          "iou_aware": ("BOOLEAN", False), "iou_aware_factor": ("FLOAT", 0.5)},
         kernel=_yolo_box, infer_meta=_yolo_box_meta)


# ---------------------------------------------------------------- nms


def iou_matrix(boxes, normalized=True):
    """Pairwise IoU of [K, 4] boxes; ``normalized=False`` counts pixels inclusively (+1 on each side)."""
    one = boxes.dtype.type(0 if normalized else 1)
    x0, y0, x1, y1 = (boxes[:, k] for k in range(4))
    area = (x1 - x0 + one) * (y1 - y0 + one)
    iw = np.maximum(np.minimum(x1[:, None], x1[None]) - np.maximum(x0[:, None], x0[None]) + one, 0)
    ih = np.maximum(np.minimum(y1[:, None], y1[None]) - np.maximum(y0[:, None], y0[None]) + one, 0)
    inter = iw * ih
    with np.errstate(divide="ignore", invalid="ignore"):
        return inter / (area[:, None] + area[None] - inter)


def _nms(boxes, iou_threshold=1.0):
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(f"nms: Boxes must have shape [num_boxes, 4], got {list(boxes.shape)}")
    over = iou_matrix(boxes) > np.float32(iou_threshold)
    suppressed = np.zeros(boxes.shape[0], dtype=bool)
    for i in range(boxes.shape[0]):
        if not suppressed[i]:
            suppressed[i + 1:] |= over[i, i + 1:]
    return np.nonzero(~suppressed)[0].astype(np.int64)


register("nms", ["Boxes"], ["KeepBoxesIdxs"], {"iou_threshold": ("FLOAT", 1.0)}, kernel=_nms,
         infer_meta=lambda boxes, **_: Meta((-1,), np.dtype(np.int64)))
