"""Collective communication (``all_reduce``, ``broadcast`` ...). Paddle creates no process group for a single
process, so each collective raises ``RuntimeError: The global group is not initialized.`` there, as here."""
from __future__ import annotations

__all__ = ["ReduceOp", "barrier", "all_reduce", "all_gather", "all_gather_object", "broadcast", "reduce", "scatter",
           "get_group"]


class ReduceOp:
    """The reductions of `all_reduce` / `reduce` (Paddle's integer codes)."""
    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


def _no_group(where):
    return RuntimeError(f"The global group is not initialized. ({where}: dy2st runs one process and creates no "
                        "process group; with a world of one, skip the collective, e.g. "
                        "`if paddle.distributed.get_world_size() > 1:`)")


def barrier(group=None):
    raise _no_group("barrier")


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True):
    raise _no_group("all_reduce")


def all_gather(tensor_list, tensor, group=None, sync_op=True):
    raise _no_group("all_gather")


def all_gather_object(object_list, obj, group=None):
    raise _no_group("all_gather_object")


def broadcast(tensor, src, group=None, sync_op=True):
    raise _no_group("broadcast")


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, sync_op=True):
    raise _no_group("reduce")


def scatter(tensor, tensor_list=None, src=0, group=None, sync_op=True):
    raise _no_group("scatter")


def get_group(id=0):
    """The process group with ``id``: None, no group exists on one process (as Paddle answers)."""
    return None
