"""The inference enums: ``DataType`` (Paddle's ``PaddleDType``), ``PlaceType`` (``PaddlePlace``) and
``PrecisionType`` (``AnalysisConfig.Precision``), with Paddle's member names and values."""
from __future__ import annotations

import enum

import numpy as np

__all__ = ["PaddleDType", "PaddlePlace", "Precision", "DataType", "PlaceType", "PrecisionType",
           "dtype_of_numpy", "numpy_of_dtype", "get_num_bytes_of_data_type"]


class _IntLike(enum.Enum):
    """An enum that converts to ``int`` (as Paddle's pybind11 enums do); str/repr as Paddle prints them."""

    def __int__(self):
        return self.value

    def __index__(self):
        return self.value

    def __hash__(self):
        return hash(self.value)


class PaddleDType(_IntLike):
    FLOAT32 = 0
    INT64 = 1
    INT32 = 2
    UINT8 = 3
    INT8 = 4
    FLOAT16 = 5
    BOOL = 6
    FLOAT64 = 7
    BFLOAT16 = 8


class PaddlePlace(_IntLike):
    UNK = -1
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM = 4


class Precision(_IntLike):
    Float32 = 0
    Int8 = 1
    Half = 2
    Bfloat16 = 3


DataType = PaddleDType
PlaceType = PaddlePlace
PrecisionType = Precision

# bfloat16 has no numpy type: a BFLOAT16 tensor cannot be fed or read here
_NUMPY = {PaddleDType.FLOAT32: np.float32, PaddleDType.INT64: np.int64, PaddleDType.INT32: np.int32,
          PaddleDType.UINT8: np.uint8, PaddleDType.INT8: np.int8, PaddleDType.FLOAT16: np.float16,
          PaddleDType.BOOL: np.bool_, PaddleDType.FLOAT64: np.float64}
_OF_NUMPY = {np.dtype(v): k for k, v in _NUMPY.items()}


def dtype_of_numpy(np_dtype):
    """The `DataType` of a numpy dtype; ``None`` for a dtype the inference API has no member for."""
    return _OF_NUMPY.get(np.dtype(np_dtype))


def numpy_of_dtype(dtype):
    """The numpy dtype of a `DataType` member."""
    try:
        return np.dtype(_NUMPY[dtype])
    except KeyError:
        raise ValueError(f"DataType {dtype} has no numpy type here (supported: "
                         f"{[str(d) for d in _NUMPY]})") from None


def get_num_bytes_of_data_type(dtype):
    """Bytes per element of a `DataType` member (Paddle 3.3.1's binding answers -1 for FLOAT64, FLOAT16,
    BFLOAT16, INT8 and BOOL; this gives their real sizes)."""
    if not isinstance(dtype, PaddleDType):
        raise TypeError(f"get_num_bytes_of_data_type(): expected a paddle.inference.DataType member, got "
                        f"{type(dtype).__name__}")
    if dtype is PaddleDType.BFLOAT16:
        return 2
    return _NUMPY[dtype]().itemsize
