"""Central finite differences in float64 for the incubate tests."""
import numpy as np


def numeric_grad(f, x, eps=1e-6):
    """d sum(f(x) * w) / dx for a numpy function ``f`` (``w`` folded into ``f`` by the caller)."""
    x = np.array(x, dtype=np.float64)
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (f(xp) - f(xm)) / (2 * eps)
    return g
