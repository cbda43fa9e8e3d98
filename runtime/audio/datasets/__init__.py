"""paddle.audio.datasets: ESC-50 and TESS, read from Paddle's dataset cache (never downloaded)."""
from . import dataset, esc50, tess  # noqa: F401
from .esc50 import ESC50  # noqa: F401
from .tess import TESS  # noqa: F401

__all__ = ["ESC50", "TESS"]
