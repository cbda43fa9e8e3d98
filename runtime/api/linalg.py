"""Linear algebra: matmul, mm, bmm, dot, t, norm, dist, cross, einsum, and the `paddle.linalg`
norms, products and statistics (vector_norm, matrix_norm, cond, matrix_rank, matrix_power,
multi_dot, matrix_exp, cov, corrcoef, vecdot, matrix_transpose, diagonal).

Solvers and factorizations are in linalg_solve.py, decompositions in linalg_decomp.py; the
`runtime.linalg` package gathers the ``paddle.linalg`` namespace. Names Paddle exports at the top
level (``paddle.inverse``, ``paddle.cholesky`` ...) are in each module's ``__all__``; the others
exist only as ``paddle.linalg.*``, as in Paddle.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..dispatch import run_op
from ..ops.linalg import UnsupportedDtypeError
from ..ops.meta import normalize_axis
from ..tensor import Tensor, tensor_method
from . import creation as _creation
from . import manipulation as _manip
from . import math as _math
from . import reduction as _red
from ._helpers import is_var
from .arg_checks import ArgumentTypeError, static_check_dtype

__all__ = ["matmul", "mm", "bmm", "dot", "t", "norm", "dist", "cross", "einsum", "matrix_transpose", "vecdot",
           "diagonal"]


def _check(x, api, what="x"):
    # Paddle: TypeError from static-mode checks, ValueError from the eager op binding; this is both
    if not is_var(x):
        raise ArgumentTypeError(f"{api}: {what} must be a Tensor, got {type(x).__name__}")


@tensor_method
def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product with numpy's rules: batch dimensions broadcast, a 1-D operand is a vector.

    ``transpose_x``/``transpose_y`` swap the last two dimensions of an operand of rank >= 2 first.
    """
    _check(x, "matmul")
    _check(y, "matmul", "y")
    return run_op("matmul_v2", x, y, trans_x=bool(transpose_x), trans_y=bool(transpose_y))


@tensor_method
def mm(input, mat2, name=None):
    """``input @ mat2`` (same rules as `matmul`)."""
    _check(input, "mm", "input")
    _check(mat2, "mm", "mat2")
    return run_op("matmul_v2", input, mat2)


@tensor_method
def bmm(x, y, name=None):
    """Batched matrix product of two 3-D tensors [b, m, k] @ [b, k, n] -> [b, m, n]."""
    _check(x, "bmm")
    _check(y, "bmm", "y")
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) != 3 or len(ys) != 3:
        raise ValueError(f"bmm: x and y must be 3-D tensors, got shapes {xs} and {ys}")
    if -1 not in (xs[0], ys[0]) and xs[0] != ys[0]:
        raise ValueError(f"bmm: x and y must have the same batch size, got shapes {xs} and {ys}")
    if -1 not in (xs[2], ys[1]) and xs[2] != ys[1]:
        raise ValueError(f"bmm: x's last dimension must equal y's middle one, got shapes {xs} and {ys}")
    return run_op("bmm", x, y)


@tensor_method
def dot(x, y, name=None):
    """Inner product of two 1-D tensors (0-D result), or row by row of two 2-D tensors ([n] result)."""
    _check(x, "dot")
    _check(y, "dot", "y")
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) not in (1, 2) or len(xs) != len(ys):
        raise ValueError(f"dot: x and y must both be 1-D or both 2-D, got shapes {xs} and {ys}")
    for t, what in ((x, "x"), (y, "y")):
        static_check_dtype(t.dtype, what, ("float16", "float32", "float64", "int32", "int64", "complex64",
                                           "complex128"), "dot")
    return run_op("dot", x, y)


@tensor_method
def t(input, name=None):
    """Transpose of a tensor of rank <= 2 (rank 0 and 1 are returned unchanged)."""
    _check(input, "t", "input")
    n = len(input.shape)
    if n > 2:
        raise ValueError(f"t: input must have at most 2 dimensions, got shape {list(input.shape)}; "
                         "use paddle.transpose for higher ranks")
    if n < 2:
        return input
    return run_op("transpose2", input, axis=[1, 0])


def _porder(p, api):
    if isinstance(p, bool) or not isinstance(p, (numbers.Real, np.number)):
        raise ValueError(f"{api}: p must be 'fro', 'nuc' or a number, got {p!r}")
    return float(p)


