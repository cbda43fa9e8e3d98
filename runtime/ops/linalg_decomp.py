"""Decomposition ops (Paddle's op types): qr, svd, svdvals, eigh, eigvalsh, eig, eigvals,
matrix_rank, matrix_rank_atol_rtol, lstsq, and householder_product, with their grads where Paddle
has them. Dtype and shape rules, and why eigh/eigvalsh factor ``(x + x^H) / 2``, are explained in
linalg.py, whose helpers these share.
"""
from __future__ import annotations

import numpy as np

from .linalg import _batch, _check_dtype, _check_matrix, _complex_dtype, _hermitian_part, _mH, _real_dtype
from .registry import Meta, grad_op, register


# ---------------------------------------------------------------------------------------------
# qr
# ---------------------------------------------------------------------------------------------
_QR_MODES = ("reduced", "complete", "r")


def _qr_meta(x, mode="reduced", **_):
    _check_dtype("qr", x.dtype)
    _check_matrix("qr", x.shape)
    if mode not in _QR_MODES:
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    *batch, m, n = x.shape
    batch = tuple(batch)
    k = -1 if -1 in (m, n) else min(m, n)
    if mode == "r":
        return Meta((0,), x.dtype), Meta(batch + (k, n), x.dtype)
    if mode == "complete":
        return Meta(batch + (m, m), x.dtype), Meta(batch + (m, n), x.dtype)
    return Meta(batch + (m, k), x.dtype), Meta(batch + (k, n), x.dtype)


def _qr(x, mode="reduced", **_):
    _qr_meta(Meta.of(x), mode)
    if mode == "r":
        r = np.linalg.qr(x, mode="r")
        return np.zeros((0,), x.dtype), np.asarray(r).astype(x.dtype, copy=False)
    q, r = np.linalg.qr(x, mode=mode)
    return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)


def _copyltu(m):
    """The Hermitian matrix whose lower triangle is m's (the upper one mirrors it)."""
    low = np.tril(m, -1)
    return low + _mH(low) + np.eye(m.shape[-1], dtype=m.dtype) * np.real(np.diagonal(m, 0, -2, -1))[..., None, :]


def _qr_square_grad(q, r, gq, gr):
    """gA for A = QR with Q [m, k], R [k, k] (m >= k): (gQ + Q copyltu(M)) R^-H, M = R gR^H - gQ^H Q."""
    m = r @ _mH(gr) - _mH(gq) @ q
    b = gq + q @ _copyltu(m)
    # b R^-H = (R^-1 b^H)^H
    return _mH(np.linalg.solve(r, _mH(b)))


def _qr_grad(x, q, r, gq, gr, mode="reduced", **_):
    m, n = x.shape[-2:]
    if mode == "r":
        raise ValueError("qr: the gradient needs Q; mode='r' computes R only (use mode='reduced')")
    if mode == "complete" and m > n:
        raise ValueError("qr: the gradient of mode='complete' is defined only when M <= N, "
                         f"got shape {list(x.shape)} (use mode='reduced')")
    gq = np.zeros_like(q) if gq is None else gq
    gr = np.zeros_like(r) if gr is None else gr
    if m >= n:
        return _qr_square_grad(q, r, gq, gr).astype(x.dtype, copy=False)
    # wide A = Q [X | Y], R = [U | V]: X = QU is square; Y = QV adds Q gV to Y's grad and Y gV^H to gQ
    y = x[..., m:]
    u, gu, gv = r[..., :m], gr[..., :m], gr[..., m:]
    gx = _qr_square_grad(q, u, gq + y @ _mH(gv), gu)
    gy = q @ gv
    return np.concatenate([gx, gy], axis=-1).astype(x.dtype, copy=False)


register("qr", ["X"], ["Q", "R"], {"mode": ("STRING", "reduced")}, kernel=_qr, infer_meta=_qr_meta)
grad_op("qr", ["X", "Q", "R", "Q@GRAD?", "R@GRAD?"], ["X@GRAD"], _qr_grad)


