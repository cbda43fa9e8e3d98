"""``dy2st convert``: print or write a script with its to_static functions in converted form.

The output is the whole script, with every converted function (each to_static-decorated
function and Layer method, or those named with --function) replaced in place by the code the
compiler runs, under a comment giving the original lines. The header imports what converted code
calls (``_jst`` = `dy2st.convert_ops`) and marks each converted function with ``not_to_static``,
so to_static traces it as it is instead of converting it a second time: ``python OUT.py`` gives
the original script's results.
"""
from __future__ import annotations

import ast
import inspect
import os
import textwrap

from ._common import CLIError

NAME = "convert"
HELP = "print a script with its to_static functions converted (source to source)"
DESCRIPTION = ("Convert every function and Layer method decorated with paddle.jit.to_static in SCRIPT (or the ones "
               "named with --function) into the code the compiler runs: if/while/for on tensors become calls to the "
               "static control-flow helpers (_jst.convert_ifelse, ...). The result is the whole script, valid "
               "Python that runs like the original; each converted function carries a comment naming its original "
               "lines.")
EXAMPLES = """\
examples:
  dy2st convert examples/cli/controlflow.py                  # print the converted script
  dy2st convert examples/cli/mlp.py -o mlp_static.py && python mlp_static.py
  dy2st convert model.py --function Net.forward --function helper
"""

_HEADER = '''\
# Converted by `dy2st convert` from {script}.
# Each function below marked "dy2st convert:" is the code paddle.jit.to_static runs for it;
# the rest of the script is unchanged.
import dy2st.convert_ops as _jst  # the helpers converted code calls
from dy2st.jit import not_to_static as _dy2st_converted  # already converted: to_static traces it as is
'''


def add_arguments(p):
    p.add_argument("script", metavar="SCRIPT.py", help="the model script")
    p.add_argument("-o", "--output", metavar="OUT.py", help="write the converted script here (default: stdout)")
    p.add_argument("-f", "--function", action="append", metavar="NAME", default=[],
                   help="convert this function or method (e.g. forward of Net: Net.forward) instead of the "
                        "to_static ones; repeatable")


def run(args, ui):
    from .script_loading import loaded_script
    script = args.script
    with open_source(script) as source:
        ui.progress(f"importing {script}")
        with loaded_script(script) as module:
            targets = _targets(module, script, args.function)
            out = convert_source(source, script, targets, ui)
    if args.output:
        ui.progress(f"writing {args.output}")
        d = os.path.dirname(os.path.abspath(args.output))
        os.makedirs(d, exist_ok=True)
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(out)
        ui.print(f"wrote {args.output}: {len(targets)} function(s) converted "
                 f"({', '.join(q for q, _ in targets)})")
    else:
        ui.print(out, end="")
    return 0


class open_source:
    """The script's text (a context manager, so errors come before the import)."""

    def __init__(self, path):
        if not os.path.exists(path):
            raise CLIError(f"script not found: {path}")
        if os.path.isdir(path):
            raise CLIError(f"{path} is a directory; give a Python script (.py file)")
        with open(path, encoding="utf-8") as f:
            self.text = f.read()

    def __enter__(self):
        return self.text

    def __exit__(self, *exc):
        return False


