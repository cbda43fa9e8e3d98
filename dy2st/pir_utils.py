"""``paddle.pir_utils``: guards that switch Paddle between its legacy IR and PIR.

Programs here are always legacy ProgramDescs: the old-IR guards do what Paddle's do in that state
(``OldIrGuard`` runs its block in static mode; ``DygraphOldIrGuard`` changes nothing), and the PIR
guards raise NotImplementedError when entered.
"""
from __future__ import annotations

from runtime.framework import disable_static, enable_static, in_dynamic_mode

__all__ = ["IrGuard", "OldIrGuard", "DygraphPirGuard", "DygraphOldIrGuard"]


def _no_pir(what):
    raise NotImplementedError(f"paddle.pir_utils.{what}: PIR programs are not implemented in dy2st; static "
                              "Programs are legacy ProgramDescs (use paddle.pir_utils.OldIrGuard, or none)")


class IrGuard:
    """Switch to PIR for the block: raises NotImplementedError."""

    def __enter__(self):
        _no_pir("IrGuard")

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False


class DygraphPirGuard(IrGuard):
    """Switch eager mode's programs to PIR for the block: raises NotImplementedError."""

    def __enter__(self):
        _no_pir("DygraphPirGuard")


class OldIrGuard:
    """Run the block in static mode with legacy programs (the only kind here); eager mode comes back
    after the block if it was on before."""

    def __enter__(self):
        self.in_dygraph_outside = in_dynamic_mode()
        if self.in_dygraph_outside:
            enable_static()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self.in_dygraph_outside:
            disable_static()
        return False


class DygraphOldIrGuard:
    """Legacy programs for the block: what there always is here, so nothing changes."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False
