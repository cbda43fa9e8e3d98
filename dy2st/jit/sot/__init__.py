"""``paddle.jit.sot``: Paddle's bytecode-level translator (SOT). It does not exist in dy2st.

to_static here always converts from source (Paddle's AST mode). These modules exist so that code
importing SOT helpers, as Paddle's own dy2st test utilities do, imports; every helper that would
need SOT raises NotImplementedError naming itself.
"""
from __future__ import annotations

from . import opcode_translator, utils  # noqa: F401

__all__ = ["sot_unavailable"]


def sot_unavailable(what):
    """Raise the error for a use of SOT."""
    raise NotImplementedError(f"{what}: Paddle's bytecode translator (SOT) is not implemented in dy2st; "
                              "to_static converts functions from their source (Paddle's AST mode) only")
