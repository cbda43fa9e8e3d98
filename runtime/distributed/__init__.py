"""``paddle.distributed`` for one process: rank 0 of a world of 1, ``DataParallel`` passing through, ``fleet``'s
collective entry points. Multi-process training (``spawn``, a world larger than one) raises a clear error.

Only the names single-process training scripts call unconditionally exist; the rest of Paddle's
``paddle.distributed`` (auto-parallel, sharding, parameter servers) is deliberately absent.
"""
from .parallel import (ParallelEnv, init_parallel_env, get_rank, get_world_size, is_initialized,  # noqa: F401
                       is_available, DataParallel, spawn)
from .collective import (ReduceOp, barrier, all_reduce, all_gather, all_gather_object, broadcast,  # noqa: F401
                         reduce, scatter, get_group)
from . import fleet  # noqa: F401,E402

__all__ = ["ParallelEnv", "init_parallel_env", "get_rank", "get_world_size", "is_initialized", "is_available",
           "DataParallel", "spawn", "ReduceOp", "barrier", "all_reduce", "all_gather", "all_gather_object",
           "broadcast", "reduce", "scatter", "get_group"]
