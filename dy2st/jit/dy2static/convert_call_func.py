"""``paddle.jit.dy2static.convert_call_func``: ``convert_call`` (what converted code wraps every call
in: the converted callee, or the callee as it is for library code) and ``add_ignore_module``."""
from __future__ import annotations

from ...call_conversion import Call as convert_call, ignore_module as add_ignore_module  # noqa: F401
from .logging_utils import TranslatorLogger

__all__ = ["convert_call", "add_ignore_module", "translator_logger"]

translator_logger = TranslatorLogger()
