"""``paddle.tensor.to_string``: ``set_printoptions`` (how tensors print)."""
from runtime.tensor import set_printoptions  # noqa: F401

__all__ = ["set_printoptions"]
