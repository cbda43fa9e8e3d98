"""ASGD, Adadelta, Adamax, Lamb, LBFGS, NAdam, RAdam, Rprop: static ``minimize`` training equal to eager
training step for step, state_dict round trips and argument errors. (Values against real Paddle:
tests/interop/test_optimizer_interop.py; op schemas: tests/runtime/ops/test_schema_extra.py.)"""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
import runtime.static.layers_bridge  # noqa: F401  (parameter creator/initializer hooks)


@pytest.fixture(autouse=True)
def eager_after():
    yield
    paddle.disable_static()


# -- static minimize == eager step -------------------------------------------------------------

OPTIMIZERS = {
    "adadelta": lambda ps: paddle.optimizer.Adadelta(1.0, rho=0.9, parameters=ps),
    "adamax": lambda ps: paddle.optimizer.Adamax(0.02, parameters=ps, weight_decay=0.01),
    "lamb": lambda ps: paddle.optimizer.Lamb(0.02, parameters=ps, grad_clip=paddle.nn.ClipGradByGlobalNorm(0.5)),
    "nadam": lambda ps: paddle.optimizer.NAdam(0.02, parameters=ps,
                                               weight_decay=paddle.regularizer.L2Decay(0.01)),
    "radam": lambda ps: paddle.optimizer.RAdam(0.05, beta2=0.9, parameters=ps),
    "rprop": lambda ps: paddle.optimizer.Rprop(0.01, parameters=ps, etas=(0.4, 1.3)),
    "asgd": lambda ps: paddle.optimizer.ASGD(0.05, batch_num=3, parameters=ps, weight_decay=0.01),
}


def _data():
    rng = np.random.default_rng(5)
    return rng.normal(size=(8, 5)).astype(np.float32), rng.normal(size=(8, 2)).astype(np.float32)


def _mlp():
    return paddle.nn.Sequential(paddle.nn.Linear(5, 6), paddle.nn.Tanh(), paddle.nn.Linear(6, 2))


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_static_minimize_matches_eager(kind):
    x, y = _data()
    steps = 8
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        xv, yv = static.data("x", [None, 5], "float32"), static.data("y", [None, 2], "float32")
        loss = paddle.mean((_mlp()(xv) - yv) ** 2)
        ops, _ = OPTIMIZERS[kind](main.all_parameters()).minimize(loss)
    main.verify()
    assert kind in [op.type for op in ops]
    for op in main.global_block().ops:
        if op.type == kind:   # the update writes its state inputs in place
            from runtime.ops.registry import lookup
            for out_slot, in_slot in lookup(kind).inplace.items():
                if op.outputs.get(out_slot):
                    assert op.outputs[out_slot] == op.inputs[in_slot]
    scope = static.Scope()
    exe = static.Executor(static.CPUPlace())
    exe.run(startup, scope=scope)
    init = [np.array(scope.vars[p.name]) for p in main.all_parameters()]
    static_losses = [float(exe.run(main, feed={"x": x, "y": y}, fetch_list=[loss], scope=scope)[0])
                     for _ in range(steps)]
    paddle.disable_static()
    model = _mlp()
    for p, v in zip(model.parameters(), init):
        p.set_value(v)
    opt = OPTIMIZERS[kind](model.parameters())
    eager = []
    for _ in range(steps):
        loss = paddle.mean((model(paddle.to_tensor(x)) - paddle.to_tensor(y)) ** 2)
        loss.backward()
        opt.step()
        opt.clear_grad()
        eager.append(float(loss.item()))
    np.testing.assert_allclose(static_losses, eager, rtol=1e-5, atol=1e-7)
    assert static_losses[-1] < static_losses[0]


def test_lbfgs_static_minimize_raises():
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        loss = paddle.mean(_mlp()(static.data("x", [None, 5], "float32")))
        with pytest.raises(NotImplementedError, match="LBFGS"):
            paddle.optimizer.LBFGS(parameters=main.all_parameters()).minimize(loss)


# -- eager behaviour ------------------------------------------------------------------------------

def _train(opt, model, steps, x, y):
    for _ in range(steps):
        paddle.mean((model(paddle.to_tensor(x)) - paddle.to_tensor(y)) ** 2).backward()
        opt.step()
        opt.clear_grad()


