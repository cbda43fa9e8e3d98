"""Table rows for the loss ops (references written out with plain loops / textbook formulas)."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(9)


def r(*shape):
    return rng.standard_normal(shape)


def probs(*shape):
    e = np.exp(r(*shape))
    return e / e.sum(-1, keepdims=True)


def _softmax_ref(z, axis):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def swce_hard_ref(Logits, Label, axis=-1, ignore_index=-100, use_softmax=True, **_):
    sm = _softmax_ref(Logits, axis) if use_softmax else Logits
    ax = axis % Logits.ndim
    sm_m = np.moveaxis(sm, ax, -1)
    lab_m = np.moveaxis(Label, ax, -1)
    loss = np.zeros(lab_m.shape)
    for idx in np.ndindex(lab_m.shape[:-1]):
        lab = lab_m[idx][0]
        loss[idx] = [0.0 if lab == ignore_index else -np.log(sm_m[idx][lab])]
    return sm, np.moveaxis(loss, -1, ax)


def swce_soft_ref(Logits, Label, axis=-1, **_):
    sm = _softmax_ref(Logits, axis)
    return sm, -(Label * np.log(sm)).sum(axis=axis, keepdims=True)


def ce2_ref(X, Label, ignore_index=-100):
    n = X.shape[0]
    y = np.zeros((n, 1))
    m = np.zeros((n, 1))
    for i in range(n):
        lab = Label[i, 0]
        if lab != ignore_index:
            m[i, 0] = X[i, lab]
            y[i, 0] = -np.log(X[i, lab])
    return y, np.zeros((0,) + X.shape), m


def sce_ref(X, Label, pos_weight=None, normalize=False, ignore_index=-100):
    sig = 1 / (1 + np.exp(-X))
    pw = 1.0 if pos_weight is None else pos_weight
    loss = -(pw * Label * np.log(sig) + (1 - Label) * np.log(1 - sig))
    valid = Label != ignore_index
    loss = np.where(valid, loss, 0)
    if normalize:
        loss = loss / valid.sum()
    return loss


def huber_ref(X, Y, delta):
    d = Y - X
    out = np.where(np.abs(d) <= delta, 0.5 * d ** 2, delta * (np.abs(d) - delta / 2))
    return out


def nll_ref(X, Label, Weight=None, ignore_index=-100, reduction="mean"):
    w = np.ones(X.shape[1]) if Weight is None else Weight
    xm = np.moveaxis(X, 1, -1)
    per = np.zeros(Label.shape)
    wsum = 0.0
    for idx in np.ndindex(Label.shape):
        lab = Label[idx]
        if lab != ignore_index:
            per[idx] = -w[lab] * xm[idx][lab]
            wsum += w[lab]
    if reduction == "none":
        return per, np.array(wsum)
    if reduction == "sum":
        return np.array(per.sum()), np.array(wsum)
    return np.array(per.sum() / wsum), np.array(wsum)


def kl_ref(X, Target, reduction="mean", log_target=False):
    if log_target:
        loss = np.exp(Target) * (Target - X)
    else:
        loss = np.array([t * (np.log(t) - x) if t > 0 else 0.0 for t, x in zip(Target.ravel(), X.ravel())])
        loss = loss.reshape(X.shape)
    return {"none": loss, "sum": np.array(loss.sum()), "mean": np.array(loss.mean()),
            "batchmean": np.array(loss.sum() / X.shape[0])}[reduction]


LOGP = np.log(probs(4, 3))
CASES = [
    OpCase("softmax_with_cross_entropy", {"Logits": r(4, 5), "Label": np.array([[1], [4], [0], [2]])},
           swce_hard_ref),
    OpCase("softmax_with_cross_entropy", {"Logits": r(4, 5), "Label": np.array([[1], [-100], [0], [3]])},
           swce_hard_ref, name="ignore"),
    OpCase("softmax_with_cross_entropy", {"Logits": r(2, 4, 3), "Label": np.array([[[1, 3, 0]], [[2, 2, 1]]])},
           swce_hard_ref, attrs={"axis": 1}, name="axis1"),
    OpCase("softmax_with_cross_entropy", {"Logits": r(3, 4), "Label": probs(3, 4)}, swce_soft_ref,
           attrs={"soft_label": True}, name="soft"),
    OpCase("softmax_with_cross_entropy", {"Logits": probs(3, 4), "Label": np.array([[0], [3], [2]])},
           swce_hard_ref, attrs={"use_softmax": False}, name="no_softmax"),
    OpCase("softmax_with_cross_entropy", {"Logits": r(3, 4).astype(np.float32), "Label": np.array([[0], [3], [2]])},
           swce_hard_ref, name="float32", check_grad=False, rtol=1e-5, atol=1e-6),
    OpCase("cross_entropy2", {"X": probs(4, 3), "Label": np.array([[0], [2], [-100], [1]])}, ce2_ref),
    OpCase("sigmoid_cross_entropy_with_logits", {"X": r(3, 4), "Label": rng.uniform(0, 1, (3, 4))}, sce_ref),
    OpCase("sigmoid_cross_entropy_with_logits",
           {"X": r(2, 3), "Label": np.array([[1.0, 0.0, -100.0], [0.0, 1.0, 1.0]])},
           sce_ref, attrs={"normalize": True}, name="ignore_normalize"),
    OpCase("sigmoid_cross_entropy_with_logits",
           {"X": r(2, 3), "Label": rng.integers(0, 2, (2, 3)).astype(np.float64), "pos_weight": np.array([0.5, 2.0, 3.0])},
           sce_ref, name="pos_weight"),
    OpCase("bce_loss", {"X": rng.uniform(0.1, 0.9, (3, 4)), "Label": rng.uniform(0, 1, (3, 4))},
           lambda X, Label: -(Label * np.log(X) + (1 - Label) * np.log(1 - X))),
    OpCase("bce_loss", {"X": np.array([0.0, 1.0, 0.5]), "Label": np.array([1.0, 0.0, 1.0])},
           lambda X, Label: np.array([100.0, 100.0, np.log(2.0)]), name="clamped", check_grad=False),
    OpCase("huber_loss", {"X": np.array([[0.0, 0.5, 3.0], [-2.0, 1.0, 0.2]]), "Y": np.array([[0.2, 2.0, 0.0], [-2.1, -1.3, 0.1]])},
           huber_ref, attrs={"delta": 1.0}),
    OpCase("huber_loss", {"X": r(2, 3), "Y": r(2, 3)}, huber_ref, attrs={"delta": 0.7}, name="delta"),
    OpCase("nll_loss", {"X": LOGP, "Label": np.array([2, 0, -100, 1])}, nll_ref),
    OpCase("nll_loss", {"X": LOGP, "Label": np.array([2, 0, 1, 1]), "Weight": np.array([0.5, 2.0, 1.5])},
           nll_ref, name="weight"),
    OpCase("nll_loss", {"X": LOGP, "Label": np.array([2, 0, -100, 1]), "Weight": np.array([0.5, 2.0, 1.5])},
           nll_ref, attrs={"reduction": "sum"}, name="sum"),
    OpCase("nll_loss", {"X": np.ascontiguousarray(np.log(probs(2, 3, 4).transpose(0, 2, 1))), "Label": np.array([[0, 3, 1], [2, 2, -100]])},
           nll_ref, attrs={"reduction": "none"}, name="spatial_none"),
    OpCase("kldiv_loss", {"X": r(3, 4), "Target": np.abs(r(3, 4)) * (rng.uniform(0, 1, (3, 4)) > 0.3)}, kl_ref),
    OpCase("kldiv_loss", {"X": r(3, 4), "Target": probs(3, 4)}, kl_ref, attrs={"reduction": "batchmean"},
           name="batchmean"),
    OpCase("kldiv_loss", {"X": r(3, 4), "Target": r(3, 4)}, kl_ref,
           attrs={"reduction": "none", "log_target": True}, name="log_target"),
    OpCase("kldiv_loss", {"X": r(2, 2), "Target": probs(2, 2)}, kl_ref, attrs={"reduction": "sum"}, name="sum"),
]
