"""Definite definitions: the names bound on every path from the function's entry to a node.

A forward "must" data flow over the `cfg.Graph`: ``defined_in(n) = ∩ defined_out(pred)``,
``defined_out(n) = defined_in(n) | binds(n)``; the entry defines the parameters. A name that
is not definitely defined where a converted statement starts may be undefined on some path,
so the converted code starts it as ``UndefinedVar("name")``.
"""
from __future__ import annotations


def analyse(graph):
    """Returns ``(defined_in, defined_out)``: lists indexed by node index of frozensets."""
    universe = frozenset().union(*(n.binds for n in graph.nodes))
    n = len(graph.nodes)
    d_in = [universe] * n
    d_out = [universe] * n
    entry = graph.entry
    d_in[entry.index] = frozenset()
    d_out[entry.index] = frozenset(entry.binds)
    changed = True
    while changed:
        changed = False
        for node in graph.nodes:
            if node is entry:
                continue
            preds = [d_out[p.index] for p in node.prev]
            inn = frozenset.intersection(*preds) if preds else frozenset()
            out = inn | node.binds
            if inn != d_in[node.index] or out != d_out[node.index]:
                d_in[node.index], d_out[node.index] = inn, out
                changed = True
    return d_in, d_out
