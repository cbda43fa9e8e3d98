"""paddle.nn layers: the Layer base class, containers and the built-in layers."""
from .layers import Layer  # noqa: F401
from .container import Sequential, LayerList, LayerDict, ParameterList  # noqa: F401
from .common import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .vision_extra import *  # noqa: F401,F403
from .stochastic import *  # noqa: F401,F403
from .loss_extra import *  # noqa: F401,F403
from .pooling_extra import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from . import common, conv, pooling, norm, activation, loss, rnn, transformer  # noqa: F401
from . import vision_extra, stochastic, loss_extra, pooling_extra, padding  # noqa: F401

__all__ = (["Layer", "Sequential", "LayerList", "LayerDict", "ParameterList"] + common.__all__ + conv.__all__
           + pooling.__all__ + norm.__all__ + activation.__all__ + loss.__all__ + rnn.__all__
           + transformer.__all__)
__all__ += (vision_extra.__all__ + stochastic.__all__ + loss_extra.__all__ + pooling_extra.__all__
            + padding.__all__)
from .nn_rest import *  # noqa: F401,F403,E402  (FractionalMaxPool2D/3D, SpectralNorm, torch-style names)
from . import nn_rest  # noqa: F401,E402
__all__ += nn_rest.__all__
from .loss_more import *  # noqa: F401,F403,E402  (CTCLoss, RNNTLoss, HSigmoidLoss, AdaptiveLogSoftmaxWithLoss)
from . import loss_more  # noqa: F401,E402
__all__ += loss_more.__all__