@pytest.mark.parametrize("kind", ["asgd", "adadelta", "adamax", "lamb", "nadam", "radam", "rprop"])
def test_state_dict_round_trip_continues_identically(kind):
    make = dict(OPTIMIZERS, asgd=lambda ps: paddle.optimizer.ASGD(0.05, batch_num=3, parameters=ps))[kind]
    x, y = _data()
    a = _mlp()
    b = _mlp()
    b.set_state_dict(a.state_dict())
    opt_a = make(a.parameters())
    _train(opt_a, a, 4, x, y)
    b.set_state_dict(a.state_dict())
    opt_b = make(b.parameters())
    # b's parameters have other names: the state is matched by accumulator kind, as Paddle's loader does
    state = {k: v.numpy().copy() for k, v in opt_a.state_dict().items()}   # as if saved to a file
    renamed = {}
    for pa, pb in zip(a.parameters(), b.parameters()):
        for k, v in state.items():
            if k.startswith(pa.name + "_"):
                renamed[pb.name + k[len(pa.name):]] = v
    opt_b.set_state_dict(renamed)
    _train(opt_a, a, 3, x, y)
    _train(opt_b, b, 3, x, y)
    for pa, pb in zip(a.parameters(), b.parameters()):
        np.testing.assert_array_equal(pa.numpy(), pb.numpy())


def test_asgd_state_shapes_and_counter():
    model = _mlp()
    opt = paddle.optimizer.ASGD(0.1, batch_num=4, parameters=model.parameters())
    x, y = _data()
    _train(opt, model, 6, x, y)
    sd = opt.state_dict()
    w = model.parameters()[0]
    assert list(sd[f"{w.name}_y_0"].shape) == [4, *w.shape]
    assert sd[f"{w.name}_m_0"].numpy().tolist() == [6] and sd[f"{w.name}_m_0"].numpy().dtype == np.int64


def test_lbfgs_minimises_a_quadratic_and_keeps_state():
    target = np.array([1.0, -2.0, 0.5])
    p = paddle.create_parameter([3], "float64")
    p.set_value(np.zeros(3))
    opt = paddle.optimizer.LBFGS(learning_rate=1.0, max_iter=20, line_search_fn="strong_wolfe", parameters=[p])

    def closure():
        opt.clear_grad()
        loss = ((p - paddle.to_tensor(target)) ** 2 * paddle.to_tensor([1.0, 3.0, 10.0])).sum()
        loss.backward()
        return loss
    first = opt.step(closure)
    assert float(first) > 1.0
    np.testing.assert_allclose(p.numpy(), target, atol=1e-6)
    st = opt.state_dict()["state"]
    assert st["func_evals"] >= 2 and st["n_iter"] >= 1
    p.set_value(np.zeros(3))
    with pytest.raises(RuntimeError, match="strong_wolfe"):
        paddle.optimizer.LBFGS(line_search_fn="backtracking", parameters=[p]).step(closure)


@pytest.mark.parametrize("make, error, match", [
    (lambda ps: paddle.optimizer.ASGD(0.1, batch_num=0, parameters=ps), ValueError, "batch_num"),
    (lambda ps: paddle.optimizer.Adamax(0.1, beta2=1.0, parameters=ps), ValueError, "beta2"),
    (lambda ps: paddle.optimizer.NAdam(0.1, momentum_decay=-1.0, parameters=ps), ValueError, "momentum_decay"),
    (lambda ps: paddle.optimizer.RAdam(-0.1, parameters=ps), ValueError, "learning rate"),
    (lambda ps: paddle.optimizer.Rprop(0.1, learning_rate_range=(1e-3, 0.05), parameters=ps), ValueError,
     "learning_rate_range"),
    (lambda ps: paddle.optimizer.Adadelta(0.1, epsilon=None, parameters=ps), ValueError, "epsilon"),
    (lambda ps: paddle.optimizer.Lamb(0.1, exclude_from_weight_decay_fn=3, parameters=ps), TypeError, "function"),
    (lambda ps: paddle.optimizer.NAdam(0.1), AttributeError, "parameters"),
])
def test_argument_errors(make, error, match):
    with pytest.raises(error, match=match):
        make(_mlp().parameters())


@pytest.mark.parametrize("make", [
    lambda ps: paddle.optimizer.Lamb(0.1, parameters=ps, multi_precision=True),
    lambda ps: paddle.optimizer.ASGD(0.1, parameters=ps, multi_precision=True),
    lambda ps: paddle.optimizer.Rprop(0.01, parameters=ps, multi_precision=True),
])
def test_multi_precision_with_float16_parameters_is_refused(make):
    p = paddle.create_parameter([2, 2], "float16")
    p.grad = paddle.ones([2, 2], "float16")
    opt = make([p])
    with pytest.raises(NotImplementedError, match="master weights"):
        opt.step()
    q = paddle.create_parameter([2], "float32")
    q.grad = paddle.ones([2], "float32")
    make([q]).step()      # float32 parameters: the flag changes nothing, as in Paddle
