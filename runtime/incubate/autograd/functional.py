"""``paddle.incubate.autograd``'s functional transforms: ``vjp``, ``jvp`` and the lazily evaluated
``Jacobian``/``Hessian`` of a *function* (``paddle.autograd.jacobian`` takes tensors instead).

In dynamic mode, as in Paddle, ``vjp`` is one reverse pass with ``create_graph=True`` and ``jvp`` is the
double-vjp trick: ``jvp(v) = d/du <vjp(u), v>`` with a zero cotangent ``u`` that requires grad. The inputs are
separated from the caller's graph first (a non-leaf is copied, a leaf is detached and made to require grad).
In static mode the same formulas build ops with `runtime.static.backward.gradients`.
"""
from __future__ import annotations

import typing

from ...tensor import Tensor
from ...framework import state

__all__ = ["vjp", "jvp", "Jacobian", "Hessian"]


def _is_var(x):
    from ...static.program import Variable
    return isinstance(x, (Tensor, Variable))


def _as_tensors(xs):
    if _is_var(xs):
        return (xs,)
    if isinstance(xs, typing.Sequence):
        return tuple(xs)
    return xs


def _check_inputs(func, xs, v=None):
    if not callable(func):
        raise TypeError(f"Expected 'fun' is Callable, but got {type(func)}.")
    if not (_is_var(xs) or isinstance(xs, typing.Sequence)):
        raise TypeError(f"Expected 'xs' is a Tensor|Sequence[Tensor], but got {type(xs)}.")
    if isinstance(xs, typing.Sequence) and not all(_is_var(x) for x in xs):
        raise TypeError("All elements of 'xs' should be Tensor.")
    if not (_is_var(v) or isinstance(v, (typing.Sequence, type(None)))):
        raise TypeError(f"Expected 'v' is Tensor|Sequence[Tensor]|None, but got {type(v)}.")
    if isinstance(v, typing.Sequence) and not all(_is_var(e) for e in v):
        raise TypeError("All elements of 'xs' should be Tensor.")


def _check_v_shape(v, refs):
    if v is None:
        return
    v, refs = _as_tensors(v), _as_tensors(refs)
    if len(refs) != len(v):
        raise RuntimeError(f"The argument v is a tuple of invalid length:should be {len(refs)} but got {len(v)}.")
    for index, (ev, er) in enumerate(zip(v, refs)):
        if list(ev.shape) != list(er.shape):
            raise RuntimeError(f"The v[{index}] has invalid shape: should be {list(er.shape)} but got "
                               f"{list(ev.shape)}.")


def _single_separate(x):
    from ...api.creation import assign
    if x is None:
        return x
    if state.static:        # a copy in the program that the gradient is taken against
        y = assign(x)
        y.stop_gradient = False
        return y
    if not x.stop_gradient:
        return assign(x)
    x = x.detach()
    x.stop_gradient = False
    return x


def _separate(xs):
    if isinstance(xs, typing.Sequence):
        return tuple(_single_separate(x) for x in xs)
    return _single_separate(xs)


def _zeros_for_none(grads, refs):
    from ...api.creation import zeros_like
    if grads is None:
        z = zeros_like(refs)
        z.stop_gradient = refs.stop_gradient
        return z
    if isinstance(grads, typing.Sequence):
        return tuple(_zeros_for_none(g, refs[i]) for i, g in enumerate(grads))
    return grads


def _grad(ys, xs, v=None):
    """Reverse-mode product ``v^T dys/dxs`` (None gradients become zeros), differentiable again."""
    if state.static:
        from ...static.backward import gradients
        ys_l = list(_as_tensors(ys))
        xs_l = list(_as_tensors(xs))
        v_l = None if v is None else list(_as_tensors(v))
        gs = gradients(ys_l, xs_l, v_l)
        gs = gs[0] if _is_var(xs) else tuple(gs)
    else:
        from ...autograd import grad
        gs = grad(ys, xs, v, create_graph=True, allow_unused=True)
        if _is_var(xs) and isinstance(gs, typing.Sequence) and len(gs) > 0:
            gs = gs[0]
    return _zeros_for_none(gs, xs)


def vjp(func, xs, v=None):
    """``(func(xs), v^T J)``: the function's outputs and the vector-Jacobian product (``v`` defaults to ones)."""
    _check_inputs(func, xs, v)
    xs, v = _separate(xs), _separate(v)
    ys = func(*xs) if isinstance(xs, typing.Sequence) else func(xs)
    _check_v_shape(v, ys)
    return ys, _grad(ys, xs, v)


def _zeros_like_with_grad(ys):
    from ...api.creation import zeros_like
    if not isinstance(ys, typing.Sequence):
        z = zeros_like(ys)
        z.stop_gradient = False
        return z
    out = []
    for y in ys:
        z = zeros_like(y)
        z.stop_gradient = False
        out.append(z)
    return out


def _double_backward_trick(ys, xs, v):
    ys_grad = _zeros_like_with_grad(ys)
    xs_grad = _grad(ys, xs, ys_grad)
    return _grad(xs_grad, ys_grad, v)