# ---------------------------------------------------------------------------------------------
# svd, svdvals
# ---------------------------------------------------------------------------------------------
def _svd_meta(x, full_matrices=False, **_):
    _check_dtype("svd", x.dtype)
    _check_matrix("svd", x.shape)
    *batch, m, n = x.shape
    batch = tuple(batch)
    k = -1 if -1 in (m, n) else min(m, n)
    real = _real_dtype(x.dtype)
    if full_matrices:
        return Meta(batch + (m, m), x.dtype), Meta(batch + (k,), real), Meta(batch + (n, n), x.dtype)
    return Meta(batch + (m, k), x.dtype), Meta(batch + (k,), real), Meta(batch + (k, n), x.dtype)


def _svd(x, full_matrices=False, **_):
    _svd_meta(Meta.of(x), full_matrices)
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return u.astype(x.dtype, copy=False), s.astype(_real_dtype(x.dtype), copy=False), vh.astype(x.dtype, copy=False)


def _svd_backward(u, s, vh, gu, gs, gvh):
    """gA for A = U diag(s) V^H (thin: U [m, k], V [n, k]), real or complex (Townsend 2016)."""
    k = s.shape[-1]
    v = _mH(vh)
    sc = s.astype(u.dtype)
    inner = np.zeros(u.shape[:-2] + (k, k), dtype=u.dtype)
    if gs is not None:
        inner = inner + np.eye(k, dtype=u.dtype) * gs.astype(u.dtype)[..., None, :]
    s2 = s * s
    with np.errstate(divide="ignore"):
        f = 1.0 / (s2[..., None, :] - s2[..., :, None])         # F_ij = 1 / (s_j^2 - s_i^2)
    f[..., np.arange(k), np.arange(k)] = 0
    f = np.where(np.isfinite(f), f, 0)
    out = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        if gu is not None:
            j = _mH(u) @ gu
            inner = inner + (f * (j - _mH(j))) * sc[..., None, :]
            if u.shape[-2] > k:   # the part of gU outside U's column space
                out = out + ((gu - u @ j) / sc[..., None, :]) @ vh
        if gvh is not None:
            gv = _mH(gvh)
            kk = _mH(v) @ gv
            inner = inner + sc[..., :, None] * (f * (kk - _mH(kk)))
            if v.shape[-2] > k:
                out = out + u @ _mH((gv - v @ kk) / sc[..., None, :])
        if np.iscomplexobj(u) and gu is not None:
            # the phase freedom of complex singular vectors adds an imaginary diagonal term
            d = np.imag(np.diagonal(_mH(u) @ gu, 0, -2, -1))
            inner = inner + np.eye(k) * (1j * d / (2 * s))[..., None, :]
    return out + u @ inner @ vh


def _svd_grad(x, u, s, vh, gu, gs, gvh, full_matrices=False, **_):
    k = s.shape[-1]
    # full_matrices: only the first k columns of U / rows of V^H depend smoothly on x
    u, vh = u[..., :k], vh[..., :k, :]
    gu = None if gu is None else gu[..., :k]
    gvh = None if gvh is None else gvh[..., :k, :]
    return _svd_backward(u, s, vh, gu, gs, gvh).astype(x.dtype, copy=False)


register("svd", ["X"], ["U", "S", "VH"], {"full_matrices": ("BOOLEAN", False)}, kernel=_svd, infer_meta=_svd_meta)
grad_op("svd", ["X", "U", "S", "VH", "U@GRAD?", "S@GRAD?", "VH@GRAD?"], ["X@GRAD"], _svd_grad)


def _svdvals_meta(x, **_):
    _check_dtype("svdvals", x.dtype, complex_ok=False)   # Paddle's svdvals kernel is real-only
    return _svd_meta(x)[1]


def _svdvals(x, **_):
    _svdvals_meta(Meta.of(x))
    return np.linalg.svd(x, compute_uv=False).astype(_real_dtype(x.dtype), copy=False)


def _svdvals_grad(x, ds, **_):
    u, _, vh = np.linalg.svd(x, full_matrices=False)
    return (u * ds.astype(u.dtype)[..., None, :]) @ vh


