"""Static autograd (runtime/static/backward.py): append_backward and gradients."""
import numpy as np
import pytest

import runtime
from runtime import static
from runtime.dispatch import run_op
from runtime.framework import state
from runtime.static.backward import append_backward, gradients
from runtime.static.program import ROLE_BACKWARD, ROLE_OPTIMIZE, op_role_guard
from runtime.tensor import Tensor


@pytest.fixture(autouse=True)
def static_mode():
    runtime.enable_static()
    try:
        yield
    finally:
        runtime.disable_static()


def _param(main, name, value):
    return main.global_block().create_parameter(name, list(value.shape), str(value.dtype))


def _run(main, feed, fetch, scope=None):
    main.verify()
    return static.Executor().run(main, feed=feed, fetch_list=fetch, scope=scope or static.Scope())


def test_append_backward_names_roles_and_values():
    rng = np.random.default_rng(1)
    xv, wv = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2, 3], "float64")
        w = _param(main, "w", wv)
        h = run_op("matmul_v2", x, w)
        loss = run_op("reduce_sum", run_op("tanh", h) * h, reduce_all=True)
        n_fwd = len(main.global_block().ops)
        pairs = append_backward(loss)
    assert [(p.name, g.name) for p, g in pairs] == [("w", "w@GRAD")]
    ops = main.global_block().ops
    assert all(op.role == ROLE_BACKWARD for op in ops[n_fwd:])
    first = ops[n_fwd]
    assert first.type == "fill_constant" and first.output("Out") == [loss.name + "@GRAD"]
    assert first.attr("value") == 1.0 and first.attr("shape") == []
    # h is read by tanh and by the product: its two contributions are summed into h@GRAD
    sums = [op for op in ops if op.type == "sum"]
    assert len(sums) == 1 and sums[0].output("Out") == [h.name + "@GRAD"]
    assert "x@GRAD" not in main.global_block().vars   # data is stop_gradient by default
    # x needs no gradient: the matmul grad op leaves its X@GRAD slot empty, as Paddle does
    mg, = [op for op in ops if op.type == "matmul_v2_grad"]
    assert mg.output("X@GRAD") == [] and mg.output("Y@GRAD") == ["w@GRAD"]
    scope = static.Scope()
    scope.vars["w"] = wv
    got, = _run(main, {"x": xv}, ["w@GRAD"], scope)
    hv = xv @ wv
    dh = np.tanh(hv) + hv * (1 - np.tanh(hv) ** 2)
    np.testing.assert_allclose(got, xv.T @ dh, rtol=1e-12)


def test_elementwise_rules_use_fast_grad_ops():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        y = static.data("y", [3], "float64")
        y.stop_gradient = False
        assert state.grad_enabled
        loss = run_op("reduce_sum", x * y / (x + y) - y, reduce_all=True)
        gx, gy = gradients(loss, [x, y])
    types = {op.type for op in main.global_block().ops}
    assert {"elementwise_mul_grad", "elementwise_div_grad", "elementwise_add_grad",
            "elementwise_sub_grad"} <= types
    xv, yv = np.array([1.0, 2.0, 3.0]), np.array([0.5, 4.0, 1.5])
    a, b = _run(main, {"x": xv, "y": yv}, [gx, gy])
    np.testing.assert_allclose(a, yv ** 2 / (xv + yv) ** 2, rtol=1e-12)
    np.testing.assert_allclose(b, xv ** 2 / (xv + yv) ** 2 - 1, rtol=1e-12)
    assert state.static   # restored to what it was (static on)


def test_stop_gradient_no_grad_set_and_unused_inputs():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        z = static.data("z", [2], "float64")
        z.stop_gradient = False
        unused = static.data("u", [2], "float64")
        unused.stop_gradient = False
        c = static.data("c", [2], "float64")      # stop_gradient=True
        a = x * c
        b = run_op("exp", z)
        loss = run_op("reduce_sum", a + b, reduce_all=True)
        gx, gz, gu, gc = gradients(loss, [x, z, unused, c], no_grad_set={b.name})
    assert gz is None and gu is None and gc is None   # z only reaches the loss through b
    assert not any(op.type == "exp_grad" for op in main.global_block().ops)
    got, = _run(main, {"x": np.ones(2), "z": np.ones(2), "u": np.ones(2), "c": np.array([2.0, 3.0])}, [gx])
    np.testing.assert_allclose(got, [2.0, 3.0])


def test_gradients_with_target_gradients_and_dynamic_shape():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [-1, 2], "float64")
        x.stop_gradient = False
        y = run_op("elementwise_pow", x, np.array(3.0))
        dy = static.data("dy", [-1, 2], "float64")
        g, = gradients([y], [x], target_gradients=[dy])
        g2, = gradients(y, x)   # no target gradient: ones (fill_any_like, the shape is dynamic)
    xv, dyv = np.array([[1.0, 2.0], [-1.0, 0.5]]), np.array([[1.0, -1.0], [2.0, 3.0]])
    a, b = _run(main, {"x": xv, "dy": dyv}, [g, g2])
    np.testing.assert_allclose(a, 3 * xv ** 2 * dyv, rtol=1e-12)
    np.testing.assert_allclose(b, 3 * xv ** 2, rtol=1e-12)
    assert g.name == "x@GRAD" and g2.name != g.name and g2.name.startswith("x@GRAD")
    with pytest.raises(ValueError, match="target_gradients has 2 entries"):
        gradients([y], [x], target_gradients=[dy, dy])


