"""``paddle.base.dygraph``: ``to_variable``, ``guard`` and the dygraph-mode switches (see `.base`)."""
from __future__ import annotations

from . import base  # noqa: F401
from .base import (disable_dygraph, enable_dygraph, enabled, grad, guard, no_grad, no_grad_,  # noqa: F401
                   to_variable)

__all__ = ["to_variable", "guard", "enabled", "enable_dygraph", "disable_dygraph", "no_grad", "no_grad_", "grad"]