@tensor_method
def norm(x, p=None, axis=None, keepdim=False, out=None, dtype=None, name=None):
    """Vector or matrix norm of ``x``, dispatched as Paddle does.

    A string ``p`` ('fro', 'nuc'): 'fro' over None / one axis is the vector 2-norm, otherwise a
    matrix norm (over every axis when ``axis`` is None). A number (default 2): a matrix norm when
    ``axis`` names two axes, else the vector p-norm (0 counts non-zeros, inf takes the max).
    """
    _check(x, "norm")
    if isinstance(axis, Tensor):
        axis = axis.numpy().reshape(-1).tolist()
    if isinstance(axis, tuple):
        axis = list(axis)
    elif isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    if dtype is not None:
        x = _manip.cast(x, dtype)
    if isinstance(p, str):
        if p == "fro" and (axis is None or isinstance(axis, (numbers.Integral, np.integer))):
            res = vector_norm(x, p=2, axis=axis, keepdim=keepdim)
        else:
            res = matrix_norm(x, p=p, axis=list(range(len(x.shape))) if axis is None else axis, keepdim=keepdim)
    else:
        p = 2.0 if p is None else _porder(p, "norm")
        if isinstance(axis, list) and len(axis) == 2:
            res = matrix_norm(x, p=p, axis=axis, keepdim=keepdim)
        else:
            res = vector_norm(x, p=p, axis=axis, keepdim=keepdim)
    return _assign_out(res, out)


@tensor_method
def dist(x, y, p=2, name=None):
    """The p-norm of ``x - y`` (broadcast) over all elements: p 0 counts non-zeros, inf takes the max."""
    _check(x, "dist")
    _check(y, "dist", "y")
    return run_op("dist", x, y, p=_porder(p, "dist"))


@tensor_method
def cross(x, y, axis=9, name=None):
    """Cross product of 3-vectors along ``axis`` (default: the first dimension of size 3)."""
    _check(x, "cross")
    _check(y, "cross", "y")
    if list(x.shape) != list(y.shape):
        raise ValueError(f"cross: x and y must have the same shape, got {list(x.shape)} and {list(y.shape)}")
    if axis is None:
        axis = 9
    if axis != 9:
        ax = normalize_axis(int(axis), len(x.shape), "axis")
        if x.shape[ax] not in (3, -1):
            raise ValueError(f"cross: dimension {axis} of shape {list(x.shape)} must have size 3")
    return run_op("cross", x, y, dim=int(axis))


def einsum(equation, *operands):
    """Einstein summation over ``operands`` in numpy's notation (``'bij,bjk->bik'``; ``'...'`` broadcasts;
    without ``->`` the output keeps, sorted, the letters that occur once)."""
    from ..ops.math import einsum_expand
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum: equation must be a str, got {type(equation).__name__}")
    if not operands:
        raise ValueError("einsum: at least one operand is required")
    for k, x in enumerate(operands):
        _check(x, "einsum", f"operands[{k}]")
    eq = equation.replace(" ", "")
    if "->" not in eq:   # write the implicit output out, as Paddle does before building the op
        _, out = einsum_expand(eq, [len(x.shape) for x in operands])
        ell = "..." if "..." in eq else ""
        eq = eq + "->" + ell + "".join(c for c in out if c in eq)
    else:
        einsum_expand(eq, [len(x.shape) for x in operands])   # validates
    return run_op("einsum", list(operands), equation=eq)


# ---------------------------------------------------------------------------------------------
# helpers shared by the linalg modules
# ---------------------------------------------------------------------------------------------
def _np_dtype(x):
    return x.dtype.np if hasattr(x.dtype, "np") else np.dtype(x.dtype)


def _check_float(x, api, what="x", complex_ok=True):
    _check(x, api, what)
    d = _np_dtype(x)
    ok = d in (np.float32, np.float64) or (complex_ok and d in (np.complex64, np.complex128))
    if not ok:
        allowed = "float32, float64, complex64 or complex128" if complex_ok else "float32 or float64"
        raise UnsupportedDtypeError(f"{api}: {what} must be a {allowed} tensor, got {x.dtype}")


def _check_matrix(x, api, what="x", square=False):
    shape = list(x.shape)
    if len(shape) < 2:
        raise ValueError(f"{api}: {what} must have at least 2 dimensions ([..., M, N]), got shape {shape}")
    if square and shape[-1] != shape[-2] and -1 not in shape[-2:]:
        raise ValueError(f"{api}: the last two dimensions of {what} must be equal (square matrices), got shape {shape}")


