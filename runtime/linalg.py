"""``paddle.linalg``: the linear-algebra namespace (the functions dy2st implements so far)."""
from .api.linalg import norm

__all__ = ["norm"]
