"""Names that may be unbound where converted control flow starts begin as ``UndefinedVar``.

Before (``y`` is first bound inside the if)::

    def f(x):
        if x.mean() > 0:
            y = x
        ...

After::

    def f(x):
        y = _jst.UndefinedVar('y')
        ...   # the converted if

The reaching-definitions analysis says which names are not definitely defined at each
converted statement; local names whose every assignment was removed as dead code (after a
``return``) but that are still read start as ``UndefinedVar`` too, so reading one is the user's
UnboundLocalError, not a NameError for a global. Starting them at the top of the function is
safe: they are local to it anyway (Python binds every assigned name for the whole function), and
it gives the branch and loop functions a binding for their ``nonlocal`` declarations.
"""
from __future__ import annotations

import gast

from .base import assign, call, const, jst, located


def _lost_locals(fn_node, ctx):
    """Local names of the user's function that the converted code no longer assigns anywhere (the only
    assignments were dead code after a ``return``, removed) but still reads: without a start value
    Python would take them for globals (NameError), where the user's function raises UnboundLocalError."""
    stored, loaded = set(), set()
    for n in gast.walk(fn_node):
        if isinstance(n, gast.Name):
            (stored if isinstance(n.ctx, (gast.Store, gast.Del)) else loaded).add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            stored.add(n.name)
        elif isinstance(n, gast.alias):
            stored.add((n.asname or n.name).split(".")[0])
    return (set(ctx.locals) - stored) & loaded


def transform(fn_node, ctx):
    names = sorted((set(ctx.needs_init) | _lost_locals(fn_node, ctx)) - ctx.params - ctx.globals - ctx.nonlocals)
    if not names:
        return fn_node
    inits = [assign(n, call(jst("UndefinedVar"), [const(n)])) for n in names]
    first = fn_node.body[0]
    fn_node.body = located(inits, first) + fn_node.body
    return fn_node
