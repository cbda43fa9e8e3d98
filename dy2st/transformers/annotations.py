"""Annotated assignments lose their annotations.

Before::

    def forward(self, x):
        y: int = x.shape[0]
        z: paddle.Tensor
        if paddle.mean(x) > 0:
            z = x * y
        ...

After::

    def forward(self, x):
        y = x.shape[0]
        if paddle.mean(x) > 0:
            z = x * y
        ...

Annotations of local variables are never evaluated by Python (PEP 526), so dropping them changes
nothing, but Python refuses ``nonlocal y`` for a name annotated in the enclosing function — and the
branch and loop functions the later passes make declare their outputs ``nonlocal``. Annotated
attribute and item targets (``self.n: int = 0``) become plain assignments the same way; a bare
annotation with no value (``z: paddle.Tensor``) binds nothing and disappears.
"""
from __future__ import annotations

import gast

from .base import FunctionBodyTransformer


class _Annotations(FunctionBodyTransformer):
    def visit_AnnAssign(self, node):
        if node.value is None:
            return gast.copy_location(gast.Pass(), node)
        new = gast.Assign(targets=[node.target], value=node.value, type_comment=None)
        return gast.copy_location(new, node)


def transform(fn_node, ctx):
    _Annotations(ctx).visit(fn_node)
    return fn_node
