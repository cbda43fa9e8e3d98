"""Tensor arrays: create_array, array_write, array_read, array_length, tensor_array_to_tensor, and
array_pop / array_insert (``list.pop`` / ``list.insert`` of to_static lists changed in tensor loops).

Eager arrays are Python lists of Tensors; in a Program an array is a LOD_TENSOR_ARRAY variable
(its shape/dtype describe the elements) written by write_to_array ops, a list at run time.
"""
from __future__ import annotations

import numpy as np

from .. import unique_name
from ..dispatch import run_op
from ..dtype import convert_dtype
from ..framework import state
from ..ops import control_flow as _cf_ops  # noqa: F401  (registers the ops)
from ..tensor import Tensor
from .builder import as_variable
from .program import Variable, VarType, default_main_program

__all__ = ["create_array", "array_write", "array_read", "array_length", "tensor_array_to_tensor", "array_pop",
           "array_insert"]


def _eager_index(i, api):
    if isinstance(i, Tensor):
        a = i._data
        if a.size != 1 or a.dtype.kind not in "iu":
            raise TypeError(f"{api}: i must be an integer tensor with one element, got {a.dtype}{list(a.shape)}")
        return int(a.reshape(-1)[0])
    if isinstance(i, (int, np.integer)):
        return int(i)
    raise TypeError(f"{api}: i must be an int or an integer Tensor, got {type(i).__name__}")


def _is_array(v):
    return isinstance(v, Variable) and v.type == VarType.LOD_TENSOR_ARRAY


def create_array(dtype, initialized_list=None):
    """An empty tensor array of ``dtype`` (optionally filled with ``initialized_list``)."""
    items = list(initialized_list or [])
    if not state.static:
        for x in items:
            if not isinstance(x, Tensor):
                raise TypeError(f"create_array: initialized_list must hold Tensors, got {type(x).__name__}")
        return items
    block = default_main_program().current_block()
    arr = block.create_var(name=unique_name.generate("array"), shape=(), dtype=convert_dtype(dtype),
                           type=VarType.LOD_TENSOR_ARRAY)
    arr._element_known = False
    if block.idx != 0:
        # a body that runs again (a loop's, or a branch inside one) must find the array empty each time
        block.append_op("create_array", {}, {"Out": [arr]}, {"dtype": int(arr.dtype.proto)})
    for k, x in enumerate(items):
        array_write(x, np.array([k], dtype=np.int64), arr)
    return arr


def array_write(x, i, array=None):
    """Write ``x`` at index ``i`` of ``array`` (created when None); returns the array."""
    if not state.static:
        k = _eager_index(i, "array_write")
        array = [] if array is None else array
        if not isinstance(array, list):
            raise TypeError(f"array_write: array must be a list (a tensor array), got {type(array).__name__}")
        if k > len(array):
            raise IndexError(f"array_write: index {k} is past the end of the array (length {len(array)})")
        if k == len(array):
            array.append(x)
        else:
            array[k] = x
        return array
    block = default_main_program().current_block()
    xv = as_variable(block, x)
    if array is None:
        array = create_array(xv.dtype)
    if not _is_array(array):
        raise TypeError(f"array_write: array must be a tensor array created by create_array, got {array!r}")
    iv = as_variable(block, i if not isinstance(i, (int, np.integer)) else np.array([i], dtype=np.int64))
    if not getattr(array, "_element_known", True):
        array._set_meta(xv.shape, xv.dtype.np)
        array._element_known = True
    elif array.shape != xv.shape and len(array.shape) == len(xv.shape):
        array._shape = tuple(a if a == b else -1 for a, b in zip(array.shape, xv.shape))
    if not xv.stop_gradient:
        array.stop_gradient = False
    block.append_op("write_to_array", {"X": [xv], "I": [iv]}, {"Out": [array]})
    return array


def array_read(array, i):
    """The element at index ``i`` of ``array``."""
    if not state.static:
        k = _eager_index(i, "array_read")
        if not isinstance(array, list):
            raise TypeError(f"array_read: array must be a list (a tensor array), got {type(array).__name__}")
        if not 0 <= k < len(array):
            raise IndexError(f"array_read: index {k} is out of range for an array of length {len(array)}")
        return array[k]
    if not _is_array(array):
        raise TypeError(f"array_read: array must be a tensor array created by create_array, got {array!r}")
    if isinstance(i, (int, np.integer)):
        i = np.array([i], dtype=np.int64)
    return run_op("read_from_array", array, i)