def _swap_last(x):
    perm = list(range(len(x.shape)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return run_op("transpose2", x, axis=perm)


def _assign_out(res, out):
    if out is None:
        return res
    from .creation import assign
    assign(res, out)
    return out


@tensor_method
def matrix_power(x, n, name=None):
    """``x`` raised to the integer power ``n`` (negative: powers of the inverse; 0: identity)."""
    _check_float(x, "matrix_power")
    _check_matrix(x, "matrix_power", square=True)
    if isinstance(n, bool) or not isinstance(n, (numbers.Integral, np.integer)):
        raise TypeError(f"matrix_power: n must be an int, got {type(n).__name__}")
    return run_op("matrix_power", x, n=int(n))


def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None):
    """Number of singular values (|eigenvalues| when ``hermitian``) above the tolerance, as int64.

    ``tol`` alone is an absolute threshold (default: max(M, N) * eps * largest singular value);
    ``atol``/``rtol`` (without ``tol``) give max(atol, rtol * largest).
    """
    _check_float(x, "matrix_rank")
    _check_matrix(x, "matrix_rank")
    real = {np.complex64: "float32", np.complex128: "float64"}.get(_np_dtype(x).type, str(_np_dtype(x)))
    if atol is not None or rtol is not None:
        if tol is not None:
            raise ValueError("Only support to use tol alone or use atol and rtol without tol.")
        atol_t = _as_tol(0.0 if atol is None else atol, real)
        rtol_t = None if rtol is None else _as_tol(rtol, real)
        if rtol_t is not None:
            atol_t, rtol_t = _manip.broadcast_tensors([atol_t, rtol_t])
        return run_op("matrix_rank_atol_rtol", x, atol_t, rtol_t, hermitian=bool(hermitian))
    if tol is None:
        return run_op("matrix_rank", x, None, tol=0.0, use_default_tol=True, hermitian=bool(hermitian))
    if isinstance(tol, Tensor) or is_var(tol):
        return run_op("matrix_rank", x, _manip.cast(tol, real), use_default_tol=False, hermitian=bool(hermitian))
    return run_op("matrix_rank", x, None, tol=float(tol), use_default_tol=False, hermitian=bool(hermitian))


def _as_tol(v, dtype):
    if isinstance(v, Tensor) or is_var(v):
        return _manip.cast(v, dtype)
    return _creation.full([], float(v), dtype)


def _backshift(a0, a1, ndim):
    perm = [i for i in range(ndim) if i not in (a0, a1)] + [a0, a1]
    inv = [perm.index(i) for i in range(ndim)]
    return perm, inv


def _svd_reduce(x, a0, a1, keepdim, how):
    """Reduce the singular values over the matrix axes (a0, a1): 'sum' (nuclear), 'max' or 'min'."""
    ndim = len(x.shape)
    perm, inv = _backshift(a0, a1, ndim)
    s = run_op("svd", run_op("transpose2", x, axis=perm), full_matrices=False)[1]   # as Paddle builds it
    red = {"sum": _red.sum, "max": _red.max, "min": _red.min}[how]
    out = red(s, axis=-1, keepdim=keepdim)
    if keepdim:
        out = run_op("transpose2", _manip.unsqueeze(out, -1), axis=inv)
    return out


def matrix_norm(x, p="fro", axis=[-2, -1], keepdim=False, name=None):  # noqa: B006 (Paddle's signature)
    """Matrix norm over two axes: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf."""
    _check_float(x, "matrix_norm")
    if isinstance(axis, tuple):
        axis = list(axis)
    if not (isinstance(axis, list) and len(axis) == 2):
        raise ValueError(f"except axis type int or list (length of list == 2), found {axis}")
    ndim = len(x.shape)
    a0, a1 = (normalize_axis(int(a), ndim, "axis") for a in axis)
    if a0 == a1:
        raise ValueError(f"matrix_norm: the two axes must differ, got {axis}")
    keepdim = bool(keepdim)
    if p == "fro":
        return run_op("frobenius_norm", x, dim=[a0, a1], keep_dim=keepdim, reduce_all=False)
    if p == "nuc":
        return _svd_reduce(x, a0, a1, keepdim, "sum")
    if not isinstance(p, str) and p in (1, -1, 2, -2, np.inf, -np.inf):
        if abs(p) == 2:
            return _svd_reduce(x, a0, a1, keepdim, "max" if p > 0 else "min")
        # 1: max over columns of the column sums of |x|; inf: the same with rows (min for negative p)
        inner, outer = (a0, a1) if abs(p) == 1 else (a1, a0)
        sums = _red.sum(_math.abs(x), axis=inner, keepdim=True)
        red = _red.max if p > 0 else _red.min
        out = red(sums, axis=outer, keepdim=True)
        return out if keepdim else _manip.squeeze(out, axis=sorted([a0, a1]))
    raise ValueError(f"just support p value 'fro','nuc',1,-1,inf,-inf,2,-2 if axis is 2D, found {p}")


def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None, *, dtype=None, out=None):
    """Vector p-norm over ``axis`` (None: all elements; an int or a list of axes)."""
    _check(x, "vector_norm")
    if isinstance(p, bool) or not isinstance(p, (numbers.Real, np.number)):
        raise ValueError(f"only valid p type is int and float, found {type(p)}")
    if dtype is not None:
        x = _manip.cast(x, dtype)
    keepdim = bool(keepdim)
    p = float(p)
    if isinstance(axis, tuple):
        axis = list(axis)
    if isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    if axis is None:
        res = run_op("p_norm", x, porder=p, axis=-1, keepdim=keepdim, asvector=True)
    elif isinstance(axis, (numbers.Integral, np.integer)):
        normalize_axis(int(axis), len(x.shape), "axis")
        res = run_op("p_norm", x, porder=p, axis=int(axis), keepdim=keepdim, asvector=False)
    elif isinstance(axis, list):
        axes = [normalize_axis(int(a), len(x.shape), "axis") for a in axis]
        ax = _math.abs(x)
        if p == np.inf:
            res = _red.max(ax, axis=axes, keepdim=keepdim)
        elif p == -np.inf:
            res = _red.min(ax, axis=axes, keepdim=keepdim)
        elif p == 0:
            res = _manip.cast(_red.count_nonzero(ax, axis=axes, keepdim=keepdim), x.dtype)
        else:
            res = _math.pow(_red.sum(_math.pow(ax, p), axis=axes, keepdim=keepdim), 1.0 / p)
    else:
        raise TypeError(f"vector_norm: axis must be None, an int or a list of ints, got {axis!r}")
    return _assign_out(res, out)


