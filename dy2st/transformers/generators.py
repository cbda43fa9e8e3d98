"""Generator functions (``yield``) cannot be staged: their ``if``/``while`` tests must be Python values.

Before::

    def gen(x):
        if x.mean() > 0:
            yield x

After::

    def gen(x):
        if _jst.python_bool(x.mean() > 0, 'if statement', ('model.py', 2)):
            yield x

A tensor condition there raises a TypeError naming the construct and the line, instead of a
confusing truth-value error.
"""
from __future__ import annotations

import gast

from .base import FunctionBodyTransformer, call, const, jst


class _Guard(FunctionBodyTransformer):
    def _guard(self, node, what):
        self.generic_visit(node)
        node.test = gast.copy_location(call(jst("python_bool"), [node.test, const(what), self.ctx.where(node)]),
                                       node.test)
        return node

    def visit_If(self, node):
        return self._guard(node, "if statement")

    def visit_While(self, node):
        return self._guard(node, "while loop")


def transform(fn_node, ctx):
    if ctx.is_generator:
        _Guard(ctx).visit(fn_node)
    return fn_node
