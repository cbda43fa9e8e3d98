"""Table rows for the box ops of paddle.vision.ops: box_coder, prior_box, yolo_box, nms, matrix_nms,
generate_proposals_v2, distribute_fpn_proposals, yolov3_loss, read_file and decode_jpeg. References are
element-by-element loops written from Paddle's kernel description, in float64 (decode_jpeg: Pillow)."""
import io
import math
import pathlib

import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(977)


def f32(v):
    return float(np.float32(v))


def sigmoid(v):
    return 1.0 / (1.0 + math.exp(-v))


def box_coder_ref(PriorBox, TargetBox, PriorBoxVar=None, code_type="encode_center_size", box_normalized=True,
                  axis=0, variance=(), **_):
    one = 0.0 if box_normalized else 1.0

    def var_of(j):
        if PriorBoxVar is not None:
            return PriorBoxVar[j]
        return [f32(v) for v in variance] if len(variance) else [1.0] * 4

    def center(b):
        w, h = b[2] - b[0] + one, b[3] - b[1] + one
        return b[0] + w / 2, b[1] + h / 2, w, h

    if code_type == "encode_center_size":
        out = np.zeros((len(TargetBox), len(PriorBox), 4))
        for i, t in enumerate(TargetBox):
            tw, th = t[2] - t[0] + one, t[3] - t[1] + one
            tcx, tcy = (t[0] + t[2]) / 2, (t[1] + t[3]) / 2
            for j, p in enumerate(PriorBox):
                pcx, pcy, pw, ph = center(p)
                v = var_of(j) if (PriorBoxVar is not None or len(variance)) else [1.0] * 4
                out[i, j] = [(tcx - pcx) / pw / v[0], (tcy - pcy) / ph / v[1], math.log(abs(tw / pw)) / v[2],
                             math.log(abs(th / ph)) / v[3]]
        return out
    out = np.zeros(TargetBox.shape)
    for i in range(TargetBox.shape[0]):
        for j in range(TargetBox.shape[1]):
            k = j if axis == 0 else i
            pcx, pcy, pw, ph = center(PriorBox[k])
            v, t = var_of(k), TargetBox[i, j]
            cx, cy = v[0] * t[0] * pw + pcx, v[1] * t[1] * ph + pcy
            w, h = math.exp(v[2] * t[2]) * pw, math.exp(v[3] * t[3]) * ph
            out[i, j] = [cx - w / 2, cy - h / 2, cx + w / 2 - one, cy + h / 2 - one]
    return out


def prior_box_ref(Input, Image, min_sizes=(), max_sizes=(), aspect_ratios=(), variances=(), flip=True, clip=True,
                  step_w=0.0, step_h=0.0, offset=0.5, min_max_aspect_ratios_order=False, **_):
    ars = [1.0]
    for a in aspect_ratios:
        if all(abs(a - o) >= 1e-6 for o in ars):
            ars.append(a)
            if flip:
                ars.append(1.0 / a)
    fh, fw = Input.shape[2:]
    ih, iw = Image.shape[2:]
    sw, sh = (iw / fw, ih / fh) if step_w == 0 or step_h == 0 else (step_w, step_h)
    boxes = []
    for y in range(fh):
        for x in range(fw):
            cx, cy = (x + offset) * sw, (y + offset) * sh
            cell = []
            for s, mn in enumerate(min_sizes):
                sq = [math.sqrt(mn * max_sizes[s]) / 2] * 2 if max_sizes else None
                ratio = [(mn * math.sqrt(a) / 2, mn / math.sqrt(a) / 2) for a in ars]
                if min_max_aspect_ratios_order:
                    cell += [(mn / 2, mn / 2)] + ([sq] if sq else []) + \
                        [r for a, r in zip(ars, ratio) if abs(a - 1) >= 1e-6]
                else:
                    cell += ratio + ([sq] if sq else [])
            boxes.append([[(cx - bw) / iw, (cy - bh) / ih, (cx + bw) / iw, (cy + bh) / ih] for bw, bh in cell])
    out = np.asarray(boxes).reshape(fh, fw, -1, 4)
    if clip:
        out = np.clip(out, 0, 1)
    return out, np.broadcast_to(np.asarray(variances), out.shape[:3] + (len(variances),))