register("svdvals", ["x"], ["s"], {}, kernel=_svdvals, infer_meta=_svdvals_meta)
grad_op("svdvals", ["x", "s@GRAD"], ["x@GRAD"], _svdvals_grad)


# ---------------------------------------------------------------------------------------------
# eigh, eigvalsh
# ---------------------------------------------------------------------------------------------
def _uplo(op, uplo):
    if uplo not in ("L", "U"):
        raise ValueError(f"{op}: UPLO must be 'L' or 'U', got {uplo!r}")


def _eigh_meta(x, UPLO="L", **_):
    _check_dtype("eigh", x.dtype)
    _check_matrix("eigh", x.shape, square=True)
    _uplo("eigh", UPLO)
    return Meta(tuple(x.shape[:-1]), _real_dtype(x.dtype)), Meta(tuple(x.shape), x.dtype)


def _eigh(x, UPLO="L", **_):
    _eigh_meta(Meta.of(x), UPLO)
    w, v = np.linalg.eigh(_hermitian_part(x), UPLO=UPLO)
    return w.astype(_real_dtype(x.dtype), copy=False), v.astype(x.dtype, copy=False)


def _eigh_backward(w, v, gw, gv):
    inner = 0
    if gw is not None:
        inner = np.eye(w.shape[-1], dtype=v.dtype) * gw.astype(v.dtype)[..., None, :]
    if gv is not None:
        m = _mH(v) @ gv
        with np.errstate(divide="ignore"):
            f = 1.0 / (w[..., None, :] - w[..., :, None])       # 1 / (w_j - w_i)
        n = w.shape[-1]
        f[..., np.arange(n), np.arange(n)] = 0
        f = np.where(np.isfinite(f), f, 0)
        inner = inner + f * (m - _mH(m)) * 0.5
    return v @ inner @ _mH(v)


def _eigh_grad(w, v, gw, gv, UPLO="L", **_):
    return _eigh_backward(w, v, gw, gv).astype(v.dtype, copy=False)


register("eigh", ["X"], ["Eigenvalues", "Eigenvectors"], {"UPLO": ("STRING", "L")},
         kernel=_eigh, infer_meta=_eigh_meta)
grad_op("eigh", ["Eigenvalues", "Eigenvectors", "Eigenvalues@GRAD?", "Eigenvectors@GRAD?"], ["X@GRAD"],
        _eigh_grad, infer_meta=lambda w, v, *_, **__: Meta(tuple(v.shape), v.dtype))


def _eigvalsh_meta(x, UPLO="L", is_test=False, **_):
    _check_dtype("eigvalsh", x.dtype)
    _check_matrix("eigvalsh", x.shape, square=True)
    _uplo("eigvalsh", UPLO)
    return Meta(tuple(x.shape[:-1]), _real_dtype(x.dtype)), Meta(tuple(x.shape), x.dtype)


def _eigvalsh(x, UPLO="L", is_test=False, **_):
    _eigvalsh_meta(Meta.of(x), UPLO)
    w = np.linalg.eigvalsh(_hermitian_part(x), UPLO=UPLO)
    return w.astype(_real_dtype(x.dtype), copy=False)


def _eigvalsh_grad(x, gw, UPLO="L", is_test=False, **_):
    # the eigenvectors (Paddle's intermediate output) are recomputed here: eager mode does not keep them
    _, v = np.linalg.eigh(_hermitian_part(x), UPLO=UPLO)
    return ((v * gw.astype(v.dtype)[..., None, :]) @ _mH(v)).astype(x.dtype, copy=False)


register("eigvalsh", ["X"], ["Eigenvalues", "Eigenvectors(intermediate)"],
         {"UPLO": ("STRING", "L"), "is_test": ("BOOLEAN", False)}, kernel=_eigvalsh, infer_meta=_eigvalsh_meta)
grad_op("eigvalsh", ["X", "Eigenvalues@GRAD"], ["X@GRAD"], _eigvalsh_grad)


# ---------------------------------------------------------------------------------------------
# eig, eigvals (complex results, no gradient here)
# ---------------------------------------------------------------------------------------------
def _eig_meta(x, **_):
    _check_dtype("eig", x.dtype)
    _check_matrix("eig", x.shape, square=True)
    c = _complex_dtype(x.dtype)
    return Meta(tuple(x.shape[:-1]), c), Meta(tuple(x.shape), c)


