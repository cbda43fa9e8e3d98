"""``if`` statements and conditional expressions become ``_jst.convert_ifelse`` / ``convert_ifexp``.

Before::

    if x.mean() > 0:
        y = x * 2
    else:
        y = x - 1
    return y

After::

    def _dy2st_true_fn_1():
        nonlocal y
        y = x * 2
    def _dy2st_false_fn_2():
        nonlocal y
        y = x - 1
    def _dy2st_get_3():
        return (y,)
    def _dy2st_set_4(_dy2st_vals_5):
        nonlocal y
        (y,) = _dy2st_vals_5
    _jst.convert_ifelse(x.mean() > 0, _dy2st_true_fn_1, _dy2st_false_fn_2, _dy2st_get_3, _dy2st_set_4,
                        ('y',), (True,), ('model.py', 3))
    return y

The state is every name the statement modifies (from the activity analysis); the outputs
mask marks those live after it (liveness). With a Python predicate the helper just calls
one branch; with a Variable it traces both into a cond (dy2st/cond_lowering.py).
Conditional expressions become ``_jst.convert_ifexp(pred, lambda: a, lambda: b, where)``.
Inner statements are converted first (bottom-up).
"""
from __future__ import annotations

import gast

from ..analysis import info
from .base import FunctionBodyTransformer, call, const, expr, funcdef, jst, lambda0, load, located, scope_decls, \
    tuple_const
from .control_flow_common import assigned_attributes, note_undefined, state_functions


class _IfElse(FunctionBodyTransformer):
    def visit_If(self, node):
        self.generic_visit(node)
        a = info(node)
        if a is None:       # created after the analysis ran: nothing to carry
            return node
        ctx = self.ctx
        names = sorted(a.modified)
        state = names + assigned_attributes(node.body + node.orelse)
        # attributes outlive the function: always outputs
        outputs = tuple(n in a.live_out or "." in n for n in state)
        note_undefined(ctx, a, [n for n, o in zip(state, outputs) if o] + state, node)
        t_name, f_name = ctx.fresh("true_fn"), ctx.fresh("false_fn")
        decls = scope_decls(ctx, names)
        t_fn = funcdef(t_name, [], decls + node.body)
        f_fn = funcdef(f_name, [], (decls + node.orelse) if node.orelse else [gast.Pass()])
        state_fns, get_name, set_name = state_functions(ctx, state, node)
        helper = call(jst("convert_ifelse"), [node.test, load(t_name), load(f_name), load(get_name), load(set_name),
                                             tuple_const(state), tuple_const(outputs), ctx.where(node)])
        return located([t_fn, f_fn] + state_fns + [expr(helper)], node)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        new = call(jst("convert_ifexp"), [node.test, lambda0(node.body), lambda0(node.orelse),
                                         self.ctx.where(node)])
        return gast.copy_location(new, node)


def transform(fn_node, ctx):
    _IfElse(ctx).visit(fn_node)
    return fn_node
