"""Table rows for arg_max/arg_min, top_k_v2, argsort and where_index."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(12)


def distinct(*shape):
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.41 - 2.0).reshape(shape).astype(np.float64)


def sort_rows(X, largest, k=None):
    """Reference top-k / sort along the last axis with a plain Python loop (stable ties)."""
    lead = X.shape[:-1]
    n = X.shape[-1]
    k = n if k is None else k
    vals = np.empty(lead + (k,), X.dtype)
    idxs = np.empty(lead + (k,), np.int64)
    for pos in np.ndindex(*lead):
        row = X[pos].tolist()
        order = sorted(range(n), key=lambda j: (-row[j], j) if largest else (row[j], j))[:k]
        vals[pos] = [row[j] for j in order]
        idxs[pos] = order
    return vals, idxs


def on_axis0(fn):
    def ref(X, **kw):
        v, i = fn(np.moveaxis(X, 0, -1))
        return np.moveaxis(v, -1, 0), np.moveaxis(i, -1, 0)
    return ref


# 20 values with many ties, and the orders real Paddle 3.3.1's CPU kernels give them
TIES20 = np.array([5., 1, 5, 5, 2, 5, 0, 5, 1, 1, 5, 2, 2, 5, 5, 5, 1, 5, 0, 5])
ASC20 = [18, 6, 1, 16, 8, 9, 4, 11, 12, 19, 0, 17, 15, 14, 13, 10, 7, 5, 3, 2]

X34 = np.array([[1.0, 5.0, 5.0, -2.0], [7.0, 2.0, 7.0, 0.5], [0.0, -1.0, 3.0, 3.5]])

CASES = [
    OpCase("arg_max", {"X": X34}, lambda X, **_: np.array([1, 0, 3]), attrs={"axis": 1}),
    OpCase("arg_max", {"X": X34}, lambda X, **_: np.array([[1], [0], [3]]), attrs={"axis": -1, "keepdims": True},
           name="keepdims"),
    OpCase("arg_max", {"X": X34}, lambda X, **_: np.array(4), attrs={"axis": 0, "flatten": True}, name="flatten"),
    OpCase("arg_max", {"X": X34}, lambda X, **_: np.array([[4]]), attrs={"flatten": True, "keepdims": True},
           name="flatten_keep"),
    OpCase("arg_max", {"X": X34}, lambda X, **_: np.array([1, 0, 1, 2], dtype=np.int32),
           attrs={"axis": 0, "dtype": 2}, name="int32"),
    OpCase("arg_max", {"X": np.array(3.0)}, lambda X, **_: np.array(0), attrs={"axis": 0}, name="0d"),
    OpCase("arg_min", {"X": X34}, lambda X, **_: np.array([3, 3, 1]), attrs={"axis": 1}),
    OpCase("arg_min", {"X": np.array([4, 1, 1, 9])}, lambda X, **_: np.array(1), attrs={"axis": 0, "flatten": True},
           name="int_ties_first"),
    OpCase("top_k_v2", {"X": distinct(3, 5)}, lambda X, k, **_: sort_rows(X, True, k), attrs={"k": 2}),
    OpCase("top_k_v2", {"X": distinct(3, 5)}, lambda X, k, largest, **_: sort_rows(X, False, k),
           attrs={"k": 3, "largest": False}, name="smallest"),
    OpCase("top_k_v2", {"X": distinct(4, 3)}, on_axis0(lambda X, **_: sort_rows(X, True, 2)),
           attrs={"k": 2, "axis": 0}, name="axis0"),
    OpCase("top_k_v2", {"X": distinct(2, 4), "K": np.array([3])}, lambda X, K, **_: sort_rows(X, True, 3),
           name="K_tensor"),
    # tie order measured on real Paddle 3.3.1 (CPU: nth_element, then std::sort of the first k-1)
    OpCase("top_k_v2", {"X": np.array([3.0, 1.0, 3.0, 3.0, 2.0])},
           lambda X, **_: (np.array([3.0, 3.0, 3.0]), np.array([2, 3, 0])),
           attrs={"k": 3}, name="ties_paddle_order", check_grad=False),
    OpCase("top_k_v2", {"X": TIES20},
           lambda X, **_: (TIES20[[15, 0, 13, 14, 10, 17]], np.array([15, 0, 13, 14, 10, 17])),
           attrs={"k": 6}, name="ties_paddle_order_20", check_grad=False),
    OpCase("top_k_v2", {"X": TIES20}, lambda X, **_: (TIES20[[18, 6, 16, 9, 8, 1]], np.array([18, 6, 16, 9, 8, 1])),
           attrs={"k": 6, "largest": False}, name="ties_paddle_order_smallest", check_grad=False),
    OpCase("argsort", {"X": TIES20}, lambda X, **_: (TIES20[ASC20], np.array(ASC20)),
           name="ties_paddle_std_sort", check_grad=False),
    OpCase("argsort", {"X": TIES20}, lambda X, **_: (np.sort(TIES20, kind="stable"), np.argsort(TIES20, kind="stable")),
           attrs={"stable": True}, name="ties_stable", check_grad=False),
    OpCase("top_k_v2", {"X": np.array(2.5)}, lambda X, **_: (X, np.array(0)), name="0d"),
    OpCase("argsort", {"X": distinct(3, 4)}, lambda X, **_: sort_rows(X, False)),
    OpCase("argsort", {"X": distinct(3, 4)}, lambda X, descending, **_: sort_rows(X, True),
           attrs={"descending": True}, name="descending"),
    OpCase("argsort", {"X": distinct(3, 2)}, on_axis0(lambda X, **_: sort_rows(X, False)), attrs={"axis": 0},
           name="axis0"),
    OpCase("argsort", {"X": np.array([3.0, 1.0, 3.0, 3.0, 2.0])}, lambda X, descending, **_: sort_rows(X, True),
           attrs={"descending": True}, name="ties_stable_desc", check_grad=False),
    OpCase("argsort", {"X": np.array([2, 0, 2, 1], dtype=np.uint8)}, lambda X, descending, **_: sort_rows(X, True),
           attrs={"descending": True}, name="uint8_desc"),
    OpCase("where_index", {"Condition": np.array([[0, 1, 0], [2, 0, 3]])},
           lambda Condition, **_: np.array([[0, 1], [1, 0], [1, 2]])),
    OpCase("where_index", {"Condition": np.array([False, False])},
           lambda Condition, **_: np.zeros((0, 1), dtype=np.int64), name="none"),
]
