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


def _binds_super(fn_node):
    """Whether the function itself binds the name ``super`` (a local def, assignment, import or
    argument): then ``super()`` calls that, not the builtin."""
    a = fn_node.args
    if any(getattr(x, "id", None) == "super" for x in a.posonlyargs + a.args + a.kwonlyargs
           + [v for v in (a.vararg, a.kwarg) if v is not None]):
        return True
    todo = list(fn_node.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            if node.name == "super":
                return True
            continue                       # their bodies are other scopes
        if isinstance(node, gast.Lambda):
            continue
        if isinstance(node, gast.Name) and node.id == "super" and isinstance(node.ctx, gast.Store):
            return True
        if isinstance(node, (gast.Import, gast.ImportFrom)) and \
                any((al.asname or al.name.split(".")[0]) == "super" for al in node.names):
            return True
        todo.extend(gast.iter_child_nodes(node))
    return False


def transform(fn_node, ctx):
    args = fn_node.args.posonlyargs + fn_node.args.args
    if not args or _binds_super(fn_node):
        return fn_node
    t = _Super(args[0].id)
    fn_node.body = [t.visit(s) for s in fn_node.body]
    ctx.uses_class_cell = t.used
    return fn_node
