"""`Uniform` initializer (``uniform_random``)."""
from __future__ import annotations

from ...dispatch import run_op
from .initializer import Initializer, _check_number

__all__ = ["Uniform", "UniformInitializer"]


class Uniform(Initializer):
    """Samples uniformly from [``low``, ``high``)."""

    def __init__(self, low=-1.0, high=1.0, name=None):
        self._low = _check_number("Uniform", "low", low)
        self._high = _check_number("Uniform", "high", high)
        if self._low > self._high:
            raise ValueError(f"Uniform: low must not exceed high, got low={low}, high={high}")
        self._seed = 0

    def _build(self, shape, dtype, param):
        return run_op("uniform_random", None, None, shape=list(shape), dtype=dtype.proto,
                      min=self._low, max=self._high, seed=self._seed)

    def __repr__(self):
        return f"Uniform(low={self._low}, high={self._high})"


class UniformInitializer(Uniform):
    """Paddle's legacy spelling: ``UniformInitializer(low, high, seed)``."""

    def __init__(self, low=-1.0, high=1.0, seed=0, diag_num=0, diag_step=0, diag_val=1.0):
        super().__init__(low, high)
        self._seed = int(seed)
