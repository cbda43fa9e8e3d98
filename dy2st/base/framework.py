"""``paddle.base.framework``: the static-graph classes and mode queries of Paddle's framework module.

Programs here are legacy ProgramDescs: ``in_pir_mode()`` and ``use_pir_api()`` are False.
"""
from __future__ import annotations

import contextlib
import functools

from runtime.device import CPUPlace, is_compiled_with_cuda, is_compiled_with_rocm, is_compiled_with_xpu  # noqa: F401
from runtime.dtype import convert_dtype as _convert_dtype
from runtime.flags import get_flags, set_flags  # noqa: F401
from runtime.framework import disable_static, enable_static, state
from runtime.framework import in_dynamic_mode as in_dygraph_mode  # noqa: F401
from runtime.static import (Block, Operator, Parameter, Program, Variable, cpu_places,  # noqa: F401
                            default_main_program, default_startup_program, device_guard, name_scope, program_guard)
from runtime.tensor import Parameter as EagerParamBase  # noqa: F401

from . import unique_name  # noqa: F401,E402
from ..framework import in_dynamic_or_pir_mode, in_pir_mode, use_pir_api  # noqa: F401,E402
from ..framework import _current_expected_place  # noqa: F401,E402

__all__ = ["Program", "Block", "Operator", "Variable", "Parameter", "EagerParamBase", "program_guard",
           "default_main_program", "default_startup_program", "name_scope", "device_guard", "cpu_places",
           "in_dygraph_mode", "in_dynamic_or_pir_mode", "in_pir_mode", "use_pir_api", "convert_np_dtype_to_dtype_",
           "unique_name", "get_flags", "set_flags", "CPUPlace", "is_compiled_with_cuda", "is_compiled_with_rocm",
           "is_compiled_with_xpu", "_dygraph_guard"]


def convert_np_dtype_to_dtype_(np_dtype):
    """The Paddle dtype of a numpy dtype (or its name): ``np.float32`` -> ``paddle.float32``."""
    return _convert_dtype(np_dtype)


@contextlib.contextmanager
def _dygraph_guard(tracer):
    """Run the block in eager mode when ``tracer`` is given, in static mode when it is None (Paddle's
    tracer is what makes eager mode); the mode before the block comes back after it."""
    was_static = state.static
    if tracer is None:
        enable_static()
    else:
        disable_static()
    try:
        yield
    finally:
        if was_static:
            enable_static()
        else:
            disable_static()


@contextlib.contextmanager
def flag_guard(flag_name, flag_value):
    """Set the global flag ``flag_name`` to ``flag_value`` for the block, then restore its value (a flag
    dy2st does not know, or a value it cannot honour, raises ValueError from ``set_flags``)."""
    old_value = get_flags(flag_name)[flag_name]
    set_flags({flag_name: flag_value})
    try:
        yield
    finally:
        set_flags({flag_name: old_value})


def _global_flags():
    """Paddle's flag registry (``core.globals()``)."""
    from .core import globals as _flags
    return _flags()


def dygraph_only(func):
    """Decorator: ``func`` may only run in dygraph mode (AssertionError otherwise, as Paddle)."""
    @functools.wraps(func)
    def __impl__(*args, **kwargs):
        assert in_dygraph_mode(), (f"We only support '{func.__name__}()' in dynamic graph mode, please call "
                                   "'paddle.disable_static()' to enter dynamic graph mode.")
        return func(*args, **kwargs)
    return __impl__


def static_only(func):
    """Decorator: ``func`` may only run while building a static Program (AssertionError otherwise)."""
    @functools.wraps(func)
    def __impl__(*args, **kwargs):
        assert not in_dygraph_mode(), (f"In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and "
                                       f"'{func.__name__}()' is only supported in static graph mode. So if you want "
                                       "to use this api, please call 'paddle.enable_static()' before this api to "
                                       "enter static graph mode.")
        return func(*args, **kwargs)
    return __impl__


def _dygraph_tracer():
    """The eager-mode tracer (see `dy2st.base.dygraph.tracer`); None in static mode."""
    from .dygraph.tracer import current_tracer
    return current_tracer()


__all__ += ["_current_expected_place", "_global_flags", "dygraph_only", "static_only", "_dygraph_tracer"]
