"""Detection post-processing ops: matrix_nms, generate_proposals_v2 (RPN proposals) and
distribute_fpn_proposals (RoIs to FPN levels). No gradients (Paddle has none).

Sorting follows Paddle's kernels where they are deterministic: matrix_nms and the proposal NMS sort by
descending score; equal scores keep index order in matrix_nms (Paddle's partial_sort leaves that
order unspecified) and come highest index first in the proposal NMS (Paddle pops the back of a
stable ascending sort).
"""
from __future__ import annotations

import math

import numpy as np

from .registry import Meta, register


def _f32(v):
    return float(np.float32(v))


def jaccard(boxes_a, boxes_b, normalized):
    """IoU of every box of ``boxes_a`` [K, 4] with every box of ``boxes_b`` [L, 4], as Paddle's
    JaccardOverlap: 0 for disjoint boxes, an invalid box has area 0, +1 pixel sizes unless normalized."""
    T = boxes_a.dtype.type
    norm = T(0 if normalized else 1)

    def area(b):
        w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
        valid = (w >= 0) & (h >= 0)
        return np.where(valid, (w + norm) * (h + norm), T(0))

    a, b = boxes_a[:, None, :], boxes_b[None, :, :]
    disjoint = (b[..., 0] > a[..., 2]) | (b[..., 2] < a[..., 0]) | (b[..., 1] > a[..., 3]) | (b[..., 3] < a[..., 1])
    iw = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]) + norm
    ih = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]) + norm
    inter = iw * ih
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area(boxes_a)[:, None] + area(boxes_b)[None, :] - inter)
    return np.where(disjoint, T(0), iou).astype(boxes_a.dtype)


# ---------------------------------------------------------------- matrix_nms


def _matrix_nms_class(boxes, scores, score_threshold, post_threshold, sigma, top_k, normalized, gaussian):
    """Kept (index, decayed score) pairs of one class, in descending score order."""
    T = boxes.dtype.type
    cand = np.nonzero(scores > T(score_threshold))[0]
    if cand.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, boxes.dtype)
    cand = cand[np.argsort(-scores[cand], kind="stable")]
    if top_k > -1:
        cand = cand[:top_k]
    s = scores[cand]
    iou = np.tril(jaccard(boxes[cand], boxes[cand], normalized), k=-1)      # iou[i, j] for j < i
    iou_max = iou.max(axis=1) if cand.size else iou
    if gaussian:
        decay = np.exp((iou_max[None, :] ** 2 - iou ** 2) * T(_f32(sigma)))
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            decay = (1.0 - iou.astype(np.float64)) / (1.0 - iou_max[None, :].astype(np.float64))
        decay = decay.astype(boxes.dtype)
    lower = np.tril(np.ones(iou.shape, bool), k=-1)
    min_decay = np.where(lower, decay, T(1)).min(axis=1) if cand.size else decay
    ds = (min_decay * s).astype(boxes.dtype)
    ds[0] = s[0]
    keep = ds > T(post_threshold)
    return cand[keep], ds[keep]


def _matrix_nms(bboxes, scores, score_threshold=0.0, nms_top_k=-1, keep_top_k=-1, post_threshold=0.0,
                use_gaussian=False, gaussian_sigma=2.0, background_label=0, normalized=True):
    op = "matrix_nms"
    if bboxes.ndim != 3 or scores.ndim != 3 or bboxes.shape[0] != scores.shape[0] or \
            bboxes.shape[1] != scores.shape[2]:
        raise ValueError(f"{op}: BBoxes must be [N, M, 4] and Scores [N, C, M], got {list(bboxes.shape)} and "
                         f"{list(scores.shape)}")
    T = bboxes.dtype.type
    score_threshold, post_threshold = T(_f32(score_threshold)), T(_f32(post_threshold))
    dets, index, per_image = [], [], []
    n, c, m = scores.shape
    for i in range(n):
        idx_all, sc_all, cls_all = [], [], []
        for k in range(c):
            if k == background_label:
                continue
            idx, ds = _matrix_nms_class(bboxes[i], scores[i, k].astype(bboxes.dtype), score_threshold,
                                        post_threshold, gaussian_sigma, nms_top_k, normalized, use_gaussian)
            idx_all.append(idx)
            sc_all.append(ds)
            cls_all.append(np.full(idx.size, k))
        idx_all = np.concatenate(idx_all) if idx_all else np.zeros(0, np.int64)
        sc_all = np.concatenate(sc_all) if sc_all else np.zeros(0, bboxes.dtype)
        cls_all = np.concatenate(cls_all) if cls_all else np.zeros(0, np.int64)
        order = np.argsort(-sc_all, kind="stable")
        if keep_top_k > -1:
            order = order[:keep_top_k]
        for p in order:
            dets.append(np.concatenate([[T(cls_all[p]), sc_all[p]], bboxes[i, idx_all[p]]]))
            index.append(i * m + idx_all[p])
        per_image.append(order.size)
    out = np.asarray(dets, dtype=bboxes.dtype).reshape(-1, bboxes.shape[2] + 2)
    return out, np.asarray(index, dtype=np.int32).reshape(-1, 1), np.asarray(per_image, dtype=np.int32)


