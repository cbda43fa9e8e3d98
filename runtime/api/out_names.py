"""The ``name`` argument of Paddle's APIs: while building a static Program, the output Variable is
named ``<name>.tmp_N`` (Paddle's LayerHelper naming) instead of an anonymous ``tmp_N``."""
from __future__ import annotations

from .. import unique_name
from ..framework import state

__all__ = ["name_output"]


def name_output(out, name):
    """Rename the static output ``out`` after the user's ``name`` (eager tensors and ``name=None``
    are returned untouched)."""
    if name is None or not state.static or not hasattr(out, "block"):
        return out
    out.block._rename_var(out.name, unique_name.generate_with_ignorable_key(f"{name}.tmp"))
    return out
