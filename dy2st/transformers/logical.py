"""``and`` / ``or`` / ``not`` and chained comparisons become tensor-aware helpers.

Before::

    if x.mean() > 0 and not flag:
        ...
    ok = 0 < a < b

After::

    if _jst.convert_logical_and(lambda: x.mean() > 0, lambda: _jst.convert_logical_not(flag)):
        ...
    ok = _jst.convert_logical_and(lambda: 0 < a, lambda: a < b)

Operands stay lazy (lambdas), so Python values keep Python's short-circuit semantics;
a Variable operand makes a ``logical_and`` / ``logical_or`` / ``logical_not`` op.
"""
from __future__ import annotations

import gast

from .base import FunctionBodyTransformer, call, jst, lambda0


class _Logical(FunctionBodyTransformer):
    def visit_BoolOp(self, node):
        self.generic_visit(node)
        helper = "convert_logical_and" if isinstance(node.op, gast.And) else "convert_logical_or"
        values = node.values
        result = values[-1]
        for v in reversed(values[:-1]):
            result = call(jst(helper), [lambda0(v), lambda0(result)])
        return gast.copy_location(result, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.Not):
            return gast.copy_location(call(jst("convert_logical_not"), [node.operand]), node)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        parts, left = [], node.left
        for op, right in zip(node.ops, node.comparators):
            parts.append(gast.Compare(left=left, ops=[op], comparators=[right]))
            left = right
        result = parts[-1]
        for p in reversed(parts[:-1]):
            result = call(jst("convert_logical_and"), [lambda0(p), lambda0(result)])
        return gast.copy_location(result, node)


def transform(fn_node, ctx):
    _Logical(ctx).visit(fn_node)
    return fn_node


def transform_expr(node, ctx):
    """Convert one expression built after this pass ran (extra loop tests)."""
    return _Logical(ctx).visit(node)
