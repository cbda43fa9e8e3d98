"""Linear-algebra ops (Paddle's op types): inverse, determinant, slogdeterminant, solve, cholesky,
cholesky_solve, triangular_solve, matrix_power, multi_dot, lu, lu_unpack, lu_solve, diagonal and
matrix_exp, with their grads where Paddle has them; the shared helpers. The decompositions (qr,
svd, eigh, eig ...) are in linalg_decomp.py.

Every op works on batches ``[..., M, N]`` (the last two dimensions are the matrix). Inputs must be
float32/float64 (complex64/complex128 where Paddle accepts them); Paddle has no integer kernels for
these ops and neither do we. Shape errors are ValueErrors, as Paddle's ``InvalidArgument`` is.

Symmetric inputs: Paddle's cholesky/eigh/eigvalsh kernels read one triangle of the input, but
their gradients are symmetric matrices. Our kernels factor ``(x + x^H) / 2`` instead, which equals
Paddle's result for every valid (Hermitian) input and makes the symmetric gradient the true
gradient of the kernel, so finite differences check it.
"""
from __future__ import annotations

import numpy as np

from .elementwise import unbroadcast
from .meta import normalize_axis
from .registry import Meta, grad_op, register

_LinAlgError = np.linalg.LinAlgError


class UnsupportedDtypeError(TypeError, RuntimeError):
    """A dtype the op has no kernel for. Paddle raises RuntimeError for it in eager mode (kernel not
    found) and TypeError in static mode (dtype check); this error is both."""


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def _mT(a):
    return np.swapaxes(a, -1, -2)


def _mH(a):
    return np.conj(_mT(a)) if np.iscomplexobj(a) else _mT(a)


def _check_dtype(op, dtype, complex_ok=True, what="x"):
    dtype = np.dtype(dtype)
    ok = dtype in (np.float32, np.float64) or (complex_ok and dtype in (np.complex64, np.complex128))
    if not ok:
        allowed = "float32, float64, complex64 or complex128" if complex_ok else "float32 or float64"
        raise UnsupportedDtypeError(f"{op}: {what} must be {allowed}, got {dtype}")


def _check_matrix(op, shape, square=False, what="x"):
    shape = tuple(shape)
    if len(shape) < 2:
        raise ValueError(f"{op}: {what} must have at least 2 dimensions ([..., M, N]), got shape {list(shape)}")
    if square and shape[-1] != shape[-2] and shape[-1] != -1 and shape[-2] != -1:
        raise ValueError(f"{op}: the last two dimensions of {what} must be equal (a batch of square "
                         f"matrices), got shape {list(shape)}")


def _real_dtype(dtype):
    dtype = np.dtype(dtype)
    return {np.dtype(np.complex64): np.dtype(np.float32),
            np.dtype(np.complex128): np.dtype(np.float64)}.get(dtype, dtype)


def _complex_dtype(dtype):
    return np.dtype(np.complex64) if np.dtype(dtype) in (np.float32, np.complex64) else np.dtype(np.complex128)


def _batch(*shapes):
    """Broadcast the batch parts (all but the last two dims) of shapes that may hold -1."""
    from .meta import broadcast_shapes
    out = ()
    for s in shapes:
        out = broadcast_shapes(out, tuple(s)[:-2])
    return tuple(out)


def _eye_like(a, n=None):
    n = a.shape[-1] if n is None else n
    return np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape[:-2] + (n, n))


def _hermitian_part(x):
    return (x + _mH(x)) * 0.5


def _inv_or_raise(op, a):
    try:
        return np.linalg.inv(a)
    except _LinAlgError:
        raise ValueError(f"{op}: the input is not invertible (a singular matrix), shape {list(a.shape)}") from None


def _inv_or_zero(a):
    """Inverse of each matrix; zeros for singular ones (where Paddle's grads give zeros)."""
    try:
        return np.linalg.inv(a)
    except _LinAlgError:
        flat = a.reshape((-1,) + a.shape[-2:])
        out = np.zeros_like(flat)
        for i, m in enumerate(flat):
            try:
                out[i] = np.linalg.inv(m)
            except _LinAlgError:
                pass
        return out.reshape(a.shape)


