"""Zero-argument ``super()`` gets its arguments spelled out.

Before::

    def forward(self, x):
        return super().forward(x)

After::

    def forward(self, x):
        return super(__class__, self).forward(x)

Converted code is compiled outside the class body, where Python would not create the
implicit ``__class__`` cell; naming it makes it an ordinary free variable that the
conversion binds to the original method's ``__class__`` cell.
"""
from __future__ import annotations

import gast

from .base import load


class _Super(gast.NodeTransformer):
    def __init__(self, first_arg):
        self.first_arg = first_arg
        self.used = False

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id == "super" and not node.args and not node.keywords:
            node.args = [load("__class__"), load(self.first_arg)]
            self.used = True
        return node

    def visit_FunctionDef(self, node):   # nested functions have their own first argument
        return node

    visit_Lambda = visit_ClassDef = visit_FunctionDef


def transform(fn_node, ctx):
    args = fn_node.args.posonlyargs + fn_node.args.args
    if not args:
        return fn_node
    t = _Super(args[0].id)
    fn_node.body = [t.visit(s) for s in fn_node.body]
    ctx.uses_class_cell = t.used
    return fn_node
