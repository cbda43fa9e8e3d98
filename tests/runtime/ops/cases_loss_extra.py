"""Table rows for warpctc, warprnnt, hierarchical_sigmoid, margin_cross_entropy and
class_center_sample. The references enumerate every alignment (CTC, RNN-T) or walk each tree path
with plain loops, independently of the kernels' forward-backward recursions."""
import itertools

import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(61)
R = lambda *s: rng.standard_normal(s)  # noqa: E731


# ---- warpctc ------------------------------------------------------------------------------

def _log_softmax(x):
    s = x - x.max(-1, keepdims=True)
    return s - np.log(np.exp(s).sum(-1, keepdims=True))


def _ctc_collapse(path, blank):
    out, prev = [], None
    for c in path:
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out


def _ctc_ref(Logits, Label, LogitsLength, LabelLength, blank=0, **_):
    """-log of the summed probability of every frame-level path that collapses to the label."""
    T, B, C = Logits.shape
    loss = np.zeros((B, 1))
    for b in range(B):
        t_len, labels = int(LogitsLength[b]), list(Label[b, :LabelLength[b]])
        lp = _log_softmax(Logits[:t_len, b].astype(np.float64))
        total = 0.0
        for path in itertools.product(range(C), repeat=t_len):
            if _ctc_collapse(path, blank) == labels:
                total += np.exp(sum(lp[t, c] for t, c in enumerate(path)))
        # Warp-CTC: no path at all (too short an input) costs 0
        loss[b, 0] = -np.log(total) if total > 0 else 0.0
    return loss.astype(Logits.dtype)


CTC_LABEL = np.array([[1, 2, 0], [1, 1, 2], [2, 2, 2], [2, 0, 0]], dtype=np.int32)

# ---- warprnnt -----------------------------------------------------------------------------


def _rnnt_ref(input, label, input_lengths, label_lengths, blank=0, **_):
    """-log sum over every interleaving of T blanks and U labels (the last step a blank)."""
    B = input.shape[0]
    loss = np.zeros(B)
    for b in range(B):
        T, U = int(input_lengths[b]), int(label_lengths[b])
        x = input[b].astype(np.float64)
        total = 0.0
        for emit_pos in itertools.combinations(range(T + U - 1), U):   # positions of label emissions
            t = u = 0
            s = 0.0
            for k in range(T + U):
                if k in emit_pos:
                    s += x[t, u, label[b, u]]
                    u += 1
                else:
                    s += x[t, u, blank]
                    t += 1
            total += np.exp(s)
        loss[b] = -np.log(total)
    return loss.astype(input.dtype)


RNNT_LABEL = np.array([[1, 2, 1], [3, 3, 0], [2, 0, 0]], dtype=np.int32)

# ---- hierarchical_sigmoid -----------------------------------------------------------------


def _hsig_ref(X, W, Label, PathTable=None, PathCode=None, Bias=None, num_classes=2, **_):
    n = X.shape[0]
    if PathTable is None:
        width = (num_classes - 1).bit_length()
        paths = []
        for lab in Label.reshape(-1):
            node, path = int(lab) + num_classes, []
            while node > 1:                     # heap order: the parent of node k is k // 2
                path.append((node // 2 - 1, node & 1))
                node //= 2
            paths.append(path)
    else:
        width = PathTable.shape[1]
        paths = [[(int(i), int(c != 0)) for i, c in zip(t, code) if i >= 0] for t, code in zip(PathTable, PathCode)]
    out = np.zeros((n, 1))
    for i, path in enumerate(paths):
        total = 0.0
        for idx, bit in path:
            z = np.clip(X[i] @ W[idx] + (0.0 if Bias is None else Bias.reshape(-1)[idx]), -40, 40)
            total += np.log1p(np.exp(z)) - bit * z
        total += (width - len(path)) * np.log(2.0)     # Paddle's kernel: softplus(0) per unused column
        out[i, 0] = total
    return out.astype(X.dtype)


PATH_TABLE = np.array([[0, 1, 3], [0, 2, -1], [0, 1, 4], [0, 2, -1]], dtype=np.int64)
PATH_CODE = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0]], dtype=np.int64)

# ---- margin_cross_entropy -----------------------------------------------------------------


def _mce_ref(Logits, Label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0, **_):
    z = Logits.astype(np.float64).copy()
    for i, lab in enumerate(Label.reshape(-1)):
        z[i, lab] = np.cos(margin1 * np.arccos(z[i, lab]) + margin2) - margin3
    z *= scale
    sm = np.exp(z - z.max(1, keepdims=True))
    sm /= sm.sum(1, keepdims=True)
    loss = -np.log(sm[np.arange(len(z)), Label.reshape(-1)]).reshape(-1, 1)
    return sm.astype(Logits.dtype), loss.astype(Logits.dtype)


def _cosines(*shape):
    return rng.uniform(-0.9, 0.9, shape)


# ---- class_center_sample ------------------------------------------------------------------

