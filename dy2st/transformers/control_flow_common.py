"""Pieces shared by the if and loop transformers: state get/set functions and bookkeeping."""
from __future__ import annotations

import gast

from .base import funcdef, load, located, scope_decls, store, tuple_load


def state_functions(ctx, state, node):
    """``def get(): return (a, b)`` and ``def set(vals): nonlocal a, b; (a, b) = vals``."""
    get_name, set_name = ctx.fresh("get"), ctx.fresh("set")
    getter = funcdef(get_name, [], [gast.Return(value=tuple_load(state))])
    arg = ctx.fresh("vals")
    if state:
        target = gast.Tuple(elts=[store(n) for n in state], ctx=gast.Store())
        body = scope_decls(ctx, state) + [gast.Assign(targets=[target], value=load(arg), type_comment=None)]
    else:
        body = [gast.Pass()]
    setter = funcdef(set_name, [arg], body)
    return located([getter, setter], node), get_name, set_name


def note_undefined(ctx, info, state, node):
    """Names of ``state`` that may be unbound where ``node`` starts need an UndefinedVar start."""
    for n in state:
        if n not in info.defined_in and n not in ctx.params:
            ctx.needs_init.setdefault(n, getattr(node, "lineno", 0))
