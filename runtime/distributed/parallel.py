"""The parallel environment of one process (``ParallelEnv``, ``get_rank``, ``init_parallel_env``) and
``DataParallel``, which on a world of one forwards to the wrapped layer as Paddle does."""
from __future__ import annotations

import contextlib
import os
import warnings

from ..framework import in_dynamic_mode
from ..nn.layer.layers import Layer

__all__ = ["ParallelEnv", "init_parallel_env", "get_rank", "get_world_size", "is_initialized", "is_available",
           "DataParallel", "spawn"]

_MULTI = ("dy2st runs training in one process only: {what} needs several processes, which are not supported. "
          "Run the script as one process (unset PADDLE_TRAINERS_NUM, do not use spawn or paddle.distributed.launch)")


class ParallelEnv:
    """The environment variables of a parallel run (``PADDLE_TRAINER_ID``, ``PADDLE_TRAINERS_NUM`` ...),
    with Paddle's defaults for a single process."""

    def __init__(self):
        self._rank = int(os.getenv("PADDLE_TRAINER_ID", "0"))
        self._world_size = int(os.getenv("PADDLE_TRAINERS_NUM", "1"))
        self._device_type = ""
        self._device_id = 0
        self._pg_timeout = int(os.getenv("PADDLE_PG_TIMEOUT", "1800000"))
        self._trainer_endpoints = os.getenv("PADDLE_TRAINER_ENDPOINTS", "").split(",")
        self._current_endpoint = os.getenv("PADDLE_CURRENT_ENDPOINT", "")
        self._nrings = int(os.getenv("FLAGS_nccl_nrings", "1"))
        if not 0 < self._nrings < 9:
            raise AssertionError(f"FLAGS_nccl_nrings must be an integer in [1, 8], got {self._nrings}")

    @property
    def rank(self):
        return self._rank

    @property
    def world_size(self):
        return self._world_size

    @property
    def device_id(self):
        return self._device_id

    @property
    def device_type(self):
        return self._device_type

    @property
    def current_endpoint(self):
        return self._current_endpoint

    @property
    def trainer_endpoints(self):
        return self._trainer_endpoints

    @property
    def nrings(self):
        return self._nrings

    @property
    def pg_timeout(self):
        return self._pg_timeout

    local_rank = rank
    nranks = world_size
    dev_id = device_id


def init_parallel_env(nccl_config=None):
    """Initialise the parallel environment. With one process (the only case here) there is nothing to do:
    warns as Paddle does and returns None."""
    env = ParallelEnv()
    if env.world_size < 2:
        warnings.warn("Currently not a parallel execution environment, `paddle.distributed.init_parallel_env` "
                      "will not do anything.")
        return None
    raise RuntimeError(_MULTI.format(what=f"init_parallel_env with PADDLE_TRAINERS_NUM={env.world_size}"))


def get_rank(group=None):
    """This process's rank: ``PADDLE_TRAINER_ID`` (0 by default)."""
    if group is not None:
        return group.rank
    return ParallelEnv().rank


def get_world_size(group=None):
    """The number of processes: ``PADDLE_TRAINERS_NUM`` (1 by default)."""
    if group is not None:
        return group.world_size
    return ParallelEnv().world_size


def is_initialized():
    """Whether a process group was created: never here (``init_parallel_env`` on one process creates none)."""
    return False


def is_available():
    return True


def spawn(func, args=(), nprocs=-1, join=True, daemon=False, **options):
    """Start ``nprocs`` training processes: not supported (raises RuntimeError). Call ``func(*args)`` directly."""
    raise RuntimeError(_MULTI.format(what="paddle.distributed.spawn") + "; call the training function directly")


class DataParallel(Layer):
    """Wrap ``layers`` for data-parallel training. On a world of one, forward, ``state_dict`` (keys without the
    ``_layers.`` prefix, as Paddle) and ``set_state_dict`` pass through to the wrapped layer."""

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        super().__init__(layers.full_name() + "_data_parallel")
        if not in_dynamic_mode():
            raise AssertionError("It's not supported to construct DataParallel in static graph mode.")
        self._layers = layers
        self.find_unused_parameters = find_unused_parameters
        self.grad_need_sync = True
        self.group = group
        nranks = strategy.nranks if strategy is not None and hasattr(strategy, "nranks") else get_world_size()
        if nranks > 1:
            raise RuntimeError(_MULTI.format(what=f"DataParallel over {nranks} ranks"))
        warnings.warn("The program will return to single-card operation. Please check 1, whether you use spawn or "
                      "fleetrun to start the program. 2, Whether it is a multi-card program. 3, Is the current "
                      "environment multi-card.")

    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Skip gradient synchronisation inside the block (there is none on one process)."""
        saved = self.grad_need_sync
        self.grad_need_sync = False
        try:
            yield
        finally:
            self.grad_need_sync = saved

    def scale_loss(self, loss):
        """Deprecated since Paddle 2.0: returns ``loss`` unchanged."""
        return loss

    def apply_collective_grads(self):
        """Deprecated since Paddle 2.0: does nothing."""
        return None

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="", **kwargs):
        return self._layers.state_dict(destination=destination, include_sublayers=include_sublayers,
                                       structured_name_prefix=structured_name_prefix, **kwargs)

    def set_state_dict(self, state_dict, use_structured_name=True):
        return self._layers.set_state_dict(state_dict, use_structured_name=use_structured_name)

    set_dict = set_state_dict
    load_dict = set_state_dict