def _bsolve(a, b):
    """Solve ``a @ x = b`` for matrices b, broadcasting batch dimensions."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    return np.linalg.solve(a, b)


def _tri(a, lower, k=0):
    return np.tril(a, k) if lower else np.triu(a, k)


# ---------------------------------------------------------------------------------------------
# inverse
# ---------------------------------------------------------------------------------------------
def _inverse_meta(x, **_):
    _check_dtype("inverse", x.dtype)
    _check_matrix("inverse", x.shape, square=True)
    return Meta(tuple(x.shape), x.dtype)


def _inverse(x, **_):
    _inverse_meta(Meta.of(x))
    return _inv_or_raise("inverse", x).astype(x.dtype, copy=False)


def _inverse_grad(out, dout, **_):
    # d(A^-1) = -A^-1 dA A^-1  ->  gA = -A^-H g A^-H
    oh = _mH(out)
    return -(oh @ dout @ oh)


register("inverse", ["Input"], ["Output"], {}, kernel=_inverse, infer_meta=_inverse_meta)
grad_op("inverse", ["Output", "Output@GRAD"], ["Input@GRAD"], _inverse_grad,
        infer_meta=lambda out, dout, **_: Meta(tuple(out.shape), out.dtype))


# ---------------------------------------------------------------------------------------------
# determinant, slogdeterminant
# ---------------------------------------------------------------------------------------------
def _det_meta(x, **_):
    _check_dtype("determinant", x.dtype)
    _check_matrix("determinant", x.shape, square=True)
    return Meta(tuple(x.shape[:-2]), x.dtype)


def _det(x, **_):
    _det_meta(Meta.of(x))
    return np.asarray(np.linalg.det(x)).astype(x.dtype, copy=False)


def _det_grad(x, out, dout, **_):
    # d det(A) = det(A) tr(A^-1 dA): gA = conj(g det) A^-H; singular matrices get zeros (as Paddle)
    scale = np.conj(np.asarray(dout) * np.conj(out)) if np.iscomplexobj(x) else dout * out
    return (np.asarray(scale)[..., None, None] * _mH(_inv_or_zero(x))).astype(x.dtype, copy=False)


register("determinant", ["Input"], ["Out"], {}, kernel=_det, infer_meta=_det_meta)
grad_op("determinant", ["Input", "Out", "Out@GRAD"], ["Input@GRAD"], _det_grad)


def _slogdet_meta(x, **_):
    _check_dtype("slogdeterminant", x.dtype)
    _check_matrix("slogdeterminant", x.shape, square=True)
    return Meta((2,) + tuple(x.shape[:-2]), x.dtype)


def _slogdet(x, **_):
    _slogdet_meta(Meta.of(x))
    sign, logabs = np.linalg.slogdet(x)
    # Paddle stacks [sign, log|det|] into one tensor of shape [2, *batch]
    return np.stack([np.asarray(sign).astype(x.dtype), np.asarray(logabs).astype(x.dtype)])


def _slogdet_grad(x, dout, **_):
    # only log|det| has a gradient: d log|det A| = tr(A^-1 dA) -> gA = g A^-H (sign is piecewise constant)
    g = np.asarray(dout[1])
    return (g[..., None, None] * _mH(_inv_or_zero(x))).astype(x.dtype, copy=False)


register("slogdeterminant", ["Input"], ["Out"], {}, kernel=_slogdet, infer_meta=_slogdet_meta)
grad_op("slogdeterminant", ["Input", "Out@GRAD"], ["Input@GRAD"], _slogdet_grad)


# ---------------------------------------------------------------------------------------------
# solve
# ---------------------------------------------------------------------------------------------
def _is_vector_rhs(xs, ys):
    """Paddle's rule: y is a (batch of) vector(s) when 1-D, or when its shape is x's without the last dim."""
    return len(ys) == 1 or (len(xs) - 1 == len(ys) and tuple(ys) == tuple(xs[:-1]))


def _solve_meta(x, y, **_):
    # Paddle's CPU solve/cholesky kernels are real-only
    _check_dtype("solve", x.dtype, complex_ok=False, what="x")
    _check_dtype("solve", y.dtype, complex_ok=False, what="y")
    _check_matrix("solve", x.shape, square=True)
    xs, ys = tuple(x.shape), tuple(y.shape)
    if len(ys) == 0:
        raise ValueError(f"solve: y must have at least 1 dimension, got shape {list(ys)}")
    vec = _is_vector_rhs(xs, ys)
    b = ys + (1,) if vec else ys
    if len(b) < 2 or (b[-2] != xs[-1] and -1 not in (b[-2], xs[-1])):
        raise ValueError(f"solve: x of shape {list(xs)} and y of shape {list(ys)} do not match "
                         "(y must be [..., M] or [..., M, K] for x [..., M, M])")
    batch = _batch(xs, b)
    shape = batch + ((xs[-2],) if vec else (xs[-2], b[-1]))
    return Meta(shape, np.result_type(x.dtype, y.dtype))


def _solve(x, y, **_):
    meta = _solve_meta(Meta.of(x), Meta.of(y))
    vec = _is_vector_rhs(x.shape, y.shape)
    b = y[..., None] if vec else y
    try:
        out = _bsolve(x, b)
    except _LinAlgError:
        raise ValueError(f"solve: x is not invertible (a singular matrix), shape {list(x.shape)}") from None
    return (out[..., 0] if vec else out).astype(meta.dtype, copy=False)


def _solve_grad(x, y, out, dout, **_):
    vec = _is_vector_rhs(x.shape, y.shape)
    o = out[..., None] if vec else out
    g = dout[..., None] if vec else dout
    gb = _bsolve(_mH(x), g)                      # A^-H g
    ga = -(gb @ _mH(o))
    gy = unbroadcast(gb, (y.shape + (1,)) if vec else y.shape)
    gy = gy.reshape(y.shape)
    return unbroadcast(ga, x.shape).astype(x.dtype, copy=False), gy.astype(y.dtype, copy=False)


register("solve", ["X", "Y"], ["Out"], {}, kernel=_solve, infer_meta=_solve_meta)
grad_op("solve", ["X", "Y", "Out", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _solve_grad)


# ---------------------------------------------------------------------------------------------
# cholesky, cholesky_solve
# ---------------------------------------------------------------------------------------------
def _cholesky_meta(x, upper=False, **_):
    _check_dtype("cholesky", x.dtype, complex_ok=False)
    _check_matrix("cholesky", x.shape, square=True)
    return Meta(tuple(x.shape), x.dtype)


def _chol_lower(op, a):
    try:
        return np.linalg.cholesky(a)
    except _LinAlgError:
        raise ValueError(f"{op}: Cholesky decomposition was not successful; the input matrix might not be "
                         "positive definite") from None


def _cholesky(x, upper=False, **_):
    _cholesky_meta(Meta.of(x))
    low = _chol_lower("cholesky", _hermitian_part(x)).astype(x.dtype, copy=False)
    return _mH(low).copy() if upper else low


def _cholesky_grad(out, dout, upper=False, **_):
    low = _mH(out) if upper else out
    gl = np.tril(_mH(dout) if upper else dout)
    # gA = L^-H Phi(L^H gL) L^-1, made Hermitian (A is symmetric: its gradient is too)
    phi = np.tril(_mH(low) @ gl)
    phi = 0.5 * (phi + _mH(np.tril(phi, -1)))
    linv = np.linalg.inv(low)
    ga = _mH(linv) @ phi @ linv
    return _hermitian_part(ga).astype(out.dtype, copy=False)


register("cholesky", ["X"], ["Out"], {"upper": ("BOOLEAN", False)}, kernel=_cholesky, infer_meta=_cholesky_meta)
grad_op("cholesky", ["Out", "Out@GRAD"], ["X@GRAD"], _cholesky_grad,
        infer_meta=lambda out, dout, **_: Meta(tuple(out.shape), out.dtype))


def _cholesky_solve_meta(x, y, upper=False, **_):
    _check_dtype("cholesky_solve", x.dtype, complex_ok=False, what="x")
    _check_dtype("cholesky_solve", y.dtype, complex_ok=False, what="y")
    _check_matrix("cholesky_solve", x.shape, what="x")
    _check_matrix("cholesky_solve", y.shape, square=True, what="y")
    if x.shape[-2] != y.shape[-1] and -1 not in (x.shape[-2], y.shape[-1]):
        raise ValueError(f"cholesky_solve: x [..., M, K] and y [..., M, M] do not match: shapes "
                         f"{list(x.shape)} and {list(y.shape)}")
    return Meta(_batch(x.shape, y.shape) + tuple(x.shape[-2:]), np.result_type(x.dtype, y.dtype))


def _chol_solve_with(factor, b, upper):
    """Solve (L L^H) x = b (lower) or (U^H U) x = b (upper) with the given triangle of ``factor``."""
    f = _tri(factor, not upper)
    first, second = (_mH(f), f) if upper else (f, _mH(f))
    return _bsolve(second, _bsolve(first, b))


def _cholesky_solve(x, y, upper=False, **_):
    meta = _cholesky_solve_meta(Meta.of(x), Meta.of(y), upper)
    try:
        return _chol_solve_with(y, x, upper).astype(meta.dtype, copy=False)
    except _LinAlgError:
        raise ValueError("cholesky_solve: the Cholesky factor y is singular") from None


def _cholesky_solve_grad(x, y, out, dout, upper=False, **_):
    gb = _chol_solve_with(y, dout, upper)         # A^-1 g (A is Hermitian)
    ga = -(gb @ _mH(out))
    s = ga + _mH(ga)
    f = _tri(y, not upper)
    batch = np.broadcast_shapes(s.shape[:-2], f.shape[:-2])
    f = np.broadcast_to(f, batch + f.shape[-2:])
    # A = L L^H -> gL = (gA + gA^H) L ; A = U^H U -> gU = U (gA + gA^H); only the used triangle
    gy = np.triu(f @ s) if upper else np.tril(s @ f)
    return (unbroadcast(gb, x.shape).astype(x.dtype, copy=False),
            unbroadcast(gy, y.shape).astype(y.dtype, copy=False))


register("cholesky_solve", ["X", "Y"], ["Out"], {"upper": ("BOOLEAN", False)},
         kernel=_cholesky_solve, infer_meta=_cholesky_solve_meta)
grad_op("cholesky_solve", ["X", "Y", "Out", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _cholesky_solve_grad)


# ---------------------------------------------------------------------------------------------
# triangular_solve
# ---------------------------------------------------------------------------------------------
def _triangular_solve_meta(x, y, upper=True, transpose=False, unitriangular=False, **_):
    _check_dtype("triangular_solve", x.dtype, what="x")
    _check_dtype("triangular_solve", y.dtype, what="y")
    _check_matrix("triangular_solve", x.shape, square=True, what="x")
    _check_matrix("triangular_solve", y.shape, what="y")
    if x.shape[-1] != y.shape[-2] and -1 not in (x.shape[-1], y.shape[-2]):
        raise ValueError(f"triangular_solve: x [..., M, M] and y [..., M, K] do not match: shapes "
                         f"{list(x.shape)} and {list(y.shape)}")
    return Meta(_batch(x.shape, y.shape) + tuple(y.shape[-2:]), np.result_type(x.dtype, y.dtype))


def _tri_operand(x, upper, transpose, unitriangular):
    t = _tri(x, not upper)
    if unitriangular:
        t = t.copy()
        idx = np.arange(t.shape[-1])
        t[..., idx, idx] = 1
    return _mT(t) if transpose else t


def _triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, **_):
    meta = _triangular_solve_meta(Meta.of(x), Meta.of(y), upper, transpose, unitriangular)
    a = _tri_operand(x, upper, transpose, unitriangular)
    try:
        out = _bsolve(a, y)
    except _LinAlgError:
        # a zero on the diagonal: Paddle's triangular solve divides by it (inf/nan) rather than failing
        out = _substitute(a, y, lower=(not upper) != transpose)
    return out.astype(meta.dtype, copy=False)


def _substitute(t, b, lower):
    """Forward (lower) or back substitution, batched; zero pivots give inf/nan as a BLAS trsm does."""
    batch = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    t = np.broadcast_to(t, batch + t.shape[-2:])
    x = np.zeros(batch + b.shape[-2:], dtype=np.result_type(t, b))
    b = np.broadcast_to(b, x.shape)
    n = t.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in (range(n) if lower else reversed(range(n))):
            acc = b[..., i, :] - np.einsum("...j,...jk->...k", t[..., i, :], x)   # unsolved rows of x are 0
            x[..., i, :] = acc / t[..., i, i, None]
    return x


def _triangular_solve_grad(x, y, out, dout, upper=True, transpose=False, unitriangular=False, **_):
    a = _tri_operand(x, upper, transpose, unitriangular)
    gb = _bsolve(_mH(a), dout)
    gop = -(gb @ _mH(out))
    gt = _mT(gop) if transpose else gop
    gx = _tri(gt, not upper)
    if unitriangular:
        idx = np.arange(gx.shape[-1])
        gx[..., idx, idx] = 0
    return (unbroadcast(gx, x.shape).astype(x.dtype, copy=False),
            unbroadcast(gb, y.shape).astype(y.dtype, copy=False))


register("triangular_solve", ["X", "Y"], ["Out"],
         {"upper": ("BOOLEAN", True), "transpose": ("BOOLEAN", False), "unitriangular": ("BOOLEAN", False)},
         kernel=_triangular_solve, infer_meta=_triangular_solve_meta)
grad_op("triangular_solve", ["X", "Y", "Out", "Out@GRAD"], ["X@GRAD", "Y@GRAD"], _triangular_solve_grad)


# ---------------------------------------------------------------------------------------------
# matrix_power
# ---------------------------------------------------------------------------------------------
def _matrix_power_meta(x, n=0, **_):
    _check_dtype("matrix_power", x.dtype)
    _check_matrix("matrix_power", x.shape, square=True)
    return Meta(tuple(x.shape), x.dtype)


def _matrix_power(x, n=0, **_):
    _matrix_power_meta(Meta.of(x))
    if n < 0:
        x = _inv_or_raise("matrix_power", x)
    return np.linalg.matrix_power(x, abs(int(n))).astype(x.dtype, copy=False)


def _pow_grad(a, m, g):
    """Gradient of A^m (m >= 1): sum_k (A^H)^k g (A^H)^(m-1-k)."""
    ah = _mH(a)
    powers = [_eye_like(a)]
    for _ in range(m - 1):
        powers.append(powers[-1] @ ah)
    return sum(powers[k] @ g @ powers[m - 1 - k] for k in range(m))


def _matrix_power_grad(x, dout, n=0, **_):
    if n == 0:
        return np.zeros_like(x)
    if n > 0:
        return _pow_grad(x, n, dout).astype(x.dtype, copy=False)
    b = np.linalg.inv(x)
    gb = _pow_grad(b, -n, dout)
    bh = _mH(b)
    return (-(bh @ gb @ bh)).astype(x.dtype, copy=False)


register("matrix_power", ["X"], ["Out"], {"n": ("INT", 0)}, kernel=_matrix_power, infer_meta=_matrix_power_meta)
grad_op("matrix_power", ["X", "Out@GRAD"], ["X@GRAD"], _matrix_power_grad)


# ---------------------------------------------------------------------------------------------
# multi_dot
# ---------------------------------------------------------------------------------------------
def _multi_dot_meta(xs, **_):
    if len(xs) < 2:
        raise ValueError(f"multi_dot: needs at least 2 tensors, got {len(xs)}")
    shapes = [list(m.shape) for m in xs]
    for k, m in enumerate(xs):
        _check_dtype("multi_dot", m.dtype, complex_ok=False, what=f"x[{k}]")
        nd = len(m.shape)
        if (k in (0, len(xs) - 1) and nd not in (1, 2)) or (0 < k < len(xs) - 1 and nd != 2):
            raise ValueError(f"multi_dot: the first and last tensors must be 1-D or 2-D and the others 2-D, "
                             f"got shapes {shapes}")
    mats = [list(s) for s in shapes]
    if len(mats[0]) == 1:
        mats[0] = [1] + mats[0]
    if len(mats[-1]) == 1:
        mats[-1] = mats[-1] + [1]
    for a, b in zip(mats, mats[1:]):
        if a[1] != b[0] and -1 not in (a[1], b[0]):
            raise ValueError(f"multi_dot: the shapes {shapes} cannot be multiplied in order")
    shape = ([] if len(shapes[0]) == 1 else [mats[0][0]]) + ([] if len(shapes[-1]) == 1 else [mats[-1][1]])
    dtype = xs[0].dtype
    for m in xs[1:]:
        if m.dtype != dtype:
            raise TypeError(f"multi_dot: all tensors must have the same dtype, got {[str(m.dtype) for m in xs]}")
    return Meta(tuple(shape), dtype)


def _multi_dot(xs, **_):
    meta = _multi_dot_meta([Meta.of(a) for a in xs])
    return np.asarray(np.linalg.multi_dot(xs)).reshape(meta.shape).astype(meta.dtype, copy=False)


def _multi_dot_grad(xs, dout, **_):
    mats = [a for a in xs]
    if mats[0].ndim == 1:
        mats[0] = mats[0][None, :]
    if mats[-1].ndim == 1:
        mats[-1] = mats[-1][:, None]
    g = dout.reshape(mats[0].shape[0], mats[-1].shape[1])
    n = len(mats)
    left = [None] * n       # left[i] = M_0 ... M_{i-1}
    right = [None] * n      # right[i] = M_{i+1} ... M_{n-1}
    acc = None
    for i in range(n):
        left[i] = acc
        acc = mats[i] if acc is None else acc @ mats[i]
    acc = None
    for i in reversed(range(n)):
        right[i] = acc
        acc = mats[i] if acc is None else mats[i] @ acc
    grads = []
    for i in range(n):
        gi = g if right[i] is None else g @ right[i].T
        gi = gi if left[i] is None else left[i].T @ gi
        grads.append(gi.reshape(xs[i].shape).astype(xs[i].dtype, copy=False))
    return grads


def _multi_dot_grad_rule(ctx, dout):
    from ..dispatch import run_op
    return [list(run_op("multi_dot_grad", ctx.inputs[0], dout))]


register("multi_dot", ["X[]"], ["Out"], {}, kernel=_multi_dot, infer_meta=_multi_dot_meta, grad=_multi_dot_grad_rule)
register("multi_dot_grad", ["X[]", "Out@GRAD"], ["X@GRAD[]"], {}, kernel=_multi_dot_grad,
         infer_meta=lambda xs, dout, **_: [Meta(tuple(m.shape), m.dtype) for m in xs])


# ---------------------------------------------------------------------------------------------
# lu, lu_unpack, lu_solve
# ---------------------------------------------------------------------------------------------
def _lu_meta(x, pivots=True, **_):
    _check_dtype("lu", x.dtype, complex_ok=False)
    _check_matrix("lu", x.shape)
    *batch, m, n = x.shape
    batch = tuple(batch)
    k = -1 if -1 in (m, n) else min(m, n)
    return Meta(tuple(x.shape), x.dtype), Meta(batch + (k,), np.dtype(np.int32)), Meta(batch, np.dtype(np.int32))


def _lu_factor(a):
    """Partial-pivoting LU as LAPACK's getrf: packed L\\U, 1-based int32 pivots, int32 infos."""
    *batch, m, n = a.shape
    k = min(m, n)
    w = np.array(a, dtype=a.dtype).reshape((-1, m, n))
    nb = w.shape[0]
    piv = np.zeros((nb, k), np.int32)
    info = np.zeros(nb, np.int32)
    rows = np.arange(nb)
    for j in range(k):
        p = j + np.argmax(np.abs(w[:, j:, j]), axis=1)
        piv[:, j] = p + 1
        tmp = w[rows, j, :].copy()
        w[rows, j, :] = w[rows, p, :]
        w[rows, p, :] = tmp
        d = w[:, j, j]
        zero = d == 0
        info = np.where(zero & (info == 0), j + 1, info).astype(np.int32)
        # a zero pivot means the column below is zero too: leave it (as getrf does)
        w[:, j + 1:, j] /= np.where(zero, 1, d)[:, None]
        w[:, j + 1:, j + 1:] -= w[:, j + 1:, j, None] * w[:, j, None, j + 1:]
    return w.reshape(a.shape), piv.reshape(tuple(batch) + (k,)), info.reshape(tuple(batch))


