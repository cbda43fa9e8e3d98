"""Xavier (Glorot) initializers: scale from fan_in + fan_out."""
from __future__ import annotations

import math

from ...dispatch import run_op
from .initializer import Initializer, _check_number, compute_fans

__all__ = ["XavierUniform", "XavierNormal", "XavierInitializer"]


class _Xavier(Initializer):
    _uniform = True

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self._fan_in = None if fan_in is None else _check_number(type(self).__name__, "fan_in", fan_in)
        self._fan_out = None if fan_out is None else _check_number(type(self).__name__, "fan_out", fan_out)
        self._gain = _check_number(type(self).__name__, "gain", gain)
        self._seed = 0

    def _fans(self, shape):
        fi, fo = compute_fans(shape)
        return (fi if self._fan_in is None else self._fan_in), (fo if self._fan_out is None else self._fan_out)

    def _build(self, shape, dtype, param):
        fan_in, fan_out = self._fans(shape)
        total = max(fan_in + fan_out, 1)
        if self._uniform:
            limit = self._gain * math.sqrt(6.0 / total)
            return run_op("uniform_random", None, None, shape=list(shape), dtype=dtype.proto,
                          min=-limit, max=limit, seed=self._seed)
        std = self._gain * math.sqrt(2.0 / total)
        return run_op("gaussian_random", None, None, shape=list(shape), mean=0.0, std=std,
                      seed=self._seed, dtype=dtype.proto)

    def __repr__(self):
        return f"{type(self).__name__}(fan_in={self._fan_in}, fan_out={self._fan_out}, gain={self._gain})"


class XavierUniform(_Xavier):
    """U(-limit, limit) with limit = gain * sqrt(6 / (fan_in + fan_out))."""
    _uniform = True


class XavierNormal(_Xavier):
    """N(0, std²) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    _uniform = False


class XavierInitializer(_Xavier):
    """Paddle's legacy spelling: ``XavierInitializer(uniform=True, fan_in, fan_out, seed)``."""

    def __init__(self, uniform=True, fan_in=None, fan_out=None, seed=0):
        super().__init__(fan_in, fan_out)
        self._uniform = bool(uniform)
        self._seed = int(seed)
