"""``paddle.framework``: the names Paddle's framework module gives user and model code.

Re-exports our implementation: ``core``, ParamAttr, Parameter, Block, Program, the dygraph / static
switches, dtype defaults, seeding and save/load; submodules ``paddle.framework.random``,
``paddle.framework.io`` and ``paddle.framework.dtype``. Programs are legacy ProgramDescs (there is
no PIR): ``in_pir_mode()`` and ``use_pir_api()`` are False and ``in_dynamic_or_pir_mode()`` is
``in_dynamic_mode()``.
"""
from runtime.autograd import grad  # noqa: F401
from runtime.device import CPUPlace, CUDAPinnedPlace, CUDAPlace  # noqa: F401
from runtime.dtype import get_default_dtype, set_default_dtype  # noqa: F401
from runtime.flags import get_flags, set_flags  # noqa: F401
from runtime.formats.serialization import load, save  # noqa: F401
from runtime.framework import disable_static, enable_static, in_dynamic_mode, no_grad  # noqa: F401
from runtime.nn.param_attr import ParamAttr  # noqa: F401
from runtime.random import seed  # noqa: F401
from runtime.static import Block, Program  # noqa: F401
from runtime.tensor import Parameter  # noqa: F401

__all__ = ["CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "get_default_dtype", "set_default_dtype", "load", "save",
           "disable_static", "enable_static", "in_dynamic_mode", "in_dygraph_mode", "in_dynamic_or_pir_mode",
           "in_pir_mode", "use_pir_api", "no_grad", "grad", "ParamAttr", "seed", "Program", "Block", "Parameter",
           "get_flags", "set_flags", "core", "random", "io", "dtype"]

in_dygraph_mode = in_dynamic_mode


def in_dynamic_or_pir_mode():
    """Eager mode (there is no PIR mode here)."""
    return in_dynamic_mode()


def in_pir_mode():
    """Always False: programs are legacy ProgramDescs."""
    return False


def use_pir_api():
    """Always False: static Programs here are legacy ProgramDescs, never PIR programs. (The
    ``FLAGS_enable_pir_api`` flag only picks the file format jit.save writes.)"""
    return False


from ..base import core  # noqa: F401,E402
from . import dtype, io, random  # noqa: F401,E402


def _current_expected_place():
    """The place new tensors go to: always the CPU here."""
    return CPUPlace()


def _set_expected_place(place):
    """Set the place new tensors go to. Only a CPU place is possible here (there is no other device):
    anything else raises ValueError naming it."""
    is_cpu = getattr(place, "is_cpu_place", None)
    if isinstance(place, CPUPlace) or (callable(is_cpu) and is_cpu()):
        return
    raise ValueError(f"paddle.framework._set_expected_place({place!r}): dy2st runs on the CPU only; "
                     "pass paddle.CPUPlace()")


def convert_np_dtype_to_dtype_(np_dtype):
    """The Paddle dtype of a numpy dtype (or its name): ``np.float32`` -> ``paddle.float32``."""
    from runtime.dtype import convert_dtype
    return convert_dtype(np_dtype)


__all__ += ["convert_np_dtype_to_dtype_"]
