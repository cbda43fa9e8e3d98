"""Table rows for bilinear_tensor_product, rrelu and gumbel_softmax.

bilinear's reference sums x[b, i] W[o, i, j] y[b, j] in loops. The random ops are checked by
properties (rrelu: x >= 0 passes, negative x scaled by a slope in [lower, upper]; gumbel_softmax:
a distribution along the axis, one-hot when hard, and the samples follow softmax(x) in frequency);
their grads are checked where they are deterministic: rrelu with is_test, gumbel_softmax where one
logit dominates (tests/runtime/nn/functional/test_stochastic.py checks its grad with fixed noise).
"""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(61)


def r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


def bilinear_ref(X, Y, Weight, Bias=None, **_):
    B, O = X.shape[0], Weight.shape[0]
    out = np.zeros((B, O))
    for b in range(B):
        for o in range(O):
            for i in range(X.shape[1]):
                for j in range(Y.shape[1]):
                    out[b, o] += X[b, i] * Weight[o, i, j] * Y[b, j]
    if Bias is not None:
        out += Bias[0]
    return out.astype(X.dtype)


def rrelu_eval_ref(X, lower=0.125, upper=0.3333333432674408, **_):
    slope = (np.float32(lower) + np.float32(upper)) / np.float32(2)
    return np.where(X >= 0, X, X * float(slope)).astype(X.dtype)


def rrelu_train_check(actual, case):
    out, = actual
    x = case.inputs["X"]
    assert out.shape == x.shape and out.dtype == x.dtype
    np.testing.assert_array_equal(out[x >= 0], x[x >= 0])
    slope = out[x < 0] / x[x < 0]
    lo, hi = case.attrs["lower"], case.attrs["upper"]
    assert np.all(slope >= lo - 1e-12) and np.all(slope <= hi + 1e-12)
    assert slope.std() > 0.01                       # slopes vary element by element


def gumbel_check(hard):
    def compare(actual, case):
        out, = actual
        x = case.inputs["X"]
        assert out.shape == x.shape and out.dtype == x.dtype
        np.testing.assert_allclose(out.sum(axis=-1), 1.0, rtol=1e-12)
        if hard:
            assert set(np.unique(out).tolist()) <= {0.0, 1.0}
            # argmax frequencies follow softmax(x) (Gumbel-max trick): rows are copies of one logit row
            freq = out.mean(axis=0)
            p = np.exp(x[0]) / np.exp(x[0]).sum()
            np.testing.assert_allclose(freq, p, atol=0.05)
        else:
            assert np.all(out > 0)
    return compare


LOGITS = np.tile(np.array([[1.0, 0.0, -1.0, 0.5]]), (2000, 1))
CASES = [
    OpCase("bilinear_tensor_product", {"X": r(3, 2), "Y": r(3, 4), "Weight": r(2, 2, 4), "Bias": r(1, 2)},
           bilinear_ref),
    OpCase("bilinear_tensor_product", {"X": r(2, 3), "Y": r(2, 2), "Weight": r(4, 3, 2)}, bilinear_ref,
           name="no_bias"),
    OpCase("rrelu", {"X": r(3, 5)}, rrelu_eval_ref, name="eval", attrs={"lower": 0.1, "upper": 0.3, "is_test": True}),
    OpCase("rrelu", {"X": r(40, 50)}, None, name="train", check_grad=False, compare=rrelu_train_check,
           attrs={"lower": 0.1, "upper": 0.6}),
    OpCase("gumbel_softmax", {"X": LOGITS}, None, name="hard", check_grad=False, compare=gumbel_check(True),
           attrs={"hard": True}),
    OpCase("gumbel_softmax", {"X": r(4, 3)}, None, name="soft_axis0", check_grad=False, compare=gumbel_check(False),
           attrs={"temperature": 0.5}),
    OpCase("gumbel_softmax", {"X": np.array([[80.0, 0.0, 0.5], [0.0, -1.0, 90.0]])}, None, name="dominated",
           compare=gumbel_check(False), attrs={"temperature": 1.0}),
]
