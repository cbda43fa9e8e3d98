"""Small helpers shared by the API modules: argument normalisation and scalar promotion."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor, TensorMethods


def is_var(x) -> bool:
    """True for eager Tensors and static Variables (anything carrying tensor methods)."""
    return isinstance(x, TensorMethods)


def scalar_like(value, ref):
    """A Python/numpy scalar as a 0-D array of the dtype it should take next to tensor ``ref``.

    Follows Paddle 3.3.1 (measured): a Python float next to an integer or bool tensor is
    float32 (whatever the default dtype), a Python int next to a bool tensor int64, a
    complex next to a real tensor complex64 (the 0-D promotion rule then widens it for
    float64 tensors); otherwise the scalar takes the tensor's dtype.
    """
    kind = ref.dtype.np.kind if hasattr(ref.dtype, "np") else np.dtype(ref.dtype).kind
    rd = ref.dtype.np if hasattr(ref.dtype, "np") else np.dtype(ref.dtype)
    if isinstance(value, bool) and kind != "b":
        value = int(value)
    elif type(value) is int and kind == "b":
        return np.asarray(value, dtype=np.int64)
    if isinstance(value, float) and kind in "iub":
        return np.asarray(value, dtype=np.float32)
    if isinstance(value, complex) and kind != "c":
        return np.asarray(value, dtype=np.complex64)
    return np.asarray(value, dtype=rd)


def as_list(x):
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return [int(v) if isinstance(v, (np.integer,)) else v for v in x]
    if isinstance(x, Tensor):
        return [int(v) for v in np.atleast_1d(x.numpy()).tolist()]
    return [x]
