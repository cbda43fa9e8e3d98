"""``paddle.tensor.einsum``: ``einsum``."""
from ._all import einsum  # noqa: F401

__all__ = ["einsum"]
