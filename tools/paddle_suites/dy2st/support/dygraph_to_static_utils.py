from d2s_harness_utils import *  # noqa: F401,F403
from d2s_harness_utils import __getattr__  # noqa: F401
