"""``paddle.static.nn.control_flow``: Assert, cond, while_loop, case, switch_case (static control flow)."""
from __future__ import annotations

from runtime.static.control_flow import Assert, Print, case, cond, switch_case, while_loop  # noqa: F401

__all__ = ["Assert", "Print", "cond", "while_loop", "case", "switch_case"]