def yolo_box_ref(X, ImgSize, anchors=(), class_num=1, conf_thresh=0.01, downsample_ratio=32, clip_bbox=True,
                 scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5, **_):
    n, _, h, w = X.shape
    an = len(anchors) // 2
    boxes = np.zeros((n, an * h * w, 4))
    scores = np.zeros((n, an * h * w, class_num))
    bias = -0.5 * (scale_x_y - 1)
    for b in range(n):
        img_h, img_w = ImgSize[b]
        for a in range(an):
            base = an + a * (5 + class_num) if iou_aware else a * (5 + class_num)
            for y in range(h):
                for x in range(w):
                    conf = sigmoid(X[b, base + 4, y, x])
                    if iou_aware:
                        conf = conf ** (1 - iou_aware_factor) * sigmoid(X[b, a, y, x]) ** iou_aware_factor
                    if conf < conf_thresh:
                        continue
                    cx = (x + sigmoid(X[b, base, y, x]) * scale_x_y + bias) * img_w / w
                    cy = (y + sigmoid(X[b, base + 1, y, x]) * scale_x_y + bias) * img_h / h
                    bw = math.exp(X[b, base + 2, y, x]) * anchors[2 * a] * img_w / (downsample_ratio * w)
                    bh = math.exp(X[b, base + 3, y, x]) * anchors[2 * a + 1] * img_h / (downsample_ratio * h)
                    box = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
                    if clip_bbox:
                        box = [max(box[0], 0), max(box[1], 0), min(box[2], img_w - 1), min(box[3], img_h - 1)]
                    k = a * h * w + y * w + x
                    boxes[b, k] = box
                    scores[b, k] = [conf * sigmoid(X[b, base + 5 + c, y, x]) for c in range(class_num)]
    return boxes, scores


def iou(a, b, normalized=True):
    """Paddle's JaccardOverlap."""
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    one = 0.0 if normalized else 1.0

    def area(bx):
        return 0.0 if bx[2] < bx[0] or bx[3] < bx[1] else (bx[2] - bx[0] + one) * (bx[3] - bx[1] + one)
    inter = (min(a[2], b[2]) - max(a[0], b[0]) + one) * (min(a[3], b[3]) - max(a[1], b[1]) + one)
    return inter / (area(a) + area(b) - inter)


def nms_ref(Boxes, iou_threshold=1.0, **_):
    kept, dropped = [], set()
    for i in range(len(Boxes)):
        if i in dropped:
            continue
        kept.append(i)
        for j in range(i + 1, len(Boxes)):
            if j not in dropped and iou(Boxes[i], Boxes[j]) > f32(iou_threshold):
                dropped.add(j)
    return np.array(kept, dtype=np.int64)


def matrix_nms_ref(BBoxes, Scores, score_threshold=0.0, nms_top_k=-1, keep_top_k=-1, post_threshold=0.0,
                   use_gaussian=False, gaussian_sigma=2.0, background_label=0, normalized=True, **_):
    out, index, nums = [], [], []
    for b in range(BBoxes.shape[0]):
        dets = []
        for c in range(Scores.shape[1]):
            if c == background_label:
                continue
            s = Scores[b, c]
            cand = sorted((i for i in range(len(s)) if s[i] > score_threshold), key=lambda i: -s[i])
            if nms_top_k > -1:
                cand = cand[:nms_top_k]
            ious = [[iou(BBoxes[b, cand[i]], BBoxes[b, cand[j]], normalized) for j in range(i)]
                    for i in range(len(cand))]
            max_iou = [max(row, default=0.0) for row in ious]
            for i, idx in enumerate(cand):
                decay = 1.0
                for j in range(i):
                    if use_gaussian:
                        d = math.exp((max_iou[j] ** 2 - ious[i][j] ** 2) * gaussian_sigma)
                    else:
                        d = (1 - ious[i][j]) / (1 - max_iou[j])
                    decay = min(decay, d)
                ds = decay * s[idx]
                if ds > post_threshold:
                    dets.append((ds, c, idx))
        dets.sort(key=lambda d: -d[0])
        if keep_top_k > -1:
            dets = dets[:keep_top_k]
        for ds, c, idx in dets:
            out.append([c, ds, *BBoxes[b, idx]])
            index.append(b * BBoxes.shape[1] + idx)
        nums.append(len(dets))
    return (np.array(out).reshape(-1, 6), np.array(index, np.int32).reshape(-1, 1), np.array(nums, np.int32))


