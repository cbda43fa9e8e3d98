"""Constraints on the values of random variables: real, positive, a range, the simplex."""
from __future__ import annotations

import runtime as paddle


class Constraint:
    """A predicate over values; ``check`` returns a boolean tensor."""

    def __call__(self, value):
        raise NotImplementedError

    def check(self, value):
        return self(value)


class Real(Constraint):
    """Every non-NaN value."""

    def __call__(self, value):
        return value == value


class Range(Constraint):
    """Values in ``[lower, upper]``."""

    def __init__(self, lower, upper):
        self._lower = lower
        self._upper = upper
        super().__init__()

    def __call__(self, value):
        return paddle.logical_and(self._lower <= value, value <= self._upper)


class Positive(Constraint):
    """Values >= 0."""

    def __call__(self, value):
        return value >= 0.0


class Simplex(Constraint):
    """Non-negative vectors along the last axis summing to one."""

    def __call__(self, value):
        return paddle.logical_and(paddle.all(value >= 0, axis=-1), (value.sum(-1) - 1).abs() < 1e-6)


real = Real()
positive = Positive()
simplex = Simplex()
