"""``paddle.base.initializer``: the parameter initializers (the classes of ``paddle.nn.initializer``)."""
from runtime.nn.initializer import *  # noqa: F401,F403
from runtime.nn.initializer import __all__  # noqa: F401
