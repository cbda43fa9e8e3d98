"""Chains of elementwise / activation ops -> one ``fused_elementwise_chain`` op.

Op A links to op B when A's only output is read by B alone (once) and nowhere else, and is free
to remove (not fetched, persistable or used by control flow). A maximal run of linked ops of the
global block becomes one op at the position of its last op; its kernel computes every step with
the op's own kernel or the same ufunc, writing each step after the first into the buffer of the
previous result (``out=``) instead of allocating. External inputs must hold one value during
the run (``stable``), so reading them at the chain's end gives what each step would have read.
"""
from __future__ import annotations

import json

from ...ops.fused import BINARY_UFUNCS, CHAIN_OPS, dump_steps
from ...ops.registry import lookup
from ..program import Operator
from .analysis import Uses, remove_ops, single_name_slots


def chainable(op, block):
    """The op's input names in slot order when it can be a chain step, else None."""
    if op.type not in CHAIN_OPS or op.block is not block:
        return None
    slots = single_name_slots(op)
    if slots is None or len(op.outputs.get("Out", [])) != 1 or len(op.output_arg_names) != 1:
        return None
    if op.type == "scale" and len(slots) != 1:
        return None
    try:
        json.dumps(op.attrs)
    except TypeError:
        return None
    return [n for _, n in slots]


def link(uses, op, block):
    """The op the chain continues with after ``op``, or None."""
    out = op.outputs["Out"][0]
    rs = uses.readers.get(out, [])
    if len(rs) != 1 or not uses.free(out):
        return None
    nxt = rs[0]
    ins = chainable(nxt, block)
    if ins is None or ins.count(out) != 1:
        return None
    return nxt


def run(program, feed_names, fetch_names, min_length=2):
    uses = Uses(program, feed_names, fetch_names)
    block = program.global_block()
    inputs = {id(op): chainable(op, block) for op in block.ops}
    nxt = {}
    has_prev = set()
    for op in block.ops:
        if inputs[id(op)] is None:
            continue
        b = link(uses, op, block)
        if b is not None and id(b) not in has_prev:   # a step continues one chain (mul(sigmoid, tanh))
            nxt[id(op)] = b
            has_prev.add(id(b))
    dead, fused = set(), 0
    # a chain's op replaces its last op in place and the dead ones go only at the end: positions do
    # not shift while the loop runs (``ops.index`` per chain was quadratic in the block's length)
    pos = {id(op): k for k, op in enumerate(block.ops)}
    for op in list(block.ops):
        if inputs[id(op)] is None or id(op) in has_prev or id(op) not in nxt:
            continue
        chain = [op]
        while id(chain[-1]) in nxt:
            chain.append(nxt[id(chain[-1])])
        if len(chain) < min_length:
            continue
        externals, steps, ok = [], [], True
        prev_out = None
        for k, c in enumerate(chain):
            refs = []
            for n in inputs[id(c)]:
                if n == prev_out:
                    refs.append(-1)
                else:
                    if not uses.stable(n):
                        ok = False
                    refs.append(len(externals))
                    externals.append(n)
            steps.append((c.type, dict(c.attrs), refs))
            prev_out = c.outputs["Out"][0]
        if not ok:
            continue
        last = chain[-1]
        new = Operator(block, "fused_elementwise_chain", {"X": externals}, {"Out": [last.outputs["Out"][0]]},
                       lookup("fused_elementwise_chain").full_attrs({"steps": dump_steps(steps)}),
                       list(chain[0].callstack), chain[0].role)
        block.ops[pos[id(last)]] = new
        dead.update(id(c) for c in chain[:-1])
        fused += 1
    remove_ops(block, dead)
    return fused


__all__ = ["run", "chainable", "BINARY_UFUNCS"]
