"""``paddle.tensor.math``: re-exports every tensor function (see _all.py for why not only this group)."""
from ._all import *  # noqa: F401,F403
from ._all import __all__  # noqa: F401
