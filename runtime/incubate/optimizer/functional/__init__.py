"""``paddle.incubate.optimizer.functional``: BFGS and L-BFGS minimisation of a function of a 1-D tensor."""
from .bfgs import minimize_bfgs  # noqa: F401
from .lbfgs import minimize_lbfgs  # noqa: F401

__all__ = ["minimize_bfgs", "minimize_lbfgs"]