@tensor_method
def cond(x, p=None, name=None):
    """Condition number of square matrices in norm ``p`` (None/2: largest / smallest singular value)."""
    _check_float(x, "cond", complex_ok=False)
    shape = list(x.shape)
    if len(shape) < 2:
        raise ValueError("input should be a matrix or batches of matrices, "
                         f"but the dimension of received input is {len(shape)}")
    if p is None:
        p = 2
    if p in ("fro", "nuc", 1, -1, np.inf, -np.inf):
        if shape[-1] != shape[-2]:
            raise ValueError(f"only support p is {p} when input is a square matrix or batches of square matrices")
        return matrix_norm(x, p) * matrix_norm(run_op("inverse", x), p)
    if p in (2, -2):
        s = run_op("svd", x, full_matrices=False)[1]
        big, small = _red.max(s, axis=-1), _red.min(s, axis=-1)
        return big / small if p == 2 else small / big
    raise ValueError(f"unsupported {p} for p, only supporting ('fro', 'nuc', 1, -1, 2, -2, inf, -inf) or none")


@tensor_method
def multi_dot(x, name=None):
    """Chained matrix product of a list of tensors (the first and last may be 1-D vectors)."""
    if not isinstance(x, (list, tuple)):
        raise TypeError(f"multi_dot: x must be a list of Tensors, got {type(x).__name__}")
    for k, t in enumerate(x):
        _check_float(t, "multi_dot", f"x[{k}]", complex_ok=False)
    return run_op("multi_dot", list(x))


@tensor_method
def corrcoef(x, rowvar=True, name=None):
    """Pearson correlation coefficients of the variables (rows, or columns when not ``rowvar``)."""
    _check_float(x, "corrcoef", complex_ok=False)
    if len(x.shape) > 2 or len(x.shape) < 1:
        raise ValueError("Input(x) only support N-D (1<=N<=2) tensor in corrcoef, but received "
                         f"length of Input(input) is {len(x.shape)}.")
    c = cov(x, rowvar)
    if len(c.shape) == 0:
        return c / c
    std = _math.sqrt(_creation.diag(c))
    c = c / _manip.unsqueeze(std, 1)
    c = c / _manip.unsqueeze(std, 0)
    return _math.clip(c, -1, 1)


