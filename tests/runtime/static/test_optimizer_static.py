"""Optimizers in static mode: minimize() appends backward, clip/regularisation and in-place update ops;
static training matches eager training step for step."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
import runtime.static.layers_bridge  # noqa: F401  (parameter creator/initializer hooks)
from runtime.static.program import ROLE_OPTIMIZE


@pytest.fixture(autouse=True)
def eager_after():
    yield
    paddle.disable_static()


def _data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(16, 6)).astype(np.float32)
    y = rng.normal(size=(16, 2)).astype(np.float32)
    return x, y


def _mlp():
    return paddle.nn.Sequential(paddle.nn.Linear(6, 8), paddle.nn.Tanh(), paddle.nn.Linear(8, 2))


OPTIMIZERS = {
    "sgd": lambda params: paddle.optimizer.SGD(0.1, parameters=params),
    "adam": lambda params: paddle.optimizer.Adam(0.01, parameters=params),
    "momentum": lambda params: paddle.optimizer.Momentum(0.05, momentum=0.9, parameters=params,
                                                         weight_decay=paddle.regularizer.L2Decay(0.01)),
    "adamw": lambda params: paddle.optimizer.AdamW(0.01, parameters=params, weight_decay=0.05),
    "rmsprop": lambda params: paddle.optimizer.RMSProp(0.01, parameters=params, momentum=0.5, centered=True),
    "adagrad": lambda params: paddle.optimizer.Adagrad(0.1, parameters=params),
    "adam_clip_l2": lambda params: paddle.optimizer.Adam(0.05, parameters=params,
                                                         weight_decay=paddle.regularizer.L2Decay(0.02),
                                                         grad_clip=paddle.nn.ClipGradByGlobalNorm(0.5)),
    "sgd_clip_value": lambda params: paddle.optimizer.SGD(0.1, parameters=params,
                                                          grad_clip=paddle.nn.ClipGradByValue(0.05)),
    "sgd_clip_norm": lambda params: paddle.optimizer.SGD(0.1, parameters=params,
                                                         grad_clip=paddle.nn.ClipGradByNorm(0.1)),
}


def _eager_losses(make_opt, init, x, y, steps):
    paddle.disable_static()
    model = _mlp()
    for p, v in zip(model.parameters(), init):
        p.set_value(v)
    opt = make_opt(model.parameters())
    xs, ys = paddle.to_tensor(x), paddle.to_tensor(y)
    out = []
    for _ in range(steps):
        loss = paddle.mean((model(xs) - ys) ** 2)
        loss.backward()
        opt.step()
        opt.clear_grad()
        out.append(float(loss.item()))
    return out


def _static_program(make_opt, with_params):
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 6], "float32")
        y = static.data("y", [None, 2], "float32")
        model = _mlp()
        loss = paddle.mean((model(x) - y) ** 2)
        # (Layer.parameters() does not list static Parameters yet: take them from the program)
        opt = make_opt(main.all_parameters() if with_params else None)
        ops, params_grads = opt.minimize(loss)
    main.verify()
    startup.verify()
    return main, startup, model, loss, ops, params_grads


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_static_training_matches_eager(kind):
    x, y = _data()
    steps = 20
    main, startup, model, loss, ops, params_grads = _static_program(OPTIMIZERS[kind], with_params=True)
    scope = static.Scope()
    exe = static.Executor(static.CPUPlace())
    exe.run(startup, scope=scope)
    init = [np.array(scope.vars[p.name]) for p in main.all_parameters()]
    static_losses = [float(exe.run(main, feed={"x": x, "y": y}, fetch_list=[loss], scope=scope)[0])
                     for _ in range(steps)]
    paddle.disable_static()
    eager = _eager_losses(OPTIMIZERS[kind], init, x, y, steps)
    np.testing.assert_allclose(static_losses, eager, rtol=1e-5, atol=1e-7)
    assert static_losses[-1] < static_losses[0]


def test_minimize_appends_inplace_update_ops_and_startup_accumulators():
    main, startup, model, loss, ops, params_grads = _static_program(
        lambda params: paddle.optimizer.Adam(0.01), with_params=False)
    assert [op.type for op in ops].count("adam") == 4
    assert {p.name for p, _ in params_grads} == {p.name for p in main.all_parameters()}
    for p, g in params_grads:
        assert g.name == p.name + "@GRAD"
    adam_ops = [op for op in main.global_block().ops if op.type == "adam"]
    for op in adam_ops:
        assert op.role == ROLE_OPTIMIZE
        for slot in ("Param", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow"):
            assert op.output(slot + "Out") == op.input(slot)
        lr = main.global_block().var(op.input("LearningRate")[0])
        assert lr.persistable and lr.name.startswith("learning_rate_")
    gb, sgb = main.global_block(), startup.global_block()
    w = main.all_parameters()[0].name
    for acc in (f"{w}_moment1_", f"{w}_moment2_", f"{w}_beta1_pow_acc_", f"{w}_beta2_pow_acc_"):
        names = [n for n in gb.vars if n.startswith(acc)]
        assert len(names) == 1 and gb.vars[names[0]].persistable
        assert any(op.type == "fill_constant" and op.output("Out") == names[0:1] for op in sgb.ops)
    # the test clone drops backward and optimizer ops
    assert not any(op.type == "adam" or op.type.endswith("_grad") for op in main.clone(for_test=True)
                   .global_block().ops)


def test_learning_rate_multiplier_scales_the_rate():
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        lin = paddle.nn.Linear(3, 1, weight_attr=paddle.ParamAttr(learning_rate=0.5))
        loss = paddle.mean(lin(x))
        paddle.optimizer.SGD(0.2).minimize(loss)
    main.verify()
    exe = static.Executor()
    scope = static.Scope()
    exe.run(startup, scope=scope)
    w0 = np.array(scope.vars[lin.weight.name])
    b0 = np.array(scope.vars[lin.bias.name])
    xv = np.ones((2, 3), np.float32)
    exe.run(main, feed={"x": xv}, fetch_list=[loss], scope=scope)
    # d mean(x@w+b)/dw = mean of x rows = 1, d/db = 1
    np.testing.assert_allclose(scope.vars[lin.weight.name], w0 - 0.2 * 0.5, rtol=1e-6)
    np.testing.assert_allclose(scope.vars[lin.bias.name], b0 - 0.2, rtol=1e-6)


def test_step_in_static_mode_points_to_minimize():
    paddle.enable_static()
    with pytest.raises(NotImplementedError, match="minimize"):
        paddle.optimizer.SGD(0.1).step()
