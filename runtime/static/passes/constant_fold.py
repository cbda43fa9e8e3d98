"""Constant folding: pure ops whose inputs are all constants are evaluated at compile time.

Constants are the outputs of ``fill_constant`` / ``assign_value`` (no tensor inputs) and of
ops folded before. An evaluated op is replaced by a ``folded_constant`` op that returns the
same (read-only) array on every run. Its kernel is the op's own, so the value is exactly what
the run would compute. Not folded: random ops, values larger than ``MAX_ELEMENTS``, object
arrays, fetched/persistable/multiply-written outputs, ops whose kernel raises (the error stays
at run time), and values some reader might hand out without copying (a reader that is not in
``SAFE_READERS``, a control-flow/interpreted op or a sub-block op): the shared array must never
escape into a fetch or a buffer someone writes.
"""
from __future__ import annotations

import numpy as np

from ...ops.fused import encode_constant
from ...ops.registry import lookup
from ..program import Operator
from .analysis import Uses, intermediate_outputs, pure, visible_outputs

MAX_ELEMENTS = 4096

# ops whose outputs are new arrays computed from the inputs (never an input or a view of one)
SAFE_READERS = frozenset({
    "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div", "elementwise_pow",
    "elementwise_max", "elementwise_min", "elementwise_floordiv", "elementwise_mod",
    "less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal",
    "logical_and", "logical_or", "logical_not", "logical_xor", "matmul_v2", "mul", "assign", "scale",
    "relu", "tanh", "sigmoid", "exp", "log", "sqrt", "abs", "square", "concat", "stack",
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "fill_any_like",
})


def _args(op, values):
    opdef = lookup(op.type)
    args = []
    for slot in opdef.inputs:
        ns = op.inputs.get(slot.name, [])
        if slot.duplicable:
            args.append([values[n] for n in ns] if ns else None)
        else:
            args.append(values[ns[0]] if ns else None)
    return args


def _evaluate(op, values):
    opdef = lookup(op.type)
    try:
        with np.errstate(all="ignore"):
            res = opdef.bind(op.attrs)(*_args(op, values))
    except Exception:
        return None
    res = res if opdef.n_visible > 1 else (res,)
    names = visible_outputs(op)
    if len(res) != len(names):
        return None
    out = {}
    for n, r in zip(names, res):
        if isinstance(r, list) or r is None:
            return None
        a = np.asarray(r)
        if a.dtype.kind not in "biufc" or a.size > MAX_ELEMENTS:
            return None
        out[n] = a
    return out


def _matches(block, n, a):
    v = block._find_var_recursive(n)
    return (v is not None and v.dtype.np == a.dtype and len(v.shape) == a.ndim
            and all(d == -1 or d == s for d, s in zip(v.shape, a.shape)))


def run(program, feed_names, fetch_names):
    uses = Uses(program, feed_names, fetch_names)
    block = program.global_block()
    values = {}
    folded = 0
    new_ops = []
    for op in block.ops:
        if op.type == "folded_constant":
            values[op.outputs["Out"][0]] = lookup(op.type).bind(op.attrs)()
            new_ops.append(op)
            continue
        ins = op.input_arg_names
        outs = op.output_arg_names
        if (not pure(op) or not all(n in values for n in ins) or not all(uses.free(n) for n in outs)
                or any(uses.reads[n] for n in intermediate_outputs(op))):
            new_ops.append(op)
            continue
        res = _evaluate(op, {n: values[n] for n in ins})
        if res is None:
            new_ops.append(op)
            continue
        values.update(res)
        # a value whose shape/dtype differs from the recorded meta stays computed at run time (the
        # recorded meta is what the verifier and later passes trust)
        if not all(_matches(block, n, a) for n, a in res.items()):
            new_ops.append(op)
            continue
        safe = all(r.block is block and r.type in SAFE_READERS for n in res for r in uses.readers[n])
        if not safe:
            new_ops.append(op)
            continue
        for n, a in res.items():
            new_ops.append(Operator(block, "folded_constant", {}, {"Out": [n]},
                                    lookup("folded_constant").full_attrs(encode_constant(a)),
                                    list(op.callstack), op.role))
        folded += 1
    if folded:
        block.ops = new_ops
        program._bump()
    return folded
