"""``paddle.jit.sot.utils``: see `dy2st.jit.sot` (SOT does not exist here)."""
from . import envs  # noqa: F401
