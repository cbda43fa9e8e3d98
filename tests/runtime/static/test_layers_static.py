"""nn layers and initializers building static Programs: parameters in main, initializers in startup."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
import runtime.static.layers_bridge  # noqa: F401  (parameter creator/initializer hooks)
from runtime.static.fc import fc, accuracy


@pytest.fixture(autouse=True)
def static_mode():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


def _build(fn):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        out = fn()
    main.verify()
    startup.verify()
    return main, startup, out


def _run(main, startup, feed, fetch, scope=None):
    exe = static.Executor(static.CPUPlace())
    scope = scope or static.Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope), scope


def test_linear_params_in_main_initializers_in_startup():
    holder = {}

    def net():
        x = static.data("x", [None, 784], "float32")
        holder["lin"] = paddle.nn.Linear(784, 10)
        return holder["lin"](x)
    main, startup, y = _build(net)
    w, b = holder["lin"].weight.name, holder["lin"].bias.name
    assert w.startswith("linear_") and w.endswith(".w_0") and b.endswith(".b_0")
    gb, sgb = main.global_block(), startup.global_block()
    assert gb.var(w).persistable and gb.var(w).trainable and gb.var(w).shape == [784, 10]
    assert not any(op.type in ("uniform_random", "fill_constant") for op in gb.ops)
    init = {op.output("Out")[0]: op for op in sgb.ops}
    assert init[w].type == "uniform_random" and init[b].type == "fill_constant"
    limit = np.sqrt(6.0 / (784 + 10))
    assert init[w].attr("min") == pytest.approx(-limit) and init[w].attr("max") == pytest.approx(limit)
    x = np.random.default_rng(0).random((3, 784), dtype=np.float32)
    (out,), scope = _run(main, startup, {"x": x}, [y])
    np.testing.assert_allclose(out, x @ scope.vars[w] + scope.vars[b], rtol=1e-5, atol=1e-6)
    assert np.abs(scope.vars[w]).max() <= limit and (scope.vars[b] == 0).all()


def test_conv2d_embedding_layernorm_build_and_run():
    layers = {}

    def net():
        img = static.data("img", [None, 2, 5, 5], "float32")
        ids = static.data("ids", [None, 3], "int64")
        layers["conv"] = paddle.nn.Conv2D(2, 4, 3, padding=1)
        layers["emb"] = paddle.nn.Embedding(10, 6)
        layers["ln"] = paddle.nn.LayerNorm(6)
        return layers["conv"](img), layers["ln"](layers["emb"](ids))
    main, startup, (c, e) = _build(net)
    assert c.shape == [-1, 4, 5, 5] and e.shape == [-1, 3, 6]
    rng = np.random.default_rng(1)
    img = rng.random((2, 2, 5, 5), dtype=np.float32)
    ids = rng.integers(0, 10, (2, 3))
    (cv, ev), scope = _run(main, startup, {"img": img, "ids": ids}, [c, e])
    table = scope.vars[layers["emb"].weight.name]
    rows = table[ids]
    ref = (rows - rows.mean(-1, keepdims=True)) / np.sqrt(rows.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(ev, ref, rtol=1e-4, atol=1e-5)
    w = scope.vars[layers["conv"].weight.name]
    b = scope.vars[layers["conv"].bias.name]
    pad = np.pad(img, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref_c = np.zeros((2, 4, 5, 5), np.float32)
    for i in range(5):
        for j in range(5):
            ref_c[:, :, i, j] = np.einsum("nchw,ochw->no", pad[:, :, i:i + 3, j:j + 3], w)
    np.testing.assert_allclose(cv, ref_c + b.reshape(1, 4, 1, 1), rtol=1e-4, atol=1e-5)


def test_batchnorm_updates_running_stats_in_place_and_test_clone_uses_them():
    from runtime.ops.registry import lookup
    if not lookup("batch_norm").inplace:
        pytest.skip("batch_norm does not declare inplace={'MeanOut': 'Mean', 'VarianceOut': 'Variance'} yet")
    layers = {}

    def net():
        x = static.data("x", [None, 3], "float32")
        layers["bn"] = paddle.nn.BatchNorm1D(3, momentum=0.9)
        return layers["bn"](x)
    main, startup, y = _build(net)
    bn = layers["bn"]
    mean_name, var_name = bn._mean.name, bn._variance.name
    op = [op for op in main.global_block().ops if op.type == "batch_norm"][0]
    assert op.output("MeanOut") == [mean_name] and op.output("VarianceOut") == [var_name]
    assert not main.global_block().var(mean_name).trainable
    x = np.random.default_rng(2).normal(2.0, 3.0, size=(8, 3)).astype(np.float32)
    (yv,), scope = _run(main, startup, {"x": x}, [y])
    np.testing.assert_allclose(scope.vars[mean_name], 0.1 * x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(yv, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-4, atol=1e-5)
    test = main.clone(for_test=True)
    assert [o for o in test.global_block().ops if o.type == "batch_norm"][0].attr("is_test") is True
    exe = static.Executor()
    (tv,) = exe.run(test, feed={"x": x}, fetch_list=[y.name], scope=scope)
    m, v = scope.vars[mean_name], scope.vars[var_name]
    np.testing.assert_allclose(tv, (x - m) / np.sqrt(v + 1e-5), rtol=1e-4, atol=1e-5)


def test_batchnorm_builds_and_normalises_with_batch_stats():
    layers = {}

    def net():
        x = static.data("x", [None, 3], "float32")
        layers["bn"] = paddle.nn.BatchNorm1D(3)
        return layers["bn"](x)
    main, startup, y = _build(net)
    bn = layers["bn"]
    gb = main.global_block()
    assert gb.var(bn._mean.name).persistable and not gb.var(bn._mean.name).trainable
    x = np.random.default_rng(2).normal(2.0, 3.0, size=(8, 3)).astype(np.float32)
    (yv,), _ = _run(main, startup, {"x": x}, [y])
    np.testing.assert_allclose(yv, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-4, atol=1e-5)
    test = main.clone(for_test=True)
    assert [o for o in test.global_block().ops if o.type == "batch_norm"][0].attr("is_test") is True


def test_dropout_is_identity_in_the_test_clone():
    def net():
        x = static.data("x", [None, 50], "float32")
        return paddle.nn.Dropout(0.5)(x)
    main, startup, y = _build(net)
    x = np.ones((4, 50), np.float32)
    (train,), scope = _run(main, startup, {"x": x}, [y])
    assert set(np.unique(train).tolist()) <= {0.0, 2.0} and (train == 0).any()
    test = main.clone(for_test=True)
    (tv,) = static.Executor().run(test, feed={"x": x}, fetch_list=[y.name], scope=scope)
    np.testing.assert_array_equal(tv, x)


def test_fc_names_shapes_and_activation():
    def net():
        x = static.data("x", [None, 4, 3], "float32")
        return fc(x, 5, num_flatten_dims=2, activation="relu"), fc(x, 5)
    main, startup, (a, b) = _build(net)
    assert a.shape == [-1, 4, 5] and b.shape == [-1, 5]
    params = [p.name for p in main.all_parameters()]
    n = int(params[0].split(".")[0].split("_")[1])
    assert params == [f"fc_{n}.w_0", f"fc_{n}.b_0", f"fc_{n + 1}.w_0", f"fc_{n + 1}.b_0"]
    assert main.global_block().var(f"fc_{n}.w_0").shape == [3, 5]
    assert main.global_block().var(f"fc_{n + 1}.w_0").shape == [12, 5]
    assert [op.type for op in main.global_block().ops] == ["mul", "elementwise_add", "relu", "mul",
                                                           "elementwise_add"]
    x = np.random.default_rng(3).normal(size=(2, 4, 3)).astype(np.float32)
    (av, bv), scope = _run(main, startup, {"x": x}, [a, b])
    w0, b0 = scope.vars[f"fc_{n}.w_0"], scope.vars[f"fc_{n}.b_0"]
    w1, b1 = scope.vars[f"fc_{n + 1}.w_0"], scope.vars[f"fc_{n + 1}.b_0"]
    np.testing.assert_allclose(av, np.maximum(x @ w0 + b0, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bv, x.reshape(2, 12) @ w1 + b1, rtol=1e-5, atol=1e-6)


def test_fc_errors():
    def bad_size():
        fc(static.data("x", [None, 4], "float32"), 0)

    def bad_dims():
        fc(static.data("x", [None, 4], "float32"), 3, num_flatten_dims=2)
    with pytest.raises(ValueError, match="size must be a positive int"):
        _build(bad_size)
    with pytest.raises(ValueError, match="num_flatten_dims"):
        _build(bad_dims)


def test_accuracy_with_correct_and_total():
    def net():
        p = static.data("p", [None, 3], "float32")
        lab = static.data("lab", [None, 1], "int64")
        gb = static.default_main_program().global_block()
        correct = gb.create_var(name="n_correct", shape=[1], dtype="int32")
        total = gb.create_var(name="n_total", shape=[1], dtype="int32")
        return accuracy(p, lab, k=2, correct=correct, total=total), correct, total
    main, startup, (acc, correct, total) = _build(net)
    p = np.array([[0.1, 0.5, 0.4], [0.8, 0.15, 0.05], [0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], np.float32)
    lab = np.array([[2], [1], [0], [2]], np.int64)
    (a, c, t), _ = _run(main, startup, {"p": p, "lab": lab}, [acc, correct, total])
    hits = sum(int(lab[i, 0] in np.argsort(-p[i], kind="stable")[:2]) for i in range(4))
    assert float(a) == pytest.approx(hits / 4) and int(np.ravel(c)[0]) == hits and int(np.ravel(t)[0]) == 4


def test_static_create_parameter_initializer_lands_in_startup():
    def net():
        return static.create_parameter([2, 3], "float32", name="my_w",
                                       default_initializer=paddle.nn.initializer.Constant(0.5))
    main, startup, w = _build(net)
    assert not main.global_block().ops
    assert [op.output("Out") for op in startup.global_block().ops] == [["my_w"]]
    _, scope = _run(main, startup, {}, [])
    np.testing.assert_array_equal(scope.vars["my_w"], np.full((2, 3), 0.5, np.float32))