@tensor_method
def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """Covariance matrix of the variables (rows of x, or columns when not ``rowvar``).

    ``ddof`` True divides by N - 1; ``fweights`` (integer counts) and ``aweights`` weight observations.
    """
    _check_float(x, "cov", complex_ok=False)
    if len(x.shape) > 2 or len(x.shape) < 1:
        raise ValueError("Input(x) only support N-D (1<=N<=2) tensor in cov, but received length of "
                         f"Input(input) is {len(x.shape)}.")
    nx = _manip.reshape(x, [1, -1]) if len(x.shape) == 1 else x
    if not rowvar and nx.shape[0] != 1:
        nx = _swap_last(nx)
    n_obs = nx.shape[1]
    w = None
    if fweights is not None:
        if len(fweights.shape) > 1:
            raise ValueError("Input(fweights) only support N-D (N<=1) tensor in cov, but received shape of "
                             f"Input(input) is {len(fweights.shape)}.")
        if fweights.shape[0] != n_obs:
            raise ValueError(f"The number of Input(fweights) should equal to x's dim[1]: {n_obs}, but "
                             f"received size of Input(fweights) is {fweights.shape[0]}.")
        if isinstance(fweights, Tensor):
            fw = fweights.numpy()
            if fw.min() < 0:
                raise ValueError("The value of Input(fweights) cannot be negative, but received min of "
                                 f"Input(fweights) is {fw.min()}.")
            if not np.all(fw == np.round(fw)):
                raise ValueError("Input(fweights) must be integer ")
        w = _manip.cast(fweights, nx.dtype)
    if aweights is not None:
        if len(aweights.shape) > 1:
            raise ValueError("Input(aweights) only support N-D (N<=1) tensor in cov, but received length of "
                             f"Input(input) is {len(aweights.shape)}.")
        _check_float(aweights, "cov", "aweights", complex_ok=False)
        if aweights.shape[0] != n_obs:
            raise ValueError(f"The number of Input(aweights) should equal to x's dim[1]: {n_obs}, but "
                             f"received size of Input(aweights) is {aweights.shape[0]}.")
        if isinstance(aweights, Tensor) and aweights.numpy().min() < 0:
            raise ValueError("The value of Input(aweights) cannot be negative, but received min of "
                             f"Input(aweights) is {aweights.numpy().min()}.")
        aw = _manip.cast(aweights, nx.dtype)
        w = aw if w is None else w * aw
    if w is not None:
        w_sum = _red.sum(w)
        if isinstance(w_sum, Tensor) and float(w_sum.numpy()) == 0:
            raise ValueError("The sum of weights is zero, can't be normalized.")
        nx_w = nx * w
        avg = _red.sum(nx_w, axis=1) / w_sum
    else:
        w_sum = _creation.full([], float(n_obs), nx.dtype)
        avg = _red.sum(nx, axis=1) / w_sum
        nx_w = nx
    if w is not None and aweights is not None and ddof:
        norm_factor = w_sum - _red.sum(w * _manip.cast(aweights, nx.dtype)) / w_sum
    else:
        norm_factor = w_sum - float(bool(ddof))
    norm_factor = _math.clip(norm_factor, min=0)
    centered = nx - _manip.unsqueeze(avg, 1)
    return _manip.squeeze(matmul(centered, nx_w, transpose_y=True) / norm_factor)


def matrix_exp(x, name=None):
    """exp of each square matrix (scaling and squaring with a Pade approximant); float32/float64."""
    if not is_var(x):
        from .creation import to_tensor
        x = to_tensor(x)
    d = _np_dtype(x)
    if d not in (np.float32, np.float64):
        raise ValueError(f"The input tensor's dtype must be float32 or float64, but got {d}")
    if len(x.shape) == 1:
        raise ValueError("The input tensor must be at least two-dimensional")
    if len(x.shape) >= 2 and x.shape[-1] != x.shape[-2]:
        raise ValueError("Last 2 dimensions of the tensor must be square")
    return run_op("matrix_exp", x)


@tensor_method
def matrix_transpose(x, name=None):
    """Swap the last two dimensions."""
    _check(x, "matrix_transpose")
    if len(x.shape) < 2:
        raise ValueError(f"matrix_transpose: x must have at least 2 dimensions, got shape {list(x.shape)}")
    return _swap_last(x)


def vecdot(x, y, axis=-1, name=None):
    """Dot product of vectors along ``axis`` (broadcasting the other dimensions)."""
    _check(x, "vecdot")
    _check(y, "vecdot", "y")
    return _red.sum(x * y, axis=axis)


@tensor_method
def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """The diagonal (``offset`` above it when positive) of the planes spanned by ``axis1``/``axis2``,
    as the last dimension of the result."""
    _check(x, "diagonal")
    return run_op("diagonal", x, offset=int(offset), axis1=int(axis1), axis2=int(axis2))


def fp8_fp8_half_gemm_fused(x, y, transpose_x=False, transpose_y=False, bias=None, scale=1.0,
                            output_dtype="float16", act="identity", name=None):
    """A fused float8 GEMM that Paddle runs only on CUDA GPUs (sm89+): not available on the CPU."""
    raise RuntimeError("fp8_fp8_half_gemm_fused: float8 GEMM needs a CUDA GPU (compute capability >= 8.9); "
                       "dy2st runs on the CPU only")
