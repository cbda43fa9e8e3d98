"""paddle.sparse.addmm: beta * input + alpha * (x @ y). Paddle 3.3.1 has this kernel on GPU only."""
from __future__ import annotations

from .binary import no_cpu_kernel

__all__ = ["addmm"]


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """Paddle's CPU build has no sparse addmm kernel: raises NotImplementedError, as Paddle does."""
    no_cpu_kernel("addmm", x)
