"""What the passes need to know about a Program's variables: who writes and reads each name, and
which names a pass must leave alone (fetched, fed, persistable, touched by control flow)."""
from __future__ import annotations

import collections

from ...ops.registry import lookup
from ..prune import has_side_effects


class Uses:
    """Def/use counts over every block of ``program`` (recomputed by each pass: passes edit ops).

    ``pinned``: names a pass may not remove, rename or write into: fetches, feeds, persistables and
    eager bindings, and every name an op in a sub-block or an interpreted op (control flow, print,
    tensor arrays ...) reads or writes. ``stable(n)``: ``n`` has one value during a run: it is never
    written (fed, persistable) or written by exactly one op, of the global block, and not persistable.
    """

    def __init__(self, program, feed_names, fetch_names):
        self.program = program
        self.block = program.global_block()
        self.feeds = set(feed_names)
        self.fetches = set(fetch_names)
        persist = set(program._eager_bindings)
        for blk in program.blocks:
            persist.update(n for n, v in blk.vars.items() if v.persistable)
        self.persist = persist
        self.writes = collections.Counter()
        self.reads = collections.Counter()      # occurrences in input slots, every block
        self.readers = collections.defaultdict(list)
        self.writer = {}
        pinned = set(self.fetches) | self.feeds | persist
        sub_written = set()
        for blk in program.blocks:
            for op in blk.ops:
                interp = lookup(op.type).interpret is not None
                for n in op.input_arg_names:
                    self.reads[n] += 1
                    self.readers[n].append(op)
                    if blk.idx > 0 or interp:
                        pinned.add(n)
                for n in op.output_arg_names:
                    self.writes[n] += 1
                    self.writer[n] = op
                    if blk.idx > 0 or interp:
                        pinned.add(n)
                    if blk.idx > 0:
                        sub_written.add(n)
        self.pinned = pinned
        self.sub_written = sub_written

    def stable(self, n):
        w = self.writes[n]
        if w == 0:
            return True
        return w == 1 and n not in self.persist and n not in self.feeds and n not in self.sub_written

    def free(self, n):
        """``n`` may be removed / renamed: stable and not pinned."""
        return n not in self.pinned and self.stable(n)

    def producer(self, n):
        """The op (of the global block) that writes ``n``, when ``n`` is stable and written."""
        if self.writes[n] == 1 and self.stable(n):
            op = self.writer[n]
            if op.block is self.block:
                return op
        return None


def pure(op):
    """A kernel op of the global block whose outputs depend only on its inputs and attrs."""
    opdef = lookup(op.type)
    return (opdef.interpret is None and opdef.kernel is not None and not opdef.random and not opdef.inplace
            and not has_side_effects(op) and not op.sub_block_ids())


def visible_outputs(op):
    """The output names the kernel produces (intermediate slots such as XShape left out)."""
    opdef = lookup(op.type)
    return [n for s in opdef.outputs if not s.intermediate for n in op.outputs.get(s.name, [])]


def intermediate_outputs(op):
    opdef = lookup(op.type)
    return [n for s in opdef.outputs if s.intermediate for n in op.outputs.get(s.name, [])]


class ReadIndex:
    """The ops of ``block`` reading each name, kept current as reads are renamed: a pass that
    renames the readers of many names (cse, noop) touches only those readers, where a walk over
    the whole block per renamed name was quadratic in the block's length.

    Valid while the pass changes inputs of ``block``'s ops only through ``rename``."""

    def __init__(self, block):
        self._readers = collections.defaultdict(dict)    # name -> {id(op): op}, each reader once
        for op in block.ops:
            for n in op.input_arg_names:
                self._readers[n][id(op)] = op

    def rename(self, old, new):
        """Every op of the block that reads ``old`` reads ``new`` instead."""
        ops = self._readers.pop(old, None)
        if not ops:
            return
        for op in ops.values():
            op._rename_input(old, new)
        self._readers[new].update(ops)


def remove_ops(block, dead):
    """Drop the ops in ``dead`` (a set of ids) from ``block``."""
    if dead:
        block.ops = [op for op in block.ops if id(op) not in dead]
        block.program._bump()


def single_name_slots(op):
    """[(slot, name)] when every input slot holds exactly one name (absent dispensable slots allowed
    only at the end), else None."""
    opdef = lookup(op.type)
    out, ended = [], False
    for s in opdef.inputs:
        ns = op.inputs.get(s.name, [])
        if not ns:
            if not s.dispensable:
                return None
            ended = True
            continue
        if ended or len(ns) != 1 or s.duplicable:
            return None
        out.append((s.name, ns[0]))
    return out
