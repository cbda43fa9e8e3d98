"""paddle.vision.ops functions for regions and boxes: roi_align / roi_pool / psroi_pool (and their layers),
box_coder, prior_box, yolo_box, yolo_loss and nms, each lowering to the Paddle op of the same role."""
from __future__ import annotations

import numpy as np

from ..api._helpers import is_var
from ..dispatch import run_op
from ..nn.layer.layers import Layer

__all__ = ["roi_align", "RoIAlign", "roi_pool", "RoIPool", "psroi_pool", "PSRoIPool", "box_coder", "prior_box",
           "yolo_box", "yolo_loss", "nms"]


def _dtype_name(x):
    return str(np.dtype(x.dtype.np if hasattr(x.dtype, "np") else x.dtype)) if hasattr(x, "dtype") else type(x).__name__


def _check_dtype(fn, name, x, allowed):
    if not is_var(x):
        raise TypeError(f"{fn}: {name} must be a Tensor, got {type(x).__name__}")
    if _dtype_name(x) not in allowed:
        raise TypeError(f"{fn}: the data type of {name} must be one of {list(allowed)}, got {_dtype_name(x)}")


def _pooled(fn, output_size):
    if isinstance(output_size, bool) or not isinstance(output_size, (int, tuple, list)):
        raise TypeError(f"{fn}: output_size must be an int or a tuple of two ints, got {output_size!r}")
    if isinstance(output_size, int):
        return output_size, output_size
    if len(output_size) != 2:
        raise ValueError(f"{fn}: output_size must be an int or a tuple of two ints, got {output_size!r}")
    return int(output_size[0]), int(output_size[1])


def _boxes_num(fn, boxes_num):
    if boxes_num is None:
        from ..framework import in_dynamic_mode
        if in_dynamic_mode():   # Paddle asserts this
            raise AssertionError(f"{fn}: boxes_num should not be None in dygraph mode; pass the number of boxes of "
                                 "each image as an int32 Tensor")
    return boxes_num


def roi_align(x, boxes, boxes_num, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=True, name=None):
    """RoI Align (Mask R-CNN): average of bilinear samples in each of the output_size bins of every box."""
    fn = "roi_align"
    ph, pw = _pooled(fn, output_size)
    _check_dtype(fn, "x", x, ("float32", "float64"))
    _check_dtype(fn, "boxes", boxes, ("float32", "float64"))
    return run_op("roi_align", x, boxes, _boxes_num(fn, boxes_num), pooled_height=ph, pooled_width=pw,
                  spatial_scale=float(spatial_scale), sampling_ratio=int(sampling_ratio), aligned=bool(aligned))


def roi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """RoI pooling: the maximum of each of the output_size bins of every (rounded) box."""
    fn = "roi_pool"
    ph, pw = _pooled(fn, output_size)
    _check_dtype(fn, "x", x, ("float32", "float64"))
    _check_dtype(fn, "boxes", boxes, ("float32", "float64"))
    return run_op("roi_pool", x, boxes, _boxes_num(fn, boxes_num), pooled_height=ph, pooled_width=pw,
                  spatial_scale=float(spatial_scale))


