"""Source to source: a Python function -> its converted twin.

Parse (``inspect`` + gast, locations moved to the user's file lines), run the passes of
`dy2st.transformers` (with the analyses where ``ANALYSE`` stands), then compile the new tree
*with the user's file name and line numbers*. Tracebacks, pdb, and the call stacks recorded on
every Operator therefore point at the user's own source lines without any remapping; the
printed converted source (astor) is kept for ``StaticFunction.code`` and ``dy2st convert``.

The converted code object is cached per original code object; each function object gets its
own instance bound to its globals, closure cells and defaults (so closures see later
rebindings of the variables they capture, as in Python).

A decorated function (one with ``__wrapped__``: ``@paddle.no_grad()``, ``functools.wraps``
wrappers, stacked decorators, decorators with arguments) is converted as Paddle does it: the
innermost function is converted and its decorators are re-applied to the result, in order,
evaluated in that function's globals and closure (dy2st/transformers/decorators.py). A user
wrapper that a re-applied decorator returns is converted too (its own code, not unwrapped), so
tensor control flow in the wrapper's body is staged as well.
"""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import types
import warnings
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

    __slots__ = ("code", "source", "filename", "firstlineno", "name", "decorate", "decorator_freevars", "warnings")

    def __init__(self, code, source, filename, firstlineno, name, decorate=None, decorator_freevars=(), warnings=()):
        self.code, self.source, self.filename, self.firstlineno, self.name = code, source, filename, firstlineno, name
        # re-applies the function's decorators: decorate(_jst, *decorator_freevars, converted) -> decorated
        self.decorate, self.decorator_freevars = decorate, decorator_freevars
        self.warnings = warnings        # given each time the decorators are re-applied (as Paddle does)


_code_cache = {}                             # original code object (, True when decorators are re-applied) -> ConvertedCode
_fn_cache = weakref.WeakKeyDictionary()      # original function -> converted function
_converted = weakref.WeakSet()               # every function this module made (never converted again)


def convert_function(fn):
    """The converted version of function ``fn`` (cached); a decorated ``fn`` is converted under its
    decorators, which are re-applied to the result."""
    conv = _fn_cache.get(fn)
    if conv is not None:
        return conv
    inner = unwrap_decorated(fn)
    try:
        cc = converted_code(fn)
    except Dy2StaticError:
        if inner is fn or not _code_is_user_code(fn):
            raise
        # the decorators cannot be re-applied (e.g. one local to the enclosing function): the outermost
        # wrapper is user code, so convert its own code instead; it calls what it wraps through _jst.Call
        cc, inner = converted_code(fn, unwrap=False), fn
    conv = _instantiate(cc, inner)
    if cc.decorate is not None:
        conv = _apply_decorators(cc, inner, conv)
        for message in cc.warnings:
            warnings.warn(message, UserWarning, stacklevel=2)
    _fn_cache[fn] = conv
    return conv


def is_converted(fn):
    """Whether ``fn`` is a function made by the conversion (calling it again needs no conversion)."""
    try:
        return fn in _converted
    except TypeError:
        return False


def unwrap_decorated(fn):
    """The function under ``fn``'s decorator wrappers (following ``__wrapped__``), or ``fn`` itself."""
    if getattr(fn, "__wrapped__", None) is None:
        return fn
    try:
        inner = inspect.unwrap(fn, stop=is_converted)
    except ValueError:       # a __wrapped__ cycle
        return fn
    if is_converted(inner):  # a wrapper of a converted function (a re-applied decorator's): convert its own code
        return fn
    return inner if isinstance(inner, types.FunctionType) and inner is not fn else fn


def converted_code(fn, unwrap=True):
    inner = unwrap_decorated(fn) if unwrap else fn
    reapply = inner is not fn
    key = (inner.__code__, True) if reapply else inner.__code__
    cc = _code_cache.get(key)
    if cc is None:
        # two threads converting at once both convert; the first result is the one everyone keeps
        cc = _code_cache.setdefault(key, _convert(inner, reapply))
    return cc


def _source(fn):
    # the source of fn's own code (inspect.getsourcelines(fn) would follow __wrapped__). Asked about a bare
    # code object, inspect cannot tell its module and scans every loaded module (a realpath per module:
    # ~20 ms on a process's first conversion); a fresh function over the same code carries the module name
    try:
        lines, first = inspect.getsourcelines(_source_probe(fn))
    except (OSError, TypeError) as e:
        raise Dy2StaticError(f"cannot convert {fn.__qualname__}: its source code is not available ({e}). "
                             "to_static reads the function's source; define it in a .py file (or use "
                             "paddle.jit.not_to_static to run it as it is)") from None
    filename = inspect.getsourcefile(fn.__code__) or fn.__code__.co_filename
    return textwrap.dedent("".join(lines)), first, filename


