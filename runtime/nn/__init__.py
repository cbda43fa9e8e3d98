"""paddle.nn: Layer, containers, layers, functional, initializer, ParamAttr, gradient clipping."""
from . import functional  # noqa: F401
from . import initializer  # noqa: F401
from . import param_attr  # noqa: F401
from .layer import *  # noqa: F401,F403
from .layer.layers import Layer  # noqa: F401
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
from ..tensor import Parameter  # noqa: F401
from . import decode  # noqa: F401,E402  (BeamSearchDecoder, dynamic_decode)
from .decode import BeamSearchDecoder, dynamic_decode  # noqa: F401,E402
from . import loss  # noqa: F401,E402  (paddle.nn.loss: every loss Layer, Paddle's module path)