def _lu(x, pivots=True, **_):
    _lu_meta(Meta.of(x))
    if not pivots:
        raise ValueError("lu: LU without pivoting is not implemented on the CPU, but got pivots=False")
    return _lu_factor(x)


def _perm_matrix(piv, m, dtype):
    """P with A = P L U from 1-based sequential row swaps ``piv`` [..., k]."""
    batch = piv.shape[:-1]
    flat = piv.reshape((-1, piv.shape[-1])) - 1
    perm = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        p = flat[:, j]
        a, b = perm[rows, j].copy(), perm[rows, p].copy()
        perm[rows, j], perm[rows, p] = b, a
    # row j of P^T A is row perm[j] of A, so P[perm[j], j] = 1
    pm = np.zeros((flat.shape[0], m, m), dtype)
    pm[rows[:, None], perm, np.arange(m)[None, :]] = 1
    return pm.reshape(batch + (m, m))


def _unpack_lu(lu):
    m, n = lu.shape[-2:]
    k = min(m, n)
    low = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    up = np.triu(lu[..., :k, :])
    return low, up


def _solve_right(b, a):
    """b @ a^-1."""
    return _mT(np.linalg.solve(_mT(a), _mT(b)))


def _lu_grad(x, out, piv, dout, pivots=True, **_):
    # A = P L U (after PyTorch's linalg_lu_backward); gL / gU are the strictly-lower / upper parts of
    # the packed gradient. Square: gA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H
    m, n = x.shape[-2:]
    k = min(m, n)
    low, up = _unpack_lu(out)
    p = _perm_matrix(piv, m, x.dtype)
    gl = np.tril(dout[..., :, :k], -1)
    gu = np.triu(dout[..., :k, :])
    if m == n:
        phi = np.tril(_mH(low) @ gl, -1) + np.triu(gu @ _mH(up))
        ga = _solve_right(np.linalg.solve(_mH(low), phi), _mH(up))
    elif m < n:   # wide: L [m, m], U = [U1 | U2]
        u1 = up[..., :, :m]
        g = np.tril(_mH(low) @ gl - gu @ _mH(up), -1)
        g = _solve_right(g, _mH(u1))
        g = np.concatenate([g + gu[..., :, :m], gu[..., :, m:]], axis=-1)
        ga = np.linalg.solve(_mH(low), g)
    else:         # tall: L = [L1; L2], U [n, n]
        l1 = low[..., :n, :]
        g = np.triu(gu @ _mH(up) - _mH(low) @ gl)
        g = np.linalg.solve(_mH(l1), g)
        g = np.concatenate([g + gl[..., :n, :], gl[..., n:, :]], axis=-2)
        ga = _solve_right(g, _mH(up))
    return (p @ ga).astype(x.dtype, copy=False)


