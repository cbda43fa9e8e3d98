"""``paddle._C_ops``: Paddle's generated op functions with their positional signatures (runtime.c_ops)."""
from runtime.c_ops import *  # noqa: F401,F403
from runtime.c_ops import __all__, __getattr__  # noqa: F401