def jvp(func, xs, v=None):
    """``(func(xs), J v)``: the function's outputs and the Jacobian-vector product (``v`` defaults to ones)."""
    _check_inputs(func, xs, v)
    xs, v = _separate(xs), _separate(v)
    ys = func(*xs) if isinstance(xs, typing.Sequence) else func(xs)
    _check_v_shape(v, xs)
    return ys, _double_backward_trick(ys, xs, v)


def _multi_index(indexes, shape):
    indexes = indexes if isinstance(indexes, typing.Sequence) else (indexes,)
    if any(i is Ellipsis for i in indexes):
        raise IndexError("Ellipsis index currently is not supported.")
    indexes = tuple(indexes) + (slice(0, None, None),) * (len(shape) - len(indexes))
    out = []
    for i, index in enumerate(indexes):
        if isinstance(index, slice):
            index = slice(index.start or 0, index.stop or shape[i], index.step or 1)
            out.append(slice(index.start + shape[i] if index.start < 0 else index.start,
                             index.stop + shape[i] if index.stop < 0 else index.stop, index.step))
        elif isinstance(index, int):
            out.append(index + shape[i] if index < 0 else index)
        else:
            raise TypeError(f"Not supported index type {index}.")
    return tuple(out)


class _Jacobian:
    """The lazy matrix: rows along ``_lazy_axis`` are evaluated (one reverse pass each) when indexed, and cached."""

    _lazy_axis = 0

    def __init__(self, func, xs):
        self._xs = _separate(xs)
        self._ys = func(*_as_tensors(self._xs))
        self._flatten_xs = self._flatten(_as_tensors(self._xs))
        self._flatten_ys = self._flatten(_as_tensors(self._ys))
        self._cache = {}

    def __getitem__(self, indexes):
        from ...api.manipulation import concat
        indexes = _multi_index(indexes, self.shape)
        lazy = indexes[self._lazy_axis]
        if isinstance(lazy, int):
            other = indexes[:self._lazy_axis] + indexes[self._lazy_axis + 1:]
            return self._cached_evaluate(lazy)[other]
        rows = tuple(range(lazy.start, lazy.stop, lazy.step))
        shape = list(self.shape)
        shape[self._lazy_axis] = len(rows)
        part = concat([self._cached_evaluate(i) for i in rows], axis=self._lazy_axis).reshape(shape)
        shifted = (*indexes[:self._lazy_axis], slice(0, len(rows), 1), *indexes[self._lazy_axis + 1:])
        return part[shifted]

    def _cached_evaluate(self, k):
        v = self._cache.get(k)
        if v is None:
            v = self._evaluate(k)
            self._cache[k] = v
        return v


class _JacobianNoBatch(_Jacobian):
    _lazy_axis = 0

    @property
    def shape(self):
        return (self._flatten_ys.shape[0], self._flatten_xs.shape[0])

    def _flatten(self, xs):
        from ...api.manipulation import concat
        return concat(tuple(x.reshape((-1,)) for x in xs))

    def _evaluate(self, row):
        return self._flatten(_as_tensors(_grad(self._flatten_ys[row], self._xs)))


class _JacobianBatchFirst(_Jacobian):
    _lazy_axis = 1

    @property
    def shape(self):
        return (self._flatten_xs.shape[0], self._flatten_ys.shape[1], self._flatten_xs.shape[1])

    def _flatten(self, xs):
        from ...api.manipulation import concat
        return concat(tuple(x.reshape((x.shape[0], -1)) for x in _as_tensors(xs)), 1)

    def _evaluate(self, row):
        return self._flatten(_grad(self._flatten_ys[:, row], self._xs))


class Jacobian:
    """The Jacobian of ``func`` at ``xs``: ``[M, N]`` (all outputs and inputs flattened and concatenated), or
    ``[B, M, N]`` with ``is_batched=True`` (axis 0 is the batch). Indexing evaluates only the needed rows."""

    def __init__(self, func, xs, is_batched=False):
        self._jacobian = _JacobianBatchFirst(func, xs) if is_batched else _JacobianNoBatch(func, xs)

    def __getitem__(self, indexes):
        return self._jacobian[indexes]

    @property
    def shape(self):
        """``(M, N)`` or ``(B, M, N)``."""
        return self._jacobian.shape


class Hessian:
    """The Hessian of a scalar-valued ``func`` (one element, or one per batch row with ``is_batched=True``):
    the Jacobian of its gradient, ``[N, N]`` or ``[B, N, N]``."""

    def __init__(self, func, xs, is_batched=False):
        def _jac_func(*xs):
            jac = Jacobian(func, xs, is_batched=is_batched)
            if (is_batched and jac.shape[1] != 1) or (not is_batched and jac.shape[0] != 1):
                raise RuntimeError("The function given to Hessian should return as single element Tensor or "
                                   "batched single element Tensor.")
            return jac[:, 0, :] if is_batched else jac[0, :]
        self.symbolic = Jacobian(_jac_func, xs, is_batched=is_batched)

    def __getitem__(self, indexes):
        return self.symbolic[indexes]

    @property
    def shape(self):
        """``(N, N)`` or ``(B, N, N)``."""
        return self.symbolic.shape
