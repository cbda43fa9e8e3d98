"""``parameters_to_vector`` / ``vector_to_parameters``: flatten parameters into one 1-D tensor and back."""
from __future__ import annotations

import numpy as np

from ...framework import in_dynamic_mode
from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _dygraph_only(where):
    if not in_dynamic_mode():
        raise RuntimeError(f"We only support '{where}()' in dynamic graph mode, "
                           "please call 'paddle.disable_static()' to enter dynamic graph mode.")


def parameters_to_vector(parameters, name=None):
    """Concatenate the flattened ``parameters`` into a new 1-D tensor (a copy, ``stop_gradient=False``)."""
    _dygraph_only("parameters_to_vector")
    params = list(parameters)
    if not params:
        raise IndexError("parameters_to_vector: parameters is empty; pass the layer's parameters()")
    dtype = params[0]._data.dtype
    out = Tensor(np.concatenate([np.asarray(p._data).reshape(-1).astype(dtype, copy=False) for p in params]))
    out.stop_gradient = False
    return out


def vector_to_parameters(vec, parameters, name=None):
    """Copy consecutive slices of the 1-D ``vec`` into ``parameters`` (each keeps its shape)."""
    _dygraph_only("vector_to_parameters")
    if len(vec.shape) != 1:
        raise AssertionError(f"vector_to_parameters: vec must be 1-D, got shape {list(vec.shape)}")
    params = list(parameters)
    sizes = [int(np.prod(p.shape, dtype=np.int64)) for p in params]
    if sum(sizes) > vec.shape[0]:
        raise ValueError("The total_elements of vec should be equal to or larger than the number of elements "
                         "in parameters.")
    data = np.asarray(vec._data)
    start = 0
    for p, n in zip(params, sizes):
        p._data = np.array(data[start:start + n]).reshape(p._data.shape)
        start += n
