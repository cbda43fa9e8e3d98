"""``paddle.autograd.jacobian`` / ``hessian``: lazily evaluated Jacobian and Hessian matrices.

A `Jacobian` is built on ``paddle.grad(..., create_graph=True)``: indexing it evaluates only the rows
(outputs) the index needs, one reverse pass per row, and caches each row, as Paddle's does. Without a batch
axis ``ys`` and ``xs`` are 0-D or 1-D and the matrix is ``[M, N]``; with ``batch_axis=0`` they are 1-D or
2-D and it is ``[B, M, N]``. A Hessian is the Jacobian of the Jacobian, so it needs second-order rules
(`runtime.double_grad`) for the ops between ``xs`` and ``ys``.
"""
from __future__ import annotations

from collections.abc import Sequence

__all__ = ["Jacobian", "Hessian", "jacobian", "hessian"]


def _is_seq(v):
    from .tensor import Tensor
    return isinstance(v, Sequence) and not isinstance(v, (Tensor, str))


def _grad_rows(y, xs):
    """d(sum y)/dxs with create_graph=True; unused inputs get zeros (Paddle's ``_grad_for_jacobian``)."""
    from .autograd import grad
    from .api.creation import zeros_like
    from .framework import state
    single = not _is_seq(xs)
    xs_list = [xs] if single else list(xs)
    if state.static:     # building a Program (to_static): Paddle calls paddle.static.gradients here
        from .static.backward import gradients
        gs = gradients([y], xs_list)
    else:
        gs = grad(y, xs_list, create_graph=True, allow_unused=True)
    out = []
    for g, x in zip(gs, xs_list):
        if g is None:
            g = zeros_like(x)
            g.stop_gradient = x.stop_gradient
        out.append(g)
    return out[0] if single else tuple(out)


class _JacobianImpl:
    """The lazy matrix; subclasses choose the batch layout. Rows are evaluated along ``lazy_axis``."""

    is_batched = False
    lazy_axis = 0

    def __init__(self, ys, xs):
        self.original_xs_shape = list(xs.shape) if not _is_seq(xs) else None
        self.original_ys_shape = list(ys.shape)
        self._xs = xs
        if len(ys.shape) == 0 and not self.is_batched:
            ys = ys.reshape([-1])
        if len(ys.shape) == 1 and self.is_batched:
            ys = ys.reshape([-1, 1])
        self._ys = ys
        self._flat_xs = self._flatten(xs)
        self._flat_ys = self._flatten(ys)
        self._cache = {}

    def _row(self, k):
        if k is None:
            return self._row(0).reshape([])
        v = self._cache.get(k)
        if v is None:
            v = self._evaluate(k)
            self._cache[k] = v
        return v

    def __getitem__(self, index):
        from .api.manipulation import concat
        if not self.is_batched:
            if len(self.shape) == 0:
                raise IndexError("0-D tensor can not be indexed.")
            if len(self.shape) == 1:        # one of ys / xs is 0-D: the index addresses the other axis
                index = (0, index) if len(self.original_ys_shape) == 0 else (index, 0)
        else:
            if len(self.shape) == 1:
                index = (index, 0, 0)
            elif len(self.shape) == 2:
                if isinstance(index, slice):
                    index = (index, slice(None))
                else:
                    index = (index[0], 0, index[1]) if len(self.original_ys_shape) == 1 else (index[0], index[1], 0)
        index = _normalize_index(index, self.inner_shape)
        lazy = index[self.lazy_axis]
        if isinstance(lazy, int):
            rest = index[:self.lazy_axis] + index[self.lazy_axis + 1:]
            return self._row(lazy)[rest]
        rows = list(range(lazy.start, lazy.stop, lazy.step))
        shape = list(self.inner_shape)
        shape[self.lazy_axis] = len(rows)
        part = concat([self._row(i) for i in rows], axis=self.lazy_axis).reshape(shape)
        shifted = index[:self.lazy_axis] + (slice(0, len(rows), 1),) + index[self.lazy_axis + 1:]
        result = part[shifted]
        for _ in range(len(result.shape) - len(self.shape)):
            # Paddle squeezes the last axis when it is 1 (a batched 1-D ys keeps its [B, 1, N] row axis)
            if result.shape[-1] == 1:
                result = result.squeeze(-1)
        return result

    def _evaluate_all(self):
        return self._row(None) if len(self.shape) == 0 else self[:]