def _matrix_nms_meta(bboxes, scores, **_):
    box_dim = bboxes.shape[2]
    return (Meta((-1, box_dim + 2 if box_dim >= 0 else -1), bboxes.dtype), Meta((-1, 1), np.dtype(np.int32)),
            Meta((bboxes.shape[0],), np.dtype(np.int32)))


register("matrix_nms", ["BBoxes", "Scores"], ["Out", "Index", "RoisNum?"],
         {"score_threshold": ("FLOAT", 0.0), "nms_top_k": ("INT", -1), "keep_top_k": ("INT", -1),
          "post_threshold": ("FLOAT", 0.0), "use_gaussian": ("BOOLEAN", False), "gaussian_sigma": ("FLOAT", 2.0),
          "background_label": ("INT", 0), "normalized": ("BOOLEAN", True)},
         kernel=_matrix_nms, infer_meta=_matrix_nms_meta)


# ---------------------------------------------------------------- generate_proposals_v2

_BBOX_CLIP = math.log(1000.0 / 16.0)


def _decode_anchors(anchors, deltas, variances, offset):
    T = anchors.dtype.type
    aw = anchors[:, 2] - anchors[:, 0] + offset
    ah = anchors[:, 3] - anchors[:, 1] + offset
    acx = anchors[:, 0] + T(0.5) * aw
    acy = anchors[:, 1] + T(0.5) * ah
    cx = variances[:, 0] * deltas[:, 0] * aw + acx
    cy = variances[:, 1] * deltas[:, 1] * ah + acy
    w = np.exp(np.minimum(variances[:, 2] * deltas[:, 2], T(_BBOX_CLIP))) * aw
    h = np.exp(np.minimum(variances[:, 3] * deltas[:, 3], T(_BBOX_CLIP))) * ah
    return np.stack([cx - w / T(2), cy - h / T(2), cx + w / T(2) - offset, cy + h / T(2) - offset], axis=1)


def _greedy_nms(boxes, scores, threshold, eta, normalized):
    """Paddle's NMS of nms_util.h: kept positions, highest score first (ties: highest index first)."""
    order = np.lexsort((-np.arange(scores.size), -scores))
    iou = jaccard(boxes, boxes, normalized)
    kept = []
    adaptive = boxes.dtype.type(threshold)
    for idx in order:
        if all(iou[idx, k] <= adaptive for k in kept):
            kept.append(idx)
            if eta < 1 and adaptive > 0.5:
                adaptive = adaptive * boxes.dtype.type(eta)
    return np.asarray(kept, dtype=np.int64)


def _proposals_one(im_shape, anchors, variances, deltas, scores, pre_n, post_n, nms_thresh, min_size, eta,
                   pixel_offset):
    T = anchors.dtype.type
    offset = T(1 if pixel_offset else 0)
    order = np.argsort(-scores, kind="stable")
    if 0 < pre_n < scores.size:
        order = order[:pre_n]
    props = _decode_anchors(anchors[order], deltas[order], variances[order], offset)
    im_h, im_w = im_shape[0], im_shape[1]
    props[:, 0::2] = np.maximum(np.minimum(props[:, 0::2], T(im_w) - offset), T(0))
    props[:, 1::2] = np.maximum(np.minimum(props[:, 1::2], T(im_h) - offset), T(0))
    sc = scores[order]
    ws = props[:, 2] - props[:, 0] + offset
    hs = props[:, 3] - props[:, 1] + offset
    min_size = max(_f32(min_size), 1.0)
    keep = (ws >= min_size) & (hs >= min_size)
    if pixel_offset:
        keep &= (props[:, 0] + ws / T(2) <= im_w) & (props[:, 1] + hs / T(2) <= im_h)
    if not keep.any():
        return np.zeros((1, 4), anchors.dtype), np.zeros((1, 1), anchors.dtype)
    props, sc = props[keep], sc[keep]
    if nms_thresh <= 0:
        return props, sc[:, None]
    kept = _greedy_nms(props, sc, T(_f32(nms_thresh)), _f32(eta), not pixel_offset)
    if 0 < post_n < kept.size:
        kept = kept[:post_n]
    return props[kept], sc[kept][:, None]


