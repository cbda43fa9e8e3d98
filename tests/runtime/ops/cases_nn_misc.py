"""Table rows for dropout, lookup_table_v2, one_hot_v2, label_smooth and accuracy."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(5)


def r(*shape):
    return rng.standard_normal(shape)


def _dropout_check(p, upscale):
    """Random output: every element is either dropped (0) or kept (x, scaled when upscaling),
    the mask says which, and the keep rate is near 1 - p."""
    def compare(actual, case):
        out, mask = actual
        x = case.inputs["X"]
        assert mask.dtype == np.uint8 and mask.shape == x.shape
        keep = mask.astype(bool)
        scale = 1.0 / (1.0 - p) if upscale else 1.0
        np.testing.assert_allclose(out[keep], x[keep] * scale, rtol=1e-6)
        assert np.all(out[~keep] == 0)
        if x.size >= 1000:
            assert abs(keep.mean() - (1 - p)) < 0.05
    return compare


def _one_hot_ref(X, depth, dtype=5, allow_out_of_range=False):
    out = np.zeros(X.shape + (depth,), dtype=np.float32 if dtype == 5 else np.float64)
    for idx in np.ndindex(X.shape):
        v = X[idx]
        if 0 <= v < depth:
            out[idx + (v,)] = 1
    return out


def _accuracy_ref(Out, Indices, Label):
    n = Indices.shape[0]
    correct = sum(int(Label.reshape(-1)[i] in Indices[i]) for i in range(n))
    return np.float32(correct / n), np.int32(correct), np.int32(n)


W = r(5, 3)
X_BIG = rng.uniform(0.5, 1.5, (40, 50)).astype(np.float32)
SEED = np.array([7], dtype=np.int32)
TOPK_IDX = np.array([[1, 2], [0, 1], [2, 0], [3, 1]])

CASES = [
    OpCase("dropout", {"X": X_BIG}, None, attrs={"dropout_prob": 0.3, "dropout_implementation": "upscale_in_train"},
           compare=_dropout_check(0.3, True), check_grad=False, name="upscale"),
    OpCase("dropout", {"X": X_BIG}, None, attrs={"dropout_prob": 0.6},
           compare=_dropout_check(0.6, False), check_grad=False, name="downgrade"),
    # a fixed Seed input makes the mask reproducible, so finite differences see the same mask
    OpCase("dropout", {"X": r(3, 4), "Seed": SEED}, None,
           attrs={"dropout_prob": 0.4, "dropout_implementation": "upscale_in_train"},
           compare=_dropout_check(0.4, True), name="seeded_grad"),
    OpCase("dropout", {"X": r(3, 4), "Seed": SEED}, None, attrs={"dropout_prob": 0.5},
           compare=_dropout_check(0.5, False), name="seeded_grad_downgrade"),
    OpCase("dropout", {"X": r(2, 3)}, lambda X, **_: (X * 0.75, np.ones(X.shape, np.uint8)),
           attrs={"dropout_prob": 0.25, "is_test": True}, name="test_downgrade"),
    OpCase("dropout", {"X": r(2, 3)}, lambda X, **_: (X, np.ones(X.shape, np.uint8)),
           attrs={"dropout_prob": 0.25, "is_test": True, "dropout_implementation": "upscale_in_train"},
           name="test_upscale"),
    OpCase("dropout", {"X": r(2, 3)}, lambda X, **_: (np.zeros_like(X), np.zeros(X.shape, np.uint8)),
           attrs={"dropout_prob": 1.0, "dropout_implementation": "upscale_in_train"}, name="p1"),
    OpCase("lookup_table_v2", {"Ids": np.array([[0, 4], [2, 2], [1, 0]]), "W": W},
           lambda Ids, W: W[Ids]),
    OpCase("lookup_table_v2", {"Ids": np.array([0, 3, 2, 3]), "W": W},
           lambda Ids, W, padding_idx: np.where((Ids == padding_idx)[:, None], 0, W[Ids]),
           attrs={"padding_idx": 3}, name="padding"),
    OpCase("lookup_table_v2", {"Ids": np.array([1, 2], dtype=np.int32), "W": W.astype(np.float32)},
           lambda Ids, W: W[Ids], name="int32_ids", check_grad=False),
    OpCase("one_hot_v2", {"X": np.array([[1, 0], [3, 2]])}, _one_hot_ref, attrs={"depth": 4}),
    OpCase("one_hot_v2", {"X": np.array([1, 5, -1, 2])}, _one_hot_ref,
           attrs={"depth": 3, "allow_out_of_range": True, "dtype": 6}, name="out_of_range_f64"),
    OpCase("one_hot_v2", {"X": np.array([2, 0]), "depth_tensor": np.array([3], dtype=np.int32)},
           lambda X, depth_tensor: _one_hot_ref(X, 3), name="depth_tensor"),
    OpCase("label_smooth", {"X": np.eye(4)[[0, 2, 3]]}, lambda X, epsilon: X * (1 - epsilon) + epsilon / 4,
           attrs={"epsilon": 0.1}),
    OpCase("label_smooth", {"X": np.eye(3)[[0, 2]], "PriorDist": np.array([[0.2, 0.5, 0.3]])},
           lambda X, PriorDist, epsilon: X * (1 - epsilon) + epsilon * PriorDist, attrs={"epsilon": 0.2},
           name="prior"),
    OpCase("accuracy", {"Out": r(4, 2), "Indices": TOPK_IDX, "Label": np.array([[2], [1], [1], [3]])},
           _accuracy_ref),
]
