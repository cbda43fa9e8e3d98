"""``paddle.static.InputSpec``: the shape, dtype and name of a model input.

``None`` or ``-1`` in the shape is a dimension that may change between calls (a batch size);
it stays -1 in the Program that to_static builds, so one Program serves every size.
"""
from __future__ import annotations

import numpy as np

from ..dtype import DType, convert_dtype
from ..tensor import Tensor

__all__ = ["InputSpec"]


class InputSpec:
    """``InputSpec(shape, dtype='float32', name=None, stop_gradient=False)``."""

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        if isinstance(shape, int):
            shape = [shape]
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"InputSpec: shape must be a list or tuple of ints (None or -1 for a dynamic dim), "
                            f"got {type(shape).__name__}")
        dims = []
        for d in shape:
            if d is None or (isinstance(d, (int, np.integer)) and int(d) == -1):
                dims.append(-1)
            elif isinstance(d, (int, np.integer)) and int(d) >= 0:
                dims.append(int(d))
            else:
                raise ValueError(f"InputSpec: each dim of shape must be a non-negative int, None or -1, got {d!r} "
                                 f"in {list(shape)}")
        self.shape = tuple(dims)
        self.dtype = convert_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor, name=None):
        if not isinstance(tensor, Tensor) and not hasattr(tensor, "shape"):
            raise TypeError(f"InputSpec.from_tensor: expected a Tensor, got {type(tensor).__name__}")
        return cls(list(tensor.shape), tensor.dtype, name or getattr(tensor, "name", None))

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        return cls(list(ndarray.shape), convert_dtype(ndarray.dtype), name)

    def batch(self, batch_size):
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError(f"InputSpec.batch: length of batch_size must be 1, got {len(batch_size)}")
            batch_size = batch_size[0]
        if batch_size is not None and not isinstance(batch_size, (int, np.integer)):
            raise TypeError(f"InputSpec.batch: batch_size must be an int or None, got {type(batch_size).__name__}")
        self.shape = (-1 if batch_size is None else int(batch_size),) + self.shape
        return self

    def unbatch(self):
        if not self.shape:
            raise ValueError("InputSpec.unbatch: the shape is empty, there is no batch dim to remove")
        self.shape = self.shape[1:]
        return self

    def _matches(self, shape, dtype):
        return len(shape) == len(self.shape) and all(a == -1 or a == b for a, b in zip(self.shape, shape)) \
            and (dtype is None or convert_dtype(dtype) == self.dtype)

    def __repr__(self):
        dt = self.dtype.name if isinstance(self.dtype, DType) else self.dtype
        return f"InputSpec(shape={self.shape}, dtype=paddle.{dt}, name={self.name}, stop_gradient={self.stop_gradient})"

    def __eq__(self, other):
        return isinstance(other, InputSpec) and (self.shape, self.dtype, self.name, self.stop_gradient) == \
            (other.shape, other.dtype, other.name, other.stop_gradient)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.name, self.stop_gradient))