def generate_proposals_ref(Scores, BboxDeltas, ImShape, Anchors, Variances, pre_nms_topN=6000, post_nms_topN=1000,
                           nms_thresh=0.5, min_size=0.1, eta=1.0, pixel_offset=True, **_):
    off = 1.0 if pixel_offset else 0.0
    clip = math.log(1000.0 / 16.0)
    anchors, var = Anchors.reshape(-1, 4), Variances.reshape(-1, 4)
    rois, probs, nums = [], [], []
    for b in range(Scores.shape[0]):
        sc = Scores[b].transpose(1, 2, 0).reshape(-1)
        dl = BboxDeltas[b].transpose(1, 2, 0).reshape(-1, 4)
        order = sorted(range(len(sc)), key=lambda i: -sc[i])
        if 0 < pre_nms_topN < len(sc):
            order = order[:pre_nms_topN]
        props = []
        im_h, im_w = ImShape[b]
        for i in order:
            a, v, d = anchors[i], var[i], dl[i]
            aw, ah = a[2] - a[0] + off, a[3] - a[1] + off
            cx, cy = v[0] * d[0] * aw + a[0] + aw / 2, v[1] * d[1] * ah + a[1] + ah / 2
            w, h = math.exp(min(v[2] * d[2], clip)) * aw, math.exp(min(v[3] * d[3], clip)) * ah
            box = [cx - w / 2, cy - h / 2, cx + w / 2 - off, cy + h / 2 - off]
            box = [max(min(box[k], (im_w if k % 2 == 0 else im_h) - off), 0) for k in range(4)]
            ws, hs = box[2] - box[0] + off, box[3] - box[1] + off
            ok = ws >= max(min_size, 1) and hs >= max(min_size, 1)
            if pixel_offset:
                ok = ok and box[0] + ws / 2 <= im_w and box[1] + hs / 2 <= im_h
            if ok:
                props.append((sc[i], box))
        kept = []
        thresh = nms_thresh
        for s, box in sorted(props, key=lambda p: -p[0]):
            if all(iou(box, k[1], not pixel_offset) <= thresh for k in kept):
                kept.append((s, box))
                if eta < 1 and thresh > 0.5:
                    thresh *= eta
        kept = kept[:post_nms_topN] if post_nms_topN > 0 else kept
        rois += [k[1] for k in kept]
        probs += [[k[0]] for k in kept]
        nums.append(len(kept))
    return np.array(rois).reshape(-1, 4), np.array(probs).reshape(-1, 1), np.array(nums, np.int32)


def distribute_fpn_ref(FpnRois, RoisNum=None, min_level=2, max_level=5, refer_level=4, refer_scale=224,
                       pixel_offset=True, **_):
    off = 1.0 if pixel_offset else 0.0
    levels = []
    for r in FpnRois:
        w, h = r[2] - r[0], r[3] - r[1]
        area = 0.0 if w < 0 or h < 0 else (w + off) * (h + off)
        lvl = math.floor(math.log2(math.sqrt(area) / refer_scale + 1e-6) + refer_level)
        levels.append(min(max(lvl, min_level), max_level))
    image = np.repeat(np.arange(len(RoisNum)), RoisNum)
    multi, nums, order = [], [], []
    for lvl in range(min_level, max_level + 1):
        idx = [i for i in range(len(FpnRois)) if levels[i] == lvl]
        order += idx
        multi.append(FpnRois[idx].reshape(-1, 4))
        nums.append(np.array([sum(image[i] == b for i in idx) for b in range(len(RoisNum))], np.int32))
    restore = np.zeros((len(FpnRois), 1), np.int32)
    for pos, i in enumerate(order):
        restore[i] = pos
    return multi, restore, nums


def _sce(x, label):
    return max(x, 0) - x * label + math.log(1 + math.exp(-abs(x)))


