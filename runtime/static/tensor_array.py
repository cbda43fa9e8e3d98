"""Tensor arrays: create_array, array_write, array_read, array_length, tensor_array_to_tensor, and
array_pop / array_insert (``list.pop`` / ``list.insert`` of to_static lists changed in tensor loops),
and ``arr[i]`` / ``arr[i] = v`` on a tensor array inside a Program (array_getitem / array_setitem).

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
           "array_insert", "array_getitem", "array_setitem"]


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


def _unwrap(array):
    """The array Variable of dy2st's TensorArrayList (what a tensor loop makes of an array it carries),
    else ``array`` itself."""
    inner = getattr(array, "array", None)
    return inner if _is_array(inner) else array


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
    given, array = array, _unwrap(array)
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
    return given


def array_read(array, i):
    """The element at index ``i`` of ``array``."""
    if not state.static:
        k = _eager_index(i, "array_read")
        if not isinstance(array, list):
            raise TypeError(f"array_read: array must be a list (a tensor array), got {type(array).__name__}")
        if not 0 <= k < len(array):
            raise IndexError(f"array_read: index {k} is out of range for an array of length {len(array)}")
        return array[k]
    array = _unwrap(array)
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
    array = _unwrap(array)
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
    given, array = array, _unwrap(array)
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
    return given


def array_length(array):
    """The number of elements of ``array`` (int64 tensor of shape [1])."""
    if not state.static:
        if not isinstance(array, list):
            raise TypeError(f"array_length: array must be a list (a tensor array), got {type(array).__name__}")
        return Tensor(np.array([len(array)], dtype=np.int64))
    array = _unwrap(array)
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
    input = _unwrap(input)
    if not _is_array(input):
        raise TypeError(f"tensor_array_to_tensor: input must be a tensor array, got {input!r}")
    return run_op("tensor_array_to_tensor", input, axis=axis, use_stack=bool(use_stack))


# -- arr[i] / arr[i] = v on a tensor array inside a Program (Paddle: slice_array_dense / array_write) ---------

def _scalar_index(index, what):
    """``index`` checked to be an int (returned as a Python int) or an integer tensor (returned as is)."""
    if isinstance(index, (bool, np.bool_)):
        raise TypeError(f"{what}: a tensor array is indexed by an int or an int tensor, got a bool")
    if isinstance(index, (int, np.integer)):
        return int(index)
    if isinstance(index, Tensor) or (isinstance(index, Variable) and index.type == VarType.LOD_TENSOR):
        if index.dtype.np.kind not in "iu":
            raise TypeError(f"{what}: a tensor used as a tensor array index must hold integers, got {index.dtype}")
        return index
    raise TypeError(f"{what}: a tensor array is indexed by an int or a 0-D int tensor; slices, tuples, lists, "
                    f"None and Ellipsis are not supported inside a Program (got {type(index).__name__})")


def array_getitem(array, index):
    """``array[index]`` for a tensor array in a Program: the element at an int or a 0-D int tensor index
    (negative counts from the end; one before the front reads element 0), as Paddle's
    ``slice_array_dense``; built from read_from_array, so saved programs hold Paddle's legacy ops."""
    if type(index) is slice:
        return _slice_array(array, index)
    if index is None or index is Ellipsis:
        raise NotImplementedError(
            f"indexing a tensor array with {index!r} inside a Program is not supported (Paddle builds an "
            f"unsqueeze / slice of the array that its executor cannot run); read single elements with arr[i]")
    if isinstance(index, tuple):   # as a Python list would (Paddle reads element index[0], ignoring the rest)
        raise TypeError(f"a tensor array is indexed by one int or one 0-D int tensor, got the tuple {index!r}; "
                        f"index the element afterwards (arr[i][j])")
    if isinstance(index, (list, np.ndarray)):
        raise IndexError(f"a tensor array is indexed by one int or one 0-D int tensor, got the "
                         f"{type(index).__name__} {index!r}: tensor arrays have no advanced indexing")
    k = _scalar_index(index, "tensor array __getitem__")
    if isinstance(k, int):
        if k >= 0:
            return array_read(array, k)
        block = default_main_program().current_block()
        i = run_op("elementwise_add", array_length(array), as_variable(block, np.array([k], dtype=np.int64)))
        return array_read(array, _at_least_zero(block, i))
    if len(k.shape) != 0:
        # as Paddle: a non-0-D tensor index is an advanced index, which tensor arrays do not have
        raise IndexError(f"a tensor array is indexed by an int or a 0-D int tensor, got a tensor of shape "
                         f"{list(k.shape)}; use paddle.tensor.array_read(arr, i), or index with i.reshape([])")
    block = default_main_program().current_block()
    i = _index_var(block, k)
    neg = run_op("cast", run_op("less_than", i, as_variable(block, np.array([0], dtype=np.int64))), in_dtype=0,
                 out_dtype=3)
    i = run_op("elementwise_add", i, run_op("elementwise_mul", neg, array_length(array)))
    return array_read(array, _at_least_zero(block, i))


