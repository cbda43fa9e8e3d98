"""Places and devices. dy2st runs on the CPU; these exist so Paddle scripts run unchanged."""
from __future__ import annotations


class CPUPlace:
    def __repr__(self):
        return "Place(cpu)"

    def __eq__(self, other):
        return isinstance(other, CPUPlace)

    def __hash__(self):
        return hash("cpu")


class CUDAPlace:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("dy2st runs on the CPU only: use paddle.CPUPlace()")


CUDAPinnedPlace = CUDAPlace

_device = ["cpu"]


def set_device(device: str):
    """Only ``"cpu"`` is available; anything else raises a clear error."""
    if not isinstance(device, str) or device.split(":")[0] != "cpu":
        raise ValueError(f"set_device({device!r}): dy2st runs on the CPU only; use set_device('cpu')")
    _device[0] = "cpu"
    return CPUPlace()


def get_device() -> str:
    return _device[0]


def is_compiled_with_cuda() -> bool:
    return False


def is_compiled_with_xpu() -> bool:
    return False


def is_compiled_with_rocm() -> bool:
    return False


def device_count() -> int:
    return 0
