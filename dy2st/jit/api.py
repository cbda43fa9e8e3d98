"""``paddle.jit.api``: the module Paddle defines to_static, save and load in.

Re-exports our implementation (`dy2st.api`, `dy2st.jit_io`) together with the names Paddle's
dy2st tests take from this module: ``ProgramTranslator``, ``sot_mode_guard`` (AST mode is the only
mode here: ``sot_mode_guard(False)`` is a no-op and ``sot_mode_guard(True)`` raises),
``set_dynamic_shape`` and ``get_ast_static_function``.
"""
from __future__ import annotations

import contextlib
import inspect

from ..api import enable_to_static, ignore_module, not_to_static, to_static  # noqa: F401
from ..jit_io import load, save  # noqa: F401
from ..static_function import StaticFunction  # noqa: F401
from ..translated_layer import TranslatedLayer  # noqa: F401
from .dy2static.program_translator import ProgramTranslator  # noqa: F401
from .sot import sot_unavailable as _sot_unavailable

__all__ = ["to_static", "not_to_static", "enable_to_static", "ignore_module", "save", "load", "StaticFunction",
           "TranslatedLayer", "ProgramTranslator", "sot_mode_guard", "set_dynamic_shape", "get_ast_static_function",
           "json_to_pdmodel", "_get_function_names_from_layer"]


@contextlib.contextmanager
def sot_mode_guard(value: bool):
    """``with sot_mode_guard(False):`` runs the block in AST mode, which is how to_static always
    converts here. ``sot_mode_guard(True)`` asks for Paddle's bytecode translator (SOT), which does not
    exist in dy2st: it raises NotImplementedError."""
    if value:
        _sot_unavailable("paddle.jit.api.sot_mode_guard(True)")
    yield


def set_dynamic_shape(variable, shape_list):
    """Set the static shape of ``variable`` while a Program is being built (-1 for unknown dims);
    does nothing to an eager tensor, as in Paddle."""
    from runtime.static.program import Variable
    if isinstance(variable, Variable):
        variable._set_meta([-1 if d is None else int(d) for d in shape_list], variable.dtype)
        variable.block.program._bump()
        return
    from runtime.tensor import Tensor
    if not isinstance(variable, Tensor):
        raise TypeError(f"set_dynamic_shape: expected a Tensor, got {type(variable).__name__}")


def get_ast_static_function(function):
    """The AST-converted form of a to_static function: every to_static function here is one."""
    return function


def _get_function_names_from_layer(layer):
    """The names of the functions and methods of ``layer``'s class."""
    return [name for name, member in inspect.getmembers(type(layer))
            if inspect.isfunction(member) or inspect.ismethod(member) or inspect.ismethoddescriptor(member)]


def json_to_pdmodel(net, input_spec, load_path, save_path):
    """Paddle's converter from a PIR ``.json`` model to a ``.pdmodel``: not provided here."""
    raise NotImplementedError("paddle.jit.json_to_pdmodel (PIR .json -> .pdmodel) is not implemented in dy2st; "
                              "load the model with paddle.jit.load and save it again with paddle.jit.save")