def _eig(x, **_):
    _eig_meta(Meta.of(x))
    w, v = np.linalg.eig(x)
    c = _complex_dtype(x.dtype)
    return w.astype(c), v.astype(c)


register("eig", ["X"], ["Eigenvalues", "Eigenvectors"], {}, kernel=_eig, infer_meta=_eig_meta)


def _eigvals_meta(x, **_):
    return _eig_meta(x)[0]


def _eigvals(x, **_):
    _eig_meta(Meta.of(x))
    return np.linalg.eigvals(x).astype(_complex_dtype(x.dtype))


register("eigvals", ["X"], ["Out"], {}, kernel=_eigvals, infer_meta=_eigvals_meta)


# ---------------------------------------------------------------------------------------------
# matrix_rank, matrix_rank_atol_rtol (int64 results, no gradient)
# ---------------------------------------------------------------------------------------------
def _singular_values(x, hermitian):
    if hermitian:
        return np.abs(np.linalg.eigvalsh(x, UPLO="L"))
    return np.linalg.svd(x, compute_uv=False)


def _matrix_rank_meta(x, tol_tensor=None, tol=0.0, hermitian=False, use_default_tol=True, **_):
    _check_dtype("matrix_rank", x.dtype)
    _check_matrix("matrix_rank", x.shape)
    batch = tuple(x.shape[:-2])
    if tol_tensor is not None:
        batch = _batch(batch + (0, 0), tuple(tol_tensor.shape) + (0, 0))
    return Meta(batch, np.dtype(np.int64))


def _matrix_rank(x, tol_tensor=None, tol=0.0, hermitian=False, use_default_tol=True, **_):
    meta = _matrix_rank_meta(Meta.of(x), None if tol_tensor is None else Meta.of(tol_tensor))
    s = _singular_values(x, hermitian)
    if tol_tensor is not None:
        thr = np.asarray(tol_tensor, dtype=s.dtype)
    elif use_default_tol:
        # numpy's / Paddle's default: max(M, N) * eps * the largest singular value
        thr = s.max(axis=-1, initial=0.0) * max(x.shape[-2:]) * np.finfo(s.dtype).eps
    else:
        thr = np.asarray(tol, dtype=s.dtype)
    return np.asarray(np.sum(s > np.asarray(thr)[..., None], axis=-1), dtype=np.int64).reshape(meta.shape)


register("matrix_rank", ["X", "TolTensor?"], ["Out"],
         {"tol": ("FLOAT", 0.0), "hermitian": ("BOOLEAN", False), "use_default_tol": ("BOOLEAN", True)},
         kernel=_matrix_rank, infer_meta=_matrix_rank_meta)


def _matrix_rank_atol_rtol_meta(x, atol, rtol=None, hermitian=False, **_):
    _check_dtype("matrix_rank", x.dtype)
    _check_matrix("matrix_rank", x.shape)
    shapes = [tuple(x.shape[:-2]) + (0, 0), tuple(atol.shape) + (0, 0)]
    if rtol is not None:
        shapes.append(tuple(rtol.shape) + (0, 0))
    return Meta(_batch(*shapes), np.dtype(np.int64))


def _matrix_rank_atol_rtol(x, atol, rtol=None, hermitian=False, **_):
    _matrix_rank_atol_rtol_meta(Meta.of(x), Meta.of(atol), None if rtol is None else Meta.of(rtol))
    s = _singular_values(x, hermitian)
    smax = s.max(axis=-1, initial=0.0)
    atol = np.asarray(atol, dtype=s.dtype)
    if rtol is None:
        # Paddle: rtol defaults to max(M, N) * eps, or 0 where atol > 0
        eps_r = max(x.shape[-2:]) * np.finfo(s.dtype).eps
        rtol = np.where(atol > 0, 0.0, eps_r).astype(s.dtype)
    thr = np.maximum(atol, np.asarray(rtol, dtype=s.dtype) * smax)
    return np.asarray(np.sum(s > thr[..., None], axis=-1), dtype=np.int64)


