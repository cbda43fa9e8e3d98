"""``paddle.incubate.optimizer``: LookAhead, ModelAverage, the (deprecated) incubate LBFGS and the functional
minimisers."""
from . import functional  # noqa: F401
from .lookahead import LookAhead  # noqa: F401
from .modelaverage import ModelAverage  # noqa: F401
from ...optimizer.lbfgs import LBFGS  # noqa: F401  (Paddle's incubate LBFGS is paddle.optimizer.LBFGS's algorithm)

__all__ = ["LBFGS"]
