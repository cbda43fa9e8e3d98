"""``paddle.linalg`` solvers and factorizations: inv (paddle.inverse), det, slogdet, solve, cholesky,
cholesky_solve, cholesky_inverse, triangular_solve, lu, lu_unpack, lu_solve and lstsq."""
from __future__ import annotations

import numpy as np

from ..dispatch import run_op
from ..tensor import tensor_method
from . import creation as _creation
from . import manipulation as _manip
from .linalg import _assign_out, _check, _check_float, _check_matrix, _np_dtype, _swap_last, matmul
from .param_alias import param_alias

# names Paddle also exports at the top level (paddle.inverse, paddle.cholesky)
__all__ = ["inverse", "cholesky"]


@tensor_method
def inverse(x, name=None):
    """The inverse of each square matrix of ``x`` [..., M, M] (ValueError when singular)."""
    _check_float(x, "inverse")
    _check_matrix(x, "inverse", square=True)
    return run_op("inverse", x)


def inv(x, name=None):
    """``paddle.linalg.inv``: the same as `inverse`."""
    _check_float(x, "inv")
    _check_matrix(x, "inv", square=True)
    return run_op("inverse", x)


def det(x, name=None):
    """Determinant of each square matrix of ``x`` [..., M, M] -> [...]."""
    _check_float(x, "det")
    _check_matrix(x, "det", square=True)
    return run_op("determinant", x)


@tensor_method
def slogdet(x, name=None):
    """Sign and log|det| of each square matrix, stacked as Paddle does: shape [2, ...]."""
    _check_float(x, "slogdet")
    _check_matrix(x, "slogdet", square=True)
    return run_op("slogdeterminant", x)


@tensor_method
@param_alias(x="A", y="B")
def solve(x, y, left=True, name=None, *, out=None):
    """Solve ``x @ out = y`` (``left=False``: ``out @ x = y``) for square ``x`` [..., M, M].

    ``y`` is [..., M, K], or a vector [M] / a batch of vectors shaped like x without its last dim.
    """
    _check_float(x, "solve", complex_ok=False)
    _check_float(y, "solve", "y", complex_ok=False)
    _check_matrix(x, "solve", square=True)
    if not left:
        if len(y.shape) < 2:
            raise ValueError(f"solve: left=False needs y of at least 2 dimensions, got shape {list(y.shape)}")
        if y.shape[-1] != x.shape[-1] and -1 not in (y.shape[-1], x.shape[-1]):
            raise ValueError(f"solve: left=False needs y [..., K, M] for x [..., M, M], got shapes "
                             f"{list(y.shape)} and {list(x.shape)}")
        res = _swap_last(run_op("solve", _swap_last(x), _swap_last(y)))
    else:
        res = run_op("solve", x, y)
    return _assign_out(res, out)


@tensor_method
def cholesky(x, upper=False, name=None):
    """Cholesky factor of each symmetric positive-definite matrix: lower L (x = L L^T) or upper U."""
    _check_float(x, "cholesky", complex_ok=False)
    _check_matrix(x, "cholesky", square=True)
    return run_op("cholesky", x, upper=bool(upper))


@tensor_method
def cholesky_solve(x, y, upper=False, name=None):
    """Solve ``A @ out = x`` given the Cholesky factor ``y`` of A (lower, or upper when ``upper``)."""
    _check_float(x, "cholesky_solve", complex_ok=False)
    _check_float(y, "cholesky_solve", "y", complex_ok=False)
    _check_matrix(x, "cholesky_solve")
    _check_matrix(y, "cholesky_solve", "y", square=True)
    return run_op("cholesky_solve", x, y, upper=bool(upper))


@tensor_method
def cholesky_inverse(x, upper=False, name=None):
    """Inverse of A from its Cholesky factor ``x`` (a 2-D matrix): inv(x x^T), or inv(x^T x) if ``upper``."""
    _check_float(x, "cholesky_inverse")
    if len(x.shape) != 2:
        raise ValueError("cholesky_inverse: the input tensor must be 2-dimensional")
    if x.shape[0] != x.shape[1]:
        raise ValueError("cholesky_inverse: the input tensor must be a square matrix")
    a = matmul(x, x, transpose_x=True) if upper else matmul(x, x, transpose_y=True)
    return run_op("inverse", a)


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    """Solve ``op(x) @ out = y`` with the triangular matrix ``x`` (its ``upper`` or lower triangle)."""
    _check_float(x, "triangular_solve")
    _check_float(y, "triangular_solve", "y")
    _check_matrix(x, "triangular_solve", square=True)
    _check_matrix(y, "triangular_solve", "y")
    return run_op("triangular_solve", x, y, upper=bool(upper), transpose=bool(transpose),
                  unitriangular=bool(unitriangular))


