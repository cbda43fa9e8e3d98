"""``paddle.device``: places, the current device, and the device queries of Paddle's CPU-only build.

dy2st computes with numpy on the CPU. Every name of Paddle's ``paddle.device`` exists; the ones about
accelerators answer as Paddle's CPU wheel does (``device_count() == 0``, ``get_all_device_type() == []``)
or raise a clear error where Paddle's CPU wheel raises (streams, events, memory statistics).
"""
from __future__ import annotations

import re

from . import cuda  # noqa: F401  (paddle.device.cuda)
from .streams import Stream, Event, StreamContext, stream_guard, current_stream, set_stream, synchronize  # noqa: F401
from .streams import is_current_stream_capturing, get_stream_from_external  # noqa: F401
from .memory import (max_memory_allocated, max_memory_reserved, reset_max_memory_allocated,  # noqa: F401
                     reset_max_memory_reserved, memory_allocated, memory_reserved, reset_peak_memory_stats,
                     empty_cache, ipc_collect, get_device_properties, get_device_name, get_device_capability)

__all__ = ["get_cudnn_version", "set_device", "get_device", "XPUPlace", "IPUPlace", "is_compiled_with_xpu",
           "is_compiled_with_ipu", "is_compiled_with_cinn", "is_compiled_with_cuda", "is_compiled_with_rocm",
           "is_compiled_with_distribute", "is_compiled_with_custom_device", "get_all_device_type",
           "get_all_custom_device_type", "get_available_device", "get_available_custom_device",
           "get_device_properties", "Stream", "Event", "current_stream", "set_stream", "stream_guard",
           "device_guard", "synchronize", "device_count", "empty_cache", "max_memory_allocated",
           "max_memory_reserved", "reset_max_memory_allocated", "reset_max_memory_reserved", "memory_allocated",
           "memory_reserved", "is_available", "is_current_stream_capturing", "get_device_name",
           "get_device_capability", "get_rng_state", "set_rng_state", "FloatTensor", "DoubleTensor", "HalfTensor",
           "BFloat16Tensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor",
           "device", "is_bf16_supported", "manual_seed", "reset_peak_memory_stats", "ipc_collect",
           "get_stream_from_external", "StreamContext"]


# -- places ----------------------------------------------------------------------------------------
class Place:
    """Base of the place classes (Paddle's ``paddle.base.libpaddle.Place``)."""


class CPUPlace(Place):
    def __repr__(self):
        return "Place(cpu)"

    def __eq__(self, other):
        return isinstance(other, CPUPlace)

    def __hash__(self):
        return hash("cpu")

    def _equals(self, other):
        """Paddle's ``Place._equals``: whether ``other`` is the same place."""
        return self == other

    # Paddle's Place queries (a CPUPlace answers as Paddle's does)
    def is_cpu_place(self):
        return True

    def is_gpu_place(self):
        return False

    def is_cuda_pinned_place(self):
        return False

    def is_xpu_place(self):
        return False

    def is_xpu_pinned_place(self):
        return False

    def is_ipu_place(self):
        return False

    def is_custom_place(self):
        return False

    def gpu_device_id(self):
        raise ValueError("gpu_device_id() of a CPUPlace: the place is not a GPU place")

    def set_place(self, place):
        """Paddle's ``Place.set_place``: only a CPU place can be set here."""
        if not isinstance(place, CPUPlace):
            raise ValueError(f"set_place: dy2st has the CPU only, got {place!r}")


class _WrongPlaceError(ValueError, RuntimeError):
    """Paddle's CPU build raises ValueError ("(InvalidArgument) use wrong place") for a GPU place; this
    is also a RuntimeError, which dy2st raised before, so older ``except RuntimeError`` still catch it."""


class CUDAPlace:
    """Paddle's CPU build has no CUDA: constructing one raises ValueError, as Paddle does."""

    def __init__(self, *args, **kwargs):
        raise _WrongPlaceError("(InvalidArgument) use wrong place: cannot use GPU because dy2st runs on the CPU "
                               f"only; change CUDAPlace{args!r} to CPUPlace()".replace(",)", ")"))


class CUDAPinnedPlace:
    """Paddle's CPU build has no pinned memory: constructing one raises RuntimeError, as Paddle does."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("(PermissionDenied) Cannot use CUDAPinnedPlace in CPU only version: dy2st runs on the "
                           "CPU only; use paddle.CPUPlace()")


def XPUPlace(dev_id):
    """Paddle's CPU build has no XPU: raises ValueError, as Paddle does."""
    raise ValueError("(InvalidArgument) use wrong place: cannot use XPU because dy2st runs on the CPU only; "
                     "change XPUPlace(%r) to CPUPlace()" % (dev_id,))


def IPUPlace():
    """Paddle's CPU build has no IPU: raises ValueError, as Paddle does."""
    raise ValueError("(InvalidArgument) use wrong place: cannot use IPU because dy2st runs on the CPU only; "
                     "change IPUPlace() to CPUPlace()")


