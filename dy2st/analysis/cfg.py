"""A control-flow graph over one function's statements (AutoGraph's pyct/cfg, simplified).

Nodes are simple statements, the tests of ``if``/``while``, the header of ``for`` (which binds
the target), and one synthetic *join* node after every compound statement (where its paths
meet). ``break``/``continue``/``return``/``raise`` add their edges. Nested functions and
classes are single nodes: their bodies belong to other graphs.

Each node carries the names it reads, the names it binds (kills, for liveness and
definedness) and the names it mutates in place (reads without kill).
"""
from __future__ import annotations

import gast

from .activity import activity


class Node:
    __slots__ = ("ast", "kind", "prev", "next", "reads", "binds", "index")

    def __init__(self, ast_node, kind, reads=(), binds=()):
        self.ast, self.kind = ast_node, kind
        self.prev, self.next = [], []
        self.reads, self.binds = set(reads), set(binds)

    def __repr__(self):
        what = type(self.ast).__name__ if self.ast is not None else ""
        return f"<{self.kind} {what} r={sorted(self.reads)} w={sorted(self.binds)}>"


class Graph:
    """``entry`` / ``exit`` nodes, all ``nodes``, and per compound statement its ``test`` node
    (the test of an if/while, the header of a for) and its ``join`` node."""

    def __init__(self):
        self.nodes = []
        self.test = {}
        self.join = {}
        self.entry = self.exit = None


def _link(a, b):
    if b not in a.next:
        a.next.append(b)
        b.prev.append(a)


class _Builder:
    def __init__(self):
        self.g = Graph()
        self.loops = []   # (continue target, break target)

    def node(self, ast_node, kind, reads=(), binds=()):
        n = Node(ast_node, kind, reads, binds)
        n.index = len(self.g.nodes)
        self.g.nodes.append(n)
        return n

    def build(self, fn_node, params):
        g = self.g
        g.entry = self.node(fn_node, "entry", binds=params)
        g.exit = self.node(None, "exit")
        ends = self.block(fn_node.body, [g.entry])
        for e in ends:
            _link(e, g.exit)
        return g

    def block(self, stmts, preds):
        for s in stmts:
            preds = self.stmt(s, preds)
        return preds

    def stmt(self, s, preds):
        g = self.g
        if isinstance(s, gast.If):
            t = self.node(s, "test", activity(s.test).reads)
            g.test[s] = t
            for p in preds:
                _link(p, t)
            ends = self.block(s.body, [t]) + self.block(s.orelse, [t])
            return self._join(s, ends)
        if isinstance(s, gast.While):
            t = self.node(s, "test", activity(s.test).reads)
            g.test[s] = t
            for p in preds:
                _link(p, t)
            j = self.node(s, "join")
            g.join[s] = j
            self.loops.append((t, j))
            ends = self.block(s.body, [t])
            self.loops.pop()
            for e in ends:
                _link(e, t)
            for e in self.block(s.orelse, [t]):
                _link(e, j)
            return [j]
        if isinstance(s, (gast.For, gast.AsyncFor)):
            it = self.node(s.iter, "iter", activity(s.iter).reads)
            for p in preds:
                _link(p, it)
            tgt = activity(s.target)
            # the break/return flags the converted loop tests before each iteration are read there
            extra = activity(list(getattr(s, "dy2st_extra_tests", []))).reads
            h = self.node(s, "test", (tgt.reads - tgt.binds) | extra, tgt.binds)
            g.test[s] = h
            _link(it, h)
            j = self.node(s, "join")
            g.join[s] = j
            self.loops.append((h, j))
            ends = self.block(s.body, [h])
            self.loops.pop()
            for e in ends:
                _link(e, h)
            for e in self.block(s.orelse, [h]):
                _link(e, j)
            return [j]
        if isinstance(s, (gast.Try,) + ((gast.TryStar,) if hasattr(gast, "TryStar") else ())):
            start = self.node(s, "try")
            for p in preds:
                _link(p, start)
            body_ends = self.block(s.body, [start])
            ends = self.block(s.orelse, body_ends)
            # a handler may start after any statement of the body: approximate with its start and end
            for h in s.handlers:
                hn = self.node(h, "handler", activity(h.type).reads if h.type is not None else (),
                               [h.name.id] if isinstance(h.name, gast.Name) else ())
                _link(start, hn)
                for e in body_ends:
                    _link(e, hn)
                ends += self.block(h.body, [hn])
            if s.finalbody:
                ends = self.block(s.finalbody, ends)
            return self._join(s, ends)
        if isinstance(s, (gast.With, gast.AsyncWith)):
            act = activity(s.items)
            w = self.node(s, "with", act.reads, act.binds)
            for p in preds:
                _link(p, w)
            return self._join(s, self.block(s.body, [w]))
        # a simple statement (nested def/class are opaque single nodes)
        act = activity(s)
        n = self.node(s, "stmt", act.reads | act.mutates, act.binds)
        for p in preds:
            _link(p, n)
        if isinstance(s, gast.Return) or isinstance(s, gast.Raise):
            _link(n, g.exit)
            return []
        if isinstance(s, gast.Break):
            _link(n, self.loops[-1][1])
            return []
        if isinstance(s, gast.Continue):
            _link(n, self.loops[-1][0])
            return []
        return [n]

    def _join(self, s, ends):
        j = self.node(s, "join")
        self.g.join[s] = j
        for e in ends:
            _link(e, j)
        return [j]


def build(fn_node, params=()):
    """The `Graph` of ``fn_node``'s body; ``params`` are bound at entry."""
    return _Builder().build(fn_node, set(params))
