"""Every call goes through ``_jst.Call``, which picks what to really call at trace time.

Before::

    y = self.block(x)
    n = len(xs)
    print(y)

After::

    y = _jst.Call(self.block)(x)
    n = _jst.Call(len)(xs)
    _jst.Call(print)(y)

`dy2st.call_conversion.Call` converts user functions and Layers recursively, maps
``print``/``len``/``int``/``float``/``bool``/``range``/``enumerate`` to their tensor-aware
versions and leaves framework, numpy and builtin functions alone.
"""
from __future__ import annotations

import gast

from .base import JST, FunctionBodyTransformer, call, jst


def _is_jst(func):
    return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id == JST


class _Calls(FunctionBodyTransformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if _is_jst(f) or (isinstance(f, gast.Name) and f.id in ("super", "locals", "globals", "vars", "eval",
                                                                 "exec", "isinstance", "type", "getattr",
                                                                 "setattr", "hasattr")):
            return node
        node.func = gast.copy_location(call(jst("Call"), [f]), f) if hasattr(f, "lineno") else call(jst("Call"), [f])
        return node


def transform(fn_node, ctx):
    _Calls(ctx).visit(fn_node)
    return fn_node