register("matrix_rank_atol_rtol", ["x", "atol", "rtol?"], ["out"], {"hermitian": ("BOOLEAN", False)},
         kernel=_matrix_rank_atol_rtol, infer_meta=_matrix_rank_atol_rtol_meta)


# ---------------------------------------------------------------------------------------------
# lstsq (no gradient, as in Paddle)
# ---------------------------------------------------------------------------------------------
_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq_meta(x, y, rcond=0.0, driver="gels", **_):
    _check_dtype("lstsq", x.dtype, complex_ok=False, what="x")
    _check_dtype("lstsq", y.dtype, complex_ok=False, what="y")
    _check_matrix("lstsq", x.shape, what="x")
    _check_matrix("lstsq", y.shape, what="y")
    if driver not in _LSTSQ_DRIVERS:
        raise ValueError(f"lstsq: driver must be one of {_LSTSQ_DRIVERS}, got {driver!r}")
    m, n = x.shape[-2:]
    if m != y.shape[-2] and -1 not in (m, y.shape[-2]):
        raise ValueError(f"lstsq: x [..., M, N] and y [..., M, K] must have the same M, got shapes "
                         f"{list(x.shape)} and {list(y.shape)}")
    batch = _batch(x.shape, y.shape)
    k = y.shape[-1]
    dt = x.dtype
    with_res = driver != "gelsy" and (m == -1 or n == -1 or m > n)
    res = Meta(batch + (k,), dt) if with_res else Meta((0,), dt)
    sv_n = -1 if -1 in (m, n) else min(m, n)
    sv = Meta(batch + (sv_n,), dt) if driver in ("gelsd", "gelss") else Meta((0,), dt)
    return Meta(batch + (n, k), dt), res, Meta(batch, np.dtype(np.int32)), sv


def _lstsq(x, y, rcond=0.0, driver="gels", **_):
    sol_m, res_m, _, sv_m = _lstsq_meta(Meta.of(x), Meta.of(y), rcond, driver)
    batch = sol_m.shape[:-2]
    m, n = x.shape[-2:]
    a = np.broadcast_to(x, batch + x.shape[-2:]).reshape((-1, m, n))
    b = np.broadcast_to(y, batch + y.shape[-2:]).reshape((-1, m, y.shape[-1]))
    sols, ranks, svs = [], [], []
    for ai, bi in zip(a, b):
        sol, _, rank, sv = np.linalg.lstsq(ai.astype(np.float64), bi.astype(np.float64),
                                           rcond=rcond if rcond > 0 else None)
        sols.append(sol)
        ranks.append(rank)
        svs.append(sv)
    sol = np.asarray(sols).reshape(sol_m.shape).astype(x.dtype)
    if res_m.shape == (0,):
        res = np.zeros((0,), x.dtype)
    else:
        # ||x @ solution - y||^2 per right-hand side (what LAPACK leaves in rows N.. of B)
        r = np.broadcast_to(x, batch + x.shape[-2:]) @ sol - np.broadcast_to(y, batch + y.shape[-2:])
        res = np.sum(np.abs(r) ** 2, axis=-2).astype(x.dtype)
    rank = np.asarray(ranks, dtype=np.int32).reshape(batch)
    sv = (np.asarray(svs).reshape(sv_m.shape).astype(x.dtype) if sv_m.shape != (0,)
          else np.zeros((0,), x.dtype))
    return sol, res, rank, sv


register("lstsq", ["X", "Y"], ["Solution", "Residuals?", "Rank", "SingularValues"],
         {"rcond": ("FLOAT", 0.0), "driver": ("STRING", "gels")}, kernel=_lstsq, infer_meta=_lstsq_meta)


