"""``paddle.base.framework``: the static-graph classes and mode queries of Paddle's framework module.

Programs here are legacy ProgramDescs: ``in_pir_mode()`` and ``use_pir_api()`` are False.
"""
from __future__ import annotations

import contextlib

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
