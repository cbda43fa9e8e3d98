"""Dead-code elimination: drop ops of the global block whose outputs nothing reads.

An op stays when it writes something needed (a fetch, an input of a kept op), writes a
persistable variable, has side effects (print, assert, py_func, control flow and every
interpreted op: their sub-blocks may write outer variables), draws random numbers (dropping it
would shift the random stream of later random ops) or updates an input in place (OpDef.inplace).
Sub-block ops are left alone (an op owning sub-blocks reads all they read). With no fetches
nothing is removed (as with the executor's pruning: startup programs run every op).
"""
from __future__ import annotations

from ...ops.registry import lookup
from ..prune import has_side_effects, op_reads_writes


def keeps(op):
    opdef = lookup(op.type)
    return has_side_effects(op) or opdef.random or bool(opdef.inplace) or bool(op.sub_block_ids())


def run(program, feed_names, fetch_names):
    if not fetch_names:
        return 0
    block = program.global_block()
    persist = set(program._eager_bindings)
    for blk in program.blocks:
        persist.update(n for n, v in blk.vars.items() if v.persistable)
    feeds = set(feed_names)
    needed = set(fetch_names) - feeds
    kept = []
    for op in reversed(block.ops):
        reads, writes = op_reads_writes(op)
        if keeps(op) or any(w in needed or w in persist for w in writes):
            kept.append(op)
            needed.update(r for r in reads if r not in feeds)
    removed = len(block.ops) - len(kept)
    if removed:
        kept.reverse()
        block.ops = kept
        program._bump()
    return removed