def _index_var(block, i):
    if isinstance(i, (int, np.integer)):
        return as_variable(block, np.array([int(i)], dtype=np.int64))
    iv = as_variable(block, i)
    if iv.dtype.name != "int64":
        iv = run_op("cast", iv, in_dtype=iv.dtype.proto, out_dtype=3)
    if iv.shape != [1] and iv.shape != (1,):
        iv = run_op("reshape2", iv, None, None, shape=[1])
    return iv


def array_pop(array, i=-1):
    """``list.pop(i)`` on a tensor array: removes element ``i`` (negative counts from the end) and returns it."""
    if not state.static:
        if not isinstance(array, list):
            raise TypeError(f"array_pop: array must be a list (a tensor array), got {type(array).__name__}")
        return array.pop(_eager_index(i, "array_pop"))
    if not _is_array(array):
        raise TypeError(f"array_pop: array must be a tensor array created by create_array, got {array!r}")
    block = default_main_program().current_block()
    iv = _index_var(block, i)
    out = block.create_var(name=unique_name.generate("array_pop_out"), shape=array.shape, dtype=array.dtype,
                           stop_gradient=array.stop_gradient)
    index = block.create_var(name=unique_name.generate("array_pop_index"), shape=(1,), dtype=np.int64,
                             stop_gradient=True)
    block.append_op("array_pop", {"X": [array], "I": [iv]}, {"Out": [out], "ArrayOut": [array], "Index": [index]})
    return out


def array_insert(array, i, x):
    """``list.insert(i, x)`` on a tensor array (``i`` clamped to the length, negative from the end)."""
    if not state.static:
        if not isinstance(array, list):
            raise TypeError(f"array_insert: array must be a list (a tensor array), got {type(array).__name__}")
        array.insert(_eager_index(i, "array_insert"), x)
        return array
    if not _is_array(array):
        raise TypeError(f"array_insert: array must be a tensor array created by create_array, got {array!r}")
    block = default_main_program().current_block()
    xv = as_variable(block, x)
    if not getattr(array, "_element_known", True):
        array._set_meta(xv.shape, xv.dtype.np)
        array._element_known = True
    elif array.shape != xv.shape and len(array.shape) == len(xv.shape):
        array._shape = tuple(a if a == b else -1 for a, b in zip(array.shape, xv.shape))
    if not xv.stop_gradient:
        array.stop_gradient = False
    index = block.create_var(name=unique_name.generate("array_insert_index"), shape=(1,), dtype=np.int64,
                             stop_gradient=True)
    block.append_op("array_insert", {"X": [array], "I": [_index_var(block, i)], "Value": [xv]},
                    {"ArrayOut": [array], "Index": [index]})
    return array


def array_length(array):
    """The number of elements of ``array`` (int64 tensor of shape [1])."""
    if not state.static:
        if not isinstance(array, list):
            raise TypeError(f"array_length: array must be a list (a tensor array), got {type(array).__name__}")
        return Tensor(np.array([len(array)], dtype=np.int64))
    if not _is_array(array):
        raise TypeError(f"array_length: array must be a tensor array created by create_array, got {array!r}")
    return run_op("lod_array_length", array)


def tensor_array_to_tensor(input, axis=1, use_stack=False, name=None):
    """Concatenate (or stack) the elements of ``input`` along ``axis``; returns (tensor, sizes)."""
    if not state.static:
        if not isinstance(input, list) or not input:
            raise ValueError("tensor_array_to_tensor: input must be a non-empty list of Tensors")
        # the differentiable concat/stack ops keep eager gradients flowing
        if use_stack:
            out = run_op("stack", list(input), axis=axis)
            index = np.ones(len(input), dtype=np.int32)
        else:
            out = run_op("concat", list(input), None, axis=axis)
            index = np.array([t.shape[axis] for t in input], dtype=np.int32)
        return out, Tensor(index)
    if not _is_array(input):
        raise TypeError(f"tensor_array_to_tensor: input must be a tensor array, got {input!r}")
    return run_op("tensor_array_to_tensor", input, axis=axis, use_stack=bool(use_stack))
