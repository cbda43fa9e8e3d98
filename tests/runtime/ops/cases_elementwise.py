"""Table rows for the binary elementwise ops."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(1)


def r(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float64)


def pos(*shape):
    return rng.uniform(0.5, 2.0, shape)


CASES = [
    OpCase("elementwise_add", {"X": r(3, 4), "Y": r(4)}, lambda X, Y: X + Y, name="broadcast"),
    OpCase("elementwise_add", {"X": r(2, 3, 4), "Y": r(3)}, lambda X, Y, axis: X + Y.reshape(3, 1),
           attrs={"axis": 1}, name="axis1"),
    OpCase("elementwise_add", {"X": np.arange(6).reshape(2, 3), "Y": np.array([1, 2, 3])},
           lambda X, Y: X + Y, name="int64"),
    OpCase("elementwise_sub", {"X": r(3, 1), "Y": r(1, 4)}, lambda X, Y: X - Y),
    OpCase("elementwise_mul", {"X": r(2, 3), "Y": r(2, 3)}, lambda X, Y: X * Y),
    OpCase("elementwise_mul", {"X": r(4, 1), "Y": r(3)}, lambda X, Y: X * Y, name="outer"),
    OpCase("elementwise_div", {"X": r(2, 3), "Y": pos(3)}, lambda X, Y: X / Y),
    OpCase("elementwise_div", {"X": np.array([7, -7, 3]), "Y": np.array([2, 2, 4])},
           lambda X, Y: (X / Y).astype(np.float32), name="int_true_div"),
    OpCase("elementwise_pow", {"X": pos(2, 3), "Y": r(2, 3)}, lambda X, Y: X ** Y),
    OpCase("elementwise_max", {"X": r(3, 4), "Y": r(3, 4)}, lambda X, Y: np.maximum(X, Y)),
    OpCase("elementwise_min", {"X": r(3, 4), "Y": r(4)}, lambda X, Y: np.minimum(X, Y)),
    OpCase("elementwise_floordiv", {"X": np.array([7, -7, 7, -7]), "Y": np.array([2, 2, -2, -2])},
           lambda X, Y: np.array([3, -4, -4, 3])),
    OpCase("elementwise_mod", {"X": np.array([7, -7, 7, -7]), "Y": np.array([3, 3, -3, -3])},
           lambda X, Y: np.array([1, 2, -2, -1]), name="python_sign"),
    OpCase("elementwise_mod", {"X": np.array([5.5, -5.5]), "Y": np.array([2.0, 2.0])},
           lambda X, Y: np.array([1.5, 0.5]), name="float", check_grad=False),
]
