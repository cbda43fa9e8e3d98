"""paddle.static.nn layer functions: Paddle's parameter names in the startup program, values against numpy
(layer_norm, prelu, embedding, bilinear_tensor_product, row_conv, batch_norm in test mode), batch_norm's running
statistics updated by training, static_pylayer's custom gradient, and the errors (dynamic mode, LoD sequences,
sparse tables). Paddle runs our saved program: tests/interop/test_module_surface_interop.py."""
import numpy as np
import pytest

import dy2st as paddle

S = paddle.static
I = paddle.nn.initializer


@pytest.fixture
def static_mode():
    paddle.enable_static()
    with S.scope_guard(S.Scope()), paddle.utils.unique_name.guard():
        yield
    paddle.disable_static()


def _run(build, feeds):
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        data = {n: S.data(n, list(v.shape), str(v.dtype)) for n, v in feeds.items()}
        outs = build(**data)
    exe = S.Executor()
    exe.run(start)
    return main, start, exe, exe.run(main, feed=feeds, fetch_list=outs)


def test_parameter_names_and_initializers(static_mode):
    rng = np.random.default_rng(0)
    feeds = {"x": rng.standard_normal((2, 3, 6, 6)).astype("float32")}
    main, start, _, outs = _run(lambda x: [S.nn.conv2d(x, 4, 3), S.nn.conv2d(x, 2, 1, bias_attr=False, name="mine"),
                                           S.nn.batch_norm(x), S.nn.prelu(x, "all")], feeds)
    names = [p.name for p in main.global_block().all_parameters()]
    assert names == ["conv2d_0.w_0", "conv2d_0.b_0", "mine.w_0", "batch_norm_0.w_0", "batch_norm_0.b_0",
                     "batch_norm_0.w_1", "batch_norm_0.w_2", "prelu_0.w_0"]
    assert [op.type for op in start.global_block().ops][:2] == ["gaussian_random", "fill_constant"]
    assert outs[0].shape == (2, 4, 4, 4) and outs[1].shape == (2, 2, 6, 6)
    # batch_norm in training normalises with the batch statistics
    np.testing.assert_allclose(outs[2].mean(axis=(0, 2, 3)), 0, atol=1e-5)
    np.testing.assert_allclose(outs[3], np.where(feeds["x"] > 0, feeds["x"], 0.25 * feeds["x"]), rtol=1e-6)


