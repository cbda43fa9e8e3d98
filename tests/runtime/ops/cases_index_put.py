"""Table rows for runtime/ops/index_put.py against numpy item assignment."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(17)


def _put(X, idx, V, acc=False):
    out = X.copy()
    if acc:
        np.add.at(out, idx, np.broadcast_to(V, out[idx].shape))
    else:
        out[idx] = V
    return out


_X = rng.uniform(-1, 1, (4, 3))
_MASK = _X > 0.2
_ROWS = np.array([2, 0])
_COLS = np.array([1, 2])

CASES = [
    OpCase("index_put", {"x": _X, "indices": [_MASK], "value": np.array([0.5])},
           lambda x, indices, value: _put(x, np.nonzero(_MASK), value), name="bool_mask"),
    OpCase("index_put", {"x": _X, "indices": [_ROWS, _COLS], "value": rng.uniform(-1, 1, (2,))},
           lambda x, indices, value: _put(x, (_ROWS, _COLS), value), name="int_pairs"),
    OpCase("index_put", {"x": _X, "indices": [_ROWS], "value": rng.uniform(-1, 1, (1, 3))},
           lambda x, indices, value: _put(x, (_ROWS,), value), name="rows_broadcast"),
    OpCase("index_put", {"x": _X, "indices": [np.array([1, 1, 3]), np.array([0, 0, 2])],
                         "value": rng.uniform(-1, 1, (3,))},
           lambda x, indices, value, accumulate: _put(x, (np.array([1, 1, 3]), np.array([0, 0, 2])), value, True),
           attrs={"accumulate": True}, name="accumulate_duplicates"),
    OpCase("index_put", {"x": rng.uniform(-1, 1, (3, 4, 2)), "indices": [np.array([-1, 0]), np.array([[1], [-4]])],
                         "value": rng.uniform(-1, 1, (2, 1, 2))},
           lambda x, indices, value: _put(x, (np.array([-1, 0]), np.array([[1], [-4]])), value),
           name="negative_broadcast_indices"),
    OpCase("index_put", {"x": _X, "indices": [np.array([1, 3, 1]), np.array([2, 0, 2])],
                         "value": rng.uniform(-1, 1, (3,))},
           lambda x, indices, value: _put(x, (np.array([1, 3, 1]), np.array([2, 0, 2])), value),
           name="duplicates_last_write_wins"),
]
