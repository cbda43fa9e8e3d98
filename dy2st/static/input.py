"""``paddle.static.input``: InputSpec, ``data`` (a feed Variable) and ``setitem``."""
from __future__ import annotations

from runtime.static import InputSpec, data, setitem  # noqa: F401

__all__ = ["InputSpec", "data", "setitem"]
