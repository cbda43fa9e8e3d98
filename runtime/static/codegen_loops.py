"""Loop counters of compiled ``while`` loops as Python integers.

``i = paddle.zeros([1], 'int64'); while i < n: ...; i = i + 1`` traces to a ``while`` whose body holds
``i2 = elementwise_add(i, 1)`` (or ``elementwise_sub``), ``c2 = less_than(i2, n)`` and the write-backs ``i = assign(i2)``,
``cond = assign(c2)``. Run as numpy, that is two kernel calls on one-element arrays and a truth test
per iteration, which costs more than the rest of a small loop body. When the counter is such a
counter — an integer of one element, stepped by a constant, compared with a constant, read by nothing
else in the loop — the generated code keeps it in a Python ``int`` and the condition in a Python
``bool``, and turns them back into arrays after the loop when something reads them there.

When the counter's start value is a constant and the loop's first condition a comparison of it with
a constant (``i = paddle.zeros(...)`` then ``i < 3`` right before the loop: `match_init`), those two ops
are left out too: the int starts at the constant and the condition at the bool the comparison gives.

Exactness: the step and the bound are integers below 2**31 in absolute value, so the Python value never
leaves the range of the counter's dtype before the comparison stops the loop (an int32 counter that
would wrap in numpy is refused by that bound, not silently computed differently).
"""
from __future__ import annotations

import numpy as np

__all__ = ["Counter", "match_counter", "match_init", "int_array", "bool_array"]

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


def match_init(program, while_op, c, top_ops, kinds, uses, constants, pinned, const_values):
    """``(start, cond0, skip)`` when the counter ``c`` of the top-level ``while_op`` starts from a constant
    op (or an ``assign`` copy of a shared constant) and the loop's first condition is a comparison of it
    with a constant, both top-level ops before the loop whose results nothing reads but the loop and the
    code after it: the generated code then starts the Python counter at ``start`` and the condition at
    the bool ``cond0`` (computed now, as the comparison would) and leaves out those two ops (``skip``:
    their ids). Else None.

    ``top_ops``: the global block's ops that run, in order; ``constants``: codegen_patterns.find_constants."""
    if c.var in pinned or c.cond in pinned:
        return None
    where = {id(op): k for k, op in enumerate(top_ops)}
    w_at = where.get(id(while_op))
    if w_at is None:
        return None
    found = []
    for n in (c.var, c.cond):
        outside = [w for w in uses.writers.get(n, ()) if id(w) not in c.skip]
        if len(outside) != 1 or where.get(id(outside[0]), w_at) >= w_at or kinds.get(id(outside[0])) != "kernel":
            return None
        found.append(outside[0])
    init, cmp = found
    if cmp.type not in _COMPARES or cmp.attrs.get("axis", -1) != -1:
        return None
    if id(init) in constants:                   # a constant op (its copy)
        start = np.asarray(constants[id(init)][1])
    elif init.type == "assign" and init.inputs.get("X", [None])[0] in const_values:   # a copy of a shared one
        start = np.asarray(const_values[init.inputs["X"][0]])
    else:
        return None
    if start.size != 1 or start.dtype != c.dtype:
        return None
    start = int(start.reshape(-1)[0])
    bound = _int_constant(cmp.inputs["Y"][0], const_values)
    if cmp.inputs["X"] != [c.var] or bound is None or not -_LIMIT < start < _LIMIT:
        return None
    # nothing but the comparison, the loop (its counter ops) and the code after the loop reads them
    for n, allowed in ((c.var, {id(cmp), id(while_op)}), (c.cond, {id(while_op)})):
        for r in uses.readers.get(n, ()):
            if id(r) in allowed or id(r) in c.skip or where.get(id(r), -1) > w_at:
                continue
            return None
    cond0 = {"<": start < bound, "<=": start <= bound, ">": start > bound, ">=": start >= bound,
             "!=": start != bound}[_COMPARES[cmp.type]]
    return start, cond0, {id(init), id(cmp)}