register("lu", ["X"], ["Out", "Pivots", "Infos"], {"pivots": ("BOOLEAN", True)}, kernel=_lu, infer_meta=_lu_meta)
grad_op("lu", ["X", "Out", "Pivots", "Out@GRAD"], ["X@GRAD"], _lu_grad)


def _lu_unpack_meta(x, piv, unpack_ludata=True, unpack_pivots=True, **_):
    _check_dtype("lu_unpack", x.dtype, complex_ok=False)
    _check_matrix("lu_unpack", x.shape)
    *batch, m, n = x.shape
    batch = tuple(batch)
    k = -1 if -1 in (m, n) else min(m, n)
    # what is not unpacked is an empty float32 tensor, whatever x's dtype (as Paddle gives)
    empty = Meta((0,), np.dtype(np.float32))
    pm = Meta(batch + (m, m), x.dtype) if unpack_pivots else empty
    if unpack_ludata:
        return pm, Meta(batch + (m, k), x.dtype), Meta(batch + (k, n), x.dtype)
    return pm, empty, empty


def _lu_unpack(x, piv, unpack_ludata=True, unpack_pivots=True, **_):
    _lu_unpack_meta(Meta.of(x), Meta.of(piv))
    if piv.shape[-1] != min(x.shape[-2:]):
        raise ValueError(f"lu_unpack: pivots [..., K] must have K = min(M, N) = {min(x.shape[-2:])}, "
                         f"got shape {list(piv.shape)}")
    empty = np.zeros((0,), np.float32)
    pm = _perm_matrix(piv, x.shape[-2], x.dtype) if unpack_pivots else empty
    if unpack_ludata:
        low, up = _unpack_lu(x)
        return pm, low, up
    return pm, empty, empty


