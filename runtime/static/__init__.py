"""paddle.static: Programs, the Executor, static autograd and control flow.

Importing this package installs the static builder, so `run_op` appends Operators
while static mode is on (``paddle.enable_static()``).
"""
from .program import (Program, Block, Operator, Variable, Parameter, VarType, program_guard,  # noqa: F401
                      default_main_program, default_startup_program)
from .input_spec import InputSpec  # noqa: F401
from .scope import Scope, global_scope, scope_guard  # noqa: F401
from .executor import Executor  # noqa: F401
from .builder import install as _install
from .api import data, create_parameter, create_global_var, cpu_places, device_guard, name_scope  # noqa: F401
from ..device import CPUPlace  # noqa: F401
from .backward import append_backward, gradients  # noqa: F401
from .fc import accuracy  # noqa: F401
from . import layers_bridge as _layers_bridge  # noqa: F401  (nn layers create static parameters)
from . import nn  # noqa: F401
from .control_flow import Print  # noqa: F401
from .py_func import py_func  # noqa: F401
from .inference_io import save_inference_model, load_inference_model  # noqa: F401
from .tensor_array import create_array, array_write, array_read, array_length, tensor_array_to_tensor  # noqa: F401

_install()


def setitem(x, index, value):
    """``paddle.static.setitem(x, index, value)``: the tensor ``x[index] = value`` would give, as a new
    value (static Variables cannot change in place; eager tensors are not changed either)."""
    from ..api.indexing import setitem_value
    return setitem_value(x, index, value)
