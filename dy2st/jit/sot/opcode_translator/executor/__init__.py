"""``paddle.jit.sot.opcode_translator.executor``: see `dy2st.jit.sot` (SOT does not exist here)."""
from . import executor_cache  # noqa: F401
