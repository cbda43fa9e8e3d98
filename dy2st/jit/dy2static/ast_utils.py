"""``paddle.jit.dy2static.ast_utils``: ``ast_to_source_code``."""
from __future__ import annotations

import ast

import gast

__all__ = ["ast_to_source_code"]


def ast_to_source_code(ast_node):
    """The Python source of a gast or ast node."""
    if not isinstance(ast_node, (gast.AST, ast.AST)):
        raise TypeError(f"Type of ast_root should be gast.AST or ast.AST, but received {type(ast_node)}.")
    if isinstance(ast_node, gast.AST):
        ast_node = gast.gast_to_ast(ast_node)
    ast.fix_missing_locations(ast_node)
    return ast.unparse(ast_node)
