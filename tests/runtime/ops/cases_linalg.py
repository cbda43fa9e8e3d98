"""Table rows for the linear-algebra ops (inverse, determinant, solve, cholesky, qr, svd, eigh, lu ...).

References are written independently of the kernels where that is cheap (inverse by solving
against the identity, det as a product of eigenvalues, Cholesky by the textbook recurrence, LU by
Doolittle elimination); decompositions with a sign freedom are checked by their defining
properties (orthonormal factors, triangular shape, reconstruction) through ``compare``.
"""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(16)


def r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


def well(*shape):
    """Well-conditioned square matrices (diagonally dominant)."""
    n = shape[-1]
    return r(*shape) + n * np.eye(n)


def spd(*shape):
    m = r(*shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def mT(a):
    return np.swapaxes(a, -1, -2)


def chol_ref(a):
    """Cholesky-Banachiewicz, one matrix at a time."""
    flat = a.reshape((-1,) + a.shape[-2:])
    out = np.zeros_like(flat)
    n = a.shape[-1]
    for b, m in enumerate(flat):
        low = out[b]
        for i in range(n):
            for j in range(i + 1):
                s = m[i, j] - low[i, :j] @ low[j, :j]
                low[i, j] = np.sqrt(s) if i == j else s / low[j, j]
    return out.reshape(a.shape)


def inv_ref(a):
    return np.linalg.solve(a, np.broadcast_to(np.eye(a.shape[-1]), a.shape))


def det_ref(a):
    return np.prod(np.linalg.eigvals(a), axis=-1).real


def solve_ref(X, Y):
    vec = Y.ndim == 1 or (Y.ndim == X.ndim - 1 and Y.shape == X.shape[:-1])
    out = inv_ref(X) @ (Y[..., None] if vec else Y)
    return out[..., 0] if vec else out


def tri_solve_ref(X, Y, upper=True, transpose=False, unitriangular=False):
    t = np.triu(X) if upper else np.tril(X)
    if unitriangular:
        t = t - np.diagonal(t, 0, -2, -1)[..., None] * np.eye(t.shape[-1]) + np.eye(t.shape[-1])
    if transpose:
        t = mT(t)
    return inv_ref(t) @ Y


def chol_solve_ref(X, Y, upper=False):
    f = np.triu(Y) if upper else np.tril(Y)
    a = mT(f) @ f if upper else f @ mT(f)
    return inv_ref(a) @ X


def doolittle(a):
    """Packed LU with partial pivoting (1-based pivots), one matrix at a time."""
    flat = np.array(a, dtype=float).reshape((-1,) + a.shape[-2:])
    m, n = a.shape[-2:]
    k = min(m, n)
    pivs = np.zeros((flat.shape[0], k), np.int32)
    for b, w in enumerate(flat):
        for j in range(k):
            p = j + int(np.argmax(np.abs(w[j:, j])))
            pivs[b, j] = p + 1
            w[[j, p]] = w[[p, j]]
            w[j + 1:, j] /= w[j, j]
            w[j + 1:, j + 1:] -= np.outer(w[j + 1:, j], w[j, j + 1:])
    return flat.reshape(a.shape), pivs.reshape(a.shape[:-2] + (k,))


def perm_from_pivots(piv, m):
    flat = piv.reshape(-1, piv.shape[-1])
    out = []
    for row in flat:
        p = np.eye(m)
        for j, q in enumerate(row - 1):
            p[:, [j, q]] = p[:, [q, j]]
        out.append(p)
    return np.array(out).reshape(piv.shape[:-1] + (m, m))


def _close(a, b, tol=1e-8):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _is_orthonormal_cols(q):
    _close(mT(q).conj() @ q, np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2))


def qr_compare(actual, case):
    x, mode = case.inputs["X"], case.attrs.get("mode", "reduced")
    q, rr = actual
    k = min(x.shape[-2:])
    assert np.allclose(rr, np.triu(rr)), "R is not upper triangular"
    if mode == "r":
        assert q.shape == (0,) and rr.shape == x.shape[:-2] + (k, x.shape[-1])
        _close(np.abs(rr), np.abs(np.linalg.qr(x, mode="r")))
        return
    m = x.shape[-2]
    assert q.shape == x.shape[:-2] + ((m, m) if mode == "complete" else (m, k))
    _is_orthonormal_cols(q)
    _close(q @ rr, x)


def svd_compare(actual, case):
    x = case.inputs["X"]
    u, s, vh = actual
    full = case.attrs.get("full_matrices", False)
    k = min(x.shape[-2:])
    assert s.shape == x.shape[:-2] + (k,)
    assert np.all(np.diff(s, axis=-1) <= 0), "singular values must be descending"
    _close(s, np.sqrt(np.sort(np.linalg.eigvalsh(mT(x) @ x), axis=-1)[..., ::-1][..., :k]))
    _is_orthonormal_cols(u)
    _is_orthonormal_cols(mT(vh))
    _close((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], x)
    if full:
        assert u.shape[-1] == x.shape[-2] and vh.shape[-2] == x.shape[-1]