def _lu_unpack_grad(x, piv, gp, gl, gu, unpack_ludata=True, unpack_pivots=True, **_):
    m, n = x.shape[-2:]
    k = min(m, n)
    gx = np.zeros_like(x)
    if unpack_ludata:
        if gl is not None:
            gx[..., :, :k] += np.tril(gl, -1)
        if gu is not None:
            gx[..., :k, :] += np.triu(gu)
    return gx


register("lu_unpack", ["X", "Pivots"], ["Pmat", "L", "U"],
         {"unpack_ludata": ("BOOLEAN", True), "unpack_pivots": ("BOOLEAN", True)},
         kernel=_lu_unpack, infer_meta=_lu_unpack_meta, differentiable=("X",))
grad_op("lu_unpack", ["X", "Pivots", "Pmat@GRAD?", "L@GRAD?", "U@GRAD?"], ["X@GRAD"], _lu_unpack_grad)


def _lu_solve_meta(b, lu, piv, trans="N", **_):
    _check_dtype("lu_solve", b.dtype, complex_ok=False, what="b")
    _check_dtype("lu_solve", lu.dtype, complex_ok=False, what="lu")
    _check_matrix("lu_solve", b.shape, what="b")
    _check_matrix("lu_solve", lu.shape, square=True, what="lu")
    if trans not in ("N", "T", "C"):
        raise ValueError(f"lu_solve: trans must be 'N', 'T' or 'C', got {trans!r}")
    if b.shape[-2] != lu.shape[-1] and -1 not in (b.shape[-2], lu.shape[-1]):
        raise ValueError(f"lu_solve: b [..., M, K] and lu [..., M, M] do not match: shapes "
                         f"{list(b.shape)} and {list(lu.shape)}")
    return Meta(_batch(b.shape, lu.shape) + tuple(b.shape[-2:]), b.dtype)