@tensor_method
def lu(x, pivot=True, get_infos=False, name=None):
    """LU factorization with partial pivoting: (LU, pivots[, infos]); pivots are 1-based int32."""
    _check_float(x, "lu", complex_ok=False)
    _check_matrix(x, "lu")
    packed, piv, infos = run_op("lu", x, pivots=bool(pivot))
    return (packed, piv, infos) if get_infos else (packed, piv)


@tensor_method
def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """(P, L, U) from `lu`'s packed factors ``x`` and pivots ``y``."""
    _check_float(x, "lu_unpack", complex_ok=False)
    _check_matrix(x, "lu_unpack")
    _check(y, "lu_unpack", "y")
    return run_op("lu_unpack", x, y, unpack_ludata=bool(unpack_ludata), unpack_pivots=bool(unpack_pivots))


def lu_solve(b, lu, pivots, trans="N", name=None):
    """Solve ``A @ out = b`` (``trans`` 'T'/'C': A^T) from A's `lu` factorization."""
    _check_float(b, "lu_solve", "b", complex_ok=False)
    _check_float(lu, "lu_solve", "lu", complex_ok=False)
    if len(b.shape) < 2:
        raise ValueError(f"`b` dimension must be gather than 2, but got {len(b.shape)}")
    if len(lu.shape) < 2:
        raise ValueError(f"`lu` dimension must be gather than 2, but got {len(lu.shape)}")
    if len(pivots.shape) < 1:
        raise ValueError(f"`pivots` dimension must be gather than 1, but got {len(pivots.shape)}")
    if b.shape[-2] != lu.shape[-2]:
        raise ValueError(f"the rows of `b` must be equal to the rows of `lu`, but got {b.shape[-2]} and {lu.shape[-2]}")
    if lu.shape[-1] != lu.shape[-2]:
        raise ValueError(f"`lu` shape[-1] must be equal to `lu` shape[-2], but got {lu.shape[-1]} and {lu.shape[-2]}")
    if pivots.shape[-1] != lu.shape[-1]:
        raise ValueError(f"`pivots` shape[-1] must be equal to `lu` shape[-1], but got {pivots.shape[-1]} "
                         f"and {lu.shape[-1]}")
    if trans not in ("N", "T", "C"):
        raise ValueError(f"lu_solve: trans must be 'N', 'T' or 'C', got {trans!r}")
    from ..ops.meta import broadcast_shapes
    batch = list(broadcast_shapes(broadcast_shapes(b.shape[:-2], lu.shape[:-2]), pivots.shape[:-1]))
    if list(b.shape[:-2]) != batch:
        b = _manip.broadcast_to(b, batch + list(b.shape[-2:]))
    if list(lu.shape[:-2]) != batch:
        lu = _manip.broadcast_to(lu, batch + list(lu.shape[-2:]))
    if list(pivots.shape[:-1]) != batch:
        pivots = _manip.broadcast_to(pivots, batch + list(pivots.shape[-1:]))
    # real inputs only: 'C' is 'T' (Paddle maps every non-'N' value to 'T')
    return run_op("lu_solve", b, lu, pivots, trans="N" if trans == "N" else "T")


@tensor_method
def lstsq(x, y, rcond=None, driver=None, name=None):
    """Least-squares solution of ``x @ solution = y``: (solution, residuals, rank, singular_values).

    Drivers as on Paddle's CPU: 'gelsy' (default), 'gels', 'gelsd', 'gelss'. Residuals are given when
    M > N and the driver is not 'gelsy'; singular values only for 'gelsd' / 'gelss'.
    """
    if driver not in (None, "gels", "gelss", "gelsd", "gelsy"):
        raise ValueError(f"Only support valid driver is 'gels', 'gelss', 'gelsd', 'gelsy' or None for CPU "
                         f"inputs. But got {driver}")
    driver = "gelsy" if driver is None else driver
    _check(x, "lstsq")
    _check(y, "lstsq", "y")
    if not (x.dtype == y.dtype and _np_dtype(x) in (np.float32, np.float64)):
        raise ValueError("Only support x and y have the same dtype such as 'float32' and 'float64'.")
    if len(x.shape) < 2:
        raise ValueError(f"The shape of x should be (*, M, N), but received ndim is [{len(x.shape)} < 2]")
    if len(y.shape) < 2:
        raise ValueError(f"The shape of y should be (*, M, K), but received ndim is [{len(y.shape)} < 2]")
    if x.shape[-2] != y.shape[-2]:
        raise ValueError(f"x with shape (*, M = {x.shape[-2]}, N) and y with shape (*, M = {y.shape[-2]}, K) "
                         "should have same M.")
    if rcond is None:
        rcond = (1e-7 if _np_dtype(x) == np.float32 else 1e-15) * max(x.shape[-2], x.shape[-1])
    sol, res, rank, sv = run_op("lstsq", x, y, rcond=float(rcond), driver=driver)
    if driver == "gels":   # Paddle replaces what this driver does not compute with empty tensors
        rank = _creation.zeros([0], "int64")
    return sol, res, rank, sv
