"""``paddle.tensor.array``: tensor arrays (create_array, array_write, array_read, array_length)."""
from ._extra import array_length, array_read, array_write, create_array  # noqa: F401

__all__ = ["create_array", "array_write", "array_read", "array_length"]
