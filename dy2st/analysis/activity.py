"""Activity analysis: the names a statement (list) reads and modifies.

"Modified" means bound (assignment, augmented assignment, ``for`` target, ``def``/``class``/``import``
names, ``with ... as``, ``except ... as``, walrus) or mutated in place through a method that
changes a container (``xs.append(...)``) or an item/attribute store (``xs[i] = v``, ``obj.a = v``
modify ``xs`` / ``obj``). Nested function and class bodies, lambdas and comprehensions have their
own scopes: their bound names are not the enclosing function's, but the names they read are
reads of the enclosing code (closures capture them).
"""
from __future__ import annotations

import gast

MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add", "discard",
    "popitem", "sort", "reverse",
})


class Activity:
    """``reads``: names loaded; ``binds``: names (re)bound; ``mutates``: names changed in place.
    ``modified`` = binds | mutates (the names a converted block must carry out as state)."""

    __slots__ = ("reads", "binds", "mutates")

    def __init__(self):
        self.reads, self.binds, self.mutates = set(), set(), set()

    @property
    def modified(self):
        return self.binds | self.mutates

    def __repr__(self):
        return f"Activity(reads={sorted(self.reads)}, binds={sorted(self.binds)}, mutates={sorted(self.mutates)})"


def _root_name(node):
    """``xs`` for ``xs``, ``xs[0]``, ``xs.a[1]``; None for anything else."""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


class _Collector(gast.NodeVisitor):
    def __init__(self, act):
        self.act = act

    # scopes of their own: record what they read from outside, bind only their own name
    def visit_FunctionDef(self, node):
        self.act.binds.add(node.name)
        for d in node.decorator_list:
            self.visit(d)
        for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(d)
        self._free_reads(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.act.binds.add(node.name)
        for b in node.bases + node.decorator_list:
            self.visit(b)
        self._free_reads(node)

    def visit_Lambda(self, node):
        for d in node.args.defaults:
            self.visit(d)
        self._free_reads(node)

    def _comprehension(self, node):
        self._free_reads(node)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def _free_reads(self, node):
        inner = Activity()
        c = _Collector(inner)
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)):
            for a in node.args.args + node.args.posonlyargs + node.args.kwonlyargs + \
                    [x for x in (node.args.vararg, node.args.kwarg) if x is not None]:
                inner.binds.add(a.id)
            body = node.body if isinstance(node.body, list) else [node.body]
        elif isinstance(node, gast.ClassDef):
            body = node.body
        else:   # comprehension
            for g in node.generators:
                c.visit(g)
            body = [node.elt] if not isinstance(node, gast.DictComp) else [node.key, node.value]
        for s in body:
            c.visit(s)
        self.act.reads |= inner.reads - inner.binds

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load):
            self.act.reads.add(node.id)
        else:   # Store, Del
            self.act.binds.add(node.id)

    def visit_AugAssign(self, node):
        name = _root_name(node.target)
        if isinstance(node.target, gast.Name):
            self.act.reads.add(node.target.id)
            self.act.binds.add(node.target.id)
        elif name is not None:
            self.act.mutates.add(name)
            self.visit(node.target)
        self.visit(node.value)

    def visit_Subscript(self, node):
        if isinstance(node.ctx, (gast.Store, gast.Del)):
            name = _root_name(node)
            if name is not None:
                self.act.mutates.add(name)
                self.act.reads.add(name)
            self.visit(node.slice)
            if not isinstance(node.value, gast.Name):
                self._visit_load(node.value)
            return
        self.generic_visit(node)

    def visit_Attribute(self, node):
        if isinstance(node.ctx, (gast.Store, gast.Del)):
            name = _root_name(node)
            if name is not None:
                self.act.mutates.add(name)
                self.act.reads.add(name)
            if not isinstance(node.value, gast.Name):
                self._visit_load(node.value)
            return
        self.generic_visit(node)

    def _visit_load(self, node):
        # the object part of a store target (``a.b`` in ``a.b.c = v``) is read
        for n in gast.walk(node):
            if isinstance(n, gast.Name):
                self.act.reads.add(n.id)

    def visit_Call(self, node):
        f = node.func
        # the calls pass wraps every callee: ``_jst.Call(xs.append)(v)`` still mutates xs
        if isinstance(f, gast.Call) and len(f.args) == 1 and isinstance(f.func, gast.Attribute) \
                and f.func.attr == "Call" and isinstance(f.func.value, gast.Name) and f.func.value.id == "_jst":
            f = f.args[0]
        if isinstance(f, gast.Attribute) and f.attr in MUTATING_METHODS:
            name = _root_name(f.value)
            if name is not None:
                self.act.mutates.add(name)
        self.generic_visit(node)

    def visit_Import(self, node):
        for a in node.names:
            self.act.binds.add((a.asname or a.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_Global(self, node):
        pass

    visit_Nonlocal = visit_Global


def activity(nodes) -> Activity:
    """The `Activity` of a node or a list of nodes."""
    act = Activity()
    c = _Collector(act)
    for n in (nodes if isinstance(nodes, list) else [nodes]):
        c.visit(n)
    return act


def declared_scopes(fn_node):
    """Names declared ``global`` and ``nonlocal`` directly in ``fn_node`` (not in nested defs)."""
    glob, nonloc = set(), set()
    stack = list(fn_node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Global):
            glob.update(n.names)
        elif isinstance(n, gast.Nonlocal):
            nonloc.update(n.names)
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
            continue
        else:
            stack.extend(gast.iter_child_nodes(n))
    return glob, nonloc


def local_names(fn_node):
    """The names local to ``fn_node``: its parameters and every name bound in its body, less
    those declared global/nonlocal."""
    a = fn_node.args
    params = {x.id for x in a.args + a.posonlyargs + a.kwonlyargs}
    params |= {x.id for x in (a.vararg, a.kwarg) if x is not None}
    glob, nonloc = declared_scopes(fn_node)
    return (params | activity(fn_node.body).binds) - glob - nonloc, params