def _generate_proposals(scores, bbox_deltas, im_shape, anchors, variances, pre_nms_topN=6000, post_nms_topN=1000,
                        nms_thresh=0.5, min_size=0.1, eta=1.0, pixel_offset=True):
    op = "generate_proposals_v2"
    n, a, h, w = scores.shape
    if bbox_deltas.shape != (n, 4 * a, h, w):
        raise ValueError(f"{op}: BboxDeltas must have shape [N, 4A, H, W] = {[n, 4 * a, h, w]}, got "
                         f"{list(bbox_deltas.shape)}")
    if anchors.size != h * w * a * 4 or variances.size != anchors.size:
        raise ValueError(f"{op}: Anchors and Variances must hold H x W x A x 4 = {h * w * a * 4} values, got "
                         f"{anchors.size} and {variances.size}")
    dtype = scores.dtype
    anc = anchors.reshape(-1, 4).astype(dtype)
    var = variances.reshape(-1, 4).astype(dtype)
    deltas = bbox_deltas.transpose(0, 2, 3, 1).reshape(n, -1, 4)
    sc = scores.transpose(0, 2, 3, 1).reshape(n, -1)
    rois, probs, nums = [], [], []
    for i in range(n):
        r, p = _proposals_one(im_shape[i].astype(dtype), anc, var, deltas[i], sc[i], pre_nms_topN, post_nms_topN,
                              nms_thresh, min_size, eta, pixel_offset)
        rois.append(r)
        probs.append(p)
        nums.append(r.shape[0])
    return (np.concatenate(rois).astype(dtype), np.concatenate(probs).astype(dtype),
            np.asarray(nums, dtype=np.int32))


def _generate_proposals_meta(scores, bbox_deltas, im_shape, anchors, variances, **_):
    return (Meta((-1, 4), bbox_deltas.dtype), Meta((-1, 1), scores.dtype),
            Meta((scores.shape[0],), np.dtype(np.int32)))


register("generate_proposals_v2", ["Scores", "BboxDeltas", "ImShape", "Anchors", "Variances"],
         ["RpnRois", "RpnRoiProbs", "RpnRoisNum?"],
         {"pre_nms_topN": ("INT", 6000), "post_nms_topN": ("INT", 1000), "nms_thresh": ("FLOAT", 0.5),
          "min_size": ("FLOAT", 0.1), "eta": ("FLOAT", 1.0), "pixel_offset": ("BOOLEAN", True)},
         kernel=_generate_proposals, infer_meta=_generate_proposals_meta)


# ---------------------------------------------------------------- distribute_fpn_proposals


def _distribute_fpn(fpn_rois, rois_num=None, min_level=2, max_level=5, refer_level=4, refer_scale=224,
                    pixel_offset=True):
    op = "distribute_fpn_proposals"
    if fpn_rois.ndim != 2 or fpn_rois.shape[1] != 4:
        raise ValueError(f"{op}: FpnRois must have shape [R, 4], got {list(fpn_rois.shape)}")
    n_lvl = max_level - min_level + 1
    counts = np.asarray([fpn_rois.shape[0]] if rois_num is None else rois_num).reshape(-1).astype(np.int64)
    if counts.sum() != fpn_rois.shape[0]:
        raise ValueError(f"{op}: RoisNum {counts.tolist()} must add up to the number of rois {fpn_rois.shape[0]}")
    T = fpn_rois.dtype.type
    off = T(1 if pixel_offset else 0)
    w = fpn_rois[:, 2] - fpn_rois[:, 0]
    h = fpn_rois[:, 3] - fpn_rois[:, 1]
    area = np.where((w < 0) | (h < 0), T(0), (w + off) * (h + off))
    scale = np.sqrt(area)
    lvl = np.floor(np.log2(scale / T(refer_scale) + T(1e-6)) + T(refer_level)).astype(np.int64)
    lvl = np.clip(lvl, min_level, max_level) - min_level
    image = np.repeat(np.arange(counts.size), counts)
    # per level, rois in image order then input order
    order = np.lexsort((np.arange(lvl.size), image, lvl))
    restore = np.empty(lvl.size, dtype=np.int32)
    restore[order] = np.arange(lvl.size, dtype=np.int32)
    multi = [fpn_rois[order[lvl[order] == k]] for k in range(n_lvl)]
    level_nums = None
    if rois_num is not None:
        level_nums = [np.bincount(image[lvl == k], minlength=counts.size).astype(np.int32) for k in range(n_lvl)]
    return multi, restore.reshape(-1, 1), level_nums


def _distribute_fpn_meta(fpn_rois, rois_num=None, min_level=2, max_level=5, **_):
    n_lvl = max_level - min_level + 1
    multi = [Meta((-1, 4), fpn_rois.dtype) for _ in range(n_lvl)]
    nums = None if rois_num is None else [Meta((rois_num.shape[0],), np.dtype(np.int32)) for _ in range(n_lvl)]
    return multi, Meta((fpn_rois.shape[0], 1), np.dtype(np.int32)), nums


register("distribute_fpn_proposals", ["FpnRois", "RoisNum?"],
         ["MultiFpnRois[]", "RestoreIndex", "MultiLevelRoIsNum[]?"],
         {"min_level": ("INT", 2), "max_level": ("INT", 5), "refer_level": ("INT", 4), "refer_scale": ("INT", 224),
          "pixel_offset": ("BOOLEAN", True)},
         kernel=_distribute_fpn, infer_meta=_distribute_fpn_meta)
