"""``paddle.base.compiler``: ``CompiledProgram`` and ``BuildStrategy`` (the same classes as ``paddle.static``'s)."""
from ..static.compiler import BuildStrategy, CompiledProgram  # noqa: F401

__all__ = ["BuildStrategy", "CompiledProgram"]
