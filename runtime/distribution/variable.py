"""Random-variable descriptors (domain/codomain of transforms): discreteness, event rank, constraint."""
from __future__ import annotations

import runtime as paddle

from . import constraint


class Variable:
    """A random variable's kind: discrete or not, its event rank and its constraint."""

    def __init__(self, is_discrete=False, event_rank=0, constraint=None):
        self._is_discrete = is_discrete
        self._event_rank = event_rank
        self._constraint = constraint

    @property
    def is_discrete(self):
        return self._is_discrete

    @property
    def event_rank(self):
        return self._event_rank

    def constraint(self, value):
        if self._constraint is None:
            raise NotImplementedError(f"{type(self).__name__} has no constraint to check values against")
        return self._constraint.check(value)


class Real(Variable):
    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraint.real)


class Positive(Variable):
    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraint.positive)


class Independent(Variable):
    """``base`` with its ``reinterpreted_batch_rank`` rightmost batch axes taken as event axes."""

    def __init__(self, base, reinterpreted_batch_rank):
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__(base.is_discrete, base.event_rank + reinterpreted_batch_rank)

    def constraint(self, value):
        ret = self._base.constraint(value)
        if ret.dim() < self._reinterpreted_batch_rank:
            raise ValueError(f'Input dimensions must be equal or grater than  {self._reinterpreted_batch_rank}')
        return ret.reshape((*ret.shape[:ret.dim() - self._reinterpreted_batch_rank], -1)).all(-1)


class Stack(Variable):
    """Variables stacked along ``axis``."""

    def __init__(self, vars, axis=0):
        self._vars = vars
        self._axis = axis

    @property
    def is_discrete(self):
        return any(var.is_discrete for var in self._vars)

    @property
    def event_rank(self):
        rank = max(var.event_rank for var in self._vars)
        if self._axis + rank < 0:
            rank += 1
        return rank

    def constraint(self, value):
        if not -value.dim() <= self._axis < value.dim():
            raise ValueError(f'Input dimensions {value.dim()} should be grater than stack constraint axis '
                             f'{self._axis}.')
        return paddle.stack([var.constraint(v) for var, v in zip(self._vars, paddle.unstack(value, self._axis))],
                            self._axis)


real = Real()
positive = Positive()