def _slice_bound(block, v, n, default):
    """A slice bound (None, an int or an integer tensor) as an int64 [1] Variable in [0, n] (negative
    counting from the end, as Paddle's slice_array), and the bound as given (None: ``default``)."""
    if v is None:
        return default, default
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer, Tensor, Variable)):
        raise TypeError(f"a slice of a tensor array needs int or integer tensor bounds, got {type(v).__name__}")
    if isinstance(v, (Tensor, Variable)) and v.dtype.np.kind not in "iu":
        raise TypeError(f"a slice of a tensor array needs integer bounds, got a {v.dtype} tensor")
    raw = _index_var(block, v)
    neg = run_op("cast", run_op("less_than", raw, _const_i64(block, 0)), in_dtype=0, out_dtype=3)
    at = run_op("elementwise_add", raw, run_op("elementwise_mul", neg, n))
    return run_op("elementwise_min", _at_least_zero(block, at), n), raw


def _const_i64(block, v):
    return as_variable(block, np.array([v], dtype=np.int64))


def _slice_array(array, s):
    """``array[start:stop]`` (step 1): a new tensor array of those elements, as Paddle's slice_array (whose
    bounds count from the end when negative and are clamped to the length; ``[-1:0]`` is the last element,
    and an empty slice is an error when the Program runs). Elements are copied by a while op."""
    if s.step is not None and not (isinstance(s.step, (int, np.integer)) and s.step == 1):
        raise NotImplementedError(f"a slice of a tensor array with step {s.step!r} inside a Program is not supported "
                                  f"(Paddle supports step 1 only)")
    from .control_flow import while_loop
    block = default_main_program().current_block()
    n = array_length(array)
    start, raw_start = _slice_bound(block, s.start, n, _const_i64(block, 0))
    stop, _ = _slice_bound(block, s.stop, n, n)
    # Paddle's special case: a start of -1 with a stop that comes to 0 takes the one last element
    last = run_op("logical_and", run_op("equal", raw_start, _const_i64(block, -1)),
                  run_op("equal", stop, _const_i64(block, 0)))
    last = run_op("cast", last, in_dtype=0, out_dtype=3)
    stop = run_op("elementwise_add", stop, run_op("elementwise_mul", last,
                                                  run_op("elementwise_sub", run_op("scale", start, scale=1.0,
                                                                                   bias=1.0), stop)))
    ok = run_op("greater_than", stop, start)
    block.append_op("assert", {"Cond": [ok], "Data": [start, stop]}, {}, {"summarize": -1})
    out = create_array(array.dtype)
    if getattr(array, "_element_known", True):
        out._set_meta(array.shape, array.dtype.np)
        out._element_known = True

    def cond(i):
        return run_op("less_than", i, stop)

    def body(i):
        array_write(array_read(array, i), run_op("elementwise_sub", i, start), out)
        return [run_op("scale", i, scale=1.0, bias=1.0)]

    while_loop(cond, body, [run_op("assign", start)])
    return out


def _at_least_zero(block, i):
    # as Paddle's slice_array_dense: a negative index past the front reads element 0
    return run_op("elementwise_max", i, as_variable(block, np.array([0], dtype=np.int64)))


def array_setitem(array, index, value):
    """``array[index] = value`` for a tensor array in a Program: ``array_write`` at an int or an int tensor
    index (as Paddle; writing at the length appends). Returns the array."""
    if isinstance(index, (tuple, list, slice, np.ndarray)) or index is None or index is Ellipsis:
        raise NotImplementedError(f"only support __setitem__ by an int or an int tensor on a tensor array, got "
                                  f"{type(index).__name__} {index!r}")
    k = _scalar_index(index, "tensor array __setitem__")
    if isinstance(k, int) and k < 0:
        # Paddle's array_write aborts the process here; a negative position has no meaning for a write
        raise IndexError(f"tensor array __setitem__: index {k} is negative; write at a position in [0, len(arr)]")
    if not isinstance(value, (Tensor, Variable)):
        if not isinstance(value, (int, float, bool, np.generic, np.ndarray, list)):
            raise TypeError(f"tensor array __setitem__: the value must be a tensor or a number, got "
                            f"{type(value).__name__}")
        value = np.asarray(value, dtype=array.dtype.np)
    block = default_main_program().current_block()
    return array_write(as_variable(block, value), _index_var(block, k), array)
