"""``paddle.static.nn``: static control flow (cond, while_loop, case, switch_case), ``fc``,
``py_func``, ``create_parameter``; ``paddle.static.nn.control_flow`` holds Assert and the loops.

Every name of `runtime.static.nn` is re-exported (a function added there appears here)."""
from __future__ import annotations

from runtime.static import create_parameter, py_func  # noqa: F401
from runtime.static.nn import *  # noqa: F401,F403
from runtime.static.nn import __all__ as _impl_all

from . import control_flow  # noqa: F401,E402

__all__ = [*_impl_all, "py_func", "create_parameter"]
