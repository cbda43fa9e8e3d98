"""Every Paddle op type we implement, registered on import (one module per family)."""
from . import registry  # noqa: F401
from . import (elementwise, activation, math, reduce, search, logic, creation, random,  # noqa: F401
               shape, indexing, conv, pool, interp, norm, nn_misc, loss, optimizer_ops, control_flow)
from . import linalg, linalg_decomp  # noqa: F401
from . import complex, fft  # noqa: F401
from . import fused  # noqa: F401  (ops the static graph passes create)
from . import activation_extra  # noqa: F401  (selu, celu, shrinks, mish, logsigmoid, prelu, maxout, bmm ...)