def _ccs_compare(num_classes, num_samples):
    def compare(actual, case):
        remapped, sampled = actual
        label = case.inputs["Label"]
        positive = np.unique(label)
        assert sampled.dtype == label.dtype and remapped.dtype == label.dtype
        assert sampled.shape == (max(num_samples, positive.size),)
        np.testing.assert_array_equal(sampled[:positive.size], positive)
        assert len(set(sampled.tolist())) == sampled.size and sampled.min() >= 0 and sampled.max() < num_classes
        np.testing.assert_array_equal(sampled[remapped], label)
    return compare


CCS_LABEL = np.array([11, 3, 7, 3, 0, 11], dtype=np.int64)

CASES = [
    OpCase("warpctc", {"Logits": R(4, 4, 3), "Label": CTC_LABEL, "LogitsLength": np.array([4, 4, 3, 2]),
                       "LabelLength": np.array([2, 3, 1, 0])}, _ctc_ref, name="repeats_empty"),
    OpCase("warpctc", {"Logits": R(4, 2, 3), "Label": np.array([[2, 2, 2], [1, 2, 1]], dtype=np.int32),
                       "LogitsLength": np.array([4, 4]), "LabelLength": np.array([3, 3])}, _ctc_ref,
           name="infeasible"),
    OpCase("warpctc", {"Logits": R(4, 2, 3), "Label": np.array([[0, 1], [1, 1]], dtype=np.int32),
                       "LogitsLength": np.array([4, 3]), "LabelLength": np.array([2, 2])}, _ctc_ref,
           attrs={"blank": 2}, name="blank2"),
    # norm_by_times scales only the gradient (checked against Paddle in the interop test)
    OpCase("warpctc", {"Logits": R(3, 2, 3).astype(np.float32), "Label": CTC_LABEL[:2, :2],
                       "LogitsLength": np.array([3, 2]), "LabelLength": np.array([2, 1])}, _ctc_ref,
           attrs={"norm_by_times": True}, name="f32_norm_by_times", check_grad=False),
    OpCase("warprnnt", {"input": R(3, 3, 4, 4), "label": RNNT_LABEL, "input_lengths": np.array([3, 2, 3], np.int32),
                        "label_lengths": np.array([3, 2, 0], np.int32)}, _rnnt_ref, name="varlen"),
    OpCase("warprnnt", {"input": R(2, 3, 3, 4), "label": RNNT_LABEL[:2, :2],
                        "input_lengths": np.array([3, 1], np.int32),
                        "label_lengths": np.array([2, 1], np.int32)}, _rnnt_ref, attrs={"blank": 3}, name="blank3"),
    # FastEmit changes only the gradient (checked against Paddle in the interop test)
    OpCase("warprnnt", {"input": R(1, 2, 3, 4).astype(np.float32), "label": RNNT_LABEL[:1, :2],
                        "input_lengths": np.array([2], np.int32), "label_lengths": np.array([2], np.int32)}, _rnnt_ref,
           attrs={"fastemit_lambda": 0.5}, name="fastemit", check_grad=False),
    OpCase("hierarchical_sigmoid", {"X": R(4, 3), "W": R(5, 3), "Label": np.array([[0], [5], [3], [2]]),
                                    "Bias": R(5, 1)}, _hsig_ref, attrs={"num_classes": 6}, name="default_tree"),
    OpCase("hierarchical_sigmoid", {"X": R(3, 2), "W": R(6, 2), "Label": np.array([6, 1, 4])}, _hsig_ref,
           attrs={"num_classes": 7}, name="default_no_bias"),
    OpCase("hierarchical_sigmoid", {"X": R(4, 3), "W": R(5, 3), "Label": np.array([[0], [1], [2], [3]]),
                                    "PathTable": PATH_TABLE, "PathCode": PATH_CODE, "Bias": R(5, 1)}, _hsig_ref,
           attrs={"num_classes": 5}, name="custom_tree"),
    OpCase("margin_cross_entropy", {"Logits": _cosines(3, 5), "Label": np.array([[1], [0], [4]])}, _mce_ref,
           attrs={"scale": 2.0}, name="arcface"),
    OpCase("margin_cross_entropy", {"Logits": _cosines(4, 3), "Label": np.array([[2], [2], [0], [1]], np.int32)},
           _mce_ref, attrs={"margin1": 0.9, "margin2": 0.2, "margin3": 0.1, "scale": 3.0}, name="combined"),
    OpCase("margin_cross_entropy", {"Logits": _cosines(2, 4), "Label": np.array([[3], [1]])}, _mce_ref,
           attrs={"margin1": 1.0, "margin2": 0.0, "margin3": 0.35, "scale": 4.0}, name="cosface"),
    OpCase("class_center_sample", {"Label": CCS_LABEL}, None, attrs={"num_classes": 15, "num_samples": 8},
           compare=_ccs_compare(15, 8), check_grad=False, name="negatives"),
    OpCase("class_center_sample", {"Label": CCS_LABEL.astype(np.int32)}, None,
           attrs={"num_classes": 12, "num_samples": 2}, compare=_ccs_compare(12, 2), check_grad=False,
           name="positives_only"),
]