class _JacobianNoBatch(_JacobianImpl):
    """f: R^N -> R^M, matrix [M, N]."""

    def __init__(self, ys, xs):
        super().__init__(ys, xs)
        self.inner_shape = [self._flat_ys.shape[0], self._flat_xs.shape[0]]
        self.shape = list(self.original_ys_shape[0:1]) + list(self.original_xs_shape[0:1])

    @staticmethod
    def _flatten(xs):
        from .api.manipulation import concat
        if not _is_seq(xs):
            return xs.reshape([-1])
        return concat([x.reshape([-1]) for x in xs])

    def _evaluate(self, k):
        return self._flatten(_grad_rows(self._flat_ys[k], self._xs))


class _JacobianBatchFirst(_JacobianImpl):
    """f: R^{B,N} -> R^{B,M}, matrix [B, M, N]."""

    is_batched = True
    lazy_axis = 1

    def __init__(self, ys, xs):
        super().__init__(ys, xs)
        self.inner_shape = [self._flat_xs.shape[0], self._flat_ys.shape[1], self._flat_xs.shape[1]]
        self.shape = [self._flat_xs.shape[0]] + list(self.original_ys_shape[1:2]) + list(self.original_xs_shape[1:2])

    @staticmethod
    def _flatten(xs):
        from .api.manipulation import concat
        if not _is_seq(xs):
            return xs.reshape([xs.shape[0], -1])
        return concat([x.reshape([x.shape[0], -1]) for x in xs], axis=1)

    def _evaluate(self, k):
        return self._flatten(_grad_rows(self._flat_ys[:, k], self._xs))


def _normalize_index(index, shape):
    """Index tuple -> one non-negative int or slice per axis (no Ellipsis, as in Paddle)."""
    index = tuple(index) if isinstance(index, Sequence) else (index,)
    if any(i is Ellipsis for i in index):
        raise IndexError("Ellipsis index currently is not supported.")
    index = index + (slice(0, None, None),) * (len(shape) - len(index))
    out = []
    for i, ix in enumerate(index):
        if isinstance(ix, slice):
            start, stop, step = ix.start or 0, ix.stop or shape[i], ix.step or 1
            out.append(slice(start + shape[i] if start < 0 else start, stop + shape[i] if stop < 0 else stop, step))
        elif isinstance(ix, int):
            out.append(ix + shape[i] if ix < 0 else ix)
        else:
            raise TypeError(f"Not supported index type {ix}.")
    return tuple(out)


def _binary(op):
    def method(self, other):
        rhs = other._evaluate_all() if isinstance(other, Jacobian) else other
        return op(self._evaluate_all(), rhs)
    return method


