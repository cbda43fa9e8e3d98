"""`Bilinear` (upsampling kernels for transposed convolutions) and `Dirac` (identity convolution kernels)
initializers: fixed values computed here and written with ``assign_value``."""
from __future__ import annotations

import numpy as np

from ...dispatch import run_op
from .initializer import Initializer

__all__ = ["Bilinear", "BilinearInitializer", "Dirac"]


def _assign(arr, shape, dtype):
    return run_op("assign_value", None, shape=[int(d) for d in shape], dtype=dtype.proto,
                  values=arr.astype(dtype.np).ravel().tolist())


class Bilinear(Initializer):
    """Bilinear interpolation kernels for a ``[C_out, C_in, K, K]`` weight (use with ``Conv2DTranspose``
    to upsample). Computed in float32 as Paddle does, then cast to the parameter's dtype."""

    def _build(self, shape, dtype, param):
        if len(shape) != 4:
            raise ValueError("the length of shape must be 4.")
        if shape[2] != shape[3]:
            raise ValueError("shape[2] must be equal to shape[3].")
        if dtype.name not in ("float16", "float32", "float64", "bfloat16"):
            raise TypeError(f"Unsupported dtype {dtype.name}: Bilinear initializes floating-point parameters")
        n = int(np.prod(shape))
        if n > 1024 * 1024:
            raise ValueError("The size of input is too big. ")
        size = shape[3]
        f = np.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        i = np.arange(n, dtype=np.float64)
        x = i % size
        y = (i / size) % size           # Paddle divides without flooring: rows blend fractionally
        weight = ((1 - np.abs(x / f - c)) * (1 - np.abs(y / f - c))).astype(np.float32)
        return _assign(weight.reshape(shape), shape, dtype)

    def __repr__(self):
        return "Bilinear()"


BilinearInitializer = Bilinear


class Dirac(Initializer):
    """Identity (Dirac delta) kernels for a 3-D/4-D/5-D convolution weight: output channel ``j`` of each of
    ``groups`` groups copies input channel ``j`` at the kernel centre."""

    def __init__(self, groups=1, name=None):
        if not (isinstance(groups, int) and not isinstance(groups, bool) and groups > 0):
            raise AssertionError(" 'groups' must be a positive integer. ")
        self._groups = groups

    def _build(self, shape, dtype, param):
        if dtype.name not in ("float16", "float32", "float64", "bfloat16"):
            raise TypeError(f"Dirac: the parameter must be float16, bfloat16, float32 or float64, got {dtype.name}")
        if len(shape) not in (3, 4, 5):
            raise AssertionError("Only Tensor with 3/4/5 dimensions can be initialized by Dirac")
        if shape[0] % self._groups != 0:
            raise AssertionError("Tensor 0-dimension must be divisible by groups")
        weight = np.zeros(shape, np.float32)
        per_group = shape[0] // self._groups
        centre = tuple(d // 2 for d in shape[2:])
        for g in range(self._groups):
            for j in range(min(per_group, shape[1])):
                weight[(g * per_group + j, j) + centre] = 1.0
        return _assign(weight, shape, dtype)

    def __repr__(self):
        return f"Dirac(groups={self._groups})"
