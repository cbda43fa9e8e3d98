"""``paddle.jit.marker``: decorators that tell to_static how to treat a function.

``not_to_static`` and ``unified(for_ast=True)`` make converted code call the function as it is;
``capture_control_flow`` is what AST conversion always does. ``force_dynamic`` and
``dynamic_dims`` steer Paddle's bytecode translator (SOT), which does not exist here: they raise.
"""
from __future__ import annotations

from ..api import not_to_static
from .sot import sot_unavailable

__all__ = ["not_to_static", "unified", "capture_control_flow", "force_dynamic", "dynamic_dims"]


def unified(fn=None, *, for_sot=True, for_ast=True):
    """Mark ``fn`` as already working in both dygraph and static mode: with ``for_ast`` (the default)
    converted code calls it unconverted, as ``not_to_static`` does. ``for_sot`` has no effect (no SOT)."""
    def mark(f):
        return not_to_static(f) if for_ast else f
    return mark if fn is None else mark(fn)


def capture_control_flow(fn=None):
    """Ask that ``fn``'s tensor control flow be staged: AST conversion always does, so ``fn`` is returned."""
    return (lambda f: f) if fn is None else fn


def force_dynamic(fn=None):
    """SOT's graph break marker: raises NotImplementedError (there is no SOT here)."""
    sot_unavailable("paddle.jit.marker.force_dynamic")


def dynamic_dims(tensor, dims):
    """SOT's dynamic-dimension marker: raises NotImplementedError (there is no SOT here; give unknown
    dims to to_static with ``input_spec=[InputSpec([None, ...])]``)."""
    sot_unavailable("paddle.jit.marker.dynamic_dims")
