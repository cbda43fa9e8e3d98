"""``paddle.base.core``: the names Paddle's C++ core module gives Python code, on our implementation.

Places, ``Scope``, ``eager.Tensor`` (the eager Tensor class), ``VarDesc.VarType`` (dtype codes, which
are our dtype objects, and variable kinds), the ``is_compiled_with_*`` queries, and the switches
for Paddle's primitive-operator decomposition ("prim"), which does not exist here: asking for it to
be on raises.
"""
from __future__ import annotations

import types as _types

from runtime import dtype as _dt
from runtime.device import CPUPlace, CUDAPinnedPlace, CUDAPlace, is_compiled_with_cuda  # noqa: F401
from runtime.device import is_compiled_with_rocm, is_compiled_with_xpu  # noqa: F401
from runtime.flags import flag_names, get_flags, set_flags
from runtime.static.program import VarType as _Kinds
from runtime.static.scope import Scope  # noqa: F401
from runtime.tensor import Tensor as _Tensor

from ..property_meta import Property  # noqa: F401,E402

__all__ = ["CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "Scope", "eager", "VarDesc", "DenseTensor", "Property",
           "is_compiled_with_cuda", "is_compiled_with_xpu", "is_compiled_with_rocm", "is_compiled_with_cinn",
           "is_compiled_with_ipu", "is_compiled_with_custom_device", "is_compiled_with_distribute",
           "_is_fwd_prim_enabled", "_is_bwd_prim_enabled", "_is_all_prim_enabled", "_set_prim_all_enabled",
           "_set_prim_forward_enabled", "_set_prim_backward_enabled"]

# ``core.eager.Tensor`` is paddle.Tensor
from runtime.autograd import add_backward_final_hook as _add_backward_final_hook  # noqa: E402
eager = _types.SimpleNamespace(Tensor=_Tensor, _add_backward_final_hook=_add_backward_final_hook)
DenseTensor = _Tensor


class VarDesc:
    """``core.VarDesc.VarType``: dtype codes (``FP32`` ... are our dtype objects, so ``x.dtype ==
    VarType.FP32`` holds as in Paddle) and variable kinds (``DENSE_TENSOR``, ``SELECTED_ROWS`` ...)."""

    class VarType:
        BOOL = _dt.convert_dtype("bool")
        INT8 = _dt.convert_dtype("int8")
        UINT8 = _dt.convert_dtype("uint8")
        INT16 = _dt.convert_dtype("int16")
        INT32 = _dt.convert_dtype("int32")
        INT64 = _dt.convert_dtype("int64")
        FP16 = _dt.convert_dtype("float16")
        FP32 = _dt.convert_dtype("float32")
        FP64 = _dt.convert_dtype("float64")
        COMPLEX64 = _dt.convert_dtype("complex64")
        COMPLEX128 = _dt.convert_dtype("complex128")
        LOD_TENSOR = DENSE_TENSOR = _Kinds.LOD_TENSOR
        SELECTED_ROWS = _Kinds.SELECTED_ROWS
        FEED_MINIBATCH = _Kinds.FEED_MINIBATCH
        FETCH_LIST = _Kinds.FETCH_LIST
        STEP_SCOPES = _Kinds.STEP_SCOPES
        LOD_TENSOR_ARRAY = DENSE_TENSOR_ARRAY = _Kinds.LOD_TENSOR_ARRAY
        READER = _Kinds.READER


def is_compiled_with_cinn():
    return False


def is_compiled_with_ipu():
    return False


def is_compiled_with_distribute():
    return False


def is_compiled_with_custom_device(device_type):
    return False


def _is_fwd_prim_enabled():
    """False: Paddle's decomposition of ops into primitive ops ("prim") does not exist here."""
    return False


def _is_bwd_prim_enabled():
    return False


def _is_all_prim_enabled():
    return False


def _is_eager_prim_enabled():
    return False


def _enable_prim_dynamic_shape():
    """False: there is no prim decomposition here, so none for dynamic shapes either."""
    return False


def _enable_auto_recompute():
    """False: Paddle's automatic recompute pass (part of its CINN pipeline) does not exist here."""
    return False


def _prim_switch(what):
    def switch(value):
        if value:
            raise NotImplementedError(f"paddle.base.core.{what}(True): Paddle's decomposition of operators into "
                                      "primitive operators (prim) is not implemented in dy2st; every op keeps its "
                                      "own kernel and gradient rule")
    switch.__name__ = what
    switch.__doc__ = f"``{what}(False)`` is what dy2st always does; True raises NotImplementedError."
    return switch


_set_prim_all_enabled = _prim_switch("_set_prim_all_enabled")
_set_prim_forward_enabled = _prim_switch("_set_prim_forward_enabled")
_set_prim_backward_enabled = _prim_switch("_set_prim_backward_enabled")
set_prim_eager_enabled = _prim_switch("set_prim_eager_enabled")


# -- device capability queries and flags (CPU only) ------------------------------------------------

LoDTensor = DenseTensor   # Paddle's older name of the same class


class Place:
    """``core.Place()``: a place not yet set to a device (Paddle prints it ``Place(undefined:0)``);
    ``set_place`` makes it one (only CPU places exist here)."""

    def __init__(self):
        self._place = None

    def set_place(self, place):
        if not isinstance(place, CPUPlace):
            raise RuntimeError(f"core.Place.set_place({place!r}): only CPU places exist in dy2st")
        self._place = place

    def is_cpu_place(self):
        return isinstance(self._place, CPUPlace)

    def is_gpu_place(self):
        return False

    def __repr__(self):
        return "Place(undefined:0)" if self._place is None else repr(self._place)


def is_float16_supported(place):
    """False: there are no float16 device kernels here (Paddle's CPU build answers False too), so tests
    guarded by it are skipped."""
    return False


def is_bfloat16_supported(place):
    """False: bfloat16 is not a dtype of dy2st."""
    return False


def get_all_custom_device_type():
    return []


def get_cuda_device_count():
    return 0


class _Flags:
    """``core.globals()``: Paddle's flag registry as a mapping over ``paddle.get_flags`` /
    ``paddle.set_flags`` (only the flags dy2st knows)."""

    def __getitem__(self, name):
        return get_flags(name)[name]

    def __setitem__(self, name, value):
        set_flags({name: value})

    def __contains__(self, name):
        try:
            get_flags(name)
        except ValueError:
            return False
        return True

    def get(self, name, default=None):
        return self[name] if name in self else default

    def keys(self):
        return flag_names()

    def __iter__(self):
        return iter(flag_names())

    def __len__(self):
        return len(flag_names())

    def items(self):
        return [(name, self[name]) for name in flag_names()]


_FLAG_REGISTRY = _Flags()


def globals():  # noqa: A001  (Paddle's name)
    return _FLAG_REGISTRY


__all__ += ["set_prim_eager_enabled", "LoDTensor", "Place", "is_float16_supported", "is_bfloat16_supported", "get_all_custom_device_type",
            "get_cuda_device_count", "globals"]

# Paddle's legacy inference entry points (predictor_utils in Paddle's model tests)
from ..inference.legacy import AnalysisConfig, create_paddle_predictor  # noqa: E402,F401
__all__ += ["AnalysisConfig", "create_paddle_predictor"]
