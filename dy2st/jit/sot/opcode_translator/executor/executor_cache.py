"""``paddle.jit.sot.opcode_translator.executor.executor_cache``: SOT's code cache, which does not
exist here (see `dy2st.jit.sot`): creating an ``OpcodeExecutorCache`` raises."""
from __future__ import annotations

__all__ = ["OpcodeExecutorCache"]


class OpcodeExecutorCache:
    """SOT's cache of translated bytecode; raises NotImplementedError when created."""

    def __init__(self, *args, **kwargs):
        from ... import sot_unavailable
        sot_unavailable("paddle.jit.sot.opcode_translator.executor.executor_cache.OpcodeExecutorCache")