def yolov3_loss_ref(X, GTBox, GTLabel, GTScore=None, anchors=(), anchor_mask=(), class_num=1, ignore_thresh=0.7,
                    downsample_ratio=32, use_label_smooth=True, scale_x_y=1.0, **_):
    n, _, h, w = X.shape
    p = X.reshape(n, len(anchor_mask), 5 + class_num, h, w)
    size = downsample_ratio * h
    bias = -0.5 * (scale_x_y - 1)
    smooth = min(1.0 / class_num, 1.0 / 40) if use_label_smooth else 0.0

    def cs_iou(b1, b2):
        iw = min(b1[0] + b1[2] / 2, b2[0] + b2[2] / 2) - max(b1[0] - b1[2] / 2, b2[0] - b2[2] / 2)
        ih = min(b1[1] + b1[3] / 2, b2[1] + b2[3] / 2) - max(b1[1] - b1[3] / 2, b2[1] - b2[3] / 2)
        inter = 0.0 if iw < 0 or ih < 0 else iw * ih
        return inter / (b1[2] * b1[3] + b2[2] * b2[3] - inter)

    loss = np.zeros(n)
    for b in range(n):
        valid = [t for t in range(GTBox.shape[1]) if GTBox[b, t, 2] >= 1e-6 and GTBox[b, t, 3] >= 1e-6]
        obj = np.zeros((len(anchor_mask), h, w))
        for m, a in enumerate(anchor_mask):
            for y in range(h):
                for x in range(w):
                    pred = [(x + sigmoid(p[b, m, 0, y, x]) * scale_x_y + bias) / h,
                            (y + sigmoid(p[b, m, 1, y, x]) * scale_x_y + bias) / h,
                            math.exp(p[b, m, 2, y, x]) * anchors[2 * a] / size,
                            math.exp(p[b, m, 3, y, x]) * anchors[2 * a + 1] / size]
                    if max([cs_iou(pred, GTBox[b, t]) for t in valid], default=0.0) > ignore_thresh:
                        obj[m, y, x] = -1
        for t in valid:
            gx, gy, gw, gh = GTBox[b, t]
            ious = [cs_iou([0, 0, anchors[2 * k] / size, anchors[2 * k + 1] / size], [0, 0, gw, gh])
                    for k in range(len(anchors) // 2)]
            best = int(np.argmax(ious))
            if best not in anchor_mask:
                continue
            m, gi, gj = list(anchor_mask).index(best), int(gx * w), int(gy * h)
            s = 1.0 if GTScore is None else GTScore[b, t]
            scale = (2 - gw * gh) * s
            c = p[b, m, :, gj, gi]
            loss[b] += (_sce(c[0], gx * w - gi) + _sce(c[1], gy * h - gj)
                        + abs(math.log(gw * size / anchors[2 * best]) - c[2])
                        + abs(math.log(gh * size / anchors[2 * best + 1]) - c[3])) * scale
            obj[m, gj, gi] = s
            for k in range(class_num):
                loss[b] += _sce(c[5 + k], 1 - smooth if k == GTLabel[b, t] else smooth) * s
        for m in range(len(anchor_mask)):
            for y in range(h):
                for x in range(w):
                    if obj[m, y, x] > 1e-5:
                        loss[b] += _sce(p[b, m, 4, y, x], 1.0) * obj[m, y, x]
                    elif obj[m, y, x] > -0.5:
                        loss[b] += _sce(p[b, m, 4, y, x], 0.0)
    return loss


def read_file_ref(filename="", **_):
    return np.frombuffer(pathlib.Path(filename).read_bytes(), np.uint8)


def decode_jpeg_ref(X, mode="unchanged", **_):
    from PIL import Image
    img = Image.open(io.BytesIO(X.tobytes()))
    img = img.convert({"gray": "L", "rgb": "RGB"}.get(mode, "L" if img.mode == "L" else "RGB"))
    arr = np.asarray(img)
    return arr[None] if arr.ndim == 2 else arr.transpose(2, 0, 1)


def _jpeg_bytes(mode):
    from PIL import Image
    buf = io.BytesIO()
    shape = (5, 6, 3) if mode == "RGB" else (5, 6)
    Image.fromarray(rng.integers(0, 256, shape, dtype=np.uint8), mode).save(buf, format="JPEG")
    return np.frombuffer(buf.getvalue(), np.uint8)


_BYTES_FILE = pathlib.Path(__file__)      # any existing file: read_file returns its bytes

PRIORS = np.array([[0.1, 0.1, 0.5, 0.6], [0.2, 0.3, 0.9, 0.8], [0.0, 0.4, 0.3, 0.9]])
PVAR = rng.uniform(0.1, 0.3, (3, 4))
TARGET = np.array([[0.15, 0.2, 0.45, 0.7], [0.3, 0.2, 0.8, 0.9]])
DELTAS = rng.uniform(-0.5, 0.5, (2, 3, 4))
YX = rng.uniform(-2, 2, (2, 2 * 7, 3, 4))
NB = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [0, 0, 10, 10], [20, 20, 30, 30], [21, 19, 29, 31], [5, 5, 15, 15]],
              np.float64)
