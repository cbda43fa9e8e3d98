"""``paddle.base.data_feeder``: dtype naming and the argument checks Paddle's layers call.

``convert_dtype`` returns Paddle's string name ('float32', 'int64', ...) for a Paddle dtype,
numpy dtype or string; the ``check_*`` helpers raise TypeError with Paddle's wording when an
argument has the wrong type or dtype.
"""
from __future__ import annotations

from runtime.dtype import convert_dtype as _to_dtype
from runtime.static import Variable
from runtime.tensor import Tensor

__all__ = ["convert_dtype", "check_type", "check_dtype", "check_variable_and_dtype"]


def convert_dtype(dtype):
    """The dtype's name as a string, e.g. ``convert_dtype(paddle.float32) == 'float32'``."""
    return _to_dtype(dtype).name


def check_type(input, input_name, expected_type, op_name, extra_message=""):
    """TypeError unless ``input`` is an instance of ``expected_type`` (a type or tuple of types)."""
    if not isinstance(input, expected_type):
        raise TypeError(f"The type of '{input_name}' in {op_name} must be {expected_type}, but received "
                        f"{type(input)}. {extra_message}")


def check_dtype(input_dtype, input_name, expected_dtype, op_name, extra_message=""):
    """TypeError unless the dtype's name is one of ``expected_dtype`` (a name or list of names)."""
    expected = [expected_dtype] if isinstance(expected_dtype, str) else list(expected_dtype)
    name = convert_dtype(input_dtype)
    if name not in expected:
        raise TypeError(f"The data type of '{input_name}' in {op_name} must be {expected}, but received "
                        f"{name}. {extra_message}")


def check_variable_and_dtype(input, input_name, expected_dtype, op_name, extra_message=""):
    """check_type (a Tensor, eager or static) then check_dtype."""
    check_type(input, input_name, (Tensor, Variable), op_name, extra_message)
    check_dtype(input.dtype, input_name, expected_dtype, op_name, extra_message)
