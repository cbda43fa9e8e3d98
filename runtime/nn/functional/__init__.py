"""paddle.nn.functional: activations, common ops (linear, dropout ...), embedding/one_hot,
normalisation, losses, and convolution / pooling / vision ops."""
from .activation import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .input import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403
