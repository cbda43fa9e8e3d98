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
converted statement. Starting them at the top of the function is safe: they are local to
it anyway (Python binds every assigned name for the whole function), and it gives the
branch and loop functions a binding for their ``nonlocal`` declarations.
"""
from __future__ import annotations

from .base import assign, call, const, jst, located


def transform(fn_node, ctx):
    names = sorted(n for n in ctx.needs_init if n not in ctx.params and n not in ctx.globals
                   and n not in ctx.nonlocals)
    if not names:
        return fn_node
    inits = [assign(n, call(jst("UndefinedVar"), [const(n)])) for n in names]
    first = fn_node.body[0]
    fn_node.body = located(inits, first) + fn_node.body
    return fn_node