def _lu_matrix(lu, piv, trans):
    low, up = _unpack_lu(lu)
    a = _perm_matrix(piv, lu.shape[-1], lu.dtype) @ low @ up
    return a if trans == "N" else _mT(a)


def _lu_solve(b, lu, piv, trans="N", **_):
    meta = _lu_solve_meta(Meta.of(b), Meta.of(lu), Meta.of(piv), trans)
    try:
        return _bsolve(_lu_matrix(lu, piv, trans), b).astype(meta.dtype, copy=False)
    except _LinAlgError:
        raise ValueError("lu_solve: the LU factorization is singular") from None


def _lu_solve_grad(b, lu, piv, out, dout, trans="N", **_):
    a = _lu_matrix(lu, piv, trans)
    gb = _bsolve(_mT(a), dout)
    gop = -(gb @ _mT(out))                   # gradient w.r.t. the solved matrix op(A)
    ga = gop if trans == "N" else _mT(gop)
    low, up = _unpack_lu(lu)
    p = _perm_matrix(piv, lu.shape[-1], lu.dtype)
    # A = P L U: gL = P^T gA U^T, gU = L^T P^T gA; packed into one L\U matrix
    pga = _mT(p) @ ga
    glu = np.tril(pga @ _mT(up), -1) + np.triu(_mT(low) @ pga)
    return (unbroadcast(gb, b.shape).astype(b.dtype, copy=False),
            unbroadcast(glu, lu.shape).astype(lu.dtype, copy=False))


