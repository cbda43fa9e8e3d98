"""``paddle.increment(x)`` as a statement rebinds ``x`` to what the call returns.

Paddle's ``increment`` changes its argument in place (eagerly the tensor itself; in a Program its
output is written into the same variable). A tensor loop or branch only carries names that are
assigned, so the in-place update becomes an assignment the analyses see; the helper hands back the
call's result only when the function called is Paddle's ``increment`` (anything else named
``increment`` keeps the name's value).

Before::

    while i < n:
        paddle.increment(i, value=2.0)

After::

    while i < n:
        i = _jst.convert_inplace_call(paddle.increment, i, value=2.0)

Only a local name as first argument is rebound (a free variable would become local).
"""
from __future__ import annotations

import gast

from .base import FunctionBodyTransformer, call, jst, located, store

_INPLACE_API = ("increment",)


class _InplaceCalls(FunctionBodyTransformer):
    def visit_Expr(self, node):
        self.generic_visit(node)
        c = node.value
        if not (isinstance(c, gast.Call) and isinstance(c.func, gast.Attribute) and c.func.attr in _INPLACE_API
                and c.args and isinstance(c.args[0], gast.Name) and not any(isinstance(a, gast.Starred)
                                                                           for a in c.args)):
            return node
        name = c.args[0].id
        ctx = self.ctx
        if name not in ctx.locals or name in ctx.nonlocals or name in ctx.globals:
            return node
        new = gast.Assign(targets=[store(name)], value=call(jst("convert_inplace_call"), [c.func] + list(c.args),
                                                            c.keywords), type_comment=None)
        return located(gast.copy_location(new, node), node)


def transform(fn_node, ctx):
    _InplaceCalls(ctx).visit(fn_node)
    return fn_node
