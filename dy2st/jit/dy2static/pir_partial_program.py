"""``paddle.jit.dy2static.pir_partial_program``: Paddle's PIR twin of `.partial_program`. Programs here
are legacy ProgramDescs, so ``partial_program_from`` is the same function (same checks, same runner)."""
from __future__ import annotations

from .partial_program import PartialProgram, partial_program_from  # noqa: F401

__all__ = ["partial_program_from", "PartialProgram"]
