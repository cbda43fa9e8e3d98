"""``paddle.jit.dy2static.origin_info``: where each AST node of a converted function came from.

``attach_origin_info(root, func)`` sets, on every node of ``func``'s parsed source that has a line, an
``OriginInfo`` (file, absolute line and column, enclosing function name, the source line) under the
attribute named ``ORIGIN_INFO``. ``create_and_update_origin_info_map(transformed, static_func)`` walks the
transformed tree beside the parsed source of the compiled function and maps each line of the compiled
code to the user's line it came from (also recorded in ``global_origin_info_map``).

dy2st's own converter keeps the user's file and line numbers in the code it compiles, so its error
reports need no such map; these are Paddle's helpers for code that transforms ASTs itself.
"""
from __future__ import annotations

import inspect
import textwrap

import gast

from .utils import ORIGIN_INFO

__all__ = []

global_origin_info_map = {}


class Location:
    """A position in a source file: path, line and (optionally) column."""

    __slots__ = ("filepath", "lineno", "col_offset")

    def __init__(self, filepath, lineno, col_offset=None):
        self.filepath = filepath
        self.lineno = lineno
        self.col_offset = col_offset

    def __str__(self):
        return f"location: {self.filepath}:{self.lineno}:{self.col_offset}"

    @property
    def line_location(self):
        return (self.filepath, self.lineno)


class OriginInfo:
    """The user's location, function name and source line of one AST node."""

    __slots__ = ("location", "function_name", "source_code")

    def __init__(self, location, function_name, source_code):
        self.location = location
        self.function_name = function_name
        self.source_code = source_code

    def __str__(self):
        return f"{self.location} \nsource_code: {self.source_code}  in function {self.function_name}\n  "

    def formatted_message(self):
        return (f'    File "{self.location.filepath}", line {self.location.lineno}, in {self.function_name} '
                f'(* user code *)\n\t{self.source_code.lstrip()}')

    def as_frame(self):
        return (self.location.filepath, self.location.lineno, self.function_name, self.source_code.lstrip())


class _Attacher(gast.NodeVisitor):
    """Sets ``OriginInfo`` on the nodes of one function's parsed source (line numbers relative to it)."""

    def __init__(self, func):
        func = inspect.unwrap(func)
        self.filepath = inspect.getsourcefile(func) or inspect.getfile(func)
        lines, first = inspect.getsourcelines(func)
        self.lines = [line.rstrip("\n") for line in lines]
        self.line_offset = first - 1
        self.col_base = len(lines[0]) - len(lines[0].lstrip())
        self.functions = []

    def visit(self, node):
        is_def = isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef))
        if is_def:
            self.functions.append(node.name)
        if getattr(node, "lineno", None) is not None:
            code = self.lines[node.lineno - 1] if 0 < node.lineno <= len(self.lines) else ""
            loc = Location(self.filepath, self.line_offset + node.lineno, self.col_base + node.col_offset)
            setattr(node, ORIGIN_INFO, OriginInfo(loc, self.functions[-1] if self.functions else None, code))
        self.generic_visit(node)
        if is_def:
            self.functions.pop()
        return node


def attach_origin_info(ast_node, func):
    """Attach an ``OriginInfo`` to every node of ``ast_node`` (the parsed source of ``func``) that has a
    line number; returns ``ast_node``."""
    if not isinstance(ast_node, gast.AST):
        raise TypeError(f"attach_origin_info: ast_node must be a gast.AST, got {type(ast_node).__name__}")
    _Attacher(func).visit(ast_node)
    return ast_node


def ast_walk(transformed_node, static_node):
    """Yield the pairs of nodes of two trees of the same shape, in the same order."""
    todo = [(transformed_node, static_node)]
    while todo:
        t_node, s_node = todo.pop()
        if isinstance(t_node, list) or isinstance(s_node, list):
            t_list, s_list = list(t_node or []), list(s_node or [])
            if len(t_list) != len(s_list):
                raise ValueError(f"ast_walk: the trees differ ({len(t_list)} nodes against {len(s_list)})")
            todo.extend(zip(t_list, s_list))
            continue
        if not isinstance(t_node, gast.AST) or not isinstance(s_node, gast.AST):
            continue
        yield t_node, s_node
        for field in t_node._fields:
            todo.append((getattr(t_node, field, None), getattr(s_node, field, None)))


def create_and_update_origin_info_map(transformed_node, static_func, is_global=True):
    """Map each (file, line) of ``static_func``'s compiled source to the ``OriginInfo`` of the user's
    code it came from, by walking ``transformed_node`` (the transformed tree, with origin info attached
    before transforming) beside the parsed source of ``static_func``."""
    static_node = gast.parse(textwrap.dedent(inspect.getsource(static_func)))
    static_node = attach_origin_info(static_node, static_func)
    origin_map = {}
    for t_node, s_node in ast_walk(transformed_node, static_node):
        if type(t_node) is not type(s_node):
            continue
        dygraph_info = getattr(t_node, ORIGIN_INFO, None)
        static_info = getattr(s_node, ORIGIN_INFO, None)
        if dygraph_info is None or static_info is None:
            continue
        key = static_info.location.line_location
        known = origin_map.get(key)
        # several user nodes on one compiled line: keep the outermost (earliest line, leftmost column)
        if known is not None and (known.location.lineno < dygraph_info.location.lineno
                                  or known.location.col_offset <= dygraph_info.location.col_offset):
            continue
        origin_map[key] = dygraph_info
    if is_global:
        global_origin_info_map.update(origin_map)
    return origin_map
