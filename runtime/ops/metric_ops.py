"""The ``auc`` metric op (paddle.static.auc): ROC AUC from bucketed positive/negative counts.

Predictions are binned into ``num_thresholds + 1`` buckets (the last column of ``Predict`` is the
positive probability). With ``slide_steps == 0`` the counts accumulate over every run; otherwise
``StatPos``/``StatNeg`` hold ``slide_steps`` rings of per-batch counts, their running sum and a step
counter, and the AUC covers the last ``slide_steps`` batches. The area is the trapezoid sum over the
buckets from the highest threshold down, as Paddle's kernel computes it (float64).
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, register


def _bins(predict, label, num_thresholds):
    p = np.asarray(predict)
    p = p.reshape(p.shape[0], -1)[:, -1]
    if p.size and (p.max() > 1 or p.min() < 0):
        raise ValueError("auc: the predicted probabilities must be in [0, 1] (the last column of Predict is the "
                         f"positive class), got values in [{p.min()}, {p.max()}]")
    idx = (p * p.dtype.type(num_thresholds)).astype(np.uint32).astype(np.int64)
    lab = np.asarray(label).reshape(-1)
    n = num_thresholds + 1
    pos = np.bincount(idx[lab > 0], minlength=n)[:n].astype(np.int64)
    neg = np.bincount(idx[lab == 0], minlength=n)[:n].astype(np.int64)
    return pos, neg


def _area(pos, neg):
    auc = 0.0
    tot_pos = tot_neg = 0.0
    for i in range(len(pos) - 1, -1, -1):
        prev_pos, prev_neg = tot_pos, tot_neg
        tot_pos += float(pos[i])
        tot_neg += float(neg[i])
        auc += abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0
    if tot_pos > 0.0 and tot_neg > 0.0:
        auc = auc / tot_pos / tot_neg
    return auc


def _auc(predict, label, stat_pos, stat_neg, ins_tag_weight, curve="ROC", num_thresholds=8191, slide_steps=1,
         **_):
    n = num_thresholds + 1
    sp = np.array(stat_pos, dtype=np.int64).reshape(-1)
    sn = np.array(stat_neg, dtype=np.int64).reshape(-1)
    fake = ins_tag_weight is not None and float(np.asarray(ins_tag_weight).reshape(-1)[0]) == 0.0
    need = (1 + slide_steps) * n + (1 if slide_steps > 0 else 0)
    if sp.size < need or sn.size < need:
        raise ValueError(f"auc: StatPos/StatNeg need {need} counts for num_thresholds={num_thresholds}, "
                         f"slide_steps={slide_steps}; got {sp.size} and {sn.size}")
    shape_pos, shape_neg = np.shape(stat_pos), np.shape(stat_neg)
    if slide_steps == 0:
        if not fake:
            pos, neg = _bins(predict, label, num_thresholds)
            sp[:n] += pos
            sn[:n] += neg
        value = _area(sp[:n], sn[:n])
    else:
        cur = int(sp[(slide_steps + 1) * n]) % slide_steps
        cb, sb = cur * n, slide_steps * n
        sp[sb:sb + n] -= sp[cb:cb + n]
        sn[sb:sb + n] -= sn[cb:cb + n]
        pos, neg = _bins(predict, label, num_thresholds)
        sp[cb:cb + n] = pos
        sn[cb:cb + n] = neg
        if not fake:
            sp[sb:sb + n] += pos
            sn[sb:sb + n] += neg
        value = _area(sp[sb:sb + n], sn[sb:sb + n])
        sp[(slide_steps + 1) * n] += 1
        sn[(slide_steps + 1) * n] += 1
    return np.asarray(value, dtype=np.float64), sp.reshape(shape_pos), sn.reshape(shape_neg)


def _auc_meta(predict, label, stat_pos, stat_neg, ins_tag_weight, **_):
    return (Meta((), np.dtype(np.float64)), Meta(tuple(stat_pos.shape), np.dtype(np.int64)),
            Meta(tuple(stat_neg.shape), np.dtype(np.int64)))


register("auc", ["Predict", "Label", "StatPos", "StatNeg", "InsTagWeight?"], ["AUC", "StatPosOut", "StatNegOut"],
         {"curve": ("STRING", "ROC"), "num_thresholds": ("INT", 8191), "slide_steps": ("INT", 1)},
         kernel=_auc, infer_meta=_auc_meta, differentiable=(),
         inplace={"StatPosOut": "StatPos", "StatNegOut": "StatNeg"})
