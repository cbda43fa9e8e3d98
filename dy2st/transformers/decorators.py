"""Take the decorators off the function being converted; keep the ones to re-apply in ``ctx``.

Before::

    @paddle.no_grad()
    @paddle.jit.to_static
    def forward(self, x): ...

After::

    def forward(self, x): ...          # ctx.decorators == [<paddle.no_grad()>]

When the function was reached through its decorators' wrappers (``fn.__wrapped__``), the
conversion (dy2st/conversion.py) re-applies ``ctx.decorators`` to the converted function with
the code `reapply_code` compiles: in order, evaluated in the function's own globals and closure,
each decorator called through ``_jst.Call``, as Paddle's DecoratorTransformer does. When the function itself was given (its decorators returned it
unchanged, or already ran: ``@to_static`` made the StaticFunction converting it), nothing is
re-applied. Like Paddle, decorators that only mark or convert (``to_static``, ``declarative``,
``wraps``, ``staticmethod``, ``classmethod``, ``decorator``, ``inference``) are never re-applied.
"""
from __future__ import annotations

import ast
import builtins
import types

import astor
import gast

from ..errors import Dy2StaticError
from .base import JST

# Paddle's IGNORE_NAMES (jit/dy2static/transformers/decorator_transformer.py), plus not_to_static:
# a function marked with it is never converted, so meeting it here means it marks nothing
IGNORED = frozenset({"declarative", "to_static", "wraps", "staticmethod", "classmethod", "decorator", "inference",
                     "not_to_static"})

# decorators whose result changes after decoration: a re-applied copy would lose those changes
UNFAITHFUL = {"singledispatch": "the implementations registered on it later would be lost",
              "singledispatchmethod": "the implementations registered on it later would be lost"}

# Paddle's warning when it converts a function decorated with contextlib.contextmanager (given by the
# conversion each time it re-applies such a decorator to a new function)
CONTEXT_MANAGER_WARNING = ("Dy2Static : A context manager decorator is used, this may not work correctly after "
                           "transform.")


def decorator_name(node):
    """The last name of a decorator expression: ``a.b.deco(1)`` -> ``'deco'`` (None if it has none)."""
    while isinstance(node, gast.Call):
        node = node.func
    if isinstance(node, gast.Attribute):
        return node.attr
    if isinstance(node, gast.Name):
        return node.id
    return None


def transform(fn_node, ctx):
    kept = [d for d in fn_node.decorator_list if decorator_name(d) not in IGNORED]
    ctx.decorators = kept
    fn_node.decorator_list = []
    return fn_node


def _decorator_text(node):
    return "@" + astor.to_source(gast.gast_to_ast(node)).strip()


def _names_read(node):
    """Names ``node`` reads from its scope (not those bound inside it by lambdas and comprehensions)."""
    bound, read = set(), []
    for n in gast.walk(node):
        if isinstance(n, gast.Name):
            (read.append(n.id) if isinstance(n.ctx, gast.Load) else bound.add(n.id))
    return [r for r in dict.fromkeys(read) if r not in bound]


def injected_names():
    """The names Paddle's converted code imports (paddle/jit/dy2static/utils.py, _inject_import_statements)
    for when a decorator reads one its function's module does not define (a ``paddle`` local to a test)."""
    import warnings

    import numpy

    import dy2st
    return {"paddle": dy2st, "Tensor": dy2st.Tensor, "base": dy2st.base, "np": numpy, "warnings": warnings}


def _jst_call(f):
    jst_call = gast.Attribute(value=gast.Name(id=JST, ctx=gast.Load(), annotation=None, type_comment=None),
                              attr="Call", ctx=gast.Load())
    return gast.copy_location(gast.Call(func=gast.copy_location(jst_call, f), args=[f], keywords=[]), f)


def reapply_code(fn, decorators, filename, first):
    """Compile ``_dy2st_decorate(_jst, *freevars, fn) -> d1(d2(...(fn)))`` for ``fn``'s decorators (top one
    outermost, each evaluated before any is applied, as Python does), located on the decorators' lines."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    used = []
    for d in decorators:
        line = getattr(d, "lineno", first)
        why = UNFAITHFUL.get(decorator_name(d))
        if why is not None:
            raise Dy2StaticError(
                f"cannot convert {fn.__qualname__} ({filename}:{line}): to_static converts the undecorated function "
                f"and re-applies its decorators, but re-applying {_decorator_text(d)} is not faithful ({why}). "
                "Apply to_static to the functions it dispatches to, or mark this one with paddle.jit.not_to_static")
        for name in _names_read(d):
            if name in cells:
                try:
                    cells[name].cell_contents
                except ValueError:
                    raise Dy2StaticError(
                        f"cannot convert {fn.__qualname__} ({filename}:{line}): its decorator {_decorator_text(d)} "
                        f"reads '{name}', which is not bound yet in the enclosing function") from None
                if name not in used:
                    used.append(name)
            elif name not in fn.__globals__ and not hasattr(builtins, name) and name in injected_names():
                if name not in used:    # Paddle's converted module imports these names: they resolve there too
                    used.append(name)
            elif name not in fn.__globals__ and not hasattr(builtins, name):
                raise Dy2StaticError(
                    f"cannot convert {fn.__qualname__} ({filename}:{line}): to convert a decorated function, "
                    f"to_static converts the undecorated function and re-applies its decorators in the function's "
                    f"own globals and closure, but decorator {_decorator_text(d)} reads '{name}', which is "
                    f"neither a global of {fn.__module__} nor a variable {fn.__name__} uses from its enclosing "
                    "function. Define the decorator at module level, or mark the function with "
                    "paddle.jit.not_to_static to run it as it is")
    target = "_dy2st_fn"
    expr = gast.Name(id=target, ctx=gast.Load(), annotation=None, type_comment=None)
    for d in reversed(decorators):
        # as in Paddle, a decorator (or decorator factory) that is user code is itself converted: _jst.Call
        if isinstance(d, gast.Call):
            d = gast.copy_location(gast.Call(func=_jst_call(d.func), args=d.args, keywords=d.keywords), d)
        else:
            d = _jst_call(d)
        expr = gast.copy_location(gast.Call(func=d, args=[expr], keywords=[]), d)
    params = [gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None) for n in [JST] + used + [target]]
    decorate = gast.FunctionDef(
        name="_dy2st_decorate",
        args=gast.arguments(args=params, posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                            defaults=[]),
        body=[gast.Return(value=expr)], decorator_list=[], returns=None, type_comment=None, type_params=[])
    tree = gast.gast_to_ast(gast.Module(body=[decorate], type_ignores=[]))
    for n in ast.walk(tree):
        if isinstance(n, (ast.stmt, ast.expr)) and getattr(n, "lineno", None) is None:
            n.lineno, n.col_offset = first, 0
    ast.fix_missing_locations(tree)
    for n in ast.walk(tree):
        if hasattr(n, "lineno") and (getattr(n, "end_lineno", None) is None or n.end_lineno < n.lineno):
            n.end_lineno, n.end_col_offset = n.lineno, n.col_offset
    code = compile(tree, filename, "exec")
    return next(c for c in code.co_consts if isinstance(c, types.CodeType)), tuple(used)
