"""``paddle.base``: the legacy framework namespace, as far as user, model and test code imports it.

Submodules ``core``, ``dygraph`` (``to_variable``, ``guard``), ``framework``, ``unique_name``,
``param_attr``, ``data_feeder``, ``backward``, ``executor`` and ``wrapped_decorator`` re-export our
implementation; the package itself has the names
Paddle's ``paddle.base`` has that we implement (Program, Executor, places, mode switches ...).
"""
from runtime.device import CPUPlace, CUDAPinnedPlace, CUDAPlace  # noqa: F401
from runtime.device import is_compiled_with_cuda, is_compiled_with_rocm, is_compiled_with_xpu  # noqa: F401
from runtime.flags import get_flags, set_flags  # noqa: F401
from runtime.framework import in_dynamic_mode as in_dygraph_mode  # noqa: F401
from runtime.nn.param_attr import ParamAttr  # noqa: F401
from runtime.static import (Executor, Program, Scope, Variable, append_backward, cpu_places,  # noqa: F401
                            default_main_program, default_startup_program, device_guard, global_scope, gradients,
                            name_scope, program_guard, scope_guard)

from . import (backward, core, data_feeder, dygraph, executor, framework, param_attr, unique_name,  # noqa: F401,E402
               wrapped_decorator)
from .dygraph import disable_dygraph, enable_dygraph  # noqa: F401,E402
from .framework import in_dynamic_or_pir_mode, in_pir_mode  # noqa: F401,E402

__all__ = ["ParamAttr", "in_dygraph_mode", "in_dynamic_or_pir_mode", "in_pir_mode", "CPUPlace", "CUDAPlace",
           "CUDAPinnedPlace", "is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu", "get_flags",
           "set_flags", "Executor", "Program", "Scope", "Variable", "append_backward", "gradients", "cpu_places",
           "default_main_program", "default_startup_program", "device_guard", "global_scope", "name_scope",
           "program_guard", "scope_guard", "enable_dygraph", "disable_dygraph", "core", "data_feeder", "dygraph",
           "framework", "param_attr", "unique_name", "wrapped_decorator", "backward", "executor"]

from . import compiler, initializer  # noqa: E402  (compiler imports dy2st.static, which imports this package)
from . import layers  # noqa: E402,F401
from .compiler import BuildStrategy, CompiledProgram  # noqa: F401,E402

__all__ += ["compiler", "initializer", "BuildStrategy", "CompiledProgram"]
from . import io, reader  # noqa: E402,F401  (paddle.base.io.DataLoader.from_generator)
