"""Pieces shared by the if and loop transformers: state get/set functions and bookkeeping."""
from __future__ import annotations

import gast

from .base import JST, call, const, expr, funcdef, jst, load, located, scope_decls, store


def _state_load(name):
    """A state entry's current value: a local, or an attribute path (``self.count``) read through
    ``_jst.load_attr`` (UndefinedVar when the attribute does not exist yet)."""
    if "." not in name:
        return load(name)
    root, path = name.split(".", 1)
    return call(jst("load_attr"), [load(root), const(path)])


def state_functions(ctx, state, node):
    """``def get(): return (a, b)`` and ``def set(vals): nonlocal a, b; (a, b) = vals``; attribute
    entries (``self.count``) are read with ``_jst.load_attr`` and written with ``_jst.store_attr``."""
    get_name, set_name = ctx.fresh("get"), ctx.fresh("set")
    getter = funcdef(get_name, [], [gast.Return(value=gast.Tuple(elts=[_state_load(n) for n in state],
                                                                   ctx=gast.Load()))])
    arg = ctx.fresh("vals")
    names = [n for n in state if "." not in n]
    body = []
    if names:
        if len(names) == len(state):
            target = gast.Tuple(elts=[store(n) for n in state], ctx=gast.Store())
            body = [gast.Assign(targets=[target], value=load(arg), type_comment=None)]
        else:
            for i, n in enumerate(state):
                if "." not in n:
                    item = gast.Subscript(value=load(arg), slice=const(i), ctx=gast.Load())
                    body.append(gast.Assign(targets=[store(n)], value=item, type_comment=None))
        body = scope_decls(ctx, names) + body
    for i, n in enumerate(state):
        if "." in n:
            root, path = n.split(".", 1)
            item = gast.Subscript(value=load(arg), slice=const(i), ctx=gast.Load())
            body.append(expr(call(jst("store_attr"), [load(root), const(path), item])))
    setter = funcdef(set_name, [arg], body or [gast.Pass()])
    return located([getter, setter], node), get_name, set_name


def assigned_attributes(stmts):
    """Attribute paths (``self.count``, ``self.stats.n``) that ``stmts`` assign, outside nested
    functions and classes, whose root name the statements do not rebind: carried through tensor
    branches and loops like local names (Layer buffers assigned under a tensor condition)."""
    found, rebound = [], set()
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)) \
                and not getattr(n, "_dy2st_generated", False):
            continue     # (the branch/body functions of inner converted statements hold user code)
        target = None
        if isinstance(n, gast.Attribute) and isinstance(n.ctx, gast.Store):
            target = n
        elif _is_attr_setitem(n):
            # ``self.buf[i] = v`` rewritten by the setitem pass, or an inner converted statement's
            # state setter: both assign self.buf
            target = gast.Attribute(value=n.args[0], attr=n.args[1].value, ctx=gast.Store())
        if target is not None:
            parts, v = [target.attr], target.value
            while isinstance(v, gast.Attribute):
                parts.append(v.attr)
                v = v.value
            if isinstance(v, gast.Name) and not any(p.startswith("_dy2st_") for p in parts):
                found.append((v.id, ".".join([v.id] + parts[::-1])))
        elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            rebound.add(n.id)
        stack.extend(gast.iter_child_nodes(n))
    return sorted({path for root, path in found if root not in rebound})


def _is_attr_setitem(n):
    f = getattr(n, "func", None)
    return isinstance(n, gast.Call) and isinstance(f, gast.Attribute) \
        and f.attr in ("convert_attr_setitem", "store_attr") \
        and isinstance(f.value, gast.Name) and f.value.id == JST and len(n.args) >= 2 \
        and isinstance(n.args[1], gast.Constant) and isinstance(n.args[1].value, str)


def note_undefined(ctx, info, state, node):
    """Names of ``state`` that may be unbound where ``node`` starts need an UndefinedVar start."""
    for n in state:
        if "." not in n and n not in info.defined_in and n not in ctx.params:
            ctx.needs_init.setdefault(n, getattr(node, "lineno", 0))
