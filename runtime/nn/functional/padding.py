"""``paddle.nn.functional.zeropad2d``: zero padding of the last two dims of a 4-D input."""
from __future__ import annotations

from .vision import pad

__all__ = ["zeropad2d"]


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Pad with zeros: ``padding`` is [left, right, top, bottom] (or one int for all four)."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        padding = [padding] * 4
    return pad(x, pad=padding, mode="constant", value=0, data_format=data_format, name=name)