NB_TIE = np.array([[0, 0, 10, 10], [0, 0, 10, 5], [0, 0, 5, 10], [0, 5, 10, 10]], np.float64)
MB = rng.uniform(0, 10, (2, 5, 4))
MB[..., 2:] = MB[..., :2] + rng.uniform(1, 6, (2, 5, 2))
GA = np.concatenate([rng.uniform(0, 20, (3, 4, 2, 2)), rng.uniform(25, 40, (3, 4, 2, 2))], axis=-1)
FR = np.array([[0, 0, 10, 10], [5, 5, 200, 180], [0, 0, 60, 50], [10, 20, 500, 400], [3, 3, 4, 4]], np.float64)
YL_X = rng.uniform(-1.5, 1.5, (2, 2 * 7, 4, 4))
YL_GT = np.array([[[0.3, 0.4, 0.25, 0.4], [0.7, 0.2, 0.1, 0.15], [0.1, 0.1, 0.0, 0.2]],
                  [[0.5, 0.5, 0.6, 0.7], [0.2, 0.8, 0.3, 0.2], [0.81, 0.33, 0.15, 0.4]]])
YL_ATTRS = {"anchors": [10, 13, 16, 30, 33, 23], "anchor_mask": [1, 2], "class_num": 2, "ignore_thresh": 0.5,
            "downsample_ratio": 8, "use_label_smooth": True, "scale_x_y": 1.1}

