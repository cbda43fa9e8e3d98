"""``x.shape`` reads go through ``_jst.convert_shape``.

Before::

    batch = x.shape[0]

After::

    batch = _jst.convert_shape(x)[0]

For a Variable with unknown dims (an InputSpec with ``None``), the unknown entries are
int32 tensors computed by a ``shape`` op at run time; known dims stay Python ints, and any
other object's ``.shape`` is returned as is.
"""
from __future__ import annotations

import gast

from .base import FunctionBodyTransformer, call, jst


class _Shapes(FunctionBodyTransformer):
    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "shape" and isinstance(node.ctx, gast.Load):
            return gast.copy_location(call(jst("convert_shape"), [node.value]), node)
        return node


def transform(fn_node, ctx):
    _Shapes(ctx).visit(fn_node)
    return fn_node
