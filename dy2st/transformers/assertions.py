"""``assert`` becomes ``_jst.convert_assert``, an assert op when the condition is a tensor.

Before::

    assert x.min() >= 0, "x must be non-negative"

After::

    _jst.convert_assert(x.min() >= 0, lambda: 'x must be non-negative', ('model.py', 12))
"""
from __future__ import annotations

from .base import FunctionBodyTransformer, call, const, expr, jst, lambda0


class _Asserts(FunctionBodyTransformer):
    def visit_Assert(self, node):
        self.generic_visit(node)
        msg = lambda0(node.msg) if node.msg is not None else const(None)
        new = expr(call(jst("convert_assert"), [node.test, msg, self.ctx.where(node)]))
        return new


def transform(fn_node, ctx):
    _Asserts(ctx).visit(fn_node)
    return fn_node
