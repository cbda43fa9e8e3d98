"""``paddle.jit.sot.opcode_translator``: see `dy2st.jit.sot` (SOT does not exist here)."""
from . import executor  # noqa: F401
