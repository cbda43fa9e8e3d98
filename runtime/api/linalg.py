"""Linear algebra: matmul, mm, bmm, dot, t, norm, dist, cross, einsum."""
from __future__ import annotations

import numbers

import numpy as np

from ..dispatch import run_op
from ..ops.meta import normalize_axis
from ..tensor import Tensor, tensor_method
from ._helpers import is_var

__all__ = ["matmul", "mm", "bmm", "dot", "t", "norm", "dist", "cross", "einsum"]


def _check(x, api, what="x"):
    if not is_var(x):
        raise TypeError(f"{api}: {what} must be a Tensor, got {type(x).__name__}")


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
    return run_op("matmul_v2", x, y)


@tensor_method
def dot(x, y, name=None):
    """Inner product of two 1-D tensors (0-D result), or row by row of two 2-D tensors ([n] result)."""
    _check(x, "dot")
    _check(y, "dot", "y")
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) not in (1, 2) or len(xs) != len(ys):
        raise ValueError(f"dot: x and y must both be 1-D or both 2-D, got shapes {xs} and {ys}")
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


def _axis_list(axis, api):
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis.numpy().reshape(-1).tolist()
    if isinstance(axis, (numbers.Integral, np.integer)) and not isinstance(axis, bool):
        return [int(axis)]
    if isinstance(axis, (list, tuple)) and all(isinstance(a, (numbers.Integral, np.integer)) for a in axis):
        return [int(a) for a in axis]
    raise TypeError(f"{api}: axis must be None, an int or a list of ints, got {axis!r}")


def _porder(p, api):
    if isinstance(p, bool) or not isinstance(p, (numbers.Real, np.number)):
        raise ValueError(f"{api}: p must be 'fro', 'nuc' or a number, got {p!r}")
    return float(p)


@tensor_method
def norm(x, p=None, axis=None, keepdim=False, name=None):
    """Vector or matrix norm of ``x``.

    ``axis`` None: the vector norm of all elements (p None/'fro' = 2). An int axis: the vector
    p-norm along it (p may be 0, inf, -inf or any number). Two axes: the matrix norm -- 'fro'
    (default), 1, -1, inf or -inf ('nuc', 2 and -2 need an SVD and are not supported).
    """
    _check(x, "norm")
    axes = _axis_list(axis, "norm")
    ndim = len(x.shape)
    keepdim = bool(keepdim)
    if axes is None:
        if p == "nuc":
            raise ValueError("norm: p='nuc' (nuclear norm) needs an SVD and is not supported")
        porder = 2.0 if p in (None, "fro") else _porder(p, "norm")
        return run_op("p_norm", x, porder=porder, axis=-1, keepdim=keepdim, asvector=True)
    if len(axes) == 1:
        normalize_axis(axes[0], ndim, "axis")
        if p == "nuc":
            raise ValueError("norm: p='nuc' needs two axes (a matrix), got one axis")
        porder = 2.0 if p in (None, "fro") else _porder(p, "norm")
        return run_op("p_norm", x, porder=porder, axis=axes[0], keepdim=keepdim, asvector=False)
    if len(axes) != 2:
        raise ValueError(f"norm: axis must be None, an int or two ints, got {axes}")
    a0, a1 = (normalize_axis(a, ndim, "axis") for a in axes)
    if a0 == a1:
        raise ValueError(f"norm: the two axes must differ, got {axes}")
    if p in (None, "fro"):
        return run_op("frobenius_norm", x, dim=[a0, a1], keep_dim=keepdim, reduce_all=False)
    if p in (1, -1, np.inf, -np.inf) and not isinstance(p, bool):
        # matrix 1-norm: max column sum of |x|; inf-norm: max row sum (-1/-inf take the min)
        inner, outer = (a0, a1) if abs(p) == 1 else (a1, a0)
        sums = run_op("reduce_sum", run_op("abs", x), dim=[inner], keep_dim=True, reduce_all=False)
        reduce = "reduce_max" if p > 0 else "reduce_min"
        out = run_op(reduce, sums, dim=[outer], keep_dim=True, reduce_all=False)
        if not keepdim:
            out = run_op("squeeze2", out, axes=sorted([a0, a1]))
        return out
    if p in ("nuc", 2, -2):
        raise ValueError(f"norm: p={p!r} over two axes (spectral/nuclear norm) needs an SVD and is not supported; "
                         "supported matrix norms: 'fro', 1, -1, inf, -inf")
    raise ValueError(f"norm: p over two axes must be 'fro', 'nuc', 1, -1, inf, -inf, 2 or -2, got {p!r}")


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
