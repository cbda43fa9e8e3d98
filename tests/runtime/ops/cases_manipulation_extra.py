"""Table rows for as_strided, multiplex, shard_index, reduce_as, crop_tensor, fill_any, fill_diagonal,
fill_diagonal_tensor and the random ops exponential, poisson, standard_gamma, binomial (moments and
seeding checked as in cases_random)."""
import numpy as np

from .cases_random import _reproducible
from .op_harness import OpCase

rng = np.random.default_rng(61)
R = lambda *s: rng.standard_normal(s)  # noqa: E731


def _as_strided_ref(input, dims, stride, offset=0, **_):
    flat = input.reshape(-1)
    out = np.empty(dims, input.dtype)
    for pos in np.ndindex(*dims):
        out[pos] = flat[offset // input.itemsize + sum(i * s for i, s in zip(pos, stride))]
    return out


def _multiplex_ref(X, Ids, **_):
    return np.stack([X[int(k)][i] for i, k in enumerate(Ids.reshape(-1))])


def _shard_ref(X, index_num, nshards, shard_id, ignore_value=-1, **_):
    size = -(-index_num // nshards)
    out = X.copy()
    for pos in np.ndindex(*X.shape):
        v = int(X[pos])
        out[pos] = v - shard_id * size if shard_id * size <= v < (shard_id + 1) * size else ignore_value
    return out


def _reduce_as_ref(x, target, **_):
    out = x
    while out.ndim > target.ndim:
        out = out.sum(0)
    for i, t in enumerate(target.shape):
        if t == 1 and out.shape[i] != 1:
            out = out.sum(i, keepdims=True)
    return out


def _crop_ref(X, shape, offsets, **_):
    out = X
    for ax, (s, o) in enumerate(zip(shape, offsets)):
        s = X.shape[ax] - o if s == -1 else s
        out = np.take(out, np.arange(o, o + s), axis=ax)
    return out


def _fill_diag_ref(X, value=0.0, offset=0, wrap=False, **_):
    out = X.copy()
    rows, cols = X.shape
    r = 0
    while r < rows:
        for k in range(min(cols, rows - r)):   # one diagonal block starting at row r
            c = k + offset
            if 0 <= c < cols:
                out[r + k, c] = value
        if not wrap:
            break
        r += cols + 1   # numpy's wrap: the next block starts one row below the previous end
    return out


def _fill_diag_tensor_ref(X, Y, offset=0, dim1=0, dim2=1, **_):
    out = np.moveaxis(X.copy(), (dim1, dim2), (-2, -1)).copy()
    n = Y.shape[-1]
    for k in range(n):
        r, c = (k, k + offset) if offset >= 0 else (k - offset, k)
        out[..., r, c] = Y[..., k]
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


def _moments(shape, dtype, mean, var, tol, lo=None, integer=False):
    def compare(actual, case):
        (out,) = actual
        assert out.shape == tuple(shape) and out.dtype == np.dtype(dtype), f"{case.id}: {out.shape} {out.dtype}"
        if lo is not None:
            assert out.min() >= lo
        if integer:
            assert np.all(out == np.round(out))
        assert abs(out.mean() - mean) < tol * max(1, abs(mean)), f"{case.id}: mean {out.mean()} vs {mean}"
        assert abs(out.var() - var) < 3 * tol * max(1, var), f"{case.id}: var {out.var()} vs {var}"
        _reproducible(case)
    return compare


BIG = np.zeros((20000,))
CASES = [
    OpCase("as_strided", {"input": R(3, 4)}, _as_strided_ref, attrs={"dims": [2, 3], "stride": [4, 1], "offset": 8}),
    OpCase("as_strided", {"input": R(8)}, _as_strided_ref, attrs={"dims": [3, 3], "stride": [2, 1], "offset": 0},
           name="overlapping"),
    OpCase("multiplex", {"X": [R(4, 3), R(4, 3), R(4, 3)], "Ids": np.array([[2], [0], [1], [2]], np.int32)},
           _multiplex_ref),
    OpCase("shard_index", {"X": np.array([[16], [1], [19], [10]], np.int64)}, _shard_ref,
           attrs={"index_num": 20, "nshards": 2, "shard_id": 1}),
    OpCase("shard_index", {"X": np.array([0, 5, 6, 12], np.int32)}, _shard_ref,
           attrs={"index_num": 13, "nshards": 3, "shard_id": 0, "ignore_value": -7}, name="uneven"),
    OpCase("reduce_as", {"x": R(2, 3, 4), "target": R(3, 1)}, _reduce_as_ref),
    OpCase("reduce_as", {"x": R(2, 3), "target": R(2, 3)}, _reduce_as_ref, name="same_shape"),
    OpCase("crop_tensor", {"X": R(4, 5)}, _crop_ref, attrs={"shape": [2, -1], "offsets": [1, 2]}),
    OpCase("fill_any", {"X": R(2, 3)}, lambda X, value=0.0, **_: np.full(X.shape, value), attrs={"value": 2.5}),
    OpCase("fill_diagonal", {"X": R(3, 4)}, _fill_diag_ref, attrs={"value": 7.0}),
    OpCase("fill_diagonal", {"X": R(4, 3)}, _fill_diag_ref, attrs={"value": -1.0, "offset": 1}, name="offset"),
    OpCase("fill_diagonal", {"X": R(7, 3)}, _fill_diag_ref, attrs={"value": 5.0, "wrap": True}, name="wrap"),
    OpCase("fill_diagonal_tensor", {"X": R(3, 4), "Y": R(3)}, _fill_diag_tensor_ref),
    OpCase("fill_diagonal_tensor", {"X": R(2, 4, 3), "Y": R(4, 2)}, _fill_diag_tensor_ref,
           attrs={"offset": -1, "dim1": 2, "dim2": 0}, name="batched"),
    OpCase("exponential", {"X": BIG}, None, attrs={"lambda": 2.0},
           compare=_moments(BIG.shape, np.float64, 0.5, 0.25, 0.03, lo=0)),
    OpCase("poisson", {"X": np.full((20000,), 3.0)}, None, compare=_moments((20000,), np.float64, 3, 3, 0.03, 0, True),
           check_grad=False),
    # the grad check: rates ~1e-6 draw 0 (all but surely), so the finite differences see a constant, 0
    # as Paddle's poisson_grad gives
    OpCase("poisson", {"X": np.full((3,), 1e-6)}, None, compare=lambda actual, case: None, eps=1e-9,
           name="grad"),
    OpCase("standard_gamma", {"x": np.full((20000,), 2.0)}, None,
           compare=_moments((20000,), np.float64, 2, 2, 0.04, lo=0)),
    OpCase("binomial", {"count": np.full((20000,), 10, np.int64), "prob": np.full((20000,), 0.3)}, None,
           compare=_moments((20000,), np.int64, 3, 2.1, 0.03, 0, True)),
]
