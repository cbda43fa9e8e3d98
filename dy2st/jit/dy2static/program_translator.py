"""``paddle.jit.dy2static.program_translator``: ``ProgramTranslator`` (the switch that turns
to_static on and off), ``enable_to_static``, ``convert_to_static`` and the classes that hold a
converted function's Programs (our `StaticFunction`, `ConcreteProgram`, `ProgramCache`).
"""
from __future__ import annotations

import inspect
import threading

from ... import static_function as _sf
from ...static_function import (ConcreteProgram, ProgramCache, StaticFunction, enable_to_static,  # noqa: F401
                                in_to_static_mode)

__all__ = ["ProgramTranslator", "enable_to_static", "convert_to_static", "StaticFunction", "ConcreteProgram",
           "ProgramCache", "in_to_static_mode"]


class ProgramTranslator:
    """The to_static switch, a singleton: ``ProgramTranslator()`` and ``ProgramTranslator.get_instance()``
    are the same object. ``enable(False)`` makes every to_static function run eagerly, as
    ``paddle.jit.enable_to_static(False)`` does; ``enable_to_static`` reads the current setting."""

    _instance = None
    _lock = threading.Lock()

    def __new__(cls, *args, **kwargs):
        with cls._lock:
            if cls._instance is None:
                cls._instance = object.__new__(cls)
        return cls._instance

    @classmethod
    def get_instance(cls):
        return cls()

    @classmethod
    def reset(cls):
        """Back to the default: to_static enabled."""
        enable_to_static(True)

    @property
    def enable_to_static(self):
        return _sf._settings["enabled"]

    @enable_to_static.setter
    def enable_to_static(self, value):
        enable_to_static(value)

    def enable(self, enable_to_static):
        """Turn to_static on (True) or off (False) for every converted function."""
        if not isinstance(enable_to_static, bool):
            raise TypeError("The type of 'enable_to_static' in ProgramTranslator.enable must be <class 'bool'>, "
                            f"but received {type(enable_to_static)}. ")
        _sf.enable_to_static(enable_to_static)

    def get_code(self, dygraph_func):
        """The converted source of a function (or of a to_static function's original)."""
        if isinstance(dygraph_func, StaticFunction):
            return dygraph_func.code
        return StaticFunction(dygraph_func).code

    def get_func(self, dygraph_func):
        """The converted (plain Python) function for ``dygraph_func``."""
        return convert_to_static(dygraph_func)


def convert_to_static(function):
    """The converted Python function of ``function`` (a bound method gives its converted function);
    functions marked ``not_to_static`` come back as they are."""
    if isinstance(function, StaticFunction):
        function = function.dygraph_function
    if inspect.ismethod(function):
        function = function.__func__
    if getattr(function, "_dy2st_not_to_static", False):
        return function
    from ...conversion import convert_function
    return convert_function(function)
