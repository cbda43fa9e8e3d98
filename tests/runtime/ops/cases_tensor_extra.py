"""Table rows for unique, unique_consecutive, mode, bincount, histogram, searchsorted,
logcumsumexp, cummax/cummin, kron, diag_embed, index_add, lerp, renorm, reverse, tril/triu_indices."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(16)
R = lambda *s: rng.standard_normal(s)  # noqa: E731
DUPS = np.array([[2, 1, 3], [3, 0, 1], [2, 1, 3]])


def _unique_ref(X, axis=(), **_):
    if axis:
        o, i, v, c = np.unique(X, return_index=True, return_inverse=True, return_counts=True, axis=axis[0])
    else:
        o, i, v, c = np.unique(X.ravel(), return_index=True, return_inverse=True, return_counts=True)
    return o, i, v.ravel(), c


def _runs(seq):
    """Consecutive runs with a plain loop: (values, inverse, counts)."""
    vals, inv, counts = [], [], []
    for v in seq:
        if not vals or not np.array_equal(vals[-1], v):
            vals.append(v)
            counts.append(0)
        counts[-1] += 1
        inv.append(len(vals) - 1)
    return np.array(vals), np.array(inv), np.array(counts)


def _mode_ref(X, **_):
    # smallest most frequent value; index of its last occurrence (rows here are <= 16 long,
    # where Paddle's std::sort is an insertion sort, so equal values stay in index order)
    vals, idx = [], []
    for row in X:
        u, c = np.unique(row, return_counts=True)
        v = u[np.argmax(c)]
        vals.append(v)
        idx.append(np.nonzero(row == v)[0][-1])
    return np.array(vals), np.array(idx)


def _hist_ref(X, bins, min, max, **_):
    return np.histogram(X, bins=bins, range=(min, max))[0]


def _logcumsumexp_ref(X, axis=-1, reverse=False, **_):
    a = np.flip(X, axis) if reverse else X
    out = np.log(np.cumsum(np.exp(a), axis=axis))
    return np.flip(out, axis) if reverse else out


def _cum_ref(better):
    def ref(x, axis=-1, **_):
        a = np.moveaxis(x, axis, -1)
        out, idx = a.copy(), np.zeros(a.shape, np.int64)
        for pos in np.ndindex(*a.shape[:-1]):
            for i in range(1, a.shape[-1]):
                if better(a[pos][i], out[pos][i - 1]):
                    idx[pos][i] = i
                else:
                    out[pos][i], idx[pos][i] = out[pos][i - 1], idx[pos][i - 1]
        return np.moveaxis(out, -1, axis), np.moveaxis(idx, -1, axis)
    return ref


def _diag_embed_ref(Input, offset=0, dim1=-2, dim2=-1, **_):
    lead = Input.shape[:-1]
    n = Input.shape[-1] + abs(offset)
    out = np.zeros(lead + (n, n))
    for pos in np.ndindex(*lead):
        out[pos] = np.diag(Input[pos], offset)
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


def _index_add_ref(X, Index, AddValue, axis=0, **_):
    out = X.copy()
    for j, i in enumerate(Index):
        sl = [slice(None)] * X.ndim
        sl[axis] = i
        src = [slice(None)] * X.ndim
        src[axis] = j
        out[tuple(sl)] += AddValue[tuple(src)]
    return out


def _renorm_ref(X, p, axis, max_norm, **_):
    out = X.copy()
    for i in range(X.shape[axis]):
        sl = np.take(X, i, axis=axis)
        nrm = np.sum(np.abs(sl) ** p) ** (1 / p)
        if nrm > max_norm:
            idx = [slice(None)] * X.ndim
            idx[axis] = i
            out[tuple(idx)] = sl * max_norm / nrm
    return out


def _tri(lower, rows, cols, offset):
    pairs = [(i, j) for i in range(rows) for j in range(cols) if (j - i <= offset if lower else j - i >= offset)]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2).T


CASES = [
    OpCase("unique", {"X": DUPS}, _unique_ref),
    OpCase("unique", {"X": DUPS}, _unique_ref, attrs={"axis": [0]}, name="axis0"),
    OpCase("unique", {"X": np.array([3.5, -1.0, 3.5, 2.0])},
           lambda X, **_: tuple(a.astype(t) for a, t in zip(_unique_ref(X), (np.float64,) + (np.int32,) * 3)),
           attrs={"dtype": 2}, name="int32"),
    OpCase("unique_consecutive", {"X": np.array([1, 1, 2, 2, 3, 1, 1, 2])},
           lambda X, **_: _runs(list(X))),
    OpCase("unique_consecutive", {"X": DUPS[[0, 0, 1, 2, 2]]},
           lambda X, **_: _runs(list(X)), attrs={"axis": [0]}, name="axis0"),
    OpCase("mode", {"X": np.array([[1.0, 2, 2, 3, 3], [5, 5, 1, 1, 0], [0.5, -1, 4, 4, 4]])}, _mode_ref,
           check_grad=False),  # perturbing a tied value moves the mode: no finite differences
    OpCase("mode", {"X": R(3, 4)}, lambda X, **_: (X.min(axis=1, keepdims=True), X.argmin(axis=1)[:, None]),
           attrs={"keepdim": True}, name="distinct_keepdim"),
    OpCase("bincount", {"X": np.array([1, 2, 1, 4])}, lambda X, **_: np.array([0, 2, 1, 0, 1])),
    OpCase("bincount", {"X": np.array([1, 2, 1, 4]), "Weights": np.array([0.5, 2.0, 3.0, 4.0], np.float32)},
           lambda X, Weights, **_: np.array([0, 3.5, 2, 0, 4, 0, 0], np.float32),
           attrs={"minlength": 7}, name="weights"),
    OpCase("histogram", {"X": R(20)}, _hist_ref, attrs={"bins": 5, "min": -1.0, "max": 1.0}),
    OpCase("histogram", {"X": np.array([1.0, 2, 1, 4, 5, 2.5])}, lambda X, **_: np.array([2, 2, 0, 2]),
           attrs={"bins": 4}, name="data_range"),
    OpCase("searchsorted", {"SortedSequence": np.array([1.0, 3, 5, 7, 9]),
                            "Values": np.array([[3.0, 6, 9], [0, 10, 5]])},
           lambda SortedSequence, Values, **_: np.searchsorted(SortedSequence, Values)),
    OpCase("searchsorted", {"SortedSequence": np.array([[1, 3, 5], [2, 4, 6]]), "Values": np.array([[3, 6], [2, 7]])},
           lambda SortedSequence, Values, **_: np.array([[2, 3], [1, 3]], np.int32),
           attrs={"right": True, "out_int32": True}, name="rows_right_int32"),
    OpCase("logcumsumexp", {"X": R(3, 4)}, _logcumsumexp_ref),
    OpCase("logcumsumexp", {"X": R(3, 4)}, _logcumsumexp_ref, attrs={"axis": 0, "reverse": True}, name="axis0_rev"),
    OpCase("logcumsumexp", {"X": R(2, 3)}, lambda X, **_: np.log(np.cumsum(np.exp(X.ravel()))),
           attrs={"flatten": True}, name="flatten"),
    OpCase("cummax", {"x": R(3, 5)}, _cum_ref(np.greater_equal)),
    OpCase("cummax", {"x": np.array([[1, 3, 3, 2], [4, 4, 0, 5]])}, _cum_ref(np.greater_equal), attrs={"axis": 0},
           name="ties_axis0"),
    OpCase("cummin", {"x": R(3, 5)}, _cum_ref(np.less_equal)),
    OpCase("cummin", {"x": np.array([3, 1, 1, 2])}, lambda x, **_: (np.array([3, 1, 1, 1]), np.array([0, 1, 2, 2])),
           name="ties_later_index"),
    OpCase("kron", {"X": R(2, 3), "Y": R(3, 2)}, lambda X, Y, **_: np.kron(X, Y)),
    OpCase("kron", {"X": R(2), "Y": R(2, 3)}, lambda X, Y, **_: np.kron(X, Y), name="ranks"),
    OpCase("diag_embed", {"Input": R(2, 3)}, _diag_embed_ref),
    OpCase("diag_embed", {"Input": R(2, 3)}, _diag_embed_ref, attrs={"offset": -1, "dim1": 0, "dim2": 2},
           name="offset_dims"),
    OpCase("index_add", {"X": R(4, 3), "Index": np.array([0, 2, 0]), "AddValue": R(3, 3)}, _index_add_ref),
    OpCase("index_add", {"X": R(2, 4), "Index": np.array([3, 1]), "AddValue": R(2, 2)}, _index_add_ref,
           attrs={"axis": 1}, name="axis1"),
    OpCase("lerp", {"X": R(2, 3), "Y": R(2, 3), "Weight": R(2, 3)}, lambda X, Y, Weight: X + Weight * (Y - X)),
    OpCase("lerp", {"X": R(2, 3), "Y": R(3), "Weight": np.array([0.3])}, lambda X, Y, Weight: X + Weight * (Y - X),
           name="broadcast"),
    OpCase("renorm", {"X": R(3, 4) * 2}, _renorm_ref, attrs={"p": 2.0, "axis": 0, "max_norm": 2.0}),
    OpCase("renorm", {"X": R(2, 3, 2)}, _renorm_ref, attrs={"p": 1.0, "axis": 1, "max_norm": 1.5}, name="p1"),
    OpCase("reverse", {"X": R(2, 3, 4)}, lambda X, axis: np.flip(X, axis), attrs={"axis": [0, 2]}),
    OpCase("tril_indices", {}, lambda rows, cols, offset, **_: _tri(True, rows, cols, offset),
           attrs={"rows": 4, "cols": 3, "offset": -1}),
    OpCase("triu_indices", {}, lambda row, col, offset, **_: _tri(False, row, col, offset).astype(np.int32),
           attrs={"row": 3, "col": 4, "offset": 1, "dtype": 2}),
]