# -- the current device ----------------------------------------------------------------------------
_device = ["cpu"]
_DEVICE_FORMS = "'cpu', 'gpu', 'gpu:x', 'dcu', 'dcu:x', 'xpu', 'xpu:x', 'npu', 'npu:x'"


def _convert_to_place(device):
    """The place named by ``device`` (a string, a Place or a device index), checked as Paddle's CPU build checks."""
    if isinstance(device, CPUPlace):
        return device
    if isinstance(device, bool) or device is None:
        raise ValueError(f"The device specification {device!r} is invalid")
    if isinstance(device, int):
        if device != 0:
            raise ValueError(f"CPU device only supports index 0, got {device}")
        return CPUPlace()
    if not isinstance(device, str):
        raise ValueError(f"The device specification {device!r} is invalid: pass 'cpu' or paddle.CPUPlace()")
    name = device.lower()
    if name == "cpu":
        return CPUPlace()
    if name in ("gpu", "dcu") or re.fullmatch(r"(gpu|dcu):\d+", name):
        raise ValueError(f"The device should not be '{device}', since PaddlePaddle is not compiled with CUDA "
                         "(dy2st runs on the CPU only: use 'cpu')")
    for kind in ("xpu", "ipu"):
        if name == kind or re.fullmatch(kind + r":\d+", name):
            raise ValueError(f"The device should not be '{device}', since PaddlePaddle is not compiled with "
                             f"{kind.upper()} (dy2st runs on the CPU only: use 'cpu')")
    raise ValueError(f"The device must be a string which is like {_DEVICE_FORMS}, got {device!r} "
                     "(dy2st has the CPU only: use 'cpu')")


def set_device(device):
    """Make ``device`` the current device; only the CPU exists (``'cpu'``, ``CPUPlace()``, ``0``)."""
    place = _convert_to_place(device)
    _device[0] = "cpu"
    return place


def get_device(input=None):
    """The current device as a string (``'cpu'``); with a tensor, its device id (``-1`` on the CPU)."""
    if input is not None:
        return -1
    return _device[0]


class device_guard:
    """``with paddle.device.device_guard('cpu'):`` run the body on a device (the CPU is the only one)."""

    def __init__(self, device):
        if isinstance(device, str):
            self._target_place = _convert_to_place(device)
        elif isinstance(device, Place):
            self._target_place = device
        else:
            raise ValueError("'device' must be a string or an instance of a subclass of "
                             f"paddle.base.libpaddle.Place, but got {type(device)}")

    def __enter__(self):
        self._original = _device[0]

    def __exit__(self, exc_type, exc_val, exc_tb):
        _device[0] = self._original


class device:
    """``with paddle.device.device('cpu'):`` like `device_guard`, also accepting a device index."""

    def __init__(self, device=None):
        self.place = _convert_to_place(device)
        self.prev_place_str = "-1"

    def __enter__(self):
        self._original = _device[0]      # returns None, as Paddle's does

    def __exit__(self, exc_type, exc_val, exc_tb):
        _device[0] = self._original
        return False


# -- what this build has ---------------------------------------------------------------------------
def get_cudnn_version():
    """None: there is no cuDNN (Paddle's CPU build answers the same)."""
    return None


def is_compiled_with_cuda():
    return False


def is_compiled_with_xpu():
    return False


def is_compiled_with_rocm():
    return False


def is_compiled_with_ipu():
    return False


def is_compiled_with_cinn():
    return False


def is_compiled_with_distribute():
    """True, as Paddle's CPU wheel: ``paddle.distributed`` exists (single-process here)."""
    return True


def is_compiled_with_custom_device(device_type):
    return False


def get_all_device_type():
    """``[]``, as Paddle's CPU build answers (it lists accelerator types only)."""
    return []


def get_all_custom_device_type():
    return []


def get_available_device():
    return []


def get_available_custom_device():
    return []


def device_count():
    """The number of accelerator devices: 0."""
    return 0


def is_available():
    """Whether an accelerator is available: False."""
    return False


def is_bf16_supported(including_emulation=True):
    """False: dy2st's numpy kernels cannot compute in bfloat16 (Paddle's CPU wheel says True)."""
    return False


# -- random state ----------------------------------------------------------------------------------
def get_rng_state(device=None):
    """The state of the global random generator (one state, not a list as ``paddle.get_rng_state``)."""
    from ..random import get_rng_state as _get
    _convert_to_place("cpu" if device is None else device)
    return _get()[0]


def set_rng_state(new_state, device=None):
    from ..random import set_rng_state as _set
    _convert_to_place("cpu" if device is None else device)
    _set(new_state)


def manual_seed(seed):
    """Seed the global random generator (``paddle.seed``); returns None."""
    from ..random import seed as _seed
    _seed(seed)


_FACTORIES = ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor",
              "ShortTensor", "IntTensor", "LongTensor", "BoolTensor")


def __getattr__(name):
    # the legacy typed constructors live with the tensor API, which is loaded after this module
    if name in _FACTORIES:
        from ..api import attribute_extra
        return getattr(attribute_extra, name)
    raise AttributeError(f"module 'paddle.device' has no attribute '{name}'")
