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
                     is_compiled_with_cuda, is_compiled_with_xpu, is_compiled_with_rocm, is_compiled_with_cinn,
                     is_compiled_with_custom_device, is_compiled_with_distribute, is_compiled_with_ipu)
from .device import XPUPlace, IPUPlace  # noqa: F401  (paddle.XPUPlace / paddle.IPUPlace raise on CPU)
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
from .api.tensor_extra import *  # noqa: F401,F403
from .api.composite_extra import *  # noqa: F401,F403
from .api.aliases import *  # noqa: F401,F403  (cat, clamp, div, permute ... as Paddle 3 accepts)
from .api.histogramdd import *  # noqa: F401,F403

from . import nn, optimizer, io, vision  # noqa: F401,E402
from . import text  # noqa: F401,E402  (paddle.text: text datasets)
from .formats.serialization import save, load  # noqa: F401,E402
from .flags import set_flags, get_flags  # noqa: F401,E402
from . import regularizer, metric  # noqa: F401,E402
from .nn.param_attr import ParamAttr, create_parameter  # noqa: F401,E402
from . import unique_name, utils, static  # noqa: F401,E402
from . import fft, signal  # noqa: F401,E402
from . import amp  # noqa: F401,E402  (paddle.amp: auto_cast, GradScaler, decorate)
from . import audio  # noqa: F401,E402  (paddle.audio: features, functional, wave I/O, datasets)
from .audio.functional.window import (bartlett_window, blackman_window, hamming_window,  # noqa: F401,E402
                                     hann_window, kaiser_window)  # paddle.hann_window ... (torch-style, top level)
from .api.framework_extra import *  # noqa: F401,F403,E402  (paddle.batch, autocast queries, cuda rng state)

# paddle.autograd's names that live in modules of their own (runtime/autograd.py holds the tape): set on the
# module here, after the tensor machinery they import is loaded
from . import autograd_pylayer as _autograd_pylayer, autograd_functional as _autograd_functional  # noqa: E402
for _name in ("PyLayer", "PyLayerContext", "Function", "once_differentiable"):
    setattr(autograd, _name, getattr(_autograd_pylayer, _name))
for _name in ("jacobian", "hessian", "Jacobian", "Hessian"):
    setattr(autograd, _name, getattr(_autograd_functional, _name))
for _name in ("no_grad", "enable_grad", "is_grad_enabled", "set_grad_enabled"):   # re-exported there by Paddle
    setattr(autograd, _name, globals()[_name])
from .autograd_hooks import saved_tensors_hooks as _saved_tensors_hooks  # noqa: E402
autograd.saved_tensors_hooks = _saved_tensors_hooks
del _name

# in-place variants (x.add_(y), paddle.acos_(x), ...) of the functions above: made last, from what exists
from .api.inplace_extra import *  # noqa: F401,F403,E402
from .api.special import *  # noqa: F401,F403,E402  (digamma ... i1e and in-place forms)
from .api.math_extra import *  # noqa: F401,F403,E402  (logit, sinc, copysign, fmax, gcd, isin, shifts, atan2 ...)
from .api.reduction_extra import *  # noqa: F401,F403,E402  (trace, mv, addmm, nanmedian, kthvalue, logspace, cdist ...)

# issue 16: more manipulation, creation, random and Tensor-method names (after nn: top-level conv1d ... aliases)
from .api.manipulation_extra import *  # noqa: F401,F403,E402
from .api.scatter_extra import *  # noqa: F401,F403,E402
from .api.random_extra import *  # noqa: F401,F403,E402
from .api.attribute_extra import *  # noqa: F401,F403,E402
from .api import tensor_methods_extra as _tensor_methods_extra  # noqa: F401,E402
from . import distribution  # noqa: F401,E402  (paddle.distribution: distributions, transforms, kl)
from . import sparse  # noqa: F401,E402  (paddle.sparse: COO/CSR tensors, sparse math, sparse.nn)
from . import incubate  # noqa: F401,E402  (paddle.incubate: LookAhead, ModelAverage, incubate.autograd/optimizer/nn)
