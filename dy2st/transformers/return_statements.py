"""Early returns become a flag and a value, so control flow around them can be staged.

Before::

    def f(x):
        if x.mean() > 0:
            return x * 2
        return x - 1

After::

    def f(x):
        _dy2st_do_return = False
        _dy2st_retval = _jst.UndefinedVar('_dy2st_retval')
        if x.mean() > 0:
            _dy2st_do_return = True
            _dy2st_retval = x * 2
        if not _dy2st_do_return:
            _dy2st_do_return = True
            _dy2st_retval = x - 1
        return _jst.return_value(_dy2st_retval)

Statements after one that may return are guarded by ``if not _dy2st_do_return``; loops that
contain a return also test the flag (``while`` conditions are and-ed with it, ``for`` loops
get it as an extra test). Functions whose only return is the last statement are untouched.
"""
from __future__ import annotations

import gast

from .base import and_, assign, call, const, contains, jst, load, located, not_

FLAG, RETVAL = "_dy2st_do_return", "_dy2st_retval"


def _needs_transform(fn_node):
    body = fn_node.body
    for i, s in enumerate(body):
        if isinstance(s, gast.Return):
            continue
        if contains([s], gast.Return):
            return True
    return False


def add_extra_test(loop, test):
    tests = getattr(loop, "dy2st_extra_tests", [])
    loop.dy2st_extra_tests = tests + [test]


class _Returns:
    def __init__(self, ctx):
        self.ctx = ctx

    def block(self, stmts):
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, gast.Return):
                value = s.value if s.value is not None else const(None)
                out += located([assign(FLAG, const(True)), assign(RETVAL, value)], s)
                return out
            may_return = contains([s], gast.Return)
            out += self.stmt(s) if may_return else [s]
            rest = stmts[i + 1:]
            if may_return and rest:
                guard = gast.If(test=not_(load(FLAG)), body=self.block(rest), orelse=[])
                out.append(located(guard, rest[0]))
                return out
        return out

    def stmt(self, s):
        if isinstance(s, gast.If):
            s.body = self.block(s.body) or [gast.Pass()]
            s.orelse = self.block(s.orelse)
        elif isinstance(s, gast.While):
            s.body = self.block(s.body) or [gast.Pass()]
            s.test = located(and_(not_(load(FLAG)), s.test), s.test)
        elif isinstance(s, (gast.For, gast.AsyncFor)):
            s.body = self.block(s.body) or [gast.Pass()]
            add_extra_test(s, located(not_(load(FLAG)), s))
        elif isinstance(s, (gast.With, gast.AsyncWith)):
            s.body = self.block(s.body) or [gast.Pass()]
        elif isinstance(s, gast.Try):
            s.body = self.block(s.body) or [gast.Pass()]
            for h in s.handlers:
                h.body = self.block(h.body) or [gast.Pass()]
            s.orelse = self.block(s.orelse)
            s.finalbody = self.block(s.finalbody)
        return [s]


def transform(fn_node, ctx):
    if ctx.is_generator or not _needs_transform(fn_node):
        return fn_node
    first = fn_node.body[0]
    init = located([assign(FLAG, const(False)),
                    assign(RETVAL, call(jst("UndefinedVar"), [const(RETVAL)]))], first)
    body = _Returns(ctx).block(fn_node.body)
    last = located(gast.Return(value=call(jst("return_value"), [load(RETVAL)])), fn_node.body[-1])
    fn_node.body = init + body + [last]
    return fn_node