register("lu_solve", ["b", "lu", "pivots"], ["out"], {"trans": ("STRING", "N")}, kernel=_lu_solve,
         infer_meta=_lu_solve_meta, differentiable=("b", "lu"))
grad_op("lu_solve", ["b", "lu", "pivots", "out", "out@GRAD"], ["b@GRAD", "lu@GRAD"], _lu_solve_grad)


# ---------------------------------------------------------------------------------------------
# diagonal
# ---------------------------------------------------------------------------------------------
def _diagonal_axes(ndim, axis1, axis2):
    if ndim < 2:
        raise ValueError(f"diagonal: the input must have at least 2 dimensions, got {ndim}")
    a1, a2 = normalize_axis(axis1, ndim, "axis1"), normalize_axis(axis2, ndim, "axis2")
    if a1 == a2:
        raise ValueError(f"diagonal: axis1 and axis2 must differ, got {axis1} and {axis2}")
    return a1, a2


def _diagonal_meta(x, offset=0, axis1=0, axis2=1, **_):
    a1, a2 = _diagonal_axes(len(x.shape), axis1, axis2)
    d1, d2 = x.shape[a1], x.shape[a2]
    if -1 in (d1, d2):
        n = -1
    else:
        n = max(0, min(d1 + min(offset, 0), d2 - max(offset, 0)))
    rest = tuple(d for i, d in enumerate(x.shape) if i not in (a1, a2))
    return Meta(rest + (n,), x.dtype)


