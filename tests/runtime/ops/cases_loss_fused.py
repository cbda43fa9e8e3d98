"""Table rows for fused_softmax_ce_mean, the compiled training step's softmax cross-entropy + mean
(runtime/ops/loss.py; dy2st/partial_program.py puts it into training programs). References written
out with loops; the gradient check runs its fused grad op."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(31)


def r(*shape):
    return rng.standard_normal(shape)


def fused_ce_mean_ref(Logits, Label, ignore_index=-100, keep_dim=False):
    n_class = Logits.shape[-1]
    rows = Logits.reshape(-1, n_class)
    labels = Label.reshape(-1)
    sm = np.empty_like(rows)
    losses, index, valid = [], [], []
    for i, (z, lab) in enumerate(zip(rows, labels)):
        e = np.exp(z - z.max())
        sm[i] = e / e.sum()
        ok = lab != ignore_index
        losses.append(-np.log(sm[i, lab]) if ok else 0.0)
        index.append(i * n_class + (lab if ok else 0))     # an ignored row points at its class 0
        valid.append(ok)
    out = np.mean(losses)
    if keep_dim:
        out = np.full((1,) * Logits.ndim, out)
    valid = np.array(valid) if not all(valid) else np.zeros(0, bool)
    return sm.reshape(Logits.shape), np.asarray(out), np.array(index, np.int64), valid


CASES = [
    OpCase("fused_softmax_ce_mean", {"Logits": r(4, 5), "Label": np.array([[1], [4], [0], [2]])},
           fused_ce_mean_ref),
    OpCase("fused_softmax_ce_mean", {"Logits": r(4, 5), "Label": np.array([3, 0, 4, 4])},
           fused_ce_mean_ref, name="labels_without_class_dim"),
    OpCase("fused_softmax_ce_mean", {"Logits": r(4, 5), "Label": np.array([[1], [-100], [0], [3]])},
           fused_ce_mean_ref, name="ignore"),
    OpCase("fused_softmax_ce_mean", {"Logits": r(4, 5), "Label": np.array([[1], [2], [0], [2]], np.int32)},
           fused_ce_mean_ref, attrs={"ignore_index": 2}, name="ignore_a_class"),
    OpCase("fused_softmax_ce_mean", {"Logits": r(2, 3, 4), "Label": np.array([[[1], [3], [0]], [[2], [2], [1]]])},
           fused_ce_mean_ref, attrs={"keep_dim": True}, name="rank3_keep_dim"),
    OpCase("fused_softmax_ce_mean", {"Logits": r(40, 3).astype(np.float32), "Label": rng.integers(0, 3, (40, 1))},
           fused_ce_mean_ref, name="float32_many_rows", check_grad=False, rtol=1e-5, atol=1e-6),
]
