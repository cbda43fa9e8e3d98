"""``paddle.nn.loss``: every loss Layer (Paddle keeps this module path beside ``paddle.nn.layer.loss``;
its unit tests write ``paddle.nn.loss.MSELoss()``). The classes live in runtime/nn/layer/loss*.py."""
from .layer.loss import *  # noqa: F401,F403
from .layer.loss import __all__ as _plain
from .layer.loss_extra import *  # noqa: F401,F403
from .layer.loss_extra import __all__ as _extra
from .layer.loss_more import *  # noqa: F401,F403
from .layer.loss_more import __all__ as _more

__all__ = [*_plain, *_extra, *_more]
