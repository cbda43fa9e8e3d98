"""paddle.distributed on one process: rank 0 of 1, DataParallel passing through (state_dict keys without the
``_layers.`` prefix), fleet's collective entry points; collectives and multi-process calls raise as Paddle's
single process does. Paddle's answers: tests/interop/test_module_surface_interop.py."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.distributed as dist
from dy2st.distributed import fleet


def test_world_of_one(monkeypatch):
    monkeypatch.delenv("PADDLE_TRAINERS_NUM", raising=False)
    monkeypatch.delenv("PADDLE_TRAINER_ID", raising=False)
    assert dist.get_rank() == 0 and dist.get_world_size() == 1 and not dist.is_initialized()
    env = dist.ParallelEnv()
    assert (env.rank, env.world_size, env.nranks, env.local_rank, env.device_id) == (0, 1, 1, 0, 0)
    with pytest.warns(UserWarning, match="not a parallel execution environment"):
        assert dist.init_parallel_env() is None
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "4")
    assert dist.get_world_size() == 4
    with pytest.raises(RuntimeError, match="one process only"):
        dist.init_parallel_env()


@pytest.mark.parametrize("call", [lambda t: dist.all_reduce(t), lambda t: dist.barrier(),
                                  lambda t: dist.broadcast(t, 0), lambda t: dist.all_gather([], t),
                                  lambda t: dist.reduce(t, 0), lambda t: dist.scatter(t, [t], 0)])
def test_collectives_have_no_group(call):
    with pytest.raises(RuntimeError, match="The global group is not initialized"):
        call(paddle.ones([2]))


def test_spawn_refuses():
    with pytest.raises(RuntimeError, match="spawn"):
        dist.spawn(print, nprocs=2)


def test_data_parallel_passes_through():
    model = paddle.nn.Sequential(paddle.nn.Linear(2, 3), paddle.nn.Linear(3, 1))
    with pytest.warns(UserWarning, match="single-card"):
        dp = paddle.DataParallel(model)
    assert paddle.DataParallel is dist.DataParallel and dp._layers is model
    assert list(dp.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert [n for n, _ in dp.named_parameters()][0] == "_layers.0.weight"
    x = paddle.to_tensor(np.array([[1.0, 2.0]], "float32"))
    np.testing.assert_array_equal(dp(x).numpy(), model(x).numpy())
    dp(x).sum().backward()
    assert model[0].weight.grad is not None
    with dp.no_sync():
        assert dp.grad_need_sync is False
    assert dp.grad_need_sync is True and dp.scale_loss(x) is x
    dp.set_state_dict({k: paddle.zeros_like(v) for k, v in model.state_dict().items()})
    assert float(model[1].weight.abs().sum()) == 0.0


def test_fleet_collective_on_one_process():
    model = paddle.nn.Linear(2, 2)
    opt = paddle.optimizer.SGD(parameters=model.parameters())
    f = fleet.Fleet()
    with pytest.raises(RuntimeError, match="fleet.init"):
        f.distributed_model(model)
    with pytest.raises(NotImplementedError, match="parameter-server"):
        f.init()
    assert fleet.init(is_collective=True) is fleet.fleet
    assert fleet.distributed_model(model) is model and fleet.distributed_optimizer(opt) is opt
    assert (fleet.worker_index(), fleet.worker_num(), fleet.is_first_worker()) == (0, 1, True)
