"""``paddle.amp``: automatic mixed precision (``auto_cast``, ``decorate``) and loss scaling (``GradScaler``)."""
from __future__ import annotations

from . import amp_lists, grad_scaler  # noqa: F401
from . import accuracy_compare, debugging  # noqa: F401  (paddle.amp.debugging)
from .amp_lists import black_list, white_list  # noqa: F401
from .auto_cast import (amp_decorate, amp_guard, auto_cast, autocast, decorate,  # noqa: F401
                        get_autocast_dtype, is_autocast_enabled)
from .grad_scaler import AmpScaler, GradScaler, OptimizerState  # noqa: F401

__all__ = ["auto_cast", "GradScaler", "decorate", "is_float16_supported", "is_bfloat16_supported",
           "is_autocast_enabled", "get_autocast_dtype", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype"]

get_autocast_cpu_dtype = get_autocast_dtype
get_autocast_gpu_dtype = get_autocast_dtype


def _check_device(device):
    if device is None:
        return
    name = str(device).lower()
    if not (name == "cpu" or name.startswith(("gpu", "xpu", "cpu"))):
        raise ValueError(f"The device must be a string which is like 'cpu', 'gpu', 'gpu:x', 'xpu' or 'xpu:x', "
                         f"but got {device!r}")


def is_float16_supported(device=None) -> bool:
    """As Paddle's CPU build answers: False (dy2st still computes float16 inside ``auto_cast``)."""
    _check_device(device)
    return False


def is_bfloat16_supported(device=None) -> bool:
    """As Paddle's CPU build answers: True."""
    _check_device(device)
    return True
