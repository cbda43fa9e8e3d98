"""Shared pieces of the transformers: fresh names, node builders, locations, the context.

Generated names start with ``_dy2st_`` (never ``__``: no name mangling even for methods).
Every node a transformer creates takes the location of the user statement it replaces, so
tracebacks, op call stacks and pdb point at the user's own line.
"""
from __future__ import annotations

import gast

JST = "_jst"


class Context:
    """What the passes share while converting one function."""

    def __init__(self, fn_node, filename, is_generator=False):
        self.fn_node = fn_node
        self.filename = filename
        self.is_generator = is_generator
        self.counter = 0
        self.needs_init = {}        # name -> first line where it may be undefined
        self.globals = set()
        self.nonlocals = set()
        self.locals = set()
        self.params = set()

    def fresh(self, kind):
        self.counter += 1
        return f"_dy2st_{kind}_{self.counter}"

    def where(self, node):
        return gast.Tuple(elts=[gast.Constant(value=self.filename, kind=None),
                                gast.Constant(value=getattr(node, "lineno", 0), kind=None)], ctx=gast.Load())


def load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def store(name):
    return gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)


def const(v):
    return gast.Constant(value=v, kind=None)


def jst(attr):
    return gast.Attribute(value=load(JST), attr=attr, ctx=gast.Load())


def call(func, args=(), keywords=()):
    return gast.Call(func=func, args=list(args), keywords=list(keywords))


def kw(name, value):
    return gast.keyword(arg=name, value=value)


def assign(name, value):
    return gast.Assign(targets=[store(name)], value=value, type_comment=None)


def expr(value):
    return gast.Expr(value=value)


def lambda0(body):
    args = gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                          defaults=[])
    return gast.Lambda(args=args, body=body)


def funcdef(name, params, body):
    args = gast.arguments(args=[gast.Name(id=p, ctx=gast.Param(), annotation=None, type_comment=None)
                                for p in params],
                          posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    fn = gast.FunctionDef(name=name, args=args, body=body or [gast.Pass()], decorator_list=[], returns=None,
                          type_comment=None, type_params=[])
    fn._dy2st_generated = True
    return fn


def tuple_load(names):
    return gast.Tuple(elts=[load(n) for n in names], ctx=gast.Load())


def tuple_const(values):
    return gast.Tuple(elts=[const(v) for v in values], ctx=gast.Load())


def not_(x):
    return gast.UnaryOp(op=gast.Not(), operand=x)


def and_(*xs):
    xs = [x for x in xs if x is not None]
    if len(xs) == 1:
        return xs[0]
    return gast.BoolOp(op=gast.And(), values=list(xs))


def located(nodes, like):
    """Give ``nodes`` (and their children) ``like``'s location where they have none."""
    line = getattr(like, "lineno", None)
    col = getattr(like, "col_offset", 0) or 0
    for n in (nodes if isinstance(nodes, list) else [nodes]):
        for sub in gast.walk(n):
            if "lineno" in sub._attributes and getattr(sub, "lineno", None) is None and line is not None:
                sub.lineno, sub.col_offset = line, col
                # a generated node spans the statement's FIRST line only: CPython places a method
                # call (``_jst.convert_while_loop(...)``) at its attribute's end line, which would
                # otherwise be the last line of the user's loop
                end_line = getattr(like, "end_lineno", line)
                sub.end_lineno = line
                sub.end_col_offset = getattr(like, "end_col_offset", col) if end_line == line else col
                if sub.end_col_offset is None or sub.end_col_offset < col:
                    sub.end_col_offset = col
    return nodes


def scope_decls(ctx, names):
    """``nonlocal`` / ``global`` declarations a generated function needs to write ``names``."""
    out = []
    nl = sorted(set(names) - ctx.globals)
    if nl:
        out.append(gast.Nonlocal(names=nl))
    if ctx.globals:
        out.append(gast.Global(names=sorted(ctx.globals)))
    return out


class FunctionBodyTransformer(gast.NodeTransformer):
    """Visits the root function's own code: nested user functions and classes are left alone
    (they are converted when they are called). Lambdas ARE visited: a lambda body is one
    expression, so the expression passes (calls, shapes, and/or/not, conditional expressions)
    convert it in place, and nothing else could convert it later (its source is not a def)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def visit_FunctionDef(self, node):
        if node is self.ctx.fn_node or getattr(node, "_dy2st_generated", False):
            self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        return node

    def visit_Lambda(self, node):
        self.generic_visit(node)
        return node


def contains(stmts, types_, stop=(gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
    """Whether ``stmts`` contain a node of ``types_`` outside nested functions/classes."""
    stack = list(stmts) if isinstance(stmts, list) else [stmts]
    while stack:
        n = stack.pop()
        if isinstance(n, types_):
            return True
        if isinstance(n, stop):
            continue
        stack.extend(gast.iter_child_nodes(n))
    return False
