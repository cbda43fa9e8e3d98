"""``while`` and ``for`` loops become ``_jst.convert_while_loop`` / ``convert_for_loop``.

Before::

    i = 0
    while i < n:
        s = s + x[i]
        i += 1

After::

    i = 0
    def _dy2st_cond_1():
        return i < n
    def _dy2st_body_2():
        nonlocal i, s
        s = s + x[i]
        i += 1
    def _dy2st_get_3(): ...
    def _dy2st_set_4(_dy2st_vals_5): ...
    _jst.convert_while_loop(_dy2st_cond_1, _dy2st_body_2, _dy2st_get_3, _dy2st_set_4, ('i', 's'),
                            (True, True), ('model.py', 2))

A ``for`` loop's body function takes the item and assigns the loop target first::

    def _dy2st_body_2(_dy2st_item_6):
        nonlocal t, h
        t = _dy2st_item_6
        ...
    _jst.convert_for_loop(_jst.Call(range)(T), _dy2st_body_2, get, set, names, mask, where,
                          extra_test=lambda: not _dy2st_break_7)

Loop variables are the modified names live at the loop test (liveness). Names whose ``append`` /
``pop`` / ``insert`` / ``extend`` the body calls are passed as ``push_pop=(...)`` (``"d['k']"`` for a list
a dict holds under a constant key): those holding lists of tensors become tensor arrays when the loop is
staged. Python conditions and
iterables (lists, ``LayerList``, ``range(int)``) run as Python loops; a Variable condition or a
tensor / ``range(tensor)`` iterable makes a while op (dy2st/loop_lowering.py).
"""
from __future__ import annotations

import gast

from ..analysis import info
from .base import FunctionBodyTransformer, and_, call, expr, funcdef, jst, kw, lambda0, load, located, \
    scope_decls, tuple_const
from . import logical
from .control_flow_common import assigned_attributes, note_undefined, state_functions


_LIST_METHODS = frozenset({"append", "pop", "insert", "extend"})


def _push_pop_names(stmts):
    """Names whose ``append`` / ``pop`` / ``insert`` / ``extend`` the statements call (also through
    ``_jst.Call(name.append)`` and inside the branch functions of converted ifs): lists of tensors among
    the loop variables become tensor arrays before the loop, as Paddle's ``push_pop_names``."""
    found = set()
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Attribute) and n.attr in _LIST_METHODS and isinstance(n.value, gast.Name) \
                and isinstance(n.ctx, gast.Load):
            found.add(n.value.id)
        elif isinstance(n, gast.Attribute) and n.attr in _LIST_METHODS and isinstance(n.ctx, gast.Load) \
                and isinstance(n.value, gast.Subscript) and isinstance(n.value.value, gast.Name) \
                and isinstance(n.value.slice, gast.Constant) and isinstance(n.value.slice.value, str):
            # ``feats['key'].append(v)``: a list held by a dict under a constant key, as Paddle's push_pop_names
            found.add(f"{n.value.value.id}[{n.value.slice.value!r}]")
        stack.extend(gast.iter_child_nodes(n))
    return sorted(found)


class _Loops(FunctionBodyTransformer):
    def _common(self, node):
        a = info(node)
        names = sorted(a.modified)
        # attribute paths assigned in the body (Layer buffers) are loop variables too
        state = names + assigned_attributes(node.body)
        mask = tuple(n in a.live_in or "." in n for n in state)
        note_undefined(self.ctx, a, state, node)
        return a, state, mask

    def visit_While(self, node):
        self.generic_visit(node)
        if info(node) is None:
            return node
        ctx = self.ctx
        _, state, mask = self._common(node)
        c_name, b_name = ctx.fresh("cond"), ctx.fresh("body")
        cond_fn = funcdef(c_name, [], [gast.Return(value=node.test)])
        body_fn = funcdef(b_name, [], scope_decls(ctx, [n for n in state if "." not in n]) + node.body)
        state_fns, get_name, set_name = state_functions(ctx, state, node)
        push_pop = [n for n in _push_pop_names(node.body) if n.split("[", 1)[0] in state]
        helper = call(jst("convert_while_loop"), [load(c_name), load(b_name), load(get_name), load(set_name),
                                                 tuple_const(state), tuple_const(mask), ctx.where(node)],
                      [kw("push_pop", tuple_const(push_pop))] if push_pop else [])
        return located([cond_fn, body_fn] + state_fns + [expr(helper)] + node.orelse, node)

    def visit_For(self, node):
        self.generic_visit(node)
        if info(node) is None:
            return node
        ctx = self.ctx
        _, state, mask = self._common(node)
        b_name, item = ctx.fresh("body"), ctx.fresh("item")
        bind = gast.Assign(targets=[node.target], value=load(item), type_comment=None)
        body_fn = funcdef(b_name, [item], scope_decls(ctx, [n for n in state if "." not in n]) + [located(bind, node)]
                          + node.body)
        state_fns, get_name, set_name = state_functions(ctx, state, node)
        keywords = []
        push_pop = [n for n in _push_pop_names(node.body) if n.split("[", 1)[0] in state]
        if push_pop:
            keywords.append(kw("push_pop", tuple_const(push_pop)))
        extra = getattr(node, "dy2st_extra_tests", None)
        if extra:
            test = logical.transform_expr(and_(*extra), ctx)
            keywords.append(kw("extra_test", lambda0(test)))
        helper = call(jst("convert_for_loop"), [node.iter, load(b_name), load(get_name), load(set_name),
                                               tuple_const(state), tuple_const(mask), ctx.where(node)], keywords)
        return located([body_fn] + state_fns + [expr(helper)] + node.orelse, node)


def transform(fn_node, ctx):
    _Loops(ctx).visit(fn_node)
    return fn_node
