"""``paddle.framework.dtype``: the dtype class and objects (``paddle.float32`` ...)."""
from runtime.dtype import (DType as dtype, bool_ as bool, complex64, complex128, float16, float32,  # noqa: F401,A004
                           float64, int8, int16, int32, int64, uint8)

__all__ = ["dtype", "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
           "complex128"]
