"""Item assignment ``x[i] = v`` rebinds ``x`` through ``_jst.convert_setitem``.

A static Variable cannot change in place: ``x[i] = v`` on one is a ``set_value`` op whose result
is a NEW Variable, so the name must be rebound to it (and, being rebound, it becomes a branch
output or a loop variable like any other assignment). For a Python list/dict or an eager tensor
the helper performs the ordinary item assignment and hands back the same object.

Before::

    y[0] = 5.0
    y[i] += v
    self.buf[0] = x

After::

    y = _jst.convert_setitem(y, 0, 5.0)
    y = _jst.convert_setitem(y, i, v, '+')        # y[i] is read once, the index evaluated once
    _jst.convert_attr_setitem(self, 'buf', 0, x)   # sets self.buf only when the value changed

A free variable of the function (``seen[k] = v`` on a closure's dict) is not rebound (that would
make it local): ``_jst.convert_free_setitem(seen, 'seen', k, v)`` assigns the item and refuses a
static Variable, whose item assignment would need a new binding. Targets whose container is another subscript
(``d['k'][0] = v``) go through ``convert_container_setitem``, which returns ``d``: a local ``d`` is rebound to it
(``d = _jst.convert_container_setitem(d, 'k', 0, v)``), so the nested change is branch / loop state like
``d['k'] = v``. Tuple targets and chained ``a[0] = b[0] = v`` stay as they are.
"""
from __future__ import annotations

import gast

from .base import FunctionBodyTransformer, call, const, expr, jst, load, located, store

_AUG = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//", gast.Mod: "%",
        gast.Pow: "**", gast.MatMult: "@", gast.BitAnd: "&", gast.BitOr: "|", gast.BitXor: "^",
        gast.LShift: "<<", gast.RShift: ">>"}


def _load_copy(node):
    """``node`` (a Name / Attribute / Subscript target) as a Load expression."""
    new = gast.copy_location(type(node)(**{f: getattr(node, f) for f in node._fields}), node)
    new.ctx = gast.Load()
    return new


class _SetItems(FunctionBodyTransformer):
    def _rewrite(self, node, target, value, op=None):
        if not isinstance(target, gast.Subscript):
            return node
        base, index = target.value, target.slice
        extra = [const(op)] if op is not None else []
        if isinstance(base, gast.Name):
            ctx = self.ctx
            if base.id not in ctx.locals and base.id not in ctx.nonlocals and base.id not in ctx.globals:
                # a free variable (a closure's dict ...): rebinding it would make it local, but the
                # change must still be seen (mutation_log) when it happens under a tensor condition
                new = expr(call(jst("convert_free_setitem"), [load(base.id), const(base.id), index, value] + extra))
                return located(gast.copy_location(new, node), node)
            new = gast.Assign(targets=[store(base.id)],
                              value=call(jst("convert_setitem"), [load(base.id), index, value] + extra),
                              type_comment=None)
        elif isinstance(base, gast.Attribute):
            new = expr(call(jst("convert_attr_setitem"),
                            [_load_copy(base.value), const(base.attr), index, value] + extra))
        elif isinstance(base, gast.Subscript):
            args = [_load_copy(base.value), base.slice, index, value] + extra
            root = base.value
            if isinstance(root, gast.Name) and root.id in self.ctx.locals and root.id not in self.ctx.nonlocals \
                    and root.id not in self.ctx.globals:
                # d['k'][0] = v on a local d: rebind d (the same object eagerly), so that d is a branch output
                # or loop variable and the nested change is carried through tensor control flow like d['k'] = v
                new = gast.Assign(targets=[store(root.id)], value=call(jst("convert_container_setitem"), args),
                                  type_comment=None)
            else:
                new = expr(call(jst("convert_container_setitem"), args))
        else:
            return node
        return located(gast.copy_location(new, node), node)

    def visit_Assign(self, node):
        self.generic_visit(node)
        if len(node.targets) != 1:
            return node
        return self._rewrite(node, node.targets[0], node.value)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        op = _AUG.get(type(node.op))
        if op is None:
            return node
        return self._rewrite(node, node.target, node.value, op)


def transform(fn_node, ctx):
    _SetItems(ctx).visit(fn_node)
    return fn_node
