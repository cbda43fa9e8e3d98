"""``paddle.linalg`` decompositions: qr, svd, svdvals, eigh, eigvalsh, eig, eigvals, pinv (from svd
or eigh, as Paddle builds it), householder_product, ormqr, svd_lowrank and pca_lowrank."""
from __future__ import annotations

from ..dispatch import run_op
from ..tensor import Tensor, tensor_method
from . import creation as _creation
from . import manipulation as _manip
from . import math as _math
from . import reduction as _red
from ._helpers import is_var
from .linalg import _assign_out, _check, _check_float, _check_matrix, _swap_last, matmul

# names Paddle also exports at the top level (paddle.eigvalsh)
__all__ = ["eigvalsh"]


@tensor_method
def qr(x, mode="reduced", name=None):
    """QR decomposition: (Q, R) for mode 'reduced' / 'complete', R alone for mode 'r'."""
    _check_float(x, "qr")
    _check_matrix(x, "qr")
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    q, r = run_op("qr", x, mode=mode)
    return r if mode == "r" else (q, r)


def svd(x, full_matrices=False, name=None, *, out=None):
    """Singular value decomposition x = U diag(S) VH; S descending (U, S, VH are returned)."""
    _check_float(x, "svd")
    _check_matrix(x, "svd")
    res = run_op("svd", x, full_matrices=bool(full_matrices))
    if out is not None:
        for o, r in zip(out, res):
            _assign_out(r, o)
        return tuple(out)
    return res


def svdvals(x, name=None):
    """The singular values of each matrix, descending."""
    _check_float(x, "svdvals", complex_ok=False)
    _check_matrix(x, "svdvals")
    return run_op("svdvals", x)


def _check_uplo(UPLO, api):
    if UPLO not in ("L", "U"):
        raise ValueError(f"{api}: UPLO must be 'L' or 'U', got {UPLO!r}")


def eigh(x, UPLO="L", name=None):
    """Eigenvalues (ascending) and eigenvectors of each symmetric / Hermitian matrix."""
    _check_float(x, "eigh")
    _check_matrix(x, "eigh", square=True)
    _check_uplo(UPLO, "eigh")
    return run_op("eigh", x, UPLO=UPLO)


@tensor_method
def eigvalsh(x, UPLO="L", name=None):
    """Eigenvalues (ascending) of each symmetric / Hermitian matrix."""
    _check_float(x, "eigvalsh")
    _check_matrix(x, "eigvalsh", square=True)
    _check_uplo(UPLO, "eigvalsh")
    return run_op("eigvalsh", x, UPLO=UPLO, is_test=False)


@tensor_method
def eig(x, name=None):
    """Eigenvalues and eigenvectors of general square matrices (complex results)."""
    _check_float(x, "eig")
    _check_matrix(x, "eig", square=True)
    return run_op("eig", x)


@tensor_method
def eigvals(x, name=None):
    """Eigenvalues of general square matrices (complex, in LAPACK's order)."""
    _check_float(x, "eigvals")
    _check_matrix(x, "eigvals", square=True)
    return run_op("eigvals", x)


@tensor_method
def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """Moore-Penrose pseudo-inverse via the SVD (or eigh when ``hermitian``); singular values at most
    ``rcond`` times the largest are treated as zero."""
    _check_float(x, "pinv", complex_ok=False)
    _check_matrix(x, "pinv")
    if hermitian:
        s, u = run_op("eigh", x, UPLO="L")
        mag = _math.abs(s)
    else:
        u, s, vt = run_op("svd", x, full_matrices=False)
        mag = s
    cutoff = _red.max(mag, axis=-1, keepdim=True) * _rcond_tensor(rcond, s)
    # Paddle: where(s > cutoff, 1/s, 1/inf)
    keep = run_op("greater_than", mag, cutoff)
    zero = _creation.zeros_like(s)
    # the inner where keeps 1/s finite where s is cut off (so its gradient is too)
    inv_s = _manip.where(keep, 1.0 / _manip.where(keep, s, _creation.ones_like(s)), zero)
    st = _manip.unsqueeze(inv_s, -2)
    if hermitian:
        return matmul(u * st, u, transpose_y=True)
    return matmul(_swap_last(vt) * st, u, transpose_y=True)


