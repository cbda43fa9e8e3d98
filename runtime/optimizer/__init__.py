"""paddle.optimizer: SGD, Momentum, Adam, AdamW, RMSProp, Adagrad and learning-rate schedulers (``lr``)."""
from . import lr  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .momentum import Momentum  # noqa: F401
from .adam import Adam  # noqa: F401
from .adamw import AdamW  # noqa: F401
from .rmsprop import RMSProp  # noqa: F401
from .adagrad import Adagrad  # noqa: F401

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "RMSProp", "Adagrad", "lr"]
