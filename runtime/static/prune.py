"""Pruning: the ops of a block that a run with given fetches actually needs.

An op is kept when it produces something needed (a fetch, or an input of a kept op), when
it writes a persistable variable (optimizer updates, batch-norm statistics: state that
outlives the run), or when it has side effects (print, assert, py_func, and every op that
runs through ``OpDef.interpret``, i.e. control flow). Ops owning sub-blocks are treated as
one unit that reads and writes whatever their sub-blocks read and write from outside.
"""
from __future__ import annotations

from ..ops.registry import lookup

SIDE_EFFECT_OPS = frozenset({
    "print", "assert", "py_func", "save", "save_combine", "load", "load_combine", "feed", "fetch",
    "send", "recv", "barrier", "c_allreduce_sum", "c_broadcast",
})


def op_reads_writes(op, _memo=None):
    """(reads, writes): names ``op`` reads/writes, including those of its sub-blocks (recursively)
    that are not local to them. Sub-block-local names are left out."""
    reads = list(op.input_arg_names)
    writes = list(op.output_arg_names)
    ids = op.sub_block_ids()
    if ids:
        program = op.block.program
        for bid in ids:
            r, w, local = block_reads_writes(program.blocks[bid])
            reads.extend(n for n in r if n not in local)
            writes.extend(n for n in w if n not in local)
    return _unique(reads), _unique(writes)


def block_reads_writes(block):
    """(reads, writes, locals) of every op of ``block`` and of its nested sub-blocks."""
    reads, writes = [], []
    local = set(block.vars)
    for op in block.ops:
        r, w = op_reads_writes(op)
        reads.extend(r)
        writes.extend(w)
        for bid in op.sub_block_ids():
            local.update(block.program.blocks[bid].vars)
    return reads, writes, local


def _unique(names):
    seen = set()
    return [n for n in names if not (n in seen or seen.add(n))]


def has_side_effects(op):
    if op.type in SIDE_EFFECT_OPS:
        return True
    try:
        return lookup(op.type).interpret is not None
    except Exception:
        return True


def prune_ops(block, fetch_names, feed_names=()):
    """The ops of ``block`` (in order) needed to compute ``fetch_names`` plus those with lasting effects.

    Fed names count as available, so the ops that would compute them are dropped unless needed
    for another reason. With no fetches every op is kept (startup programs)."""
    if not fetch_names:
        return list(block.ops)
    feeds = set(feed_names)
    needed = set(fetch_names) - feeds
    persist = {n for n, v in block.vars.items() if v.persistable}
    blk = block.parent_block
    while blk is not None:
        persist.update(n for n, v in blk.vars.items() if v.persistable)
        blk = blk.parent_block
    kept = []
    for op in reversed(block.ops):
        reads, writes = op_reads_writes(op)
        if (has_side_effects(op) or any(w in needed for w in writes)
                or any(w in persist for w in writes)):
            kept.append(op)
            needed.update(r for r in reads if r not in feeds)
    kept.reverse()
    return kept
