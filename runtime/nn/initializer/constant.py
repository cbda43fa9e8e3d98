"""`Constant` initializer (``fill_constant``)."""
from __future__ import annotations

from ...dispatch import run_op
from .initializer import Initializer, _check_number

__all__ = ["Constant", "ConstantInitializer"]


class Constant(Initializer):
    """Fill with ``value`` (default 0.0)."""

    def __init__(self, value=0.0, force_cpu=False):
        self._value = _check_number("Constant", "value", value)
        self._force_cpu = force_cpu

    @property
    def value(self):
        return self._value

    def _build(self, shape, dtype, param):
        return run_op("fill_constant", None, None, None, shape=list(shape), dtype=dtype.proto,
                      value=self._value)

    def __repr__(self):
        return f"Constant(value={self._value})"


ConstantInitializer = Constant
