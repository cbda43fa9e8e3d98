"""``paddle.utils.dlpack``: exchange tensors with other libraries through DLPack (numpy's implementation).

``to_dlpack(x)`` returns a DLPack capsule of the tensor's memory; ``from_dlpack(obj)`` takes an object
with ``__dlpack__`` (a numpy array, a torch CPU tensor ...) or a capsule from ``to_dlpack`` and returns a
``paddle.Tensor`` sharing that memory (CPU memory only: this package has no devices).
"""
from __future__ import annotations

import ctypes

import numpy as np

__all__ = ["to_dlpack", "from_dlpack"]

_CPU = (1, 0)    # DLPack's (kDLCPU, device 0)


def _capsule_name(capsule):
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    name = get_name(capsule)
    return name.decode() if name else ""


class _Capsule:
    """A DLPack capsule dressed as a producer, so numpy's ``from_dlpack`` accepts it."""

    def __init__(self, capsule):
        name = _capsule_name(capsule)
        if name.startswith("used_"):
            raise BufferError("from_dlpack: this DLPack capsule was consumed already (a capsule can be decoded "
                              "once); call to_dlpack again")
        if name not in ("dltensor", "dltensor_versioned"):
            raise TypeError(f"from_dlpack: the capsule is a {name!r} capsule, not a DLPack tensor")
        self._capsule = capsule

    def __dlpack__(self, *args, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return _CPU


def to_dlpack(x):
    """A DLPack capsule of ``x``'s memory (a read-only tensor's data is copied first: DLPack cannot say
    read-only)."""
    from runtime.tensor import Tensor
    if not isinstance(x, Tensor):
        raise TypeError(f"The type of 'x' in to_dlpack must be paddle.Tensor, but received {type(x).__name__}.")
    arr = np.asarray(x._data)
    if not arr.flags.writeable:
        arr = arr.copy()
        x._data = arr
    return arr.__dlpack__()


def from_dlpack(dlpack, *, device=None, copy=None):
    """A ``paddle.Tensor`` sharing the memory of ``dlpack`` (``copy=True``: a copy)."""
    from runtime.tensor import Tensor
    if device is not None and str(device).lower() not in ("cpu", "place(cpu)", "cpuplace"):
        raise ValueError(f"from_dlpack: device {device!r} is not available; this package has only the CPU")
    if hasattr(dlpack, "__dlpack__"):
        producer = dlpack
    elif type(dlpack).__name__ == "PyCapsule":
        producer = _Capsule(dlpack)
    else:
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ or a DLPack capsule, got "
                        f"{type(dlpack).__name__}")
    try:
        arr = np.from_dlpack(producer) if copy is None else np.from_dlpack(producer, copy=copy)
    except TypeError:
        arr = np.from_dlpack(producer)
        if copy:
            arr = arr.copy()
    return Tensor._wrap(arr)