# ---------------------------------------------------------------------------------------------
# householder_product: Paddle builds it in Python from set-item updates; here it is one op with
# an exact gradient (not a Paddle op type: a Program using it does not load into real Paddle)
# ---------------------------------------------------------------------------------------------
def _householder_meta(x, tau, **_):
    _check_dtype("householder_product", x.dtype, what="x")
    if np.dtype(x.dtype) != np.dtype(tau.dtype):
        raise TypeError(f"householder_product: x and tau must have the same dtype, got {x.dtype} and {tau.dtype}")
    xs, ts = tuple(x.shape), tuple(tau.shape)
    if len(xs) < 2 or len(ts) != len(xs) - 1:
        raise ValueError(f"householder_product: x must be [..., M, N] and tau [..., K], got shapes "
                         f"{list(xs)} and {list(ts)}")
    if xs[-2] < xs[-1] and -1 not in xs[-2:]:
        raise ValueError(f"householder_product: x must have M >= N, got shape {list(xs)}")
    if ts[-1] > xs[-1] and -1 not in (ts[-1], xs[-1]):
        raise ValueError(f"householder_product: tau's last dimension must be <= N, got shapes {list(xs)} and {list(ts)}")
    if any(a != b and -1 not in (a, b) for a, b in zip(xs[:-2], ts[:-1])):
        raise ValueError(f"householder_product: x and tau must have the same batch dimensions, got shapes "
                         f"{list(xs)} and {list(ts)}")
    return Meta(xs, x.dtype)


def _reflectors(x, k):
    """The Householder vectors v_i (unit at i, zeros above, x's column below) of one matrix."""
    m = x.shape[0]
    vs = []
    for i in range(k):
        v = np.zeros(m, dtype=x.dtype)
        v[i] = 1
        v[i + 1:] = x[i + 1:, i]
        vs.append(v)
    return vs


def _householder_one(x, tau):
    m, n = x.shape
    k = min(tau.shape[-1], n)
    q = np.eye(m, dtype=x.dtype)
    for i, v in enumerate(_reflectors(x, k)):
        q = q - tau[i] * np.outer(q @ v, np.conj(v))
    return q[:, :n]


def _householder_product(x, tau, **_):
    _householder_meta(Meta.of(x), Meta.of(tau))
    fx = x.reshape((-1,) + x.shape[-2:])
    ft = tau.reshape((-1, tau.shape[-1]))
    return np.array([_householder_one(a, t) for a, t in zip(fx, ft)]).reshape(x.shape).astype(x.dtype, copy=False)


def _householder_grad_one(x, tau, g):
    m, n = x.shape
    k = min(tau.shape[-1], n)
    vs = _reflectors(x, k)
    qs = [np.eye(m, dtype=x.dtype)]
    for i, v in enumerate(vs):
        qs.append(qs[-1] - tau[i] * np.outer(qs[-1] @ v, v))
    gq = np.zeros((m, m), dtype=x.dtype)
    gq[:, :n] = g
    gx = np.zeros_like(x)
    gt = np.zeros_like(tau)
    # Q_{i+1} = Q_i - tau_i (Q_i v_i) v_i^T, walked backwards
    for i in reversed(range(k)):
        q, v = qs[i], vs[i]
        qv, gv = q @ v, gq @ v
        gt[i] = -(qv @ gv)
        dv = -tau[i] * (q.T @ gv + gq.T @ qv)
        gx[i + 1:, i] = dv[i + 1:]
        gq = gq - tau[i] * np.outer(gv, v)
    return gx, gt


def _householder_product_grad(x, tau, dout, **_):
    if np.iscomplexobj(x):
        raise NotImplementedError("householder_product: the gradient of complex inputs is not implemented")
    fx = x.reshape((-1,) + x.shape[-2:])
    ft = tau.reshape((-1, tau.shape[-1]))
    fg = dout.reshape(fx.shape)
    res = [_householder_grad_one(a, t, g) for a, t, g in zip(fx, ft, fg)]
    return (np.array([r[0] for r in res]).reshape(x.shape).astype(x.dtype, copy=False),
            np.array([r[1] for r in res]).reshape(tau.shape).astype(tau.dtype, copy=False))


register("householder_product", ["X", "Tau"], ["Out"], {}, kernel=_householder_product,
         infer_meta=_householder_meta)
grad_op("householder_product", ["X", "Tau", "Out@GRAD"], ["X@GRAD", "Tau@GRAD"], _householder_product_grad)
