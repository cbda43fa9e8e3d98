"""Buffer reuse: an elementwise op (or the first step of a fused chain) writes its result into an
input that dies at that op, instead of allocating a new array.

The input qualifies when this op is its only reader (once), it is free (not fed, fetched,
persistable, used by control flow) and it was produced by an op whose kernel always returns a
new array (``FRESH_PRODUCERS``: so it is no view of a parameter, a feed or a shared constant).
The op becomes a ``fused_elementwise_chain`` with ``inplace`` = that input's index; the kernel
still checks at run time that the write gives exactly the dtype and shape a new array would have
(numpy ``casting="no"``, no broadcasting beyond the buffer) and allocates otherwise.
"""
from __future__ import annotations

from ...ops.fused import BINARY_UFUNCS, UNARY_UFUNCS, dump_steps, parse_steps
from ...ops.registry import lookup
from ..program import Operator
from .analysis import Uses
from .fuse_elementwise import chainable

FRESH_PRODUCERS = frozenset(BINARY_UFUNCS) | frozenset(UNARY_UFUNCS) | frozenset({
    "matmul_v2", "mul", "fused_gemm_epilogue", "fused_elementwise_chain", "elementwise_div",
    "sigmoid", "exp", "gelu", "silu"})


def _candidate(uses, block, n, out_var):
    if uses.reads[n] != 1 or not uses.free(n):
        return False
    prod = uses.producer(n)
    if prod is None or prod.type not in FRESH_PRODUCERS:
        return False
    v = block._find_var_recursive(n)
    return (v is not None and out_var is not None and v.dtype == out_var.dtype
            and tuple(v.shape) == tuple(out_var.shape))


def run(program, feed_names, fetch_names):
    uses = Uses(program, feed_names, fetch_names)
    block = program.global_block()
    changed = 0
    for i, op in enumerate(block.ops):
        out_var = block._find_var_recursive(op.outputs["Out"][0]) if op.outputs.get("Out") else None
        if op.type == "fused_elementwise_chain":
            if op.attrs["inplace"] >= 0:
                continue
            steps = parse_steps(op.attrs["steps"])
            typ, attrs, refs = steps[0]
            if typ not in BINARY_UFUNCS and typ not in UNARY_UFUNCS and typ != "scale":
                continue
            xs = op.inputs["X"]
            for r in refs:
                if r >= 0 and _candidate(uses, block, xs[r], out_var):
                    op._set_attr("inplace", r)
                    changed += 1
                    break
            continue
        if op.type not in BINARY_UFUNCS and op.type not in UNARY_UFUNCS and op.type != "scale":
            continue
        ins = chainable(op, block)
        if ins is None:
            continue
        for k, n in enumerate(ins):
            if _candidate(uses, block, n, out_var):
                steps = [(op.type, dict(op.attrs), list(range(len(ins))))]
                block.ops[i] = Operator(block, "fused_elementwise_chain", {"X": list(ins)}, dict(op.outputs),
                                        lookup("fused_elementwise_chain").full_attrs(
                                            {"steps": dump_steps(steps), "inplace": k}),
                                        list(op.callstack), op.role)
                program._bump()
                changed += 1
                break
    return changed