def eigh_compare(actual, case):
    x = case.inputs["X"]
    w, v = actual
    assert np.all(np.diff(w, axis=-1) >= 0), "eigenvalues must be ascending"
    _is_orthonormal_cols(v)
    _close(x @ v, v * w[..., None, :])


def eig_compare(actual, case):
    x = case.inputs["X"]
    w, v = actual
    assert w.dtype == np.complex128 and v.dtype == np.complex128
    _close(x @ v, v * w[..., None, :])
    _close(np.linalg.norm(v, axis=-2), np.ones(w.shape))
    _close(np.sort_complex(w.reshape(-1)), np.sort_complex(np.roots(np.poly(x)).reshape(-1)), 1e-6)


def lu_compare(actual, case):
    x = case.inputs["X"]
    lu, piv, info = actual
    ref_lu, ref_piv = doolittle(x)
    np.testing.assert_array_equal(piv, ref_piv)
    _close(lu, ref_lu)
    assert info.dtype == np.int32 and not info.any()


def lu_of(a):
    return doolittle(a)


def rank_ref(X, TolTensor=None, tol=0.0, hermitian=False, use_default_tol=True):
    s = np.abs(np.linalg.eigvalsh(X)) if hermitian else np.linalg.svd(X, compute_uv=False)
    if TolTensor is not None:
        thr = TolTensor
    elif use_default_tol:
        thr = s.max(-1) * max(X.shape[-2:]) * np.finfo(X.dtype).eps
    else:
        thr = tol
    return (s > np.asarray(thr)[..., None]).sum(-1).astype(np.int64)


def lstsq_ref(X, Y, rcond=0.0, driver="gels"):
    sol = np.linalg.pinv(X) @ Y
    m, n = X.shape[-2:]
    res = (np.sum((X @ sol - Y) ** 2, axis=-2) if driver != "gelsy" and m > n else np.zeros((0,)))
    rank = np.full(X.shape[:-2], min(m, n), np.int32)
    sv = np.linalg.svd(X, compute_uv=False) if driver in ("gelsd", "gelss") else np.zeros((0,))
    return sol, res, rank, sv


def multi_dot_ref(X):
    out = X[0]
    for a in X[1:]:
        out = out @ a
    return out


def diagonal_ref(Input, offset=0, axis1=0, axis2=1):
    moved = np.moveaxis(Input, (axis1, axis2), (-2, -1))
    n1, n2 = moved.shape[-2:]
    idx = [(i, i + offset) for i in range(n1) if 0 <= i + offset < n2]
    return np.stack([moved[..., i, j] for i, j in idx], axis=-1) if idx else moved[..., :0, 0]


def power_ref(X, n):
    a = inv_ref(X) if n < 0 else X
    out = np.broadcast_to(np.eye(X.shape[-1]), X.shape).copy()
    for _ in range(abs(n)):
        out = out @ a
    return out


_SPD = spd(2, 3, 3)
_L = chol_ref(spd(3, 3))
_TRI = well(2, 3, 3)
_SYM = spd(3, 3) - 2 * np.eye(3)
_LU_X = well(2, 3, 3)
_LU, _PIV = lu_of(_LU_X)
_RANK_X = r(2, 4, 2) @ r(2, 3)       # rank 2 (of 3) in each batch

