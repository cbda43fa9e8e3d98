"""``paddle.jit.dy2static.transformers.loop_transformer``: ``NameVisitor``.

The loop-variable analysis Paddle's tests query: for a ``for`` / ``while`` node of a parsed
function, which names the loop carries (``loop_var_names``) and which of those the loop creates
(``create_var_names``). dy2st's own loop lowering decides loop state with its dataflow analysis
(`dy2st.analysis`); this is the same question answered on a gast tree, by these rules:

* loop variables: the ``for`` target names, the names the iterable reads (``range(n)`` -> ``n``,
  not the called ``range``) or the ``while`` test reads, and every name the body assigns that is
  bound before the loop or read after it (later in the function, or elsewhere in an enclosing loop);
* created variables: loop variables (not the ``for`` target or iterable / test names) that the
  function does not bind before the loop (arguments count as bound).

Names bound inside nested functions, lambdas and comprehensions are their own scope's and are not
counted as assignments of the function.
"""
from __future__ import annotations

import gast

__all__ = ["NameVisitor"]

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_COMPS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_LOOPS = (gast.For, gast.While)


def _walk_scope(node, enter_comprehensions=True):
    """Nodes under ``node`` (itself included) without entering nested function or class scopes
    (nor comprehensions, whose targets are their own, unless ``enter_comprehensions``)."""
    todo = [node]
    while todo:
        cur = todo.pop()
        yield cur
        for child in gast.iter_child_nodes(cur):
            if not isinstance(child, _SCOPES) and (enter_comprehensions or not isinstance(child, _COMPS)):
                todo.append(child)


def _stored(nodes):
    """Names the statements ``nodes`` bind in their own scope."""
    return {sub.id for n in nodes for sub in _walk_scope(n, enter_comprehensions=False)
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, (gast.Store, gast.Del))}


def _loaded(nodes, skip_call_funcs=False):
    out = set()
    for n in nodes:
        called = set()
        if skip_call_funcs:
            called = {id(c.func) for c in _walk_scope(n) if isinstance(c, gast.Call)}
        for sub in gast.walk(n):
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Load) and id(sub) not in called:
                out.add(sub.id)
    return out


class NameVisitor:
    """Answers ``get_loop_var_names(loop_node)`` for the loops of the tree ``root``."""

    def __init__(self, root_node):
        self.root = root_node
        self._parent = {}
        for node in gast.walk(root_node):
            for child in gast.iter_child_nodes(node):
                self._parent[child] = node

    def _ancestors(self, node):
        cur = self._parent.get(node)
        while cur is not None:
            yield cur
            cur = self._parent.get(cur)

    def get_loop_var_names(self, node):
        """``(loop_var_names, create_var_names)`` of the ``gast.For`` / ``gast.While`` ``node``."""
        if not isinstance(node, _LOOPS):
            raise TypeError(f"NameVisitor.get_loop_var_names: expected a gast.For or gast.While node, "
                            f"got {type(node).__name__}")
        ancestors = list(self._ancestors(node))
        func = next((a for a in ancestors if isinstance(a, (gast.FunctionDef, gast.AsyncFunctionDef))), self.root)
        body = list(node.body) + list(node.orelse)
        if isinstance(node, gast.For):
            header = {n.id for n in gast.walk(node.target) if isinstance(n, gast.Name)}
            header |= _loaded([node.iter], skip_call_funcs=True)
            own = header - _loaded([node.iter], skip_call_funcs=True)
        else:
            header = _loaded([node.test], skip_call_funcs=True)
            own = set()
        written = _stored(body)
        end = getattr(node, "end_lineno", None) or node.lineno
        read_after = set()
        for sub in _walk_scope(func):
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Load) and getattr(sub, "lineno", 0) > end:
                read_after.add(sub.id)
        for outer in (a for a in ancestors if isinstance(a, _LOOPS)):
            read_after |= _loaded(list(outer.body) + list(outer.orelse)) - _loaded(body)
            read_after |= _loaded([outer.test] if isinstance(outer, gast.While) else [outer.iter])
        bound_before = set()
        if isinstance(func, (gast.FunctionDef, gast.AsyncFunctionDef)):
            args = func.args
            for a in list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs) + \
                    [x for x in (args.vararg, args.kwarg) if x is not None]:
                bound_before |= {n.id for n in gast.walk(a) if isinstance(n, gast.Name)}
        for sub in _walk_scope(func):
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Store) and \
                    getattr(sub, "lineno", end + 1) < node.lineno and not self._in_comprehension(sub, func):
                bound_before.add(sub.id)
        # a name the body assigns is carried when it exists before the loop or is read after it; one
        # created and used only within an iteration is not
        carried = {w for w in written if w in bound_before or w in read_after}
        loop_vars = header | carried
        create = {v for v in carried if v not in bound_before and v not in header}
        return loop_vars, create

    def _in_comprehension(self, name_node, stop):
        for a in self._ancestors(name_node):
            if a is stop:
                return False
            if isinstance(a, _COMPS):
                return True
        return False
