"""``paddle.device.cuda``: the CUDA queries as Paddle's CPU build answers them (``device_count() == 0``,
``empty_cache()`` a no-op; streams, events, memory statistics and properties raise)."""
from __future__ import annotations

import contextlib

__all__ = ["Stream", "Event", "current_stream", "synchronize", "device_count", "empty_cache",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved", "stream_guard",
           "get_device_properties", "get_device_name", "get_device_capability", "reset_max_memory_allocated",
           "reset_max_memory_reserved", "memory_summary", "vmm_compact"]

_CPU_ONLY = "(dy2st runs on the CPU only)"


class Stream:
    def __init__(self, *args, **kwargs):
        raise RuntimeError(f"(Unavailable) Class CUDAStream can only be initialized on the GPU platform. {_CPU_ONLY}")


class Event:
    def __init__(self, *args, **kwargs):
        raise RuntimeError(f"(Unavailable) Class CUDAEvent can only be initialized on the GPU platform. {_CPU_ONLY}")


def _unsupported(api, needs="GPU or custom device"):
    return ValueError(f"The API paddle.device.cuda.{api} is not supported in CPU-only PaddlePaddle. Please "
                      f"reinstall PaddlePaddle with {needs} support to call this API. {_CPU_ONLY}")


def current_stream(device=None):
    raise RuntimeError(f"(Unavailable) Paddle is not compiled with CUDA: there is no current CUDA stream. {_CPU_ONLY}")


def synchronize(device=None):
    raise RuntimeError(f"(Unavailable) Paddle is not compiled with CUDA. Cannot visit device synchronize. {_CPU_ONLY}")


def device_count():
    return 0


def empty_cache():
    return None


def max_memory_allocated(device=None):
    raise _unsupported("max_memory_allocated")


def max_memory_reserved(device=None):
    raise _unsupported("max_memory_reserved")


def memory_allocated(device=None):
    raise _unsupported("memory_allocated")


def memory_reserved(device=None):
    raise _unsupported("memory_reserved")


def reset_max_memory_allocated(device=None):
    raise _unsupported("reset_max_memory_allocated")


def reset_max_memory_reserved(device=None):
    raise _unsupported("reset_max_memory_reserved")


def get_device_properties(device=None):
    raise _unsupported("get_device_properties", "GPU")


def get_device_name(device=None):
    raise _unsupported("get_device_properties", "GPU")


def get_device_capability(device=None):
    raise _unsupported("get_device_properties", "GPU")


def vmm_compact(device=None):
    raise _unsupported("vmm_compact", "GPU")


def memory_summary(device=None):
    raise RuntimeError(f"paddle.device.cuda.memory_summary: Paddle is not compiled with CUDA. {_CPU_ONLY}")


@contextlib.contextmanager
def stream_guard(stream):
    """``with stream_guard(stream):``; ``None`` runs the body unchanged (as Paddle does)."""
    if stream is not None and not isinstance(stream, Stream):
        raise TypeError(f"stream_guard: stream must be a paddle.device.cuda.Stream or None, got "
                        f"{type(stream).__name__}")
    yield
