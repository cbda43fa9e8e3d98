"""Top-level names Paddle exposes from its framework and reader modules: ``paddle.batch`` (the reader
decorator), the CUDA RNG state functions as Paddle's CPU build answers them, ``disable_signal_handler``, and
the AMP queries Paddle re-exports at top level (``paddle.autocast``, ``paddle.is_autocast_enabled`` ...)."""
from __future__ import annotations

from ..amp import autocast, get_autocast_cpu_dtype, get_autocast_dtype, get_autocast_gpu_dtype  # noqa: F401
from ..amp import is_autocast_enabled  # noqa: F401

__all__ = ["batch", "get_cuda_rng_state", "set_cuda_rng_state", "disable_signal_handler", "autocast",
           "get_autocast_cpu_dtype", "get_autocast_dtype", "get_autocast_gpu_dtype", "is_autocast_enabled"]


def batch(reader, batch_size, drop_last=False):
    """A reader (a function returning an iterable of samples) that yields lists of ``batch_size`` samples; the
    last, shorter list too unless ``drop_last``."""
    batch_size = int(batch_size)
    if batch_size <= 0:
        raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")

    def batch_reader():
        items = []
        for instance in reader():
            items.append(instance)
            if len(items) == batch_size:
                yield items
                items = []
        if drop_last is False and items:
            yield items
    return batch_reader


def get_cuda_rng_state():
    """The random states of the CUDA devices: none here (Paddle's CPU build returns ``[]``)."""
    return []


def set_cuda_rng_state(state_list):
    """Restore CUDA random states: nothing to restore without CUDA devices (as Paddle's CPU build)."""
    return None


def disable_signal_handler():
    """Paddle installs C++ signal handlers that print its own stack on a crash; dy2st installs none, so
    there is nothing to disable (Python's default handlers stay)."""
    return None