CASES = [
    # inverse, determinant, slogdeterminant
    OpCase("inverse", {"Input": well(2, 3, 3)}, lambda Input: inv_ref(Input)),
    OpCase("inverse", {"Input": well(3, 3).astype(np.float32)}, lambda Input: inv_ref(Input), name="f32",
           rtol=1e-5, atol=1e-6, check_grad=False),
    OpCase("inverse", {"Input": well(3, 3) + 1j * r(3, 3)}, lambda Input: inv_ref(Input), name="complex"),
    OpCase("determinant", {"Input": r(2, 3, 3)}, lambda Input: det_ref(Input)),
    OpCase("determinant", {"Input": r(4, 4)}, lambda Input: det_ref(Input), name="2d"),
    OpCase("slogdeterminant", {"Input": r(2, 3, 3)},
           lambda Input: np.stack([np.sign(det_ref(Input)), np.log(np.abs(det_ref(Input)))])),
    # solve: matrix rhs with a broadcast batch, a vector rhs, a batch of vectors
    OpCase("solve", {"X": well(2, 3, 3), "Y": r(3, 2)}, solve_ref, name="broadcast"),
    OpCase("solve", {"X": well(3, 3), "Y": r(3)}, solve_ref, name="vector"),
    OpCase("solve", {"X": well(2, 3, 3), "Y": r(2, 3)}, solve_ref, name="batched_vectors"),
    # cholesky, cholesky_solve, triangular_solve
    OpCase("cholesky", {"X": _SPD}, lambda X: chol_ref(X)),
    OpCase("cholesky", {"X": _SPD}, lambda X, upper: mT(chol_ref(X)), attrs={"upper": True}, name="upper"),
    OpCase("cholesky_solve", {"X": r(2, 3, 2), "Y": _L}, chol_solve_ref),
    OpCase("cholesky_solve", {"X": r(3, 2), "Y": mT(_L)}, chol_solve_ref, attrs={"upper": True}, name="upper"),
    OpCase("triangular_solve", {"X": _TRI, "Y": r(2, 3, 2)}, tri_solve_ref),
    OpCase("triangular_solve", {"X": _TRI, "Y": r(3, 2)}, tri_solve_ref,
           attrs={"upper": False, "transpose": True}, name="lower_transposed"),
    OpCase("triangular_solve", {"X": r(3, 3), "Y": r(3, 1)}, tri_solve_ref,
           attrs={"unitriangular": True}, name="unit"),
    # qr
    OpCase("qr", {"X": r(4, 3)}, None, compare=qr_compare, name="tall"),
    OpCase("qr", {"X": r(2, 3, 4)}, None, compare=qr_compare, name="wide_batched"),
    OpCase("qr", {"X": r(2, 3)}, None, compare=qr_compare, attrs={"mode": "complete"}, name="complete_wide"),
    OpCase("qr", {"X": r(4, 3)}, None, compare=qr_compare, attrs={"mode": "r"}, name="r", check_grad=False),
    OpCase("qr", {"X": r(2, 4, 3) + 1j * r(2, 4, 3)}, None, compare=qr_compare, name="complex"),
    # svd, svdvals
    OpCase("svd", {"X": r(4, 3)}, None, compare=svd_compare, name="tall"),
    OpCase("svd", {"X": r(2, 2, 3)}, None, compare=svd_compare, name="wide_batched"),
    OpCase("svd", {"X": r(3, 2)}, None, compare=svd_compare, attrs={"full_matrices": True}, name="full",
           check_grad=False),
    OpCase("svdvals", {"x": r(2, 4, 3)},
           lambda x: np.sqrt(np.sort(np.linalg.eigvalsh(mT(x) @ x), axis=-1)[..., ::-1])),
    # eigh, eigvalsh
    OpCase("eigh", {"X": _SYM}, None, compare=eigh_compare),
    OpCase("eigh", {"X": spd(2, 3, 3)}, None, compare=eigh_compare, attrs={"UPLO": "U"}, name="upper_batched"),
    OpCase("eigvalsh", {"X": spd(2, 3, 3)}, lambda X: np.stack([np.sort(np.roots(np.poly(m)).real) for m in X]),
           rtol=1e-7, atol=1e-8),
    # eig, eigvals (complex results; Paddle's eig grad is not implemented here)
    OpCase("eig", {"X": r(3, 3)}, None, compare=eig_compare),
    OpCase("eigvals", {"X": r(2, 3, 3)},
           lambda X: np.stack([np.roots(np.poly(m)) for m in X]), check_grad=False,
           compare=lambda actual, case: [np.testing.assert_allclose(
               np.sort_complex(a), np.sort_complex(np.roots(np.poly(m))), rtol=1e-6, atol=1e-8)
               for a, m in zip(actual[0], case.inputs["X"])]),
    # matrix_power
    OpCase("matrix_power", {"X": r(2, 3, 3)}, power_ref, attrs={"n": 3}),
    OpCase("matrix_power", {"X": r(3, 3)}, power_ref, attrs={"n": 0}, name="zero"),
    OpCase("matrix_power", {"X": well(3, 3)}, power_ref, attrs={"n": -2}, name="negative"),
    # matrix_rank, matrix_rank_atol_rtol
    OpCase("matrix_rank", {"X": _RANK_X}, rank_ref),
    OpCase("matrix_rank", {"X": _RANK_X}, rank_ref, attrs={"tol": 0.5, "use_default_tol": False}, name="tol"),
    OpCase("matrix_rank", {"X": _RANK_X, "TolTensor": np.array([1e-9, 1e3])}, rank_ref,
           attrs={"use_default_tol": False}, name="tol_tensor"),
    OpCase("matrix_rank", {"X": spd(3, 3)}, rank_ref, attrs={"hermitian": True}, name="hermitian"),
    OpCase("matrix_rank_atol_rtol", {"x": _RANK_X, "atol": np.array(0.0), "rtol": np.array(1e-9)},
           lambda x, atol, rtol: rank_ref(x, TolTensor=np.maximum(
               atol, rtol * np.linalg.svd(x, compute_uv=False).max(-1)))),
    OpCase("matrix_rank_atol_rtol", {"x": _RANK_X, "atol": np.array(1e3)},
           lambda x, atol: np.zeros(2, np.int64), name="atol_only"),
    # lstsq
    OpCase("lstsq", {"X": r(5, 3), "Y": r(5, 2)}, lstsq_ref),
    OpCase("lstsq", {"X": r(2, 5, 3), "Y": r(2, 5, 2)}, lstsq_ref, attrs={"driver": "gelsd", "rcond": 1e-10},
           name="gelsd"),
    OpCase("lstsq", {"X": r(3, 4), "Y": r(3, 1)}, lstsq_ref, attrs={"driver": "gelsy"}, name="gelsy_wide"),
    # multi_dot
    OpCase("multi_dot", {"X": [r(3), r(3, 4), r(4, 2), r(2)]}, multi_dot_ref, name="vector_ends"),
    OpCase("multi_dot", {"X": [r(2, 3), r(3, 4), r(4, 2)]}, multi_dot_ref),
    # lu, lu_unpack, lu_solve
    OpCase("lu", {"X": _LU_X}, None, compare=lu_compare),
    OpCase("lu", {"X": r(4, 3)}, None, compare=lu_compare, name="tall"),
    OpCase("lu", {"X": r(2, 3, 5)}, None, compare=lu_compare, name="wide_batched"),
    OpCase("lu_unpack", {"X": _LU, "Pivots": _PIV},
           lambda X, Pivots: (perm_from_pivots(Pivots, 3), np.tril(X, -1) + np.eye(3), np.triu(X))),
    OpCase("lu_unpack", {"X": lu_of(r(4, 3))[0], "Pivots": lu_of(r(4, 3))[1]},
           lambda X, Pivots: (perm_from_pivots(Pivots, 4), np.tril(X, -1) + np.eye(4, 3), np.triu(X)[:3]),
           name="tall"),
    OpCase("lu_unpack", {"X": _LU, "Pivots": _PIV},
           lambda X, Pivots, unpack_ludata: (perm_from_pivots(Pivots, 3), np.zeros(0, np.float32),
                                             np.zeros(0, np.float32)),
           attrs={"unpack_ludata": False}, name="pivots_only"),
    OpCase("lu_solve", {"b": r(2, 3, 2), "lu": _LU, "pivots": _PIV},
           lambda b, lu, pivots: np.linalg.solve(_LU_X, b)),
    OpCase("lu_solve", {"b": r(2, 3, 2), "lu": _LU, "pivots": _PIV},
           lambda b, lu, pivots, trans: np.linalg.solve(mT(_LU_X), b), attrs={"trans": "T"}, name="T"),
    # diagonal
    OpCase("diagonal", {"Input": r(3, 4)}, diagonal_ref),
    OpCase("diagonal", {"Input": r(2, 3, 4)}, diagonal_ref, attrs={"offset": -1, "axis1": 2, "axis2": 1},
           name="offset_axes"),
]


