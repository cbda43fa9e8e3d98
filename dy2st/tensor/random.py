"""``paddle.tensor.random``: re-exports every tensor function (see _all.py for why not only this group)."""
from ._all import *  # noqa: F401,F403
from ._all import __all__  # noqa: F401
from runtime.api.random import gaussian  # noqa: F401,E402  (paddle.tensor.random.gaussian: not in paddle.tensor)
