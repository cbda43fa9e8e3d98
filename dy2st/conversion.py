"""Source to source: a Python function -> its converted twin.

Parse (``inspect`` + gast, locations moved to the user's file lines), run the passes of
`dy2st.transformers` (with the analyses where ``ANALYSE`` stands), then compile the new tree
*with the user's file name and line numbers*. Tracebacks, pdb, and the call stacks recorded on
every Operator therefore point at the user's own source lines without any remapping; the
printed converted source (astor) is kept for ``StaticFunction.code`` and ``dy2st convert``.

The converted code object is cached per original code object; each function object gets its
own instance bound to its globals, closure cells and defaults (so closures see later
rebindings of the variables they capture, as in Python).
"""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import types
import weakref

import astor
import gast

from . import convert_ops
from .analysis import annotate
from .analysis.activity import declared_scopes, local_names
from .errors import Dy2StaticError
from .transformers import ANALYSE, PASSES
from .transformers.base import JST, Context

_GENERATOR_PASSES = ("decorators", "super_call", "generators", "calls", "shapes")


class ConvertedCode:
    """The converted code object of one function, and its printed source."""

    __slots__ = ("code", "source", "filename", "firstlineno", "name")

    def __init__(self, code, source, filename, firstlineno, name):
        self.code, self.source, self.filename, self.firstlineno, self.name = code, source, filename, firstlineno, name


_code_cache = {}                             # original code object -> ConvertedCode
_fn_cache = weakref.WeakKeyDictionary()      # original function -> converted function


def convert_function(fn):
    """The converted version of plain function ``fn`` (cached)."""
    conv = _fn_cache.get(fn)
    if conv is not None:
        return conv
    cc = converted_code(fn)
    conv = _instantiate(cc, fn)
    _fn_cache[fn] = conv
    return conv


def converted_code(fn):
    code = fn.__code__
    cc = _code_cache.get(code)
    if cc is None:
        # two threads converting at once both convert; the first result is the one everyone keeps
        cc = _code_cache.setdefault(code, _convert(fn))
    return cc


def _source(fn):
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise Dy2StaticError(f"cannot convert {fn.__qualname__}: its source code is not available ({e}). "
                             "to_static reads the function's source; define it in a .py file (or use "
                             "paddle.jit.not_to_static to run it as it is)") from None
    filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    return textwrap.dedent("".join(lines)), first, filename


def _shift_lines(tree, offset):
    for node in gast.walk(tree):
        if "lineno" in node._attributes and getattr(node, "lineno", None) is not None:
            node.lineno += offset
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += offset


def _parse(fn):
    src, first, filename = _source(fn)
    try:
        module = gast.parse(src)
    except SyntaxError as e:
        raise Dy2StaticError(f"cannot parse the source of {fn.__qualname__} ({filename}:{first}): {e}") from None
    node = module.body[0] if module.body else None
    if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) or node.name != fn.__code__.co_name:
        raise Dy2StaticError(f"cannot convert {fn.__qualname__} ({filename}:{first}): its source is not a plain "
                             "def statement (lambdas and dynamically created functions run unconverted)")
    _shift_lines(module, first - 1)
    return node, filename, first


def transform(fn_node, filename, is_generator=False):
    """Run every pass over ``fn_node`` (a gast FunctionDef); returns the Context."""
    ctx = Context(fn_node, filename, is_generator)
    ctx.locals, ctx.params = local_names(fn_node)
    ctx.globals, ctx.nonlocals = declared_scopes(fn_node)
    from .jit.dy2static.logging_utils import log_transformed_code
    for level, p in enumerate(PASSES, 1):
        name = p if p == ANALYSE else p.__name__.rsplit(".", 1)[-1]
        if is_generator and name not in _GENERATOR_PASSES:
            continue
        if p == ANALYSE:
            annotate(fn_node)
        else:
            p.transform(fn_node, ctx)
            log_transformed_code(level, fn_node, name)      # paddle.jit.set_code_level(level)
    return ctx


def _convert(fn):
    from .jit.dy2static import logging_utils
    fn_node, filename, first = _parse(fn)
    if logging_utils.get_verbosity() >= 1:       # paddle.jit.set_verbosity(1)
        logging_utils.log(1, f"Source code: \n{astor.to_source(gast.gast_to_ast(fn_node))}")
    is_gen = bool(fn.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR))
    ctx = transform(fn_node, filename, is_gen)
    source = astor.to_source(gast.gast_to_ast(fn_node))
    logging_utils.log_transformed_code(logging_utils.LOG_AllTransformer, source, "All Transformers")
    freevars = list(fn.__code__.co_freevars)
    # inside the factory the def must not bind the function's own name: a recursive call
    # would become a free variable of the factory instead of the global the original reads
    own_name = fn_node.name
    fn_node.name = "_dy2st_def_" + own_name
    factory = gast.FunctionDef(
        name="_dy2st_factory",
        args=gast.arguments(args=[gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None)
                                  for n in [JST] + freevars],
                            posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[fn_node, gast.Return(value=gast.Name(id=fn_node.name, ctx=gast.Load(), annotation=None,
                                                      type_comment=None))],
        decorator_list=[], returns=None, type_comment=None, type_params=[])
    module = gast.Module(body=[factory], type_ignores=[])
    tree = gast.gast_to_ast(module)
    for n in ast.walk(tree):   # the factory lines: put them on the def line
        if isinstance(n, (ast.stmt, ast.expr)) and getattr(n, "lineno", None) is None:
            n.lineno, n.col_offset = first, 0
    ast.fix_missing_locations(tree)
    for n in ast.walk(tree):   # generated nodes borrow locations: keep every range well-formed
        if hasattr(n, "lineno"):
            if getattr(n, "end_lineno", None) is None or n.end_lineno < n.lineno:
                n.end_lineno = n.lineno
            if n.end_lineno == n.lineno and (getattr(n, "end_col_offset", None) is None
                                             or n.end_col_offset < n.col_offset):
                n.end_col_offset = n.col_offset
    try:
        code = compile(tree, filename, "exec")
    except SyntaxError as e:
        raise Dy2StaticError(f"converting {fn.__qualname__} ({filename}:{first}) produced invalid code: {e}. "
                             f"This is a bug in dy2st; the converted source was:\n{source}") from None
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == fn_node.name)
    inner = inner.replace(co_name=own_name, **({"co_qualname": fn.__qualname__}
                                               if hasattr(inner, "co_qualname") else {}))
    fn_node.name = own_name
    return ConvertedCode(inner, source, filename, first, fn.__qualname__)


def _instantiate(cc, fn):
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = []
    for name in cc.code.co_freevars:
        if name == JST:
            closure.append(types.CellType(convert_ops))
        elif name in cells:
            closure.append(cells[name])
        else:
            raise Dy2StaticError(f"converted {fn.__qualname__} needs free variable '{name}' that the original "
                                 "does not capture; this is a bug in dy2st")
    new = types.FunctionType(cc.code, fn.__globals__, fn.__name__, fn.__defaults__, tuple(closure) or None)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__dict__.update(fn.__dict__)
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    new.__doc__ = fn.__doc__
    new._dy2st_original = fn
    new._dy2st_source = cc.source
    return new


def register_source(filename, source):
    """Make ``source`` readable by ``inspect``/``linecache`` under ``filename`` (for generated code)."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
