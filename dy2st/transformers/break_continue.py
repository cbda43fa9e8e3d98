"""``break`` and ``continue`` become flags, so loops around them can be staged.

Before::

    while i < n:
        i += 1
        if x[i] > 0:
            continue
        if i > 5:
            break
        s += x[i]

After::

    _dy2st_break_1 = False
    while not _dy2st_break_1 and i < n:
        _dy2st_continue_2 = False
        i += 1
        if x[i] > 0:
            _dy2st_continue_2 = True
        if not _dy2st_continue_2:
            if i > 5:
                _dy2st_break_1 = True
            if not _dy2st_break_1:
                s += x[i]

A ``for`` loop gets ``not _dy2st_break_1`` as an extra test checked before each iteration;
a loop's ``else`` clause runs after it under ``if not _dy2st_break_1``.
"""
from __future__ import annotations

import gast

from .base import and_, assign, const, contains, load, located, not_
from .return_statements import add_extra_test

_LOOPS = (gast.While, gast.For, gast.AsyncFor)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)


def _has(stmts, kind):
    return contains(stmts, kind, stop=_SCOPES + _LOOPS)


class _Loop:
    def __init__(self, brk, cont):
        self.brk, self.cont = brk, cont

    def guard_test(self, used):
        tests = [not_(load(f)) for f, u in ((self.brk, used[0]), (self.cont, used[1])) if u]
        return and_(*tests)

    def block(self, stmts):
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, gast.Break):
                out.append(located(assign(self.brk, const(True)), s))
                return out
            if isinstance(s, gast.Continue):
                out.append(located(assign(self.cont, const(True)), s))
                return out
            used = (self.brk is not None and _has([s], gast.Break), self.cont is not None and _has([s], gast.Continue))
            if any(used):
                s = self.stmt(s)
                out.append(s)
                rest = stmts[i + 1:]
                if rest:
                    out.append(located(gast.If(test=self.guard_test(used), body=self.block(rest), orelse=[]),
                                       rest[0]))
                return out
            out.append(s)
        return out

    def stmt(self, s):
        if isinstance(s, gast.If):
            s.body = self.block(s.body) or [gast.Pass()]
            s.orelse = self.block(s.orelse)
        elif isinstance(s, (gast.With, gast.AsyncWith)):
            s.body = self.block(s.body) or [gast.Pass()]
        elif isinstance(s, gast.Try):
            s.body = self.block(s.body) or [gast.Pass()]
            for h in s.handlers:
                h.body = self.block(h.body) or [gast.Pass()]
            s.orelse = self.block(s.orelse)
            s.finalbody = self.block(s.finalbody)
        return s


class _Transformer(gast.NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_FunctionDef(self, node):
        if node is self.ctx.fn_node:
            node.body = self.stmts(node.body)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        return node

    def visit_Lambda(self, node):
        return node

    def stmts(self, stmts):
        out = []
        for s in stmts:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    def generic_visit(self, node):
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(node, field, None), list):
                setattr(node, field, self.stmts(getattr(node, field)))
        for h in getattr(node, "handlers", []) or []:
            h.body = self.stmts(h.body)
        return node

    def visit_loop(self, node):
        self.generic_visit(node)    # inner loops first: their flags are their own
        has_brk, has_cont = _has(node.body, gast.Break), _has(node.body, gast.Continue)
        if not has_brk and not has_cont:
            return node
        brk = self.ctx.fresh("break") if has_brk else None
        cont = self.ctx.fresh("continue") if has_cont else None
        loop = _Loop(brk, cont)
        body = loop.block(node.body) or [gast.Pass()]
        if cont:
            body = [located(assign(cont, const(False)), node)] + body
        node.body = body
        pre, post = [], []
        if brk:
            pre.append(located(assign(brk, const(False)), node))
            if isinstance(node, gast.While):
                node.test = located(and_(not_(load(brk)), node.test), node.test)
            else:
                add_extra_test(node, located(not_(load(brk)), node))
            if node.orelse:
                post.append(located(gast.If(test=not_(load(brk)), body=node.orelse, orelse=[]), node.orelse[0]))
                node.orelse = []
        return pre + [node] + post

    visit_While = visit_For = visit_AsyncFor = visit_loop


def transform(fn_node, ctx):
    if ctx.is_generator:
        return fn_node
    _Transformer(ctx).visit(fn_node)
    return fn_node
