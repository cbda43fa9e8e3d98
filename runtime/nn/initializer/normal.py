"""`Normal` (``gaussian_random``) and `TruncatedNormal` (``truncated_gaussian_random``) initializers."""
from __future__ import annotations

from ...dispatch import run_op
from .initializer import Initializer, _check_number

__all__ = ["Normal", "TruncatedNormal", "NormalInitializer", "TruncatedNormalInitializer"]


class Normal(Initializer):
    """Samples from N(``mean``, ``std``²)."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        self._mean = _check_number("Normal", "mean", mean)
        self._std = _check_number("Normal", "std", std)
        if self._std < 0:
            raise ValueError(f"Normal: std must be non-negative, got {std}")
        self._seed = 0

    def _build(self, shape, dtype, param):
        return run_op("gaussian_random", None, None, shape=list(shape), mean=self._mean, std=self._std,
                      seed=self._seed, dtype=dtype.proto)

    def __repr__(self):
        return f"Normal(mean={self._mean}, std={self._std})"


class TruncatedNormal(Initializer):
    """Samples from N(``mean``, ``std``²) restricted to the interval [``a``, ``b``]."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        self._mean = _check_number("TruncatedNormal", "mean", mean)
        self._std = _check_number("TruncatedNormal", "std", std)
        self._a = _check_number("TruncatedNormal", "a", a)
        self._b = _check_number("TruncatedNormal", "b", b)
        if self._std < 0:
            raise ValueError(f"TruncatedNormal: std must be non-negative, got {std}")
        if self._a >= self._b:
            raise ValueError(f"TruncatedNormal: a must be less than b, got a={a}, b={b}")
        self._seed = 0

    def _build(self, shape, dtype, param):
        return run_op("truncated_gaussian_random", shape=list(shape), mean=self._mean, std=self._std,
                      seed=self._seed, a=self._a, b=self._b, dtype=dtype.proto)

    def __repr__(self):
        return f"TruncatedNormal(mean={self._mean}, std={self._std}, a={self._a}, b={self._b})"


class NormalInitializer(Normal):
    """Paddle's legacy spelling: ``NormalInitializer(loc, scale, seed)``."""

    def __init__(self, loc=0.0, scale=1.0, seed=0):
        super().__init__(loc, scale)
        self._seed = int(seed)


class TruncatedNormalInitializer(TruncatedNormal):
    def __init__(self, loc=0.0, scale=1.0, seed=0, a=-2.0, b=2.0):
        super().__init__(loc, scale, a, b)
        self._seed = int(seed)
