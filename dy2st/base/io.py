"""``paddle.base.io``: the legacy ``DataLoader`` (``DataLoader.from_generator``) of `.reader`."""
from __future__ import annotations

from . import reader  # noqa: F401
from .reader import DataLoader  # noqa: F401

__all__ = ["DataLoader"]
