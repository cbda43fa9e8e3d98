"""The YOLOv3 loss op (yolov3_loss) and its gradient with respect to X.

Per image: each predicted box whose best IoU with a valid ground-truth box exceeds ignore_thresh is
left out of the objectness loss; each valid ground truth (w and h >= 1e-6) goes to the anchor (of all
anchors) whose shape matches it best, and when that anchor is in anchor_mask the cell holding the
box centre pays location (sigmoid cross-entropy on x/y, L1 on log w/h, scaled by 2 - w*h), class
(sigmoid cross-entropy, label smoothing optional) and objectness losses, weighted by GTScore. Every
term is a sigmoid cross-entropy or an L1 of one X entry, so one pass computes the loss and dLoss/dX
together; the grad kernel scales the latter by the incoming grad.
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, grad_op, register


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def _sce(x, label):
    """Sigmoid cross-entropy with logits, Paddle's stable form."""
    return np.maximum(x, 0) - x * label + np.log1p(np.exp(-np.abs(x)))


def _iou_cs(x1, y1, w1, h1, x2, y2, w2, h2):
    """IoU of boxes given as centre and size (broadcasting)."""
    def overlap(c1, s1, c2, s2):
        return np.minimum(c1 + s1 / 2.0, c2 + s2 / 2.0) - np.maximum(c1 - s1 / 2.0, c2 - s2 / 2.0)
    iw, ih = overlap(x1, w1, x2, w2), overlap(y1, h1, y2, h2)
    inter = np.where((iw < 0) | (ih < 0), 0.0, iw * ih)
    with np.errstate(divide="ignore", invalid="ignore"):
        return inter / (w1 * h1 + w2 * h2 - inter)


def _loss_and_grad(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num, ignore_thresh, downsample_ratio,
                   use_label_smooth, scale_x_y):
    op = "yolov3_loss"
    n, c, h, w = x.shape
    an_num, mask_num = len(anchors) // 2, len(anchor_mask)
    if c != mask_num * (5 + class_num):
        raise ValueError(f"{op}: X must have len(anchor_mask) x (5 + class_num) = {mask_num * (5 + class_num)} "
                         f"channels, got {c}")
    if gt_box.ndim != 3 or gt_box.shape[0] != n or gt_box.shape[2] != 4:
        raise ValueError(f"{op}: GTBox must have shape [N, B, 4] with N = {n}, got {list(gt_box.shape)}")
    b = gt_box.shape[1]
    if tuple(gt_label.shape) != (n, b):
        raise ValueError(f"{op}: GTLabel must have shape [N, B] = {[n, b]}, got {list(gt_label.shape)}")
    dtype = x.dtype
    T = dtype.type
    input_size = downsample_ratio * h
    scale = np.float32(scale_x_y)
    bias = np.float32(-0.5) * (scale - np.float32(1.0))
    p = x.reshape(n, mask_num, 5 + class_num, h, w)
    score = np.ones((n, b), dtype) if gt_score is None else gt_score.astype(dtype)
    gt = gt_box.astype(dtype)
    valid = ~((gt[..., 2] < 1e-6) | (gt[..., 3] < 1e-6))
    if use_label_smooth:
        smooth = min(1.0 / class_num, 1.0 / 40)
        pos, neg = T(1.0 - smooth), T(smooth)
    else:
        pos, neg = T(1), T(0)

    # predicted boxes of the masked anchors, and their best IoU with the valid ground truths
    anc = np.asarray(anchors, dtype=np.int64).reshape(an_num, 2)
    mask_anc = anc[list(anchor_mask)].astype(dtype)
    gx = np.arange(w, dtype=dtype)[None, None, None, :]
    gy = np.arange(h, dtype=dtype)[None, None, :, None]
    px = (gx + _sigmoid(p[:, :, 0]) * T(scale) + T(bias)) / T(h)
    py = (gy + _sigmoid(p[:, :, 1]) * T(scale) + T(bias)) / T(h)
    pw = np.exp(p[:, :, 2]) * mask_anc[None, :, 0, None, None] / T(input_size)
    ph = np.exp(p[:, :, 3]) * mask_anc[None, :, 1, None, None] / T(input_size)
    iou = _iou_cs(px[..., None], py[..., None], pw[..., None], ph[..., None],
                  gt[:, None, None, None, :, 0], gt[:, None, None, None, :, 1],
                  gt[:, None, None, None, :, 2], gt[:, None, None, None, :, 3])
    iou = np.where(valid[:, None, None, None, :], iou, 0)
    best = iou.max(axis=-1, initial=0.0)
    obj_mask = np.where(best > np.float32(ignore_thresh), T(-1), T(0)).astype(dtype)

    loss = np.zeros(n, dtype)
    grad = np.zeros_like(p)
    match = np.full((n, b), -1, dtype=np.int32)
    anc_w = anc[:, 0] / T(input_size)
    anc_h = anc[:, 1] / T(input_size)
    for i in range(n):
        for t in range(b):
            if not valid[i, t]:
                continue
            bx, by, bw, bh = gt[i, t]
            gi, gj = int(bx * w), int(by * h)
            ious = _iou_cs(T(0), T(0), anc_w, anc_h, T(0), T(0), bw, bh).astype(np.float32)
            best_n = 0
            best_iou = np.float32(0)
            for a in range(an_num):      # first strictly better anchor, as Paddle's loop
                if ious[a] > best_iou:
                    best_iou, best_n = ious[a], a
            mask_idx = list(anchor_mask).index(best_n) if best_n in anchor_mask else -1
            match[i, t] = mask_idx
            if mask_idx < 0:
                continue
            s = score[i, t]
            cell = p[i, mask_idx, :, gj, gi]
            g = grad[i, mask_idx, :, gj, gi]
            tx, ty = bx * T(w) - T(gi), by * T(h) - T(gj)
            tw = np.log(bw * T(input_size) / T(anc[best_n, 0]))
            th = np.log(bh * T(input_size) / T(anc[best_n, 1]))
            sc = (T(2.0) - bw * bh) * s
            loss[i] += (_sce(cell[0], tx) + _sce(cell[1], ty) + abs(tw - cell[2]) + abs(th - cell[3])) * sc
            g[0] += (_sigmoid(cell[0]) - tx) * sc
            g[1] += (_sigmoid(cell[1]) - ty) * sc
            g[2] += np.sign(cell[2] - tw) * sc
            g[3] += np.sign(cell[3] - th) * sc
            obj_mask[i, mask_idx, gj, gi] = s
            labels = np.full(class_num, neg, dtype)
            labels[int(gt_label[i, t])] = pos
            logits = cell[5:]
            loss[i] += (_sce(logits, labels) * s).sum()
            g[5:] += (_sigmoid(logits) - labels) * s
    conf = p[:, :, 4]
    positive, negative = obj_mask > 1e-5, (obj_mask <= 1e-5) & (obj_mask > -0.5)
    obj_loss = np.where(positive, _sce(conf, T(1)) * obj_mask, 0) + np.where(negative, _sce(conf, T(0)), 0)
    loss += obj_loss.reshape(n, -1).sum(axis=1).astype(dtype)
    grad[:, :, 4] += np.where(positive, (_sigmoid(conf) - T(1)) * obj_mask, 0) + \
        np.where(negative, _sigmoid(conf), 0)
    return loss.astype(dtype), grad.reshape(x.shape).astype(dtype), obj_mask, match


