"""Table rows for the ``auc`` metric op (not differentiable). The reference bins the predictions and
integrates the ROC curve with numpy (trapezoids over the cumulative counts)."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(23)
NT = 20
PRED = rng.uniform(0, 1, (12, 1)).astype(np.float32)
LABEL = rng.integers(0, 2, (12, 1)).astype(np.int64)


def _counts(pred, label):
    bins = (pred[:, -1] * np.float32(NT)).astype(np.int64)
    pos = np.bincount(bins[label[:, 0] > 0], minlength=NT + 1)
    neg = np.bincount(bins[label[:, 0] == 0], minlength=NT + 1)
    return pos, neg


def _area(pos, neg):
    tp = np.concatenate([[0], np.cumsum(pos[::-1])]).astype(float)
    fp = np.concatenate([[0], np.cumsum(neg[::-1])]).astype(float)
    area = np.sum((fp[1:] - fp[:-1]) * (tp[1:] + tp[:-1]) / 2)
    return area / tp[-1] / fp[-1] if tp[-1] and fp[-1] else area


def auc_global_ref(Predict, Label, StatPos, StatNeg, InsTagWeight=None, **_):
    pos, neg = _counts(Predict, Label)
    sp, sn = StatPos.copy(), StatNeg.copy()
    sp[0, :NT + 1] += pos
    sn[0, :NT + 1] += neg
    return np.asarray(_area(sp[0], sn[0])), sp, sn


def auc_window_ref(Predict, Label, StatPos, StatNeg, InsTagWeight=None, slide_steps=2, **_):
    n = NT + 1
    pos, neg = _counts(Predict, Label)
    sp, sn = StatPos.copy(), StatNeg.copy()
    cur = int(sp[(slide_steps + 1) * n]) % slide_steps
    for s, new in ((sp, pos), (sn, neg)):
        s[slide_steps * n:(slide_steps + 1) * n] += new - s[cur * n:(cur + 1) * n]
        s[cur * n:(cur + 1) * n] = new
        s[(slide_steps + 1) * n] += 1
    window = slice(slide_steps * n, (slide_steps + 1) * n)
    return np.asarray(_area(sp[window], sn[window])), sp, sn


_window = np.zeros(3 * (NT + 1) + 1, dtype=np.int64)
_window[:NT + 1] = rng.integers(0, 3, NT + 1)              # ring slot 0 holds an older batch
_window[2 * (NT + 1):3 * (NT + 1)] = _window[:NT + 1]      # and the running sum
_window[-1] = 2                                            # two steps done: the slot to replace is 0
_window_neg = _window.copy()

CASES = [
    OpCase("auc", {"Predict": np.concatenate([1 - PRED, PRED], 1), "Label": LABEL,
                   "StatPos": np.zeros((1, NT + 1), np.int64), "StatNeg": np.ones((1, NT + 1), np.int64)},
           auc_global_ref, attrs={"num_thresholds": NT, "slide_steps": 0}, check_grad=False),
    OpCase("auc", {"Predict": PRED, "Label": LABEL, "StatPos": _window, "StatNeg": _window_neg,
                   "InsTagWeight": np.ones((1, 1), np.float32)},
           auc_window_ref, attrs={"num_thresholds": NT, "slide_steps": 2}, name="sliding", check_grad=False),
]
