"""``paddle.nn.functional.gather_tree``: full beam-search paths from step ids and parent beams."""
from __future__ import annotations

from ...dispatch import run_op

__all__ = ["gather_tree"]


def gather_tree(ids, parents):
    """Backtrack ``parents`` ([length, batch, beam]) from the last step to gather each beam's ids."""
    if len(ids.shape) != 3:
        raise ValueError(f"gather_tree: ids must be a 3-D tensor [length, batch_size, beam_size], got shape "
                         f"{list(ids.shape)}")
    if len(ids.shape) != len(parents.shape):
        raise ValueError(f"gather_tree: parents must have ids' shape {list(ids.shape)}, got {list(parents.shape)}")
    for what, t in (("ids", ids), ("parents", parents)):
        if str(t.dtype).replace("paddle.", "") not in ("int32", "int64"):
            raise TypeError(f"gather_tree: {what} must be int32 or int64, got {t.dtype}")
    return run_op("gather_tree", ids, parents)