def test_shared_gradient_variable_is_copied_not_renamed(monkeypatch):
    # a rule that passes the incoming gradient on unchanged: y@GRAD must keep its name and
    # x@GRAD gets a copy
    from runtime.ops.registry import lookup
    monkeypatch.setattr(lookup("assign"), "grad", lambda ctx, dout: [dout])
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        y = run_op("assign", x)
        loss = run_op("reduce_sum", y, reduce_all=True)
        gx, gy = gradients(loss, [x, y])
        # a user-given target gradient is copied too, never renamed
        dz = static.data("dz", [3], "float64")
        z = run_op("scale", x, scale=2.0)
        gz, gx2 = gradients([z], [z, x], target_gradients=[dz])
    assert gx.name == "x@GRAD" and gy.name == y.name + "@GRAD"
    assert dz.name == "dz" and gz.name == z.name + "@GRAD"
    a, b, c, d = _run(main, {"x": np.array([1.0, 2.0, 3.0]), "dz": np.array([1.0, -1.0, 0.5])},
                      [gx, gy, gz, gx2])
    np.testing.assert_allclose(a, np.ones(3))
    np.testing.assert_allclose(b, np.ones(3))
    np.testing.assert_allclose(c, [1.0, -1.0, 0.5])
    np.testing.assert_allclose(d, [2.0, -2.0, 1.0])


def test_ops_without_grad_rule_are_skipped_and_callbacks_run():
    main = static.Program()
    calls = []
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2, 3], "float64")
        x.stop_gradient = False
        w = _param(main, "w2", np.zeros((3,)))
        idx = run_op("arg_max", x, axis=1, dtype=3)     # integer output: no gradient flows through
        loss = run_op("reduce_sum", run_op("elementwise_mul", x, w), reduce_all=True) + \
            run_op("reduce_sum", run_op("cast", idx, in_dtype=3, out_dtype=6), reduce_all=True)
        pairs = append_backward(loss, parameter_list=["w2"], callbacks=lambda block, ctx: calls.append(ctx))
    assert [p.name for p, _ in pairs] == ["w2"]
    assert calls and not any(op.type.startswith("arg_max") and op.role == ROLE_BACKWARD
                             for op in main.global_block().ops)
    scope = static.Scope()
    scope.vars["w2"] = np.zeros(3)
    xv = np.arange(6.0).reshape(2, 3)
    gw, gx = _run(main, {"x": xv}, ["w2@GRAD", "x@GRAD"], scope)
    np.testing.assert_allclose(gw, xv.sum(0))
    np.testing.assert_allclose(gx, np.zeros((2, 3)))


def test_bad_arguments():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float64")
        with pytest.raises(TypeError, match="loss must be a static Variable"):
            append_backward(np.ones(2))
        with pytest.raises(TypeError, match="inputs\\[0\\] must be a static Variable"):
            gradients(x, [3.0])
        with pytest.raises(TypeError, match="parameter_list entries must be Variables or names"):
            append_backward(x, parameter_list=[3])
        assert append_backward(x, parameter_list=["nope"]) == []   # not in the program: no gradient


def _mlp(x, y, w1, b1, w2, b2):
    h = run_op("relu", run_op("elementwise_add", run_op("matmul_v2", x, w1), b1))
    out = run_op("elementwise_add", run_op("matmul_v2", h, w2), b2)
    d = out - y
    return run_op("reduce_mean", d * d, reduce_all=True)


def test_mlp_static_sgd_matches_eager():
    rng = np.random.default_rng(7)
    xv = rng.standard_normal((8, 4)).astype("float32")
    yv = rng.standard_normal((8, 1)).astype("float32")
    init = {"w1": rng.standard_normal((4, 6)).astype("float32") * 0.5,
            "b1": np.full((6,), 0.1, "float32"),
            "w2": rng.standard_normal((6, 1)).astype("float32") * 0.5,
            "b2": np.zeros((1,), "float32")}
    lr = 0.1

    # static: append_backward, then sgd ops for w1/b1 and a hand-written update for w2/b2
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [-1, 4], "float32")
        y = static.data("y", [-1, 1], "float32")
        params = {k: _param(main, k, v) for k, v in init.items()}
        loss = _mlp(x, y, *params.values())
        pairs = append_backward(loss)
        assert sorted(p.name for p, _ in pairs) == sorted(init)
        blk = main.global_block()
        with op_role_guard(main, ROLE_OPTIMIZE):
            lr_var = run_op("fill_constant", shape=[1], value=lr, dtype=5, str_value=str(lr))
            for p, g in pairs:
                if p.name in ("w1", "b1"):
                    blk.append_op("sgd", inputs={"Param": p, "LearningRate": lr_var, "Grad": g},
                                  outputs={"ParamOut": p})
                else:
                    new = p - run_op("scale", g, scale=lr)
                    blk.append_op("assign", inputs={"X": new}, outputs={"Out": p})
    scope = static.Scope()
    for k, v in init.items():
        scope.vars[k] = v.copy()
    main.verify()
    exe = static.Executor()
    static_losses = [float(exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss], scope=scope)[0])
                     for _ in range(5)]

    # eager: the same model and update rule
    runtime.disable_static()
    try:
        ps = {k: Tensor(v.copy(), stop_gradient=False) for k, v in init.items()}
        eager_losses = []
        for _ in range(5):
            loss_t = _mlp(Tensor(xv), Tensor(yv), *ps.values())
            grads = runtime.grad([loss_t], list(ps.values()))
            eager_losses.append(float(loss_t.numpy()))
            for (k, p), g in zip(ps.items(), grads):
                ps[k] = Tensor(p.numpy() - lr * g.numpy(), stop_gradient=False)
    finally:
        runtime.enable_static()
    np.testing.assert_allclose(static_losses, eager_losses, rtol=1e-5)
    assert static_losses[-1] < static_losses[0]
    for k in init:
        np.testing.assert_allclose(scope.vars[k], ps[k].numpy(), rtol=1e-5, atol=1e-6)