class Jacobian:
    """The Jacobian of ``ys`` w.r.t. ``xs``, evaluated row by row on indexing (``J[:]`` is the whole matrix)."""

    def __init__(self, ys, xs, is_batched: bool = False):
        if not is_batched:
            if not 0 <= len(xs.shape) <= 1:
                raise ValueError(f"xs.ndim should be 0 or 1 when is_batched=False but got {len(xs.shape)}")
            if not 0 <= len(ys.shape) <= 1:
                raise ValueError(f"ys.ndim should be 0 or 1 when is_batched=False but got {len(ys.shape)}")
            self._jacobian = _JacobianNoBatch(ys, xs)
        else:
            if not 1 <= len(ys.shape) <= 2:
                raise ValueError(f"ys.ndim should be 1 or 2 when is_batched=True but got {len(ys.shape)}")
            if not 1 <= len(xs.shape) <= 2:
                raise ValueError(f"xs.ndim should be 1 or 2 when is_batched=True but got {len(xs.shape)}")
            self._jacobian = _JacobianBatchFirst(ys, xs)

    @property
    def shape(self):
        """The shape of the matrix: [M, N], or [B, M, N] with a batch axis (0-D sides drop their axis)."""
        return self._jacobian.shape

    def __getitem__(self, index):
        return self._jacobian[index]

    def _evaluate_all(self):
        return self._jacobian._evaluate_all()

    def __getattr__(self, name):
        # Tensor attributes and methods (numpy, reshape, dtype, ...) act on the whole matrix
        if name.startswith("__") or name == "_jacobian":
            raise AttributeError(name)
        return getattr(self._jacobian._evaluate_all(), name)

    def __repr__(self):
        return f"{type(self).__name__}(shape={self.shape})"

    import operator as _op
    __add__ = _binary(_op.add)
    __sub__ = _binary(_op.sub)
    __mul__ = _binary(_op.mul)
    __truediv__ = _binary(_op.truediv)
    __div__ = __truediv__
    __pow__ = _binary(_op.pow)
    __mod__ = _binary(_op.mod)
    __floordiv__ = _binary(_op.floordiv)
    __matmul__ = _binary(_op.matmul)
    __eq__ = _binary(_op.eq)
    __ne__ = _binary(_op.ne)
    __lt__ = _binary(_op.lt)
    __le__ = _binary(_op.le)
    __gt__ = _binary(_op.gt)
    __ge__ = _binary(_op.ge)
    __hash__ = object.__hash__
    del _op


class Hessian(Jacobian):
    """The Hessian of a scalar ``ys`` w.r.t. ``xs`` (the Jacobian of its gradient)."""


def _numel(shape):
    """Element count from a shape (static shapes may hold -1: then it is not known to be 1)."""
    n = 1
    for d in shape:
        n *= d
    return n if all(d >= 0 for d in shape) else -1


def jacobian(ys, xs, batch_axis=None):
    """``paddle.autograd.jacobian``: a `Jacobian`, or nested tuples of them when ``ys``/``xs`` are sequences."""
    if batch_axis is not None and batch_axis != 0:
        raise ValueError(f"batch_axis should be None or 0, but got {batch_axis}.")
    batched = batch_axis is not None
    ys_seq, xs_seq = _is_seq(ys), _is_seq(xs)
    if ys_seq and xs_seq:
        return tuple(tuple(Jacobian(y, x, batched) for x in xs) for y in ys)
    if ys_seq:
        return tuple(Jacobian(y, xs, batched) for y in ys)
    if xs_seq:
        return tuple(Jacobian(ys, x, batched) for x in xs)
    return Jacobian(ys, xs, batched)


def hessian(ys, xs, batch_axis=None):
    """``paddle.autograd.hessian``: ``ys`` has one element (per batch row with ``batch_axis=0``)."""
    if batch_axis is None:
        if _numel(ys.shape) != 1:
            raise ValueError(f"Only support ys.numel()({_numel(ys.shape)})==1 when batch_axis is None.")
        ys = ys.reshape(())
    elif isinstance(batch_axis, int):
        if _numel(ys.shape[1:]) != 1:
            raise ValueError(f"Only support ys[0].numel()({_numel(ys.shape)})==1 when batch_axis is int")
        if batch_axis != 0:
            raise ValueError("Only support batch_axis=0 yet.")
        ys = ys.reshape((-1,))
    else:
        raise ValueError(f"batch_axis should be None or int, but got {type(batch_axis)}.")
    first = jacobian(ys, xs, batch_axis)
    if not _is_seq(xs):
        h = jacobian(first, xs, batch_axis)
        h.__class__ = Hessian
        return h
    h = tuple(jacobian(j, xs, batch_axis) for j in first)
    for row in h:
        for item in row:
            item.__class__ = Hessian
    return h
