"""``paddle.jit.dy2static``: the dynamic-to-static translator's public pieces, by Paddle's names.

The short names Paddle's converted code uses (``_jst.IfElse``, ``_jst.Len``, ``_jst.Call``,
``_jst.UndefinedVar`` ...) are the functions of `.convert_operators`, which take Paddle's
arguments and run on our implementation. Submodules: ``program_translator`` (ProgramTranslator),
``utils``, ``convert_operators``, ``convert_call_func``, ``logging_utils``, ``ast_utils``,
``transformers``, ``error`` (the "In transformed code:" report), ``origin_info`` (AST node origins).
"""
from __future__ import annotations

from . import (ast_utils, convert_call_func, convert_operators, logging_utils, program_translator,  # noqa: F401
               transformers, utils)
from . import error, origin_info  # noqa: F401,E402
from .convert_call_func import convert_call as Call  # noqa: F401
from .convert_operators import (  # noqa: F401
    convert_assert as Assert,
    convert_attr as Attr,
    convert_ifelse as IfElse,
    convert_len as Len,
    convert_load as Ld,
    convert_logical_and as And,
    convert_logical_not as Not,
    convert_logical_or as Or,
    convert_shape as Shape,
    convert_super as WrapSuper,
    convert_var_dtype as AsDtype,
    convert_while_loop as While,
    create_bool_as_type,
    indexable as Indexable,
    to_static_variable,
    unpack_by_structure as Unpack,
)
from .program_translator import ProgramTranslator, convert_to_static  # noqa: F401
from .transformers import DygraphToStaticAst  # noqa: F401
from .utils import UndefinedVar, ast_to_source_code, saw  # noqa: F401

__all__ = []
