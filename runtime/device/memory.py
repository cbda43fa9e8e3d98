"""Memory statistics and device properties of ``paddle.device``: accelerator-only, so they raise the
ValueError of Paddle's CPU build; ``empty_cache`` is a no-op (nothing is cached)."""
from __future__ import annotations

__all__ = ["max_memory_allocated", "max_memory_reserved", "reset_max_memory_allocated",
           "reset_max_memory_reserved", "memory_allocated", "memory_reserved", "reset_peak_memory_stats",
           "empty_cache", "ipc_collect", "get_device_properties", "get_device_name", "get_device_capability"]


def _unsupported(api, needs="GPU or XPU"):
    return ValueError(f"The API {api} is not supported in CPU PaddlePaddle. Please reinstall PaddlePaddle "
                      f"with {needs} support to call this API. (dy2st runs on the CPU only)")


def max_memory_allocated(device=None):
    raise _unsupported("paddle.device.max_memory_allocated")


def max_memory_reserved(device=None):
    raise _unsupported("paddle.device.max_memory_reserved")


def reset_max_memory_allocated(device=None):
    raise _unsupported("paddle.device.reset_max_memory_allocated")


def reset_max_memory_reserved(device=None):
    raise _unsupported("paddle.device.reset_max_memory_reserved")


def memory_allocated(device=None):
    raise _unsupported("paddle.device.memory_allocated")


def memory_reserved(device=None):
    raise _unsupported("paddle.device.memory_reserved")


def reset_peak_memory_stats(device=None):
    # Paddle resets the allocated peak first, so its error names that API
    raise _unsupported("paddle.device.reset_max_memory_allocated")


def empty_cache():
    """Release cached accelerator memory: nothing is cached on the CPU, so a no-op."""
    return None


def ipc_collect():
    raise RuntimeError("(Unavailable) Paddle is not compiled with CUDA/XPU, so `ipc_collect` cannot be used "
                       "(dy2st runs on the CPU only)")


def get_device_properties(device=None):
    raise _unsupported("paddle.device.get_device_properties", "GPU or custom device")


def get_device_name(device=None):
    raise _unsupported("paddle.device.get_device_properties", "GPU or custom device")


def get_device_capability(device=None):
    raise _unsupported("paddle.device.get_device_properties", "GPU or custom device")
