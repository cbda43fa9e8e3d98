"""Common-subexpression elimination: a pure op with the same type, inputs and attrs as an earlier
one is dropped and its readers read the earlier op's outputs.

Only ops of the global block; only when every input has one value during the run (``stable``) and
the dropped op's outputs are free to rename (not fetched, persistable or used by control flow).
Random ops never merge.
"""
from __future__ import annotations

from .analysis import ReadIndex, Uses, intermediate_outputs, pure, remove_ops


def _key(op):
    try:
        attrs = repr(sorted(op.attrs.items()))
    except TypeError:
        return None
    return (op.type, tuple(sorted((s, tuple(ns)) for s, ns in op.inputs.items() if ns)), attrs,
            tuple(sorted((s, len(ns)) for s, ns in op.outputs.items() if ns)))


def run(program, feed_names, fetch_names):
    uses = Uses(program, feed_names, fetch_names)
    block = program.global_block()
    seen, dead = {}, set()
    reads = ReadIndex(block)
    for op in block.ops:
        if not pure(op) or not all(uses.stable(n) for n in op.input_arg_names):
            continue
        key = _key(op)
        if key is None:
            continue
        prev = seen.get(key)
        outs = op.output_arg_names
        if prev is None:
            if all(uses.stable(n) for n in outs):
                seen[key] = op
            continue
        if not all(uses.free(n) for n in outs):
            continue
        if any(uses.reads[n] for n in intermediate_outputs(op)):
            continue
        for slot, names in op.outputs.items():
            for old, new in zip(names, prev.outputs[slot]):
                reads.rename(old, new)
        dead.add(id(op))
    remove_ops(block, dead)
    return len(dead)
