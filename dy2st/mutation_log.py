"""Python containers changed in place while a tensor-dependent branch or loop body is traced.

A staged ``if`` traces BOTH branches, one after the other, and a staged loop traces its body ONCE
for any number of iterations. Branch and loop state (the names the analysis finds) is copied per
branch and carried by the ops, but converted code can also change a container that is not state:
a dict from an enclosing function (``d["k"] = 1`` in a closure), a list nested in an object, a list
inside a dict that is itself never rebound (``res["a"][0] = 7``). Left alone, the false branch would
see the true branch's writes and the result would be one branch's value whatever the predicate:
silently wrong.

So every in-place change that converted code makes (item assignment, ``append`` / ``pop`` /
``update`` ... through ``convert_call``) is first reported here with `record`. While a trace is being
recorded, the first report of a container keeps a shallow snapshot of it. After the trace,
`Recording.settle` tells containers that existed before the trace (restored to their snapshot, and
handed to the caller with their after-trace content) from containers the trace itself created
(left as they are). A staged ``if`` then merges the two after-states item by item with select ops
(`cond_lowering`), or refuses clearly when the branches leave different lengths or keys; a staged
loop refuses any such change (it cannot happen once per iteration).
"""
from __future__ import annotations

import sys
import threading

_local = threading.local()
_PLAIN = (list, dict)


def _stack():
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


def _snapshot(c):
    return list(c) if type(c) is list else dict(c)


def record(container):
    """Called by converted code just before ``container`` (any object) is changed in place."""
    if type(container) not in _PLAIN:
        return
    stack = getattr(_local, "stack", None)
    if not stack:
        return
    # the innermost trace only: an enclosing trace learns of the change when the inner one settles
    # and its caller writes the merged content back (recorded again, then in the enclosing trace)
    rec = stack[-1]
    if id(container) not in rec.before:
        rec.before[id(container)] = (container, _snapshot(container))


def _reach(values, into):
    """ids of every list / dict / tuple reachable from ``values``."""
    todo = list(values)
    while todo:
        v = todo.pop()
        if type(v) in (list, dict, tuple) and id(v) not in into:
            into.add(id(v))
            todo.extend(v.values() if type(v) is dict else v)
    return into


def restore(container, content):
    """Put ``content`` (a snapshot) back into ``container`` in place."""
    if type(container) is list:
        container[:] = content
    else:
        container.clear()
        container.update(content)


class Recording:
    """The containers changed in place during one trace (see the module docstring)."""

    def __init__(self):
        self.before = {}        # id -> (container, snapshot taken before its first change)

    def __enter__(self):
        _stack().append(self)
        return self

    def __exit__(self, *exc):
        _stack().remove(self)
        return False

    def settle(self, outputs):
        """Split the recorded containers after the trace. ``outputs``: the trace's state values.

        Returns ``{id: (container, before, after)}`` for the containers that existed before the
        trace, each restored to ``before``. A container counts as created by the trace when it is
        reachable from ``outputs`` or from another recorded container's new content, and not from
        any recorded container's old content."""
        after = {k: _snapshot(c) for k, (c, _) in self.before.items()}
        old = _reach([v for _, snap in self.before.values() for v in (snap.values() if type(snap) is dict
                                                                       else snap)], set())
        new = _reach(list(outputs) + [v for snap in after.values() for v in (snap.values() if type(snap) is dict
                                                                              else snap)], set())
        # a container the trace made and dropped (a temporary of a branch, a copy made by an inner
        # if) is referenced only by this record: nobody can see it, it is neither restored nor merged
        # (its old content may hold values of the branch's block). The baseline is measured on a
        # probe held the same way, so the count is exact for this interpreter.
        probe_entry = ([], None)
        probe = probe_entry[0]
        base = sys.getrefcount(probe)
        del probe
        existed = {}
        for k, (c, snap) in self.before.items():
            if k in old or (k not in new and sys.getrefcount(c) > base):
                existed[k] = (c, snap, after[k])
            del c
        for c, snap, _ in existed.values():
            restore(c, snap)
        return existed


def changed(before, after, same):
    """Whether a container's content differs (``same(a, b)`` compares two items)."""
    if type(before) is list:
        return len(before) != len(after) or not all(same(a, b) for a, b in zip(before, after))
    return list(before) != list(after) or not all(same(before[k], after[k]) for k in before)


def describe(container):
    kind = "list" if type(container) is list else "dict"
    return f"a Python {kind} ({len(container)} items)"
