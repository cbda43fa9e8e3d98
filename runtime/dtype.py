"""Paddle data types (`paddle.float32`, ...) and conversion to and from numpy dtypes.

A `DType` is what users see (`x.dtype`, `paddle.float32`); kernels work on numpy
dtypes. `proto` is the `VarType.Type` enum value used by `.pdmodel` files.
"""
from __future__ import annotations

import numpy as np


class DType:
    """A Paddle dtype: prints as ``paddle.float32`` and compares equal to its name."""

    __slots__ = ("name", "np", "proto")

    def __init__(self, name: str, np_dtype, proto: int):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.proto = proto

    def __repr__(self):
        return f"paddle.{self.name}"

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, DType):
            return self is other
        try:
            return convert_dtype(other) is self
        except (TypeError, ValueError):
            return False

    def __hash__(self):
        return hash(self.name)

    @property
    def is_floating_point(self):
        return self.np.kind == "f"

    @property
    def itemsize(self):
        return self.np.itemsize


bool_ = DType("bool", np.bool_, 0)
int8 = DType("int8", np.int8, 21)
uint8 = DType("uint8", np.uint8, 20)
int16 = DType("int16", np.int16, 1)
int32 = DType("int32", np.int32, 2)
int64 = DType("int64", np.int64, 3)
float16 = DType("float16", np.float16, 4)
float32 = DType("float32", np.float32, 5)
float64 = DType("float64", np.float64, 6)
complex64 = DType("complex64", np.complex64, 23)
complex128 = DType("complex128", np.complex128, 24)

ALL_DTYPES = (bool_, int8, uint8, int16, int32, int64, float16, float32, float64, complex64, complex128)
_BY_NP = {d.np: d for d in ALL_DTYPES}
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME["bool_"] = bool_
_BY_NAME["float"] = float32  # Paddle spells the default float dtype "float32"; accept the short names
_BY_NAME["double"] = float64
_BY_NAME["half"] = float16
_BY_NAME["int"] = int32
_BY_NAME["long"] = int64
_BY_PROTO = {d.proto: d for d in ALL_DTYPES}

# dtypes Paddle names that our numpy kernels cannot compute in: they exist as names (paddle.bfloat16 ...),
# and convert_dtype refuses them with a clear error (numpy has no bfloat16/float8 arithmetic)
bfloat16 = DType("bfloat16", "V2", 22)
float8_e4m3fn = DType("float8_e4m3fn", "V1", 32)
float8_e5m2 = DType("float8_e5m2", "V1", 33)
uint16 = DType("uint16", np.uint16, 36)
uint32 = DType("uint32", np.uint32, 37)
uint64 = DType("uint64", np.uint64, 38)
_UNSUPPORTED = {d.name: d for d in (bfloat16, float8_e4m3fn, float8_e5m2, uint16, uint32, uint64)}


def _refuse(d):
    raise TypeError(f"dtype {d.name} is not supported: dy2st's kernels compute with numpy, which has no "
                    f"{d.name} arithmetic here; use one of {[x.name for x in ALL_DTYPES]}")


_DEFAULT_FLOAT = [float32]


def convert_dtype(dtype) -> DType:
    """Turn a DType, a dtype name ('float32', 'paddle.float32'), a numpy dtype or a Python type into a DType."""
    if isinstance(dtype, DType):
        if _UNSUPPORTED.get(dtype.name) is dtype:
            _refuse(dtype)
        return dtype
    if isinstance(dtype, str):
        key = dtype[7:] if dtype.startswith("paddle.") else dtype
        d = _BY_NAME.get(key)
        if d is None and key in _UNSUPPORTED:
            _refuse(_UNSUPPORTED[key])
        if d is None:
            raise ValueError(f"unknown dtype {dtype!r}; expected one of {sorted(n for n in _BY_NAME)}")
        return d
    if dtype is float:
        return _DEFAULT_FLOAT[0]
    if dtype is int:
        return int64
    if dtype is bool:
        return bool_
    try:
        npd = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"cannot interpret {dtype!r} as a dtype; pass e.g. 'float32' or paddle.float32") from None
    d = _BY_NP.get(npd)
    if d is None:
        raise ValueError(f"numpy dtype {npd} has no Paddle equivalent")
    return d


def from_numpy_dtype(npd) -> DType:
    """Fast path for a numpy dtype object (used on every Tensor.dtype access)."""
    return _BY_NP[npd]


def from_proto(value: int) -> DType:
    d = _BY_PROTO.get(value)
    if d is None:
        raise ValueError(f"unknown VarType dtype code {value}")
    return d


def to_np(dtype) -> np.dtype:
    return convert_dtype(dtype).np


def get_default_dtype() -> str:
    return _DEFAULT_FLOAT[0].name


def set_default_dtype(d) -> None:
    d = convert_dtype(d)
    if d not in (float16, float32, float64):
        raise TypeError(f"set_default_dtype only supports float16, float32 and float64, got {d.name}")
    _DEFAULT_FLOAT[0] = d


def default_float() -> DType:
    return _DEFAULT_FLOAT[0]
