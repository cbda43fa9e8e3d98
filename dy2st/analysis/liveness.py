"""Liveness: the names whose current value may still be read later.

Backward data flow over the `cfg.Graph` to a fixed point:
``live_in(n) = reads(n) | (live_out(n) - binds(n))``, ``live_out(n) = U live_in(succ)``.
"""
from __future__ import annotations


def analyse(graph):
    """Returns ``(live_in, live_out)``: dicts from node index to frozenset of names."""
    n = len(graph.nodes)
    live_in = [frozenset()] * n
    live_out = [frozenset()] * n
    changed = True
    order = list(reversed(graph.nodes))
    while changed:
        changed = False
        for node in order:
            out = frozenset().union(*(live_in[s.index] for s in node.next)) if node.next else frozenset()
            inn = frozenset(node.reads | (out - node.binds))
            if out != live_out[node.index] or inn != live_in[node.index]:
                live_out[node.index], live_in[node.index] = out, inn
                changed = True
    return live_in, live_out
