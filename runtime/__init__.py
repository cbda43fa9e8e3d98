"""dy2st's framework: tensors, ops, autograd, nn, optimizers, static programs, file formats.

This module is the Paddle-compatible namespace (``dy2st`` re-exports it), so every
public name here uses Paddle's spelling and argument order.
"""
from . import ops  # registers every op  # noqa: F401
from .dtype import (bool_ as bool, int8, uint8, int16, int32, int64, float16, float32, float64,  # noqa: F401
                    complex64, complex128, get_default_dtype, set_default_dtype)
from .tensor import Tensor, Parameter, set_printoptions, is_tensor  # noqa: F401
from .framework import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled,  # noqa: F401
                        in_dynamic_mode, enable_static, disable_static)
from .dispatch import run_op  # noqa: F401
from .autograd import grad  # noqa: F401
from . import autograd  # noqa: F401
from .random import seed, get_rng_state, set_rng_state  # noqa: F401
from .device import (CPUPlace, CUDAPlace, CUDAPinnedPlace, set_device, get_device,  # noqa: F401
                     is_compiled_with_cuda, is_compiled_with_xpu, is_compiled_with_rocm)
from . import device  # noqa: F401

from .api import operators as _operators  # noqa: F401  (attaches + - * / ... to tensors)
from .api.math import *  # noqa: F401,F403
from .api.linalg import *  # noqa: F401,F403
from .api.linalg_solve import *  # noqa: F401,F403
from .api.linalg_decomp import *  # noqa: F401,F403
from .api.reduction import *  # noqa: F401,F403
from .api.search import *  # noqa: F401,F403
from .api.logic import *  # noqa: F401,F403
from .api.creation import *  # noqa: F401,F403
from .api.random import *  # noqa: F401,F403
from .api.manipulation import *  # noqa: F401,F403
from .api.indexing import *  # noqa: F401,F403
from .api.complex import *  # noqa: F401,F403

from . import nn, optimizer, io, vision  # noqa: F401,E402
from .formats.serialization import save, load  # noqa: F401,E402
from .flags import set_flags, get_flags  # noqa: F401,E402
from . import regularizer, metric  # noqa: F401,E402
from .nn.param_attr import ParamAttr, create_parameter  # noqa: F401,E402
from . import unique_name, utils, static  # noqa: F401,E402
from . import fft, signal  # noqa: F401,E402
