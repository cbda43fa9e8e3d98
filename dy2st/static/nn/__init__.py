"""``paddle.static.nn``: static control flow (cond, while_loop, case, switch_case), ``fc``,
``py_func``, ``create_parameter``, the layer functions (conv2d, batch_norm, embedding ... in ``common``),
``static_pylayer`` and the LoD ``sequence_*`` functions; ``paddle.static.nn.control_flow`` holds Assert and the loops.

Every name of `runtime.static.nn` is re-exported (a function added there appears here)."""
from __future__ import annotations

from runtime.static import create_parameter, py_func  # noqa: F401
from runtime.static.nn import *  # noqa: F401,F403
from runtime.static.nn import __all__ as _impl_all

from . import control_flow  # noqa: F401,E402
from . import common, sequence_lod  # noqa: F401,E402
from .common import *  # noqa: F401,F403,E402
from .sequence_lod import *  # noqa: F401,F403,E402
from .static_pylayer import static_pylayer  # noqa: F401,E402
from .loss import nce  # noqa: F401,E402

__all__ = [*_impl_all, "py_func", "create_parameter", *common.__all__, *sequence_lod.__all__, "static_pylayer", "nce"]
