"""``paddle.jit``: to_static and friends, TracedLayer, and (from the save/load layer) save/load."""
from __future__ import annotations

from .api import enable_to_static, ignore_module, not_to_static, to_static  # noqa: F401
from .static_function import StaticFunction  # noqa: F401
from .traced_layer import TracedLayer  # noqa: F401
from .translated_layer import TranslatedLayer  # noqa: F401
from .jit_io import load, save  # noqa: F401

__all__ = ["to_static", "not_to_static", "enable_to_static", "ignore_module", "TracedLayer", "StaticFunction", "TranslatedLayer",
           "save", "load"]
