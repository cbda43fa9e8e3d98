"""``fused_dropout_add(x, y)`` = ``dropout(x) + y``: Paddle 3.3.1 itself falls back to the two unfused ops (with a
one-time warning about the fused kernel's precision), so this is the same composite, with gradients."""
from __future__ import annotations

import warnings

__all__ = ["fused_dropout_add"]

_warned = [False]


def fused_dropout_add(x, y, p=0.5, training=True, mode="upscale_in_train", name=None):
    """``dropout(x, p, training, mode) + y``."""
    from ....nn.functional.common import dropout
    if not _warned[0]:
        _warned[0] = True
        warnings.warn("Currently, fused_dropout_add maybe has precision problem, so it falls back to dropout + add. ")
    return dropout(x, p, training=training, mode=mode) + y
