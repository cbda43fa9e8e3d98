"""``paddle.tensor.attribute``: shape, rank, real / imag and the dtype queries."""
from ._all import imag, is_complex, real, shape  # noqa: F401
from ._extra import is_floating_point, is_integer, rank  # noqa: F401

__all__ = ["shape", "rank", "real", "imag", "is_complex", "is_integer", "is_floating_point"]