def _samefile(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _plain(obj):
    """The Python function behind a to_static function, a bound method or a function."""
    from ..static_function import StaticFunction
    if isinstance(obj, StaticFunction):
        obj = obj.dygraph_function
    if inspect.ismethod(obj):
        obj = obj.__func__
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    return obj if inspect.isfunction(obj) else None


def _static_functions(module, script):
    """``[(qualname, function)]`` of every to_static function defined in the script."""
    from runtime.nn.layer.layers import Layer

    from ..static_function import StaticFunction
    found = []
    seen_classes = set()

    def visit_class(cls):
        if cls in seen_classes:
            return
        seen_classes.add(cls)
        for name, member in vars(cls).items():
            if isinstance(member, StaticFunction):
                found.append(member.dygraph_function)
            elif inspect.isclass(member) and member.__module__ == module.__name__:
                visit_class(member)

    for name, obj in vars(module).items():
        if isinstance(obj, StaticFunction):
            found.append(obj.dygraph_function)
        elif inspect.isclass(obj) and obj.__module__ == module.__name__:
            visit_class(obj)
        elif isinstance(obj, Layer):       # `net = paddle.jit.to_static(Net())` at module level
            fwd = obj.__dict__.get("forward")
            if isinstance(fwd, StaticFunction):
                found.append(fwd.dygraph_function)
    out, codes = [], set()
    for fn in found:
        if fn.__code__ in codes or not _samefile(fn.__code__.co_filename, script):
            continue
        codes.add(fn.__code__)
        out.append((fn.__qualname__, fn))
    return out


def _targets(module, script, names):
    from .script_loading import candidates, resolve
    if not names:
        targets = _static_functions(module, script)
        if not targets:
            classes, functions, _, _ = candidates(module)
            avail = ", ".join(functions + [c + ".forward" for c in classes]) or "none"
            raise CLIError(f"{script} has no paddle.jit.to_static function or method; name one with --function "
                           f"NAME (functions: {avail})")
        return targets
    targets = []
    for name in names:
        obj = resolve(module, name, script)
        fn = _plain(obj)
        if fn is None:
            what = "a class" if inspect.isclass(obj) else f"a {type(obj).__name__}"
            hint = f"; name a method, e.g. {name}.forward" if inspect.isclass(obj) else ""
            raise CLIError(f"{script}:{name} is {what}, not a function{hint}")
        if not _samefile(fn.__code__.co_filename, script):
            raise CLIError(f"{script}:{name} is defined in {fn.__code__.co_filename}, not in {script}; convert that "
                           "file instead")
        if all(f.__code__ is not fn.__code__ for _, f in targets):
            targets.append((fn.__qualname__, fn))
    return targets


def _def_nodes(tree):
    """``{first line (decorators included): FunctionDef}`` for every def in the module."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out[first] = node
    return out


def _insert_line(tree):
    """The line after which the header imports go: after the docstring and __future__ imports."""
    after = 0
    for i, stmt in enumerate(tree.body):
        if i == 0 and isinstance(stmt, ast.Expr) and isinstance(getattr(stmt, "value", None), ast.Constant) \
                and isinstance(stmt.value.value, str):
            after = stmt.end_lineno
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            after = stmt.end_lineno
        else:
            break
    return after


def convert_source(source, script, targets, ui=None):
    """The converted script: ``source`` with each ``(qualname, function)`` of ``targets`` replaced."""
    from ..conversion import converted_code
    tree = ast.parse(source, filename=script)
    defs = _def_nodes(tree)
    lines = source.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    replacements = []
    for qualname, fn in targets:
        if ui is not None:
            ui.progress(f"converting {qualname}")
        _, first = inspect.getsourcelines(fn)
        node = defs.get(first)
        if node is None:
            raise CLIError(f"cannot find the source of {qualname} in {script} (line {first})")
        cc = converted_code(fn)
        replacements.append((first, node, qualname, cc.source))
    replacements.sort(key=lambda r: r[0])
    # a target inside another one (a nested def) is converted with its parent
    kept, end = [], 0
    for r in replacements:
        if r[0] > end:
            kept.append(r)
            end = r[1].end_lineno
    rel = os.path.relpath(script) if not os.path.isabs(script) else script
    # the path goes into comments of a script people run: one line, no control characters
    rel = "".join(c if c.isprintable() else repr(c)[1:-1] for c in rel)
    for first, node, qualname, conv in reversed(kept):
        pad = " " * node.col_offset
        decorators = "".join(lines[first - 1:node.lineno - 1])
        body = textwrap.indent(conv.rstrip("\n") + "\n", pad)
        block = (f"{pad}# dy2st convert: {qualname}, converted from {rel}:{first}-{node.end_lineno}\n"
                 f"{decorators}{pad}@_dy2st_converted\n{body}")
        lines[first - 1:node.end_lineno] = [block]
    at = _insert_line(tree)
    header = _HEADER.format(script=rel)
    if at:
        lines.insert(at, "\n" + header + "\n")
    else:
        lines.insert(0, header + "\n")
    return "".join(lines)