def _diagonal(x, offset=0, axis1=0, axis2=1, **_):
    a1, a2 = _diagonal_axes(x.ndim, axis1, axis2)
    return np.diagonal(x, offset, a1, a2).copy()


def _diagonal_grad(x, dout, offset=0, axis1=0, axis2=1, **_):
    a1, a2 = _diagonal_axes(x.ndim, axis1, axis2)
    gx = np.zeros_like(x)
    moved = np.moveaxis(gx, (a1, a2), (-2, -1))     # a view: writing it writes gx
    n = dout.shape[-1]
    i = np.arange(n) + max(-offset, 0)
    j = np.arange(n) + max(offset, 0)
    moved[..., i, j] = dout
    return gx


register("diagonal", ["Input"], ["Out"], {"offset": ("INT", 0), "axis1": ("INT", 0), "axis2": ("INT", 1)},
         kernel=_diagonal, infer_meta=_diagonal_meta)
grad_op("diagonal", ["Input", "Out@GRAD"], ["Input@GRAD"], _diagonal_grad)


# ---------------------------------------------------------------------------------------------
# matrix_exp: Paddle builds it from other ops in Python (a while loop over squarings). Here it is
# one op with an exact gradient. It is not a Paddle op type, so a Program using it does not load
# into real Paddle.
# ---------------------------------------------------------------------------------------------
# Higham (2005) Pade-13 coefficients and the 1-norm bound below which no scaling is needed
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _expm_one(a):
    """exp(a) of one matrix by scaling and squaring with a [13/13] Pade approximant."""
    n = a.shape[-1]
    norm = np.abs(a).sum(axis=0).max() if a.size else 0.0
    if not np.isfinite(norm):
        return np.full_like(a, np.nan)
    s = max(0, int(np.ceil(np.log2(norm / _THETA13)))) if norm > _THETA13 else 0
    a = a / (2.0 ** s)
    b = _PADE13
    ident = np.eye(n, dtype=a.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * ident
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r


def _expm(a):
    flat = a.reshape((-1,) + a.shape[-2:]).astype(np.float64)
    return np.array([_expm_one(m) for m in flat]).reshape(a.shape)


def _matrix_exp_meta(x, **_):
    _check_dtype("matrix_exp", x.dtype, complex_ok=False)
    if len(x.shape) != 0:
        _check_matrix("matrix_exp", x.shape, square=True)
    return Meta(tuple(x.shape), x.dtype)


def _matrix_exp(x, **_):
    _matrix_exp_meta(Meta.of(x))
    if x.ndim == 0:
        return np.exp(x)
    return _expm(x).astype(x.dtype, copy=False)


def _matrix_exp_grad(x, dout, **_):
    if x.ndim == 0:
        return dout * np.exp(x)
    # the Frechet derivative in direction G is the top-right block of exp([[A^T, G], [0, A^T]])
    n = x.shape[-1]
    big = np.zeros(x.shape[:-2] + (2 * n, 2 * n))
    big[..., :n, :n] = _mT(x)
    big[..., n:, n:] = _mT(x)
    big[..., :n, n:] = dout
    return _expm(big)[..., :n, n:].astype(x.dtype, copy=False)


register("matrix_exp", ["X"], ["Out"], {}, kernel=_matrix_exp, infer_meta=_matrix_exp_meta)
grad_op("matrix_exp", ["X", "Out@GRAD"], ["X@GRAD"], _matrix_exp_grad)
