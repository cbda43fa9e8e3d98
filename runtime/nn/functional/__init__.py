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
from .sliding import *  # noqa: F401,F403
from .shuffle import *  # noqa: F401,F403
from .spatial import *  # noqa: F401,F403
from .volumetric import *  # noqa: F401,F403
from .similarity import *  # noqa: F401,F403
from .stochastic import *  # noqa: F401,F403
from .loss_extra import *  # noqa: F401,F403
from .unpool import *  # noqa: F401,F403
from .pooling_extra import *  # noqa: F401,F403
from .extension import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .nn_rest import *  # noqa: F401,F403  (fractional pools, rms_norm, swiglu, temporal_shift ...)
from .loss_sequence import *  # noqa: F401,F403  (ctc_loss, rnnt_loss)
from .loss_class import *  # noqa: F401,F403  (hsigmoid_loss, margin_cross_entropy, dice_loss, npair_loss ...)