def _rcond_tensor(rcond, like):
    if isinstance(rcond, Tensor) or is_var(rcond):
        return _manip.cast(rcond, like.dtype)
    return _creation.full([], float(rcond), like.dtype)


@tensor_method
def householder_product(x, tau, name=None):
    """The first N columns of the product of Householder reflectors I - tau_i v_i v_i^H stored in x."""
    _check(x, "householder_product")
    _check(tau, "householder_product", "tau")
    _check_float(x, "householder_product")
    if x.dtype != tau.dtype:
        raise TypeError("householder_product: the input x must have the same dtype with input tau")
    return run_op("householder_product", x, tau)


@tensor_method
def ormqr(x, tau, y, left=True, transpose=False, name=None):
    """Multiply ``y`` by the Q of a QR factorization given as Householder reflectors (x, tau)."""
    _check_float(y, "ormqr", "y")
    if not (x.dtype == tau.dtype == y.dtype):
        raise TypeError("ormqr: the input tau and y must have the same dtype with the x")
    if len(x.shape) < 2 or len(y.shape) < 2 or len(tau.shape) < 1 or len(x.shape) != len(tau.shape) + 1 \
            or len(x.shape) != len(y.shape):
        raise ValueError("ormqr: x and y must have at least 2 dimensions and the same rank, tau one less")
    if x.shape[-1] != tau.shape[-1]:
        raise ValueError("ormqr: the innermost dimension of x and tau should be the same")
    need = {(True, True): (x.shape[-2], y.shape[-2]), (False, True): (x.shape[-1], y.shape[-2]),
            (True, False): (x.shape[-2], y.shape[-1]), (False, False): (x.shape[-1], y.shape[-1])}
    a, b = need[(bool(transpose), bool(left))]
    if a != b:
        raise ValueError(f"ormqr: x {list(x.shape)} and y {list(y.shape)} do not match for left={left}, "
                         f"transpose={transpose}")
    q = run_op("householder_product", x, tau)
    if transpose:
        q = _swap_last(q)
    return matmul(q, y) if left else matmul(y, q)


def _approximate_basis(x, q, niter, m_sub):
    from .random import randn
    n = x.shape[-1]
    r = randn([n, q], dtype=x.dtype)
    xh = _swap_last(x)

    def sub(a, b, mat):
        return matmul(a, mat) if b is None else matmul(a, mat) - matmul(b, mat)

    mh = None if m_sub is None else _swap_last(m_sub)
    basis = qr(sub(x, m_sub, r))[0]
    for _ in range(niter):
        basis = qr(sub(xh, mh, basis))[0]
        basis = qr(sub(x, m_sub, basis))[0]
    return basis


@tensor_method
def svd_lowrank(x, q=None, niter=2, M=None, name=None):
    """Approximate rank-``q`` SVD (U, S, V) of ``x - M`` by randomized subspace iteration."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Input must be tensor, but got {type(x)}")
    m, n = x.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif min(m, n) != 0 and not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    mt = None
    if M is not None:
        M = _manip.broadcast_to(M, list(x.shape))
        mt = _swap_last(M)
    xt = _swap_last(x)
    if m < n or n > q:
        basis = _approximate_basis(xt, q, niter, mt)
        bt = matmul(x, basis) if M is None else matmul(x, basis) - matmul(M, basis)
        u, s, vh = svd(bt, full_matrices=False)
        v = matmul(basis, _swap_last(vh))
    else:
        basis = _approximate_basis(x, q, niter, M)
        b = matmul(xt, basis) if M is None else matmul(xt, basis) - matmul(mt, basis)
        u, s, vh = svd(_swap_last(b), full_matrices=False)
        v = _swap_last(vh)
        u = matmul(basis, u)
    return u, s, v


@tensor_method
def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """Randomized PCA: `svd_lowrank` of ``x`` centred over its rows (when ``center``)."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Input must be tensor, but got {type(x)}")
    m, n = x.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(x, q, niter=niter)
    return svd_lowrank(x - _red.mean(x, axis=-2, keepdim=True), q, niter=niter)
