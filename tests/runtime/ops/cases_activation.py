"""Table rows for the activation ops (points kept away from kinks so finite differences hold)."""
import math

import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(2)
_erf = np.vectorize(math.erf)


def r(*shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape)


def away(*shape, kinks=(0.0,), lo=-3.0, hi=3.0, gap=0.05):
    """Uniform values at least ``gap`` away from every kink."""
    a = rng.uniform(lo, hi, shape)
    for k in kinks:
        near = np.abs(a - k) < gap
        a[near] = k + np.where(a[near] >= k, gap, -gap) * 2
    return a


def sig(X):
    return 1 / (1 + np.exp(-X))


def softmax_ref(X, axis=-1):
    e = np.exp(X - X.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax_ref(X, axis=-1):
    return np.log(softmax_ref(X, axis))


def gelu_tanh(X):
    return 0.5 * X * (1 + np.tanh(math.sqrt(2 / math.pi) * (X + 0.044715 * X ** 3)))


CASES = [
    OpCase("relu", {"X": away(3, 4)}, lambda X: np.where(X > 0, X, 0)),
    OpCase("relu", {"X": np.array([-2, 0, 3], dtype=np.int32)}, lambda X: np.array([0, 0, 3], np.int32),
           name="int32"),
    OpCase("relu6", {"X": away(3, 4, kinks=(0.0, 6.0), lo=-3, hi=9)}, lambda X: np.minimum(np.maximum(X, 0), 6)),
    OpCase("leaky_relu", {"X": away(3, 4)}, lambda X: np.where(X > 0, X, 0.02 * X), rtol=1e-6),
    OpCase("leaky_relu", {"X": away(2, 5)}, lambda X, alpha: np.where(X > 0, X, alpha * X),
           attrs={"alpha": 0.3}, name="alpha"),
    OpCase("elu", {"X": away(3, 4)}, lambda X: np.where(X > 0, X, np.exp(X) - 1)),
    OpCase("elu", {"X": away(3, 4)}, lambda X, alpha: np.where(X > 0, X, alpha * (np.exp(X) - 1)),
           attrs={"alpha": 0.5}, name="alpha"),
    OpCase("gelu", {"X": r(3, 4, lo=-4, hi=4)}, lambda X: 0.5 * X * (1 + _erf(X / math.sqrt(2))), name="erf"),
    OpCase("gelu", {"X": r(3, 4, lo=-4, hi=4)}, lambda X, approximate: gelu_tanh(X),
           attrs={"approximate": True}, name="tanh"),
    OpCase("gelu", {"X": r(2, 3).astype(np.float32)},
           lambda X: (0.5 * X * (1 + _erf(X / math.sqrt(2)))).astype(np.float32), name="float32", check_grad=False),
    # float32 exact gelu takes erf from a vectorised erfc approximation: check it over the tails too
    OpCase("gelu", {"X": r(6, 8, lo=-7, hi=7).astype(np.float32)},
           lambda X: (0.5 * X.astype(np.float64) * (1 + _erf(X.astype(np.float64) / math.sqrt(2)))).astype(np.float32),
           name="float32_wide", check_grad=False),
    OpCase("sigmoid", {"X": r(3, 4, lo=-5, hi=5)}, lambda X: sig(X)),
    OpCase("sigmoid", {"X": np.array([-1000.0, 0.0, 1000.0], np.float32)},
           lambda X: np.array([0.0, 0.5, 1.0], np.float32), name="saturate", check_grad=False),
    OpCase("sigmoid", {"X": np.array([1, 2], np.int64)}, lambda X: sig(X.astype(np.float64)).astype(np.float32),
           name="int_autocast"),
    OpCase("tanh", {"X": r(3, 4)}, lambda X: np.tanh(X)),
    OpCase("silu", {"X": r(3, 4, lo=-5, hi=5)}, lambda X: X * sig(X)),
    OpCase("swish", {"X": r(3, 4, lo=-5, hi=5)}, lambda X: X / (1 + np.exp(-X))),
    OpCase("hard_swish", {"X": away(4, 5, kinks=(-3.0, 3.0), lo=-5, hi=5)},
           lambda X: X * np.minimum(np.maximum(X + 3, 0), 6) / 6),
    OpCase("hard_swish", {"X": away(4, 5, kinks=(-1.0, 1.0), lo=-3, hi=3)},
           lambda X, threshold, scale, offset: X * np.minimum(np.maximum(X + offset, 0), threshold) / scale,
           attrs={"threshold": 2.0, "scale": 4.0, "offset": 1.0}, name="attrs"),
    OpCase("hard_sigmoid", {"X": away(4, 5, kinks=(-2.5, 2.5), lo=-4, hi=4)},
           lambda X: np.clip(0.2 * X + 0.5, 0, 1), rtol=1e-6),
    OpCase("hard_sigmoid", {"X": away(4, 5, kinks=(-3.0, 3.0), lo=-4, hi=4)},
           lambda X, slope, offset: np.clip(X / 6 + 0.5, 0, 1), attrs={"slope": 1 / 6, "offset": 0.5},
           name="slope"),
    OpCase("softplus", {"X": r(3, 4, lo=-5, hi=5)}, lambda X: np.log(1 + np.exp(X))),
    OpCase("softplus", {"X": np.array([-3.0, 0.5, 2.0, 8.0])},
           lambda X, beta, threshold: np.where(X * beta > threshold, X, np.log(1 + np.exp(beta * X)) / beta),
           attrs={"beta": 2.0, "threshold": 10.0}, name="beta_threshold"),
    OpCase("softsign", {"X": away(3, 4)}, lambda X: X / (1 + np.abs(X))),
    OpCase("stanh", {"X": r(3, 4)}, lambda X: 1.7159 * np.tanh(0.67 * X), rtol=1e-6),
    OpCase("softmax", {"X": r(3, 4)}, lambda X: softmax_ref(X)),
    OpCase("softmax", {"X": r(3, 4, 2)}, lambda X, axis: softmax_ref(X, axis), attrs={"axis": 1}, name="axis1"),
    OpCase("softmax", {"X": r(3, 4)}, lambda X, axis: softmax_ref(X, 0), attrs={"axis": 0}, name="axis0"),
    OpCase("softmax", {"X": np.array([[1000.0, 1001.0], [-1000.0, -1000.0]], np.float32)},
           lambda X: np.array([[1 / (1 + math.e), math.e / (1 + math.e)], [0.5, 0.5]], np.float32),
           name="stable", check_grad=False),
    OpCase("log_softmax", {"X": r(3, 4)}, lambda X: log_softmax_ref(X)),
    OpCase("log_softmax", {"X": r(2, 3, 4)}, lambda X, axis: log_softmax_ref(X, axis), attrs={"axis": -2},
           name="axis_neg2"),
    OpCase("log_softmax", {"X": np.array([0.0, 2000.0], np.float32)}, lambda X: np.array([-2000.0, 0.0], np.float32),
           name="stable", check_grad=False),
]
