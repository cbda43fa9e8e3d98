"""Kaiming (He / MSRA) initializers: scale from fan_in (or fan_out) and the nonlinearity's gain."""
from __future__ import annotations

import math

from ...dispatch import run_op
from .initializer import Initializer, _check_number, calculate_gain, compute_fans

__all__ = ["KaimingUniform", "KaimingNormal", "MSRAInitializer"]


class _Kaiming(Initializer):
    _uniform = True

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        cls = type(self).__name__
        self._fan_in = None if fan_in is None else _check_number(cls, "fan_in", fan_in)
        self._negative_slope = _check_number(cls, "negative_slope", negative_slope)
        self._nonlinearity = nonlinearity
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"{cls}: mode must be 'fan_in' or 'fan_out', got {mode!r}")
        self._mode = mode
        calculate_gain(nonlinearity, self._negative_slope)  # validate the name now, not at first use
        self._seed = 0

    def _build(self, shape, dtype, param):
        fi, fo = compute_fans(shape)
        if self._fan_in is not None:
            fan = self._fan_in
        else:
            fan = fi if self._mode == "fan_in" else fo
        fan = max(fan, 1)
        gain = calculate_gain(self._nonlinearity, self._negative_slope)
        if self._uniform:
            limit = gain * math.sqrt(3.0 / fan)
            return run_op("uniform_random", None, None, shape=list(shape), dtype=dtype.proto,
                          min=-limit, max=limit, seed=self._seed)
        std = gain / math.sqrt(fan)
        return run_op("gaussian_random", None, None, shape=list(shape), mean=0.0, std=std,
                      seed=self._seed, dtype=dtype.proto)

    def __repr__(self):
        return (f"{type(self).__name__}(fan_in={self._fan_in}, negative_slope={self._negative_slope}, "
                f"nonlinearity={self._nonlinearity!r}, mode={self._mode!r})")


class KaimingUniform(_Kaiming):
    """U(-limit, limit) with limit = gain * sqrt(3 / fan_in)."""
    _uniform = True


class KaimingNormal(_Kaiming):
    """N(0, std²) with std = gain / sqrt(fan_in)."""
    _uniform = False


class MSRAInitializer(_Kaiming):
    """Paddle's legacy spelling: ``MSRAInitializer(uniform=True, fan_in, seed, negative_slope, nonlinearity)``."""

    def __init__(self, uniform=True, fan_in=None, seed=0, negative_slope=0, nonlinearity="relu"):
        super().__init__(fan_in, negative_slope, nonlinearity)
        self._uniform = bool(uniform)
        self._seed = int(seed)