def expm_ref(X):
    """Taylor series on X / 2^8, squared back (independent of the kernel's Pade approximant)."""
    out = []
    for m in X.reshape((-1,) + X.shape[-2:]):
        a = m / 256.0
        term = np.eye(m.shape[0])
        acc = term.copy()
        for k in range(1, 30):
            term = term @ a / k
            acc = acc + term
        for _ in range(8):
            acc = acc @ acc
        out.append(acc)
    return np.array(out).reshape(X.shape)


def householder_ref(X, Tau):
    out = []
    for x, tau in zip(X.reshape((-1,) + X.shape[-2:]), Tau.reshape(-1, Tau.shape[-1])):
        m, n = x.shape
        q = np.eye(m)
        for i in range(tau.shape[0]):
            v = np.concatenate([np.zeros(i), [1.0], x[i + 1:, i]])
            q = q @ (np.eye(m) - tau[i] * np.outer(v, v))
        out.append(q[:, :n])
    return np.array(out).reshape(X.shape)


CASES += [
    OpCase("matrix_exp", {"X": r(2, 3, 3)}, expm_ref),
    OpCase("matrix_exp", {"X": 4 * r(3, 3)}, expm_ref, name="scaled"),
    OpCase("householder_product", {"X": r(4, 3), "Tau": r(2)}, householder_ref),
    OpCase("householder_product", {"X": r(2, 3, 3), "Tau": r(2, 3)}, householder_ref, name="batched"),
]