def _source_probe(fn):
    """A function with ``fn``'s code and module but no ``__wrapped__`` (or the code object itself)."""
    try:
        return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, None, fn.__closure__)
    except (AttributeError, TypeError, ValueError):
        return fn.__code__


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
        # Paddle keeps the parser's own error (IndentationError, TabError, SyntaxError): so do we, located
        # in the user's file, with a note naming the function being converted
        details = (filename, (e.lineno or 1) + first - 1, e.offset, e.text)
        if e.end_lineno is not None and e.end_offset is not None:
            details += (e.end_lineno + first - 1, e.end_offset)
        err = type(e)(e.msg, details)
        err.add_note(f"dy2st: while re-parsing the source of {fn.__qualname__} ({filename}:{first}) to convert it "
                     "with paddle.jit.to_static; the source as read (dedented) does not parse on its own — check "
                     "the indentation of its lines (tabs mixed with spaces, e.g. in a docstring), or mark it "
                     "with paddle.jit.not_to_static")
        raise err from None
    node = module.body[0] if module.body else None
    if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) or node.name != fn.__code__.co_name:
        raise Dy2StaticError(f"cannot convert {fn.__qualname__} ({filename}:{first}): its source is not a plain "
                             "def statement (lambdas and dynamically created functions run unconverted)")
    _shift_lines(module, first - 1)
    return node, filename, first


def transform(fn_node, filename, is_generator=False, reapply_decorators=False):
    """Run every pass over ``fn_node`` (a gast FunctionDef); returns the Context."""
    ctx = Context(fn_node, filename, is_generator)
    ctx.reapply_decorators = reapply_decorators
    ctx.locals, ctx.params = local_names(fn_node)
    ctx.globals, ctx.nonlocals = declared_scopes(fn_node)
    from .jit.dy2static.logging_utils import log_transformed_code
    for level, p in enumerate(PASSES, 1):
        name = p if p == ANALYSE else p.__name__.rsplit(".", 1)[-1]
        if is_generator and name not in _GENERATOR_PASSES:
            continue
        if p == ANALYSE:
            annotate(fn_node, ctx.locals)
        else:
            p.transform(fn_node, ctx)
            log_transformed_code(level, fn_node, name)      # paddle.jit.set_code_level(level)
    return ctx


def _convert(fn, reapply_decorators=False):
    from .jit.dy2static import logging_utils
    fn_node, filename, first = _parse(fn)
    if logging_utils.get_verbosity() >= 1:       # paddle.jit.set_verbosity(1)
        logging_utils.log(1, f"Source code: \n{astor.to_source(gast.gast_to_ast(fn_node))}")
    is_gen = bool(fn.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR))
    ctx = transform(fn_node, filename, is_gen, reapply_decorators)
    decorate, decorator_freevars, notes = (None, (), ())
    if reapply_decorators and getattr(ctx, "decorators", None):
        from .transformers.decorators import CONTEXT_MANAGER_WARNING, decorator_name, reapply_code
        decorate, decorator_freevars = reapply_code(fn, ctx.decorators, filename, first)
        if any(decorator_name(d) == "contextmanager" for d in ctx.decorators):
            notes = (CONTEXT_MANAGER_WARNING,)
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
    return ConvertedCode(inner, source, filename, first, fn.__qualname__, decorate, decorator_freevars, notes)


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
    _converted.add(new)
    return new


def _apply_decorators(cc, fn, converted):
    """Re-apply ``fn``'s decorators to its converted version; a user wrapper they return is converted too."""
    from .transformers.decorators import injected_names
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    decorate = types.FunctionType(cc.decorate, fn.__globals__, "_dy2st_decorate")
    injected = injected_names()
    try:
        values = [cells[n].cell_contents if n in cells else injected[n] for n in cc.decorator_freevars]
    except ValueError:
        raise Dy2StaticError(f"cannot convert {fn.__qualname__} ({cc.filename}:{cc.firstlineno}): its decorators read "
                             "a variable of the enclosing function that is not bound yet") from None
    result = decorate(convert_ops, *values, converted)
    return _convert_wrapper(result)


def _code_is_user_code(fn):
    """Whether the code of ``fn`` is defined in user code: by the module of its file, since a wrapper's
    ``__module__`` is the wrapped function's (functools.update_wrapper copies it)."""
    from .call_conversion import _is_library
    mod = inspect.getmodule(fn.__code__)
    return not _is_library(types.SimpleNamespace(__module__=mod.__name__ if mod is not None else fn.__module__))


def _convert_wrapper(obj):
    """``obj``, a decorator's result, with its own code converted when it is a user function wrapping
    (``__wrapped__``) what was converted: so tensor control flow in the wrapper's body is staged too."""
    if not isinstance(obj, types.FunctionType) or is_converted(obj) or getattr(obj, "__wrapped__", None) is None:
        return obj
    from .call_conversion import _convertible
    if getattr(obj, "_dy2st_not_to_static", False) or not _code_is_user_code(obj) or not _convertible(obj):
        return obj
    try:
        cc = converted_code(obj, unwrap=False)
    except Dy2StaticError:
        return obj          # no usable source: the wrapper runs as it is (its inner call is converted)
    return _instantiate(cc, obj)


def register_source(filename, source):
    """Make ``source`` readable by ``inspect``/``linecache`` under ``filename`` (for generated code)."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
