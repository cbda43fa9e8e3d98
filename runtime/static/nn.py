"""``paddle.static.nn``: static-graph control flow (cond, while_loop, case, switch_case) and layers."""
from . import control_flow  # noqa: F401  (paddle.static.nn.control_flow.Assert)
from .control_flow import cond, while_loop, case, switch_case  # noqa: F401

__all__ = ["cond", "while_loop", "case", "switch_case", "fc"]
from .fc import fc  # noqa: F401,E402
