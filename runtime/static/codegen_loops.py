"""Loop counters of compiled ``while`` loops as Python integers.

``i = paddle.zeros([1], 'int64'); while i < n: ...; i = i + 1`` traces to a ``while`` whose body holds
``i2 = elementwise_add(i, 1)`` (or ``elementwise_sub``), ``c2 = less_than(i2, n)`` and the write-backs ``i = assign(i2)``,
``cond = assign(c2)``. Run as numpy, that is two kernel calls on one-element arrays and a truth test
per iteration, which costs more than the rest of a small loop body. When the counter is such a
counter — an integer of one element, stepped by a constant, compared with a constant, read by nothing
else in the loop — the generated code keeps it in a Python ``int`` and the condition in a Python
``bool``, and turns them back into arrays after the loop when something reads them there.

Exactness: the step and the bound are integers below 2**31 in absolute value, so the Python value never
leaves the range of the counter's dtype before the comparison stops the loop (an int32 counter that
would wrap in numpy is refused by that bound, not silently computed differently).
"""
from __future__ import annotations

import numpy as np

__all__ = ["Counter", "match_counter", "int_array", "bool_array"]

_COMPARES = {"less_than": "<", "less_equal": "<=", "greater_than": ">", "greater_equal": ">=",
             "not_equal": "!="}
_LIMIT = 2 ** 31


class Counter:
    """A matched counter: the loop variable, its step and bound, and the ops the Python code replaces."""

    __slots__ = ("var", "cond", "step", "bound", "compare", "skip", "dtype", "shape", "cond_shape")

    def __init__(self, var, cond, step, bound, compare, skip, dtype, shape, cond_shape):
        self.var, self.cond, self.step, self.bound, self.compare = var, cond, step, bound, compare
        self.skip, self.dtype, self.shape, self.cond_shape = skip, dtype, shape, cond_shape


def _int_constant(name, const_values):
    value = const_values.get(name)
    if value is None:
        return None
    a = np.asarray(value)
    if a.size != 1 or a.dtype.kind not in "iu":
        return None
    k = int(a.reshape(-1)[0])
    return k if -_LIMIT < k < _LIMIT else None


def _reads(program, ops):
    """Every name the ops (and the ops of their sub-blocks) read."""
    out = []
    for op in ops:
        out.extend(op.input_arg_names)
        sub = op.attrs.get("sub_block") if op.type in ("while", "conditional_block") else None
        if sub is not None:
            out.extend(_reads(program, program.blocks[sub].ops))
    return out


def _writes(program, ops):
    out = []
    for op in ops:
        out.extend(op.output_arg_names)
        sub = op.attrs.get("sub_block") if op.type in ("while", "conditional_block") else None
        if sub is not None:
            out.extend(_writes(program, program.blocks[sub].ops))
    return out


def _var(program, name):
    for blk in program.blocks:
        v = blk.vars.get(name)
        if v is not None:
            return v
    return None


def match_counter(program, while_op, const_values):
    """The `Counter` of ``while_op`` if its condition is driven by one as described above, else None.

    ``const_values``: name -> value of the variables the compiled function holds as shared constants."""
    cond = while_op.inputs["Condition"][0]
    body = program.blocks[while_op.attrs["sub_block"]].ops
    # the write-back of the condition: cond = assign(c2), c2 = compare(i2, bound)
    back = [op for op in body if op.type == "assign" and op.outputs.get("Out") == [cond]]
    if len(back) != 1:
        return None
    c2 = back[0].inputs["X"][0]
    cmp = [op for op in body if op.outputs.get("Out") == [c2]]
    if len(cmp) != 1 or cmp[0].type not in _COMPARES or cmp[0].attrs.get("axis", -1) != -1:
        return None
    cmp = cmp[0]
    i2, bound = cmp.inputs["X"][0], _int_constant(cmp.inputs["Y"][0], const_values)
    add = [op for op in body if op.outputs.get("Out") == [i2]]
    if (bound is None or len(add) != 1 or add[0].type not in ("elementwise_add", "elementwise_sub")
            or add[0].attrs.get("axis", -1) != -1):
        return None
    add = add[0]
    var, step = add.inputs["X"][0], _int_constant(add.inputs["Y"][0], const_values)
    if step is None or var not in while_op.inputs["X"]:
        return None
    if add.type == "elementwise_sub":
        step = -step
    wb = [op for op in body if op.type == "assign" and op.outputs.get("Out") == [var]]
    if len(wb) != 1 or wb[0].inputs["X"] != [i2]:
        return None
    skip = {id(add), id(cmp), id(back[0]), id(wb[0])}
    rest = [op for op in body if id(op) not in skip]
    if {var, i2, c2, cond} & set(_reads(program, rest)) or {var, i2, c2, cond} & set(_writes(program, rest)):
        return None
    v, vc = _var(program, var), _var(program, cond)
    if v is None or vc is None or list(v.shape) not in ([1], []) or list(vc.shape) not in ([1], []):
        return None
    dtype = np.dtype(v.dtype.np)
    if dtype.kind not in "iu":
        return None
    return Counter(var, cond, step, bound, _COMPARES[cmp.type], skip, dtype, tuple(v.shape), tuple(vc.shape))


def int_array(value, dtype, shape):
    """The counter's Python value as the array the loop would have left."""
    return np.full(shape, value, dtype=dtype)


def bool_array(value, shape):
    """The condition after the loop: still the array from before it (zero iterations), or a bool."""
    if isinstance(value, bool):
        return np.full(shape, value, dtype=np.bool_)
    return value
