"""paddle.vision.ops functions for detection post-processing and image files: matrix_nms,
generate_proposals, distribute_fpn_proposals, read_file and decode_jpeg."""
from __future__ import annotations

from ..dispatch import run_op
from ..framework import in_dynamic_mode
from .ops_roi_box import _check_dtype

__all__ = ["matrix_nms", "generate_proposals", "distribute_fpn_proposals", "read_file", "decode_jpeg"]


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k, use_gaussian=False,
               gaussian_sigma=2.0, background_label=0, normalized=True, return_index=False, return_rois_num=True,
               name=None):
    """Matrix NMS (SOLOv2): decay every box's score by its overlaps with higher-scored boxes of its class.

    Returns (out [K, 6] rows of (label, score, x1, y1, x2, y2), rois_num per image or None,
    index into the flattened boxes or None)."""
    fn = "matrix_nms"
    _check_dtype(fn, "BBoxes", bboxes, ("float32", "float64"))
    _check_dtype(fn, "Scores", scores, ("float32", "float64"))
    out, index, rois_num = run_op("matrix_nms", bboxes, scores, score_threshold=float(score_threshold),
                                  nms_top_k=int(nms_top_k), keep_top_k=int(keep_top_k),
                                  post_threshold=float(post_threshold), use_gaussian=bool(use_gaussian),
                                  gaussian_sigma=float(gaussian_sigma), background_label=int(background_label),
                                  normalized=bool(normalized))
    out.stop_gradient = True
    return out, (rois_num if return_rois_num else None), (index if return_index else None)


def generate_proposals(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n=6000, post_nms_top_n=1000,
                       nms_thresh=0.5, min_size=0.1, eta=1.0, pixel_offset=False, return_rois_num=False, name=None):
    """RPN proposals: decode anchors by the deltas, clip to the image, drop small boxes, NMS per image.

    Returns (rpn_rois [R, 4], rpn_roi_probs [R, 1], rpn_rois_num per image or None)."""
    if in_dynamic_mode() and not return_rois_num:
        raise AssertionError("return_rois_num should be True in dygraph mode.")
    rois, probs, num = run_op("generate_proposals_v2", scores, bbox_deltas, img_size, anchors, variances,
                              pre_nms_topN=int(pre_nms_top_n), post_nms_topN=int(post_nms_top_n),
                              nms_thresh=float(nms_thresh), min_size=float(min_size), eta=float(eta),
                              pixel_offset=bool(pixel_offset))
    for t in (rois, probs, num):
        t.stop_gradient = True
    return rois, probs, (num if return_rois_num else None)


def distribute_fpn_proposals(fpn_rois, min_level, max_level, refer_level, refer_scale, pixel_offset=False,
                             rois_num=None, name=None):
    """Assign each RoI to FPN level floor(refer_level + log2(sqrt(area) / refer_scale)), clipped to
    [min_level, max_level]. Returns (rois per level, restore_index, rois_num per level or None)."""
    num_lvl = max_level - min_level + 1
    if num_lvl <= 1:
        raise AssertionError("max_level should be greater than min_level")
    if num_lvl >= 100:
        raise AssertionError("Only support max to 100 levels, (max_level - min_level + 1 < 100)")
    if in_dynamic_mode() and rois_num is None:
        raise AssertionError("rois_num should not be None in dygraph mode.")
    _check_dtype("distribute_fpn_proposals", "fpn_rois", fpn_rois, ("float32", "float64"))
    multi, restore, nums = run_op("distribute_fpn_proposals", fpn_rois, rois_num, min_level=int(min_level),
                                  max_level=int(max_level), refer_level=int(refer_level),
                                  refer_scale=int(refer_scale), pixel_offset=bool(pixel_offset))
    return multi, restore, nums


def read_file(filename, name=None):
    """The bytes of file ``filename`` as a 1-D uint8 tensor."""
    if not isinstance(filename, str):
        raise TypeError(f"read_file: filename must be a str, got {type(filename).__name__}")
    return run_op("read_file", filename=filename)


def decode_jpeg(x, mode="unchanged", name=None):
    """Decode JPEG bytes (a 1-D uint8 tensor) into a [C, H, W] uint8 image; ``mode`` 'gray' gives one
    channel, 'rgb' three, 'unchanged' what the file holds. Decodes with Pillow on the CPU (Paddle decodes
    on GPU only)."""
    if mode not in ("unchanged", "gray", "rgb"):
        raise ValueError(f"decode_jpeg: mode must be one of ['unchanged', 'gray', 'rgb'], got {mode!r}")
    return run_op("decode_jpeg", x, mode=mode)