CASES = [
    OpCase("box_coder", {"PriorBox": PRIORS, "PriorBoxVar": PVAR, "TargetBox": TARGET}, box_coder_ref),
    OpCase("box_coder", {"PriorBox": PRIORS, "TargetBox": TARGET}, box_coder_ref, name="encode_list_pixels",
           attrs={"variance": [0.1, 0.1, 0.2, 0.2], "box_normalized": False}),
    OpCase("box_coder", {"PriorBox": PRIORS, "PriorBoxVar": PVAR, "TargetBox": DELTAS}, box_coder_ref,
           name="decode_axis0", attrs={"code_type": "decode_center_size"}),
    OpCase("box_coder", {"PriorBox": PRIORS[:2], "TargetBox": DELTAS}, box_coder_ref, name="decode_axis1_list",
           attrs={"code_type": "decode_center_size", "axis": 1, "variance": [0.2, 0.1, 0.3, 0.2],
                  "box_normalized": False}),
    OpCase("prior_box", {"Input": np.zeros((1, 2, 3, 4)), "Image": np.zeros((1, 3, 30, 36))}, prior_box_ref,
           attrs={"min_sizes": [4.0, 9.0], "max_sizes": [8.0, 12.0], "aspect_ratios": [2.0, 3.0],
                  "variances": [0.1, 0.1, 0.2, 0.2], "flip": True, "clip": True}),
    OpCase("prior_box", {"Input": np.zeros((1, 2, 2, 3)), "Image": np.zeros((1, 3, 20, 24))}, prior_box_ref,
           name="order_steps", attrs={"min_sizes": [5.0], "max_sizes": [10.0], "aspect_ratios": [2.0],
                                      "variances": [0.1, 0.2], "flip": False, "clip": False, "step_w": 8.0,
                                      "step_h": 6.0, "offset": 0.25, "min_max_aspect_ratios_order": True}),
    OpCase("yolo_box", {"X": YX, "ImgSize": np.array([[40, 50], [33, 61]], np.int32)}, yolo_box_ref,
           attrs={"anchors": [10, 13, 16, 30], "class_num": 2, "conf_thresh": 0.3, "downsample_ratio": 8,
                  "scale_x_y": 1.2}),
    OpCase("yolo_box", {"X": YX, "ImgSize": np.array([[40, 50], [33, 61]], np.int32)}, yolo_box_ref, name="iou_aware",
           attrs={"anchors": [10, 13, 16, 30], "class_num": 1, "conf_thresh": 0.2, "downsample_ratio": 8,
                  "clip_bbox": False, "iou_aware": True, "iou_aware_factor": 0.3}),
    OpCase("nms", {"Boxes": NB}, nms_ref, attrs={"iou_threshold": 0.5}),
    # IoU exactly at the threshold keeps the box (Paddle suppresses only IoU > threshold)
    OpCase("nms", {"Boxes": NB_TIE}, nms_ref, name="iou_equal_threshold", attrs={"iou_threshold": 0.5}),
    OpCase("nms", {"Boxes": NB_TIE.astype(np.float32)}, nms_ref, name="iou_above_threshold",
           attrs={"iou_threshold": 0.49}),
    OpCase("matrix_nms", {"BBoxes": MB, "Scores": rng.uniform(0, 1, (2, 3, 5))}, matrix_nms_ref,
           attrs={"score_threshold": 0.1, "post_threshold": 0.05}),
    OpCase("matrix_nms", {"BBoxes": MB, "Scores": rng.uniform(0, 1, (2, 3, 5))}, matrix_nms_ref,
           name="gaussian_topk", attrs={"score_threshold": 0.2, "post_threshold": 0.25, "nms_top_k": 3,
                                        "keep_top_k": 4, "use_gaussian": True, "gaussian_sigma": 0.5,
                                        "background_label": -1, "normalized": False}),
    OpCase("generate_proposals_v2", {"Scores": rng.uniform(0, 1, (2, 2, 3, 4)),
                                     "BboxDeltas": rng.uniform(-0.5, 0.5, (2, 8, 3, 4)),
                                     "ImShape": np.array([[30.0, 36.0], [28.0, 40.0]]), "Anchors": GA,
                                     "Variances": np.full((3, 4, 2, 4), 0.5)},
           generate_proposals_ref, attrs={"pre_nms_topN": 15, "post_nms_topN": 6, "nms_thresh": 0.6,
                                          "min_size": 2.0, "pixel_offset": False}),
    OpCase("generate_proposals_v2", {"Scores": rng.uniform(0, 1, (1, 2, 3, 4)),
                                     "BboxDeltas": rng.uniform(-0.5, 0.5, (1, 8, 3, 4)),
                                     "ImShape": np.array([[30.0, 36.0]]), "Anchors": GA,
                                     "Variances": np.ones((3, 4, 2, 4))},
           generate_proposals_ref, name="pixel_offset_eta", attrs={"nms_thresh": 0.8, "eta": 0.7}),
    OpCase("distribute_fpn_proposals", {"FpnRois": FR, "RoisNum": np.array([2, 3], np.int32)}, distribute_fpn_ref,
           attrs={"min_level": 2, "max_level": 5, "refer_level": 4, "refer_scale": 224, "pixel_offset": False}),
    OpCase("distribute_fpn_proposals", {"FpnRois": FR, "RoisNum": np.array([5], np.int32)}, distribute_fpn_ref,
           name="pixel_offset", attrs={"min_level": 1, "max_level": 3, "refer_level": 2, "refer_scale": 56}),
    OpCase("yolov3_loss", {"X": YL_X, "GTBox": YL_GT, "GTLabel": np.array([[0, 1, 1], [1, 0, 1]], np.int32),
                           "GTScore": rng.uniform(0.5, 1, (2, 3))}, yolov3_loss_ref, attrs=YL_ATTRS),
    OpCase("yolov3_loss", {"X": YL_X, "GTBox": YL_GT, "GTLabel": np.array([[0, 1, 1], [1, 0, 1]], np.int32)},
           yolov3_loss_ref, name="no_score_no_smooth", check_grad=False,
           attrs=dict(YL_ATTRS, use_label_smooth=False, anchor_mask=[0, 1], scale_x_y=1.0)),
    OpCase("read_file", {}, read_file_ref, attrs={"filename": str(_BYTES_FILE)}),
    OpCase("decode_jpeg", {"X": _jpeg_bytes("RGB")}, decode_jpeg_ref),
    OpCase("decode_jpeg", {"X": _jpeg_bytes("L")}, decode_jpeg_ref, name="gray_file_to_rgb", attrs={"mode": "rgb"}),
    OpCase("decode_jpeg", {"X": _jpeg_bytes("RGB")}, decode_jpeg_ref, name="gray", attrs={"mode": "gray"}),
]
