"""Table rows for comparisons, logical, bitwise and isfinite/isnan/isinf ops."""
import numpy as np

from .op_harness import OpCase

A = np.array([[1.0, 2.0, 3.0], [4.0, 2.0, 0.0]])
B = np.array([2.0, 2.0, 1.0])


def table(fn):
    """A reference computed element by element in Python (broadcasting B over A's rows)."""
    def ref(X, Y, **_):
        X, Y = np.broadcast_arrays(X, Y)
        return np.array([fn(a, b) for a, b in zip(X.ravel().tolist(), Y.ravel().tolist())]).reshape(X.shape)
    return ref


CASES = [
    OpCase("less_than", {"X": A, "Y": B}, table(lambda a, b, **_: a < b)),
    OpCase("less_equal", {"X": A, "Y": B}, table(lambda a, b, **_: a <= b)),
    OpCase("greater_than", {"X": A, "Y": B}, table(lambda a, b, **_: a > b)),
    OpCase("greater_equal", {"X": A, "Y": B}, table(lambda a, b, **_: a >= b)),
    OpCase("equal", {"X": A, "Y": B}, table(lambda a, b, **_: a == b)),
    OpCase("not_equal", {"X": A, "Y": B}, table(lambda a, b, **_: a != b)),
    OpCase("equal", {"X": np.array([1, 2, 3]), "Y": np.array(2)}, lambda X, Y, **_: np.array([False, True, False]),
           name="int_scalar"),
    OpCase("less_than", {"X": np.zeros((2, 3)), "Y": np.array([-1.0, 1.0])},
           lambda X, Y, axis, **_: np.array([[False] * 3, [True] * 3]), attrs={"axis": 0}, name="axis0"),
    # a 0-D float Y acts as a scalar next to an int X (Paddle 3.3.1; a shaped float Y is a TypeError)
    OpCase("greater_than", {"X": np.array([1, 2, 3]), "Y": np.array(2.5, dtype=np.float32)},
           lambda X, Y, **_: np.array([False, False, True]), name="int_vs_float"),
    OpCase("logical_and", {"X": np.array([True, True, False]), "Y": np.array([True, False, False])},
           lambda X, Y, **_: np.array([True, False, False])),
    OpCase("logical_and", {"X": np.array([[1, 0, 2]]), "Y": np.array([[3.0], [0.0]])},
           lambda X, Y, **_: np.array([[True, False, True], [False, False, False]]), name="nonbool_broadcast"),
    OpCase("logical_or", {"X": np.array([True, False, False]), "Y": np.array([False, False, True])},
           lambda X, Y, **_: np.array([True, False, True])),
    OpCase("logical_xor", {"X": np.array([True, True, False]), "Y": np.array([True, False, False])},
           lambda X, Y, **_: np.array([False, True, False])),
    OpCase("logical_not", {"X": np.array([True, False])}, lambda X, **_: np.array([False, True])),
    OpCase("logical_not", {"X": np.array([0.0, 2.0])}, lambda X, **_: np.array([True, False]), name="float"),
    OpCase("isfinite_v2", {"X": np.array([1.0, np.inf, -np.inf, np.nan])},
           lambda X, **_: np.array([True, False, False, False])),
    OpCase("isfinite_v2", {"X": np.array([1, 2])}, lambda X, **_: np.array([True, True]), name="int"),
    OpCase("isnan_v2", {"X": np.array([1.0, np.inf, np.nan])}, lambda X, **_: np.array([False, False, True])),
    OpCase("isinf_v2", {"X": np.array([1.0, np.inf, -np.inf, np.nan]).astype(np.float32)},
           lambda X, **_: np.array([False, True, True, False])),
    OpCase("bitwise_and", {"X": np.array([12, 10, -1]), "Y": np.array([10, 6, 5])},
           lambda X, Y, **_: np.array([8, 2, 5])),
    OpCase("bitwise_or", {"X": np.array([12, 10, 0]), "Y": np.array([[1], [2]])},
           lambda X, Y, **_: np.array([[13, 11, 1], [14, 10, 2]]), name="broadcast"),
    OpCase("bitwise_xor", {"X": np.array([12, 10], dtype=np.int32), "Y": np.array([10, 10], dtype=np.int32)},
           lambda X, Y, **_: np.array([6, 0], dtype=np.int32)),
    OpCase("bitwise_xor", {"X": np.array([True, False]), "Y": np.array([True, True])},
           lambda X, Y, **_: np.array([False, True]), name="bool"),
    OpCase("bitwise_not", {"X": np.array([0, 5, -3])}, lambda X, **_: np.array([-1, -6, 2])),
    OpCase("bitwise_not", {"X": np.array([True, False])}, lambda X, **_: np.array([False, True]), name="bool"),
    OpCase("bitwise_not", {"X": np.array([0, 255], dtype=np.uint8)}, lambda X, **_: np.array([255, 0], dtype=np.uint8),
           name="uint8"),
]
