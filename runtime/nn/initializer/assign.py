"""`Assign` initializer: a given array (``assign_value``)."""
from __future__ import annotations

import numpy as np

from ...dispatch import run_op
from ...tensor import Tensor
from .initializer import Initializer

__all__ = ["Assign", "NumpyArrayInitializer"]


class Assign(Initializer):
    """Fill with ``value`` (ndarray, nested list or Tensor) of the parameter's shape."""

    def __init__(self, value, name=None):
        if isinstance(value, Tensor):
            arr = np.array(value.numpy(), copy=True)
        elif isinstance(value, (np.ndarray, list, tuple, int, float, np.generic)):
            arr = np.asarray(value)
        else:
            raise TypeError(f"Assign: value must be an ndarray, a list/tuple or a Tensor, got {type(value).__name__}")
        if arr.dtype == object or arr.dtype.kind not in "biuf":
            raise TypeError(f"Assign: value must hold numbers, got dtype {arr.dtype}")
        self._value = arr

    def _build(self, shape, dtype, param):
        arr = self._value
        if arr.size != int(np.prod(shape, dtype=np.int64)):
            raise ValueError(f"Assign: value has shape {list(arr.shape)} ({arr.size} elements) but the "
                             f"parameter has shape {list(shape)}")
        values = arr.astype(dtype.np).ravel().tolist()
        return run_op("assign_value", None, shape=[int(d) for d in shape], dtype=dtype.proto, values=values)

    def __repr__(self):
        return f"Assign(value=<array of shape {list(self._value.shape)}>)"


NumpyArrayInitializer = Assign
