"""`TensorArrayList`: a Python list of tensors that became a tensor array under tensor control flow.

Paddle's to_static turns a list whose ``append`` / ``pop`` a tensor loop (or a tensor ``if``) calls into
a tensor array; ours is this wrapper around the LOD_TENSOR_ARRAY Variable, giving the list's methods as
array ops (runtime/static/tensor_array.py), so converted code keeps calling them as on a list.
"""
from __future__ import annotations

import numpy as np

from runtime.dispatch import run_op
from runtime.static import tensor_array
from runtime.static.builder import as_variable
from runtime.static.program import Variable, default_main_program
from runtime.tensor import Tensor


def _int64_1(v):
    """``v`` (a Variable or a Python int) as an int64 [1] Variable."""
    if isinstance(v, Variable):
        v = v if v.dtype.name == "int64" else run_op("cast", v, in_dtype=v.dtype.proto, out_dtype=3)
        return run_op("reshape2", v, None, None, shape=[1]) if v.shape == [] else v
    return as_variable(default_main_program().current_block(), np.array([int(v)], dtype=np.int64))


class TensorArrayList:
    """A Python list that became a tensor array inside a tensor-dependent loop (or a tensor ``if``
    whose branches leave it with different lengths).

    ``append`` / ``pop`` (with and without index) / ``insert`` / ``extend`` (with a Python list) and item
    assignment change the array in place with ops, gradients included; ``len``, indexing,
    ``paddle.stack`` / ``paddle.concat`` (through the converted call) read it back as tensors."""

    def __init__(self, array):
        self.array = array

    def append(self, x):
        n = tensor_array.array_length(self.array)
        tensor_array.array_write(x, n, self.array)

    def pop(self, i=-1):
        return tensor_array.array_pop(self.array, _index_value(i, "pop"))

    def insert(self, i, x):
        tensor_array.array_insert(self.array, _index_value(i, "insert"), x)

    def extend(self, items):
        if isinstance(items, TensorArrayList):
            raise TypeError("list.extend with another list built in a tensor loop is not supported (its length "
                            "is known only when the Program runs); append its items in the loop instead")
        for x in items:
            self.append(x)

    def _position(self, i):
        """A non-negative int64 [1] index for item ``i`` (negative counts from the end)."""
        if isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            if i >= 0:
                return int(i)
            return run_op("scale", tensor_array.array_length(self.array), scale=1.0, bias=float(i))
        if isinstance(i, (Variable, Tensor)):
            iv = _int64_1(i if isinstance(i, Variable) else as_variable(default_main_program().current_block(), i))
            n = tensor_array.array_length(self.array)
            neg = run_op("cast", run_op("less_than", iv, _int64_1(0)), in_dtype=0, out_dtype=3)
            return run_op("elementwise_add", iv, run_op("elementwise_mul", neg, n))
        raise TypeError(f"list indices must be integers, slices or tensors, not {type(i).__name__} (a list built "
                        "in a tensor loop is a tensor array: read items by index or slice, or paddle.stack it "
                        "and index the tensor)")

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self._slice(i)
        return tensor_array.array_read(self.array, self._position(i))

    def _bound(self, v, n, default, lo=0, hi=None):
        """Slice bound ``v`` (None, an int or an integer tensor) as an int64 [1] Variable, negative values
        counting from the end and the result clamped to [lo, hi] (hi: n when None), as Python's
        ``slice.indices`` does: [0, n] for a positive step, [-1, n - 1] for a negative one."""
        if v is None:
            return default
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            v = _int64_1(int(v))
        elif isinstance(v, (Variable, Tensor)):
            v = _int64_1(v if isinstance(v, Variable) else as_variable(default_main_program().current_block(), v))
        else:
            raise TypeError(f"slice indices of a list built in a tensor loop must be ints or integer tensors, got "
                            f"{type(v).__name__}")
        neg = run_op("cast", run_op("less_than", v, _int64_1(0)), in_dtype=0, out_dtype=3)
        v = run_op("elementwise_add", v, run_op("elementwise_mul", neg, n))
        top = n if hi is None else hi
        return run_op("elementwise_min", run_op("elementwise_max", v, _int64_1(lo)), top)

    def _slice(self, s):
        """``lst[start:stop:step]`` of the array: a new array holding those items (a while op copies them).
        The step is a Python int (any sign but 0), the bounds ints or integer tensors, with Python's rules."""
        step = 1 if s.step is None else s.step
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
            raise TypeError("the step of a slice of a list built in a tensor loop must be a Python int (it decides "
                            f"the loop's direction while the Program is built), got {type(step).__name__}")
        step = int(step)
        if step == 0:
            raise ValueError("slice step cannot be zero")
        from runtime.static.control_flow import while_loop
        n = tensor_array.array_length(self.array)
        if step > 0:
            start = self._bound(s.start, n, _int64_1(0))
            stop = self._bound(s.stop, n, n)
            compare = "less_than"
        else:
            last = run_op("scale", n, scale=1.0, bias=-1.0)
            start = self._bound(s.start, n, last, lo=-1, hi=last)
            stop = self._bound(s.stop, n, _int64_1(-1), lo=-1, hi=last)
            compare = "greater_than"
        out = tensor_array.create_array(self.array.dtype)

        def cond(i, j):
            return run_op(compare, i, stop)

        def body(i, j):
            # the new array is written in place (not a loop variable: the while op lists it as an output)
            tensor_array.array_write(tensor_array.array_read(self.array, i), j, out)
            return [run_op("scale", i, scale=1.0, bias=float(step)), run_op("scale", j, scale=1.0, bias=1.0)]

        while_loop(cond, body, [run_op("assign", start), _int64_1(0)])
        return TensorArrayList(out)

    def __setitem__(self, i, v):
        # pop + insert at the same position: the old item's gradient stops there, the new one's flows
        k = self._position(i)
        tensor_array.array_pop(self.array, k)
        tensor_array.array_insert(self.array, k, v)

    def __iter__(self):
        raise TypeError("a list built in a tensor loop has a length known only when the Program runs: a for loop "
                        "in converted code iterates it (as a while op), but list(), comprehensions, sum() and "
                        "other Python iteration cannot; paddle.stack it first and work on the tensor")

    def __len__(self):
        raise TypeError("len() of a list built inside a tensor-dependent loop is a tensor; it is converted only "
                        "inside to_static code (use paddle.tensor.array_length)")

    def length(self):
        return tensor_array.array_length(self.array)

    def _dy2st_not_an_output(self, fn):
        name = getattr(fn, "__qualname__", "the function")
        raise TypeError(f"{name} returns a Python list that became a tensor array under tensor control flow (its "
                        "length is known only when the Program runs), which cannot be an output of the "
                        "converted function; return paddle.stack(the_list) or paddle.concat(the_list) instead")

    def to_tensor(self, axis=0, use_stack=True):
        return tensor_array.tensor_array_to_tensor(self.array, axis=axis, use_stack=use_stack)[0]


def _index_value(i, what):
    if isinstance(i, (int, np.integer)) and not isinstance(i, bool):
        return int(i)
    if isinstance(i, (Variable, Tensor)):
        return i
    raise TypeError(f"list.{what}: the index must be an int or an integer tensor, got {type(i).__name__}")
