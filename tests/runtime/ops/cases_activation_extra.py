"""Table rows for runtime/ops/activation_extra.py, each against an independent numpy formula
(float64; gradients by finite differences away from the kinks)."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(11)


def away(*shape, lo=-2.0, hi=2.0, kinks=(0.0,), gap=0.05):
    """Uniform values kept ``gap`` away from each kink, so finite differences see a smooth function."""
    x = rng.uniform(lo, hi, shape)
    for k in kinks:
        near = np.abs(x - k) < gap
        x[near] = k + np.where(x[near] >= k, gap, -gap) * 2
    return x


def _sp(x):
    return np.log1p(np.exp(x))


CASES = [
    OpCase("selu", {"X": away(3, 4)}, lambda X: 1.0507009873554805 * np.where(X > 0, X, 1.6732632423543772 * (np.exp(X) - 1))),
    OpCase("selu", {"X": away(5)}, lambda X, scale, alpha: scale * np.where(X > 0, X, alpha * (np.exp(X) - 1)),
           attrs={"scale": 1.5, "alpha": 0.5}, name="attrs"),
    OpCase("celu", {"X": away(3, 4)}, lambda X: np.maximum(X, 0) + np.minimum(0, np.exp(X) - 1)),
    OpCase("celu", {"X": away(6)}, lambda X, alpha: np.maximum(X, 0) + np.minimum(0, alpha * (np.exp(X / alpha) - 1)),
           attrs={"alpha": 0.4}, name="alpha"),
    OpCase("hard_shrink", {"X": away(4, 5, kinks=(-0.5, 0.5))}, lambda X: X * (np.abs(X) > 0.5)),
    OpCase("hard_shrink", {"X": away(8, kinks=(-1.2, 1.2))}, lambda X, threshold: X * (np.abs(X) > threshold),
           attrs={"threshold": 1.2}, name="threshold"),
    OpCase("softshrink", {"X": away(4, 5, kinks=(-0.5, 0.5))}, lambda X: np.sign(X) * np.maximum(np.abs(X) - 0.5, 0)),
    OpCase("softshrink", {"X": away(8, kinks=(-0.3, 0.3))}, lambda X, **a: np.sign(X) * np.maximum(np.abs(X) - 0.3, 0),
           attrs={"lambda": 0.3}, name="lambda"),
    OpCase("tanh_shrink", {"X": away(3, 4)}, lambda X: X - np.tanh(X)),
    OpCase("thresholded_relu", {"X": away(4, 5, kinks=(1.0,))}, lambda X: np.where(X > 1.0, X, 0.0)),
    OpCase("thresholded_relu", {"X": away(9, kinks=(0.2,))}, lambda X, threshold, value: np.where(X > threshold, X, value),
           attrs={"threshold": 0.2, "value": -0.5}, name="value"),
    OpCase("brelu", {"X": away(4, 5, lo=-3, hi=30, kinks=(0.0, 24.0))}, lambda X: np.clip(X, 0, 24)),
    OpCase("brelu", {"X": away(9, kinks=(-1.0, 1.0))}, lambda X, t_min, t_max: np.clip(X, t_min, t_max),
           attrs={"t_min": -1.0, "t_max": 1.0}, name="hardtanh"),
    OpCase("mish", {"X": away(3, 4, lo=-5, hi=5)}, lambda X: X * np.tanh(_sp(X))),
    OpCase("mish", {"X": away(6, lo=-1, hi=3, kinks=(1.0,))}, lambda X, threshold: X * np.tanh(np.where(X > threshold, X, _sp(X))),
           attrs={"threshold": 1.0}, name="threshold", check_grad=False),
    OpCase("logsigmoid", {"X": away(3, 4, lo=-30, hi=30)}, lambda X: -np.log1p(np.exp(-X))),
    OpCase("prelu", {"X": away(2, 3, 4), "Alpha": np.array([0.25])}, lambda X, Alpha: np.where(X > 0, X, 0.25 * X),
           name="all"),
    OpCase("prelu", {"X": away(2, 3, 2, 2), "Alpha": np.array([0.1, 0.2, 0.3])},
           lambda X, Alpha, mode: np.where(X > 0, X, Alpha.reshape(1, 3, 1, 1) * X), attrs={"mode": "channel"},
           name="channel"),
    OpCase("prelu", {"X": away(2, 2, 3), "Alpha": np.array([0.1, 0.2, 0.3])},
           lambda X, Alpha, mode, data_format: np.where(X > 0, X, Alpha.reshape(1, 1, 3) * X),
           attrs={"mode": "channel", "data_format": "NLC"}, name="channel_last"),
    OpCase("prelu", {"X": away(2, 2, 3), "Alpha": rng.uniform(0, 0.5, (1, 2, 3))},
           lambda X, Alpha, mode: np.where(X > 0, X, Alpha * X), attrs={"mode": "element"}, name="element"),
    # distinct values: the maximum of each group is unique, so the gradient is smooth
    OpCase("maxout", {"X": rng.permutation(48).reshape(2, 4, 2, 3) / 10.0},
           lambda X, groups: X.reshape(2, 2, 2, 2, 3).max(axis=2), attrs={"groups": 2}),
    OpCase("maxout", {"X": rng.permutation(36).reshape(1, 2, 2, 9) / 10.0},
           lambda X, groups, axis: X.reshape(1, 2, 2, 3, 3).max(axis=4), attrs={"groups": 3, "axis": -1},
           name="channel_last"),
    OpCase("bmm", {"X": rng.uniform(-1, 1, (2, 3, 4)), "Y": rng.uniform(-1, 1, (2, 4, 5))}, lambda X, Y: X @ Y),
]
