"""``paddle.distributed.fleet`` for one process, collective mode: ``fleet.init(is_collective=True)``, then
``distributed_model`` / ``distributed_optimizer`` return the model and optimizer they are given (what Paddle's
fleet means for a world of one). The parameter-server mode is not supported."""
from __future__ import annotations

from ..parallel import get_rank, get_world_size

__all__ = ["Fleet", "init", "distributed_model", "distributed_optimizer", "worker_index", "worker_num",
           "is_first_worker"]


class Fleet:
    """The fleet of one collective worker."""

    def __init__(self):
        self._initialized = False
        self._strategy = None

    def init(self, role_maker=None, is_collective=False, strategy=None, log_level="INFO"):
        if not is_collective and role_maker is None:
            raise NotImplementedError("fleet.init: the parameter-server mode is not supported by dy2st; use "
                                      "fleet.init(is_collective=True) for single-process training")
        if get_world_size() > 1:
            raise RuntimeError("fleet.init: dy2st runs training in one process only, PADDLE_TRAINERS_NUM="
                               f"{get_world_size()} is not supported")
        self._initialized = True
        self._strategy = strategy
        return self

    def _check(self, where):
        if not self._initialized:
            raise RuntimeError(f"fleet.{where}: call fleet.init(is_collective=True) first")

    def distributed_model(self, model):
        self._check("distributed_model")
        if model is None:
            raise AssertionError("model should not be None")
        return model

    def distributed_optimizer(self, optimizer, strategy=None):
        self._check("distributed_optimizer")
        if strategy is not None:
            self._strategy = strategy
        return optimizer

    def worker_index(self):
        return get_rank()

    def worker_num(self):
        return get_world_size()

    def is_first_worker(self):
        return self.worker_index() == 0


fleet = Fleet()
init = fleet.init
distributed_model = fleet.distributed_model
distributed_optimizer = fleet.distributed_optimizer
worker_index = fleet.worker_index
worker_num = fleet.worker_num
is_first_worker = fleet.is_first_worker
