"""Run the analyses on a function and store their results on its compound statements.

For each ``If``, ``While`` and ``For`` statement ``s``, ``info(s)`` gives:

- ``modified``: names the statement binds or mutates (its state);
- ``live_in``: names live where it starts (for a loop: at the loop test, so names read by a
  later iteration count);
- ``live_out``: names live after it;
- ``defined_in``: names definitely defined where it starts.

Loop variables of a loop are ``modified & live_in``; outputs of an if are ``modified & live_out``.

Reads of names that may be unbound where they happen are noted too, as
``node.dy2st_maybe_unbound`` (a frozenset of local names; generated ``_dy2st_`` names left out) on
simple statements, on ``If`` / ``While`` statements (for their test) and on a ``For``'s iterable.
"""
from __future__ import annotations

import gast

from . import cfg, liveness, reaching_definitions
from .activity import activity, local_names


class Info:
    __slots__ = ("modified", "live_in", "live_out", "defined_in")

    def __init__(self, modified, live_in, live_out, defined_in):
        self.modified, self.live_in, self.live_out, self.defined_in = modified, live_in, live_out, defined_in

    def __repr__(self):
        return (f"Info(modified={sorted(self.modified)}, live_in={sorted(self.live_in)}, "
                f"live_out={sorted(self.live_out)}, defined_in={sorted(self.defined_in)})")


def info(node):
    """The annotation `annotate` stored on ``node`` (None when it has none)."""
    return getattr(node, "dy2st", None)


def annotate(fn_node, known_locals=()):
    """Analyse ``fn_node`` (a gast FunctionDef); annotate its compound statements in place.
    Returns the set of names local to the function. ``known_locals``: names local to the function as the
    user wrote it (an earlier pass may have removed their only assignment, e.g. dead code after a
    ``break``: Python still treats them as locals, so a read of one is a read of an unbound name)."""
    locals_, params = local_names(fn_node)
    locals_ = set(locals_) | (set(known_locals) - set(params))
    graph = cfg.build(fn_node, params)
    live_in, live_out = liveness.analyse(graph)
    d_in, _ = reaching_definitions.analyse(graph)
    for n in graph.nodes:
        if n.kind in ("stmt", "iter") or (n.kind == "test" and isinstance(n.ast, (gast.If, gast.While))):
            maybe = frozenset(x for x in (n.reads & locals_) - d_in[n.index] if not x.startswith("_dy2st_"))
            if maybe:
                n.ast.dy2st_maybe_unbound = maybe
    for stmt, test in graph.test.items():
        join = graph.join[stmt]
        body = [stmt.body, stmt.orelse] if isinstance(stmt, gast.If) else [stmt.body, stmt.orelse]
        act = activity([s for part in body for s in part])
        if isinstance(stmt, gast.While):
            act = _merge(act, activity(stmt.test))
        if isinstance(stmt, gast.For):
            act = _merge(act, activity(stmt.target))
        entry_defined = frozenset.intersection(*[d_in_out(d_in, p, graph) for p in _entry_preds(stmt, test)]) \
            if _entry_preds(stmt, test) else frozenset()
        stmt.dy2st = Info(frozenset(act.modified & locals_), live_in[test.index] & locals_,
                          live_in[join.index] & locals_, entry_defined)
    return locals_


def _merge(a, b):
    a.reads |= b.reads
    a.binds |= b.binds
    a.mutates |= b.mutates
    return a


def _entry_preds(stmt, test):
    """Predecessors of the statement's first node that come from before it (not loop back edges)."""
    if isinstance(stmt, (gast.For, gast.AsyncFor)):
        it = test.prev[0]       # the iter node
        return it.prev
    if isinstance(stmt, gast.While):
        return [p for p in test.prev if p.index < test.index]
    return test.prev


def d_in_out(d_in, pred, graph):
    return d_in[pred.index] | pred.binds