def test_values_against_numpy(static_mode):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    ids = np.array([[1, 3], [0, 3]], "int64")
    f = rng.standard_normal((2, 3)).astype("float32")
    wt = rng.standard_normal((2, 3, 3)).astype("float32")
    row_w = rng.standard_normal((3, 4)).astype("float32")
    table = rng.standard_normal((5, 2)).astype("float32")

    def build(x, ids, f):
        return [S.nn.layer_norm(x, begin_norm_axis=1),
                S.nn.embedding(ids, (5, 2), padding_idx=3, param_attr=paddle.ParamAttr(initializer=I.Assign(table))),
                S.nn.bilinear_tensor_product(f, f, 2, param_attr=paddle.ParamAttr(initializer=I.Assign(wt)),
                                             bias_attr=paddle.ParamAttr(initializer=I.Constant(0.5))),
                S.nn.row_conv(x, 2, param_attr=paddle.ParamAttr(initializer=I.Assign(row_w))),
                S.nn.batch_norm(x, is_test=True)]
    _, _, _, (ln, emb, bil, rc, bn) = _run(build, {"x": x, "ids": ids, "f": f})
    flat = x.reshape(2, -1).astype(np.float64)
    want = (flat - flat.mean(1, keepdims=True)) / np.sqrt(flat.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(ln, want.reshape(x.shape), rtol=1e-4, atol=1e-5)
    want_emb = table[ids]
    want_emb[ids == 3] = 0
    np.testing.assert_allclose(emb, want_emb, rtol=1e-6)
    np.testing.assert_allclose(bil, np.einsum("bi,kij,bj->bk", f, wt, f) + 0.5, rtol=1e-5)
    padded = np.concatenate([x, np.zeros((2, 2, 4), "float32")], axis=1)
    np.testing.assert_allclose(rc, sum(padded[:, j:j + 3] * row_w[j] for j in range(3)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn, x / np.sqrt(1 + 1e-5), rtol=1e-5)   # running stats 0 / 1 in test mode


def test_conv_transpose_filter_from_output_size(static_mode):
    feeds = {"x": np.ones((1, 2, 3, 3), "float32")}
    main, _, _, (y, y3) = _run(lambda x: [S.nn.conv2d_transpose(x, 4, output_size=[7, 7], stride=2),
                                          S.nn.conv2d_transpose(x, 1, filter_size=2, act="sigmoid")], feeds)
    assert y.shape == (1, 4, 7, 7) and y3.shape == (1, 1, 4, 4) and (y3 > 0).all()
    assert main.global_block().var("conv2d_transpose_0.w_0").shape == [2, 4, 3, 3]   # (7 - 2*2 - 1) + 1


def test_batch_norm_trains_its_running_statistics(static_mode):
    x = (np.arange(24, dtype="float32").reshape(4, 6) - 5.0)
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        xv = S.data("x", [4, 6], "float32")
        loss = paddle.mean(S.nn.batch_norm(S.nn.fc(xv, 3), momentum=0.5))
        paddle.optimizer.SGD(0.1).minimize(loss)
    exe = S.Executor()
    exe.run(start)
    exe.run(main, feed={"x": x}, fetch_list=[loss])
    mean = np.asarray(S.global_scope().find_var("batch_norm_0.w_1").get_tensor())
    assert np.abs(mean).sum() > 0          # MeanOut writes the running mean in place


def test_static_pylayer_custom_gradient(static_mode):
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        x = S.data("x", [2, 3], "float32")
        x.stop_gradient = False
        y = S.nn.static_pylayer(lambda a: paddle.exp(a), [x], lambda dy: 3 * dy)
        plain = S.nn.static_pylayer(lambda a: a * 2, [x])
        grad = S.gradients([y], x)[0]
    xs = np.arange(6, dtype="float32").reshape(2, 3) / 6
    exe = S.Executor()
    exe.run(start)
    got_y, got_plain, got_grad = exe.run(main, feed={"x": xs}, fetch_list=[y, plain, grad])
    np.testing.assert_allclose(got_y, np.exp(xs), rtol=1e-6)
    np.testing.assert_allclose(got_plain, xs * 2)
    np.testing.assert_allclose(got_grad, np.full((2, 3), 3.0))


def test_errors(static_mode):
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        x = S.data("x", [4, 3], "float32")
        for fn in (lambda: S.nn.sequence_pool(x, "sum"), lambda: S.nn.sequence_softmax(x),
                   lambda: S.nn.sequence_conv(x, 2), lambda: S.nn.sequence_expand(x, x),
                   lambda: S.nn.sequence_first_step(x), lambda: S.nn.sequence_last_step(x)):
            with pytest.raises(ValueError, match="LoD"):
                fn()
        with pytest.raises(RuntimeError, match="parameter-server"):
            S.nn.sparse_embedding(S.data("ids", [4, 1], "int64"), [10, 2])
        with pytest.raises(ValueError, match="Input size should be 4"):
            S.nn.conv2d(x, 2, 3)
        with pytest.raises(TypeError, match="row_conv must be one of"):
            S.nn.row_conv(S.data("d", [2, 3, 4], "float64"), 1)
        with pytest.raises(ValueError, match="mode should be one of"):
            S.nn.prelu(x, "row")
        with pytest.raises(AssertionError, match="bias_attr should not be False"):
            S.nn.batch_norm(x, bias_attr=False)


def test_dynamic_mode_is_refused():
    with pytest.raises(AssertionError, match="only supported in static graph mode"):
        S.nn.conv2d(paddle.ones([1, 1, 3, 3]), 1, 1)


@pytest.mark.parametrize("sampler", ["uniform", "log_uniform"])
def test_nce_cost_formula(static_mode, sampler):
    """With constant weight rows the logits do not depend on the drawn negatives; the uniform cost is then a
    closed form (the log-uniform one depends on the draws: checked for shape, positivity and repeatability)."""
    C = I.Constant
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        x = S.data("x", [None, 2], "float64")
        lab = S.data("lab", [None, 1], "int64")
        cost = S.nn.nce(x, lab, 5, num_neg_samples=2, sampler=sampler, seed=3,
                        param_attr=paddle.ParamAttr(initializer=C(0.5)), bias_attr=paddle.ParamAttr(initializer=C(0.2)))
    assert [p.name for p in main.global_block().all_parameters()] == ["nce_0.w_0", "nce_0.b_0"]
    exe = S.Executor()
    exe.run(start)
    xs = np.array([[1.0, -1.0], [0.5, 2.0], [0.0, 0.0]])
    feed = {"x": xs, "lab": np.array([[0], [4], [2]])}
    got = exe.run(main, feed=feed, fetch_list=[cost])[0]
    assert got.shape == (3, 1) and (got > 0).all()
    np.testing.assert_array_equal(got, exe.run(main, feed=feed, fetch_list=[cost])[0])   # seed: same draws
    if sampler == "uniform":
        o = 1 / (1 + np.exp(-(xs.sum(1) * 0.5 + 0.2)))
        b = float(np.float32(np.float32(1 / 5) * 2))
        want = (-np.log(o / (o + b)) - 2 * np.log(b / (o + b))) / 3
        np.testing.assert_allclose(got[:, 0], want, rtol=1e-12)
    with pytest.raises(NotImplementedError, match="custom_dist"):
        S.nn.nce(x, lab, 5, sampler="custom_dist", custom_dist=[0.2] * 5)