def psroi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """Position-sensitive RoI pooling (R-FCN): bin (i, j) of output channel c averages input channel
    (c * ph + i) * pw + j, so x must have output_channels * ph * pw channels."""
    fn = "psroi_pool"
    ph, pw = _pooled(fn, output_size)
    _check_dtype(fn, "x", x, ("float32", "float64"))
    _check_dtype(fn, "boxes", boxes, ("float32", "float64"))
    if len(x.shape) != 4:
        raise AssertionError(f"{fn}: input features with shape should be (N, C, H, W), got {list(x.shape)}")
    if ph * pw == 0:
        raise ValueError(f"{fn}: output_size should not contain 0, got {output_size!r}")
    channels = x.shape[1]
    if channels >= 0 and channels % (ph * pw) != 0:
        raise ValueError(f"{fn}: the channel of input x ({channels}) must be divisible by "
                         f"output_size[0] * output_size[1] = {ph * pw}")
    return run_op("psroi_pool", x, boxes, boxes_num, pooled_height=ph, pooled_width=pw,
                  output_channels=channels // (ph * pw), spatial_scale=float(spatial_scale))


class RoIAlign(Layer):
    """Layer form of `roi_align`; ``aligned`` is chosen per call, as in Paddle."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale, aligned=aligned)


class RoIPool(Layer):
    """Layer form of `roi_pool`."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)

    def extra_repr(self):
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"


class PSRoIPool(Layer):
    """Layer form of `psroi_pool`."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self.output_size, self.spatial_scale)


def box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size", box_normalized=True, axis=0,
              name=None):
    """Encode target boxes against prior boxes ([N, M, 4] offsets) or decode offsets back to boxes.

    ``prior_box_var`` is a Tensor (PriorBoxVar, one variance row per prior) or a list of 4 floats."""
    fn = "box_coder"
    _check_dtype(fn, "prior_box", prior_box, ("float32", "float64"))
    _check_dtype(fn, "target_box", target_box, ("float32", "float64"))
    if code_type not in ("encode_center_size", "decode_center_size"):
        raise ValueError(f"{fn}: code_type must be 'encode_center_size' or 'decode_center_size', got {code_type!r}")
    if is_var(prior_box_var):
        return run_op("box_coder", prior_box, prior_box_var, target_box, code_type=code_type,
                      box_normalized=bool(box_normalized), axis=int(axis), variance=[])
    if isinstance(prior_box_var, (list, tuple)):
        if len(prior_box_var) != 4:
            raise AssertionError("Input prior_box_var must be Variable or list|tuple with 4 elements.")
        return run_op("box_coder", prior_box, None, target_box, code_type=code_type,
                      box_normalized=bool(box_normalized), axis=int(axis),
                      variance=[float(v) for v in prior_box_var])
    raise TypeError("Input prior_box_var must be Variable or list|tuple")


def _floats(v):
    if isinstance(v, (int, float, np.number)):
        return [float(v)]
    return [float(a) for a in v]


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=[1.0], variance=[0.1, 0.1, 0.2, 0.2],
              flip=False, clip=False, steps=[0.0, 0.0], offset=0.5, min_max_aspect_ratios_order=False, name=None):
    """SSD prior (anchor) boxes for every location of ``input``'s feature map, normalised by ``image``'s size.

    Returns (boxes [H, W, num_priors, 4], variances of the same shape)."""
    fn = "prior_box"
    _check_dtype(fn, "input", input, ("uint8", "int8", "float32", "float64"))
    min_sizes = _floats(min_sizes)
    max_sizes = [] if max_sizes is None else _floats(max_sizes)
    if max_sizes and len(max_sizes) != len(min_sizes):
        raise ValueError(f"{fn}: max_sizes must have as many entries as min_sizes ({len(min_sizes)}), "
                         f"got {len(max_sizes)}")
    if not isinstance(steps, (list, tuple)) or len(steps) != 2:
        raise ValueError(f"{fn}: steps should be (step_w, step_h), got {steps!r}")
    boxes, var = run_op("prior_box", input, image, min_sizes=min_sizes, max_sizes=max_sizes,
                        aspect_ratios=_floats(aspect_ratios), variances=_floats(variance), flip=bool(flip),
                        clip=bool(clip), step_w=float(steps[0]), step_h=float(steps[1]), offset=float(offset),
                        min_max_aspect_ratios_order=bool(min_max_aspect_ratios_order))
    boxes.stop_gradient = True
    var.stop_gradient = True
    return boxes, var


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True, name=None,
             scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    """Decode a YOLOv3 head [N, an * (5 + class_num), H, W] into boxes [N, an*H*W, 4] and
    scores [N, an*H*W, class_num]; boxes below ``conf_thresh`` are zero."""
    fn = "yolo_box"
    _check_dtype(fn, "x", x, ("float32", "float64"))
    _check_dtype(fn, "img_size", img_size, ("int32",))
    if not isinstance(anchors, (list, tuple)):
        raise TypeError(f"{fn}: anchors must be a list or tuple of ints, got {type(anchors).__name__}")
    return run_op("yolo_box", x, img_size, anchors=[int(a) for a in anchors], class_num=int(class_num),
                  conf_thresh=float(conf_thresh), downsample_ratio=int(downsample_ratio), clip_bbox=bool(clip_bbox),
                  scale_x_y=float(scale_x_y), iou_aware=bool(iou_aware), iou_aware_factor=float(iou_aware_factor))


def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh, downsample_ratio, gt_score=None,
              use_label_smooth=True, name=None, scale_x_y=1.0):
    """The YOLOv3 loss of head ``x`` [N, len(anchor_mask) * (5 + class_num), H, W] against ground-truth
    boxes [N, B, 4] (centre x, y, width, height, relative to the image) and labels [N, B]: one value per image."""
    fn = "yolo_loss"
    _check_dtype(fn, "x", x, ("float32", "float64"))
    _check_dtype(fn, "gt_box", gt_box, ("float32", "float64"))
    if _dtype_name(gt_label) != "int32":      # Paddle's kernel rejects it with a ValueError
        raise ValueError(f"{fn}: gt_label must be an int32 tensor, got {_dtype_name(gt_label)}")
    for arg, value in (("anchors", anchors), ("anchor_mask", anchor_mask)):
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"{fn}: {arg} must be a list or tuple of ints, got {type(value).__name__}")
    return run_op("yolov3_loss", x, gt_box, gt_label, gt_score, anchors=[int(a) for a in anchors],
                  anchor_mask=[int(a) for a in anchor_mask], class_num=int(class_num),
                  ignore_thresh=float(ignore_thresh), downsample_ratio=int(downsample_ratio),
                  use_label_smooth=bool(use_label_smooth), scale_x_y=float(scale_x_y))


def _nms_op(boxes, iou_threshold):
    return run_op("nms", boxes, iou_threshold=float(iou_threshold))


def nms(boxes, iou_threshold=0.3, scores=None, category_idxs=None, categories=None, top_k=None):
    """Greedy non-maximum suppression: the indices (int64) of the boxes kept.

    Without scores boxes are taken in the given order; with scores, by descending score; with
    category_idxs, separately per category of ``categories`` and the kept boxes then sorted by
    score (the first ``top_k`` of them)."""
    import runtime as paddle
    if scores is None:
        return _nms_op(boxes, iou_threshold)
    if category_idxs is None:
        order = paddle.argsort(scores, descending=True)
        return order[_nms_op(boxes[order], iou_threshold)]
    if top_k is not None and top_k > scores.shape[0]:
        raise AssertionError("top_k should be smaller equal than the number of boxes")
    if categories is None:
        raise AssertionError("if category_idxs is given, categories which is a list of unique id of all "
                             "categories is necessary")
    kept = []
    for cat in categories:
        idxs = paddle.nonzero(paddle.equal(category_idxs, paddle.full([], cat, category_idxs.dtype))).reshape([-1])
        if idxs.shape[0] == 0:
            continue
        if idxs.shape[0] == 1:
            kept.append(idxs)
            continue
        order = paddle.argsort(scores[idxs], descending=True)
        kept.append(idxs[order[_nms_op(boxes[idxs][order], iou_threshold)]])
    if not kept:
        return paddle.zeros([0], dtype="int64")
    keep = paddle.sort(paddle.concat(kept))     # Paddle collects a mask, so the kept indices come in index order
    sorted_sub = paddle.argsort(scores[keep], descending=True)
    if top_k is None:
        return keep[sorted_sub]
    if not paddle.in_dynamic_mode():          # the kept count is unknown while building a Program
        return keep[sorted_sub][:top_k]
    _, top = paddle.topk(scores[keep], min(top_k, keep.shape[0]))
    return keep[top]
