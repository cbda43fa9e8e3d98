"""``paddle.jit``: to_static and friends, save/load, TranslatedLayer, TracedLayer.

A package, as Paddle's: ``paddle.jit.api``, ``paddle.jit.dy2static`` (the operator functions
converted code calls, ``ProgramTranslator``, ``utils``), ``paddle.jit.utils``, ``paddle.jit.marker``,
``paddle.jit.translated_layer`` and ``paddle.jit.sot`` (whose bytecode translator does not exist
here: using it raises) are modules of their own that re-export the implementation in `dy2st`.
"""
from __future__ import annotations

from ..api import enable_to_static, ignore_module, not_to_static, to_static  # noqa: F401
from ..static_function import StaticFunction  # noqa: F401
from ..traced_layer import TracedLayer  # noqa: F401
from ..translated_layer import TranslatedLayer  # noqa: F401
from ..jit_io import load, save  # noqa: F401
from .dy2static.logging_utils import set_code_level, set_verbosity  # noqa: F401
from . import api, dy2static, marker, sot, translated_layer, utils  # noqa: F401,E402
from . import pir_translated_layer  # noqa: F401,E402  (paddle.jit.pir_translated_layer.PIR_INFER_MODEL_SUFFIX)

__all__ = ["to_static", "not_to_static", "enable_to_static", "ignore_module", "TracedLayer", "StaticFunction",
           "TranslatedLayer", "save", "load", "set_code_level", "set_verbosity"]
