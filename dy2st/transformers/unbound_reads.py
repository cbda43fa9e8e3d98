"""Reads of names that may be unbound where they happen go through ``_jst.read_maybe_unbound``.

Before (``y`` is bound only when the tensor condition holds)::

    if x.mean() > 0:
        y = x * 2
    z = y + 1

After (this pass; the if is converted later)::

    if x.mean() > 0:
        y = x * 2
    z = _jst.read_maybe_unbound(y, 'y', ('model.py', 4)) + 1

The reaching-definitions analysis marks the reads (``dy2st_maybe_unbound`` on statements). At run
time the helper returns any ordinary value unchanged; a name that converted tensor control flow
left bound on some paths only (a ``MaybeUnbound``) gives its value after a staged check that fails,
naming the variable and this line, when the Program runs a path that did not bind it. An augmented
assignment ``y += v`` reads ``y`` first: it is preceded by ``y = _jst.read_maybe_unbound(y, ...)``.
"""
from __future__ import annotations

import gast

from .base import assign, call, const, jst, located

_COMPOUND = (gast.If, gast.While, gast.For, gast.AsyncFor, gast.With, gast.AsyncWith, gast.Try,
             gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef) + ((gast.TryStar,) if hasattr(gast, "TryStar")
                                                                         else ())


class _WrapReads(gast.NodeTransformer):
    """Wraps loads of ``names`` in one statement's expressions (not inside nested defs or classes)."""

    def __init__(self, names, where):
        self.names, self.where = names, where

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.names:
            return located(call(jst("read_maybe_unbound"), [node, const(node.id), self.where]), node)
        return node

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef


def _wrap(expr_node, names, where):
    return _WrapReads(names, where).visit(expr_node)


def _body(stmts, ctx):
    out = []
    for s in stmts:
        out.extend(_stmt(s, ctx))
    return out


def _stmt(s, ctx):
    if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        return [s]
    if isinstance(s, _COMPOUND):
        names = getattr(s, "dy2st_maybe_unbound", None)
        if names and isinstance(s, (gast.If, gast.While)):
            s.test = _wrap(s.test, names, ctx.where(s))
        if isinstance(s, (gast.For, gast.AsyncFor)):
            names = getattr(s.iter, "dy2st_maybe_unbound", None)
            if names:
                s.iter = _wrap(s.iter, names, ctx.where(s))
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, _body(getattr(s, field), ctx))
        for h in getattr(s, "handlers", []) or []:
            h.body = _body(h.body, ctx)
        return [s]
    names = getattr(s, "dy2st_maybe_unbound", None)
    if not names:
        return [s]
    where = ctx.where(s)
    pre = []
    if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name) and s.target.id in names:
        n = s.target.id
        pre.append(located(assign(n, call(jst("read_maybe_unbound"),
                                          [gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None),
                                           const(n), where])), s))
        s.value = _wrap(s.value, names, where)
        return pre + [s]
    return pre + [_wrap(s, names, where)]


def transform(fn_node, ctx):
    fn_node.body = _body(fn_node.body, ctx)
    return fn_node