def _yolov3_loss(x, gt_box, gt_label, gt_score=None, anchors=(), anchor_mask=(), class_num=1, ignore_thresh=0.7,
                 downsample_ratio=32, use_label_smooth=True, scale_x_y=1.0):
    return _loss_and_grad(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num, ignore_thresh,
                          downsample_ratio, use_label_smooth, scale_x_y)[0]


def _yolov3_loss_grad(x, gt_box, gt_label, gt_score, dloss, anchors=(), anchor_mask=(), class_num=1,
                      ignore_thresh=0.7, downsample_ratio=32, use_label_smooth=True, scale_x_y=1.0):
    g = _loss_and_grad(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num, ignore_thresh,
                       downsample_ratio, use_label_smooth, scale_x_y)[1]
    return (g * dloss.reshape(-1, 1, 1, 1)).astype(x.dtype)


def _yolov3_loss_meta(x, gt_box, gt_label, gt_score=None, anchor_mask=(), **_):
    n, _, h, w = x.shape
    return (Meta((n,), x.dtype), Meta((n, len(anchor_mask), h, w), x.dtype),
            Meta((n, gt_box.shape[1]), np.dtype(np.int32)))


register("yolov3_loss", ["X", "GTBox", "GTLabel", "GTScore?"],
         ["Loss", "ObjectnessMask(intermediate)", "GTMatchMask(intermediate)"],
         {"anchors": ("INTS", []), "anchor_mask": ("INTS", []), "class_num": ("INT", 1),
          "ignore_thresh": ("FLOAT", 0.7), "downsample_ratio": ("INT", 32), "use_label_smooth": ("BOOLEAN", True),
          "scale_x_y": ("FLOAT", 1.0)},
         kernel=_yolov3_loss, infer_meta=_yolov3_loss_meta, differentiable=("X",))
grad_op("yolov3_loss", ["X", "GTBox", "GTLabel", "GTScore", "Loss@GRAD"], ["X@GRAD"], _yolov3_loss_grad)
