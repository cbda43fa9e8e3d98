"""paddle.static names built in dy2st/static: BuildStrategy, CompiledProgram, device/IPU functions,
ExponentialMovingAverage (numbers against a numpy reference of Paddle's formulas: Paddle 3.3.1's own
class fails to build in both of its modes), WeightNormParamAttr, auc / ctr_metric_bundle against numpy,
and the I/O functions' checks. Values against real Paddle: tests/interop/test_static_names_interop.py."""
import numpy as np
import pytest

import dy2st as paddle


@pytest.fixture
def static_mode():
    paddle.enable_static()
    with paddle.static.scope_guard(paddle.static.Scope()):
        yield
    paddle.disable_static()


def _linear_program(decay=None, thres=False):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        lin = paddle.nn.Linear(3, 2)
        loss = paddle.mean(lin(x))
        paddle.optimizer.SGD(0.5).minimize(loss)
        ema = None
        if decay is not None:
            steps = None
            if thres:
                steps = paddle.static.create_global_var([1], 0, "int64", persistable=True, name="ema_test_steps")
            ema = paddle.static.ExponentialMovingAverage(decay, thres_steps=steps)
            ema.update()
    exe = paddle.static.Executor()
    exe.run(startup)
    return main, exe, x, lin, loss, ema


def test_build_strategy_options():
    bs = paddle.static.BuildStrategy()
    assert bs.enable_inplace is True and bs.fuse_all_reduce_ops is True and bs.num_trainers == 1
    assert bs.reduce_strategy == paddle.static.BuildStrategy.ReduceStrategy.AllReduce
    bs.fuse_elewise_add_act_ops = True
    bs.reduce_strategy = paddle.static.BuildStrategy.ReduceStrategy.Reduce
    assert bs.fuse_elewise_add_act_ops and int(bs.reduce_strategy) == 1
    assert paddle.static.BuildStrategy().fuse_elewise_add_act_ops is False   # options are per instance
    with pytest.raises(AttributeError, match="no attribute 'foo'"):
        bs.foo = 1


def test_compiled_program_runs_like_the_program(static_mode):
    main, exe, x, lin, loss, _ = _linear_program()
    feed = {"x": np.ones([4, 3], "float32")}
    test_prog = main.clone(for_test=True)
    plain = exe.run(test_prog, feed=feed, fetch_list=[loss])[0]
    compiled = paddle.static.CompiledProgram(test_prog, build_strategy=paddle.static.BuildStrategy())
    np.testing.assert_array_equal(exe.run(compiled, feed=feed, fetch_list=[loss])[0], plain)
    with pytest.raises(TypeError, match="expected Graph or Program"):
        paddle.static.CompiledProgram(3)


def test_devices_absent_as_in_paddle_cpu_build():
    with pytest.raises(AssertionError, match="CUDA"):
        paddle.static.cuda_places()
    with pytest.raises(AssertionError, match="XPU"):
        paddle.static.xpu_places([0])
    with pytest.raises(RuntimeError, match="IPU"):
        paddle.static.IpuStrategy()
    with pytest.raises(ValueError, match="IPU"):
        paddle.static.IpuCompiledProgram()
    with pytest.raises(ValueError, match="IPU"):
        with paddle.static.ipu_shard_guard(index=0):
            pass
    fn = paddle.static.set_ipu_shard(lambda v: v + 1, index=1)
    with pytest.raises(ValueError, match="IPU"):
        fn(1)
    layer = paddle.static.set_ipu_shard(paddle.nn.Linear(2, 2), index=0)
    assert type(layer).__name__ == "Linear" and isinstance(layer, paddle.nn.Linear)
    with pytest.raises(TypeError, match="Only accept"):
        paddle.static.set_ipu_shard(3)


@pytest.mark.parametrize("thres", [False, True])
def test_ema_update_apply_restore_follow_paddles_formulas(static_mode, thres):
    decay = 0.8
    main, exe, x, lin, loss, ema = _linear_program(decay, thres)
    scope = paddle.static.global_scope()
    names = [lin.weight.name, lin.bias.name]
    emas = {n: np.zeros_like(np.asarray(scope.vars[n])) for n in names}
    for step in range(1, 4):
        if thres:
            scope.vars["ema_test_steps"] = np.array([step * 3], dtype=np.int64)
        exe.run(main, feed={"x": np.full([2, 3], step, "float32")}, fetch_list=[loss])
        d = np.float32(min(decay, (step * 3 + 1.0) / (step * 3 + 10.0))) if thres else np.float32(decay)
        for n in names:
            emas[n] = emas[n] * d + np.asarray(scope.vars[n]) * (np.float32(1) - d)
    trained = {n: np.asarray(scope.vars[n]).copy() for n in names}
    with ema.apply(exe):
        for n in names:
            want = emas[n] / (np.float32(1) - np.float32(d) ** np.float32(3))
            np.testing.assert_allclose(np.asarray(scope.vars[n]), want, rtol=1e-5, atol=1e-6)
    for n in names:
        np.testing.assert_array_equal(np.asarray(scope.vars[n]), trained[n])
    assert np.asarray(scope.vars["@EMA_STEP_COUNTER@"]).tolist() == [3]


def test_ema_needs_static_mode():
    with pytest.raises(Exception, match="dygraph"):
        paddle.static.ExponentialMovingAverage(0.9)


def test_weight_norm_param_attr():
    a = paddle.static.WeightNormParamAttr(dim=0, name="wn", learning_rate=0.5)
    assert isinstance(a, paddle.ParamAttr) and a.dim == 0 and a.name == "wn" and a.do_model_average is False
    assert a.initializer is None
    with pytest.raises(NotImplementedError, match="weight_norm"):
        paddle.nn.Linear(3, 2, weight_attr=a)


def _auc_reference(preds, labels, num_thresholds):
    pos = np.zeros(num_thresholds + 1)
    neg = np.zeros(num_thresholds + 1)
    for p, y in zip(preds, labels):
        b = int(np.float32(p) * np.float32(num_thresholds))
        (pos if y else neg)[b] += 1
    # area under the ROC curve from the bucket counts (thresholds from high to low)
    tp = np.concatenate([[0], np.cumsum(pos[::-1])])
    fp = np.concatenate([[0], np.cumsum(neg[::-1])])
    area = np.sum((fp[1:] - fp[:-1]) * (tp[1:] + tp[:-1]) / 2)
    return area / tp[-1] / fp[-1] if tp[-1] and fp[-1] else area


def test_auc_matches_a_numpy_reference(static_mode):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        p = paddle.static.data("p", [None, 2], "float32")
        y = paddle.static.data("y", [None, 1], "int64")
        auc_out, batch_auc, stats = paddle.static.auc(p, y, num_thresholds=50, slide_steps=2)
    exe = paddle.static.Executor()
    exe.run(startup)
    rng = np.random.default_rng(3)
    batches = [(rng.uniform(0, 1, 9).astype("float32"), rng.integers(0, 2, 9)) for _ in range(4)]
    for i, (pr, lab) in enumerate(batches):
        got, got_batch = exe.run(main, feed={"p": np.stack([1 - pr, pr], 1), "y": lab[:, None]},
                                 fetch_list=[auc_out, batch_auc])
        seen = batches[:i + 1]
        window = batches[max(0, i - 1):i + 1]
        np.testing.assert_allclose(got, _auc_reference(np.concatenate([b[0] for b in seen]),
                                                       np.concatenate([b[1] for b in seen]), 50), rtol=1e-12)
        np.testing.assert_allclose(got_batch, _auc_reference(np.concatenate([b[0] for b in window]),
                                                             np.concatenate([b[1] for b in window]), 50),
                                   rtol=1e-12)
    assert len(stats) == 4 and list(stats[0].shape) == [(1 + 2) * 51 + 1]
    with pytest.raises(TypeError, match="label"):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            paddle.static.auc(paddle.static.data("p2", [None, 2], "float32"),
                              paddle.static.data("y2", [None, 1], "float32"))


def test_ctr_metric_bundle_accumulates(static_mode):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        q = paddle.static.data("q", [None, 1], "float32")
        lab = paddle.static.data("lab", [None, 1], "float32")
        outs = paddle.static.ctr_metric_bundle(q, lab)
    exe = paddle.static.Executor()
    exe.run(startup)
    rng = np.random.default_rng(4)
    acc = np.zeros(6)
    for _ in range(3):
        qv, lv = rng.uniform(0, 1, (5, 1)).astype("float32"), rng.integers(0, 2, (5, 1)).astype("float32")
        got = [float(np.asarray(v).reshape(-1)[0]) for v in exe.run(main, feed={"q": qv, "lab": lv},
                                                                    fetch_list=list(outs))]
        acc += [((qv - lv) ** 2).sum(), np.abs(qv - lv).sum(), qv.sum(), (1 / (1 + np.exp(-qv))).sum(), lv.sum(), 5]
        np.testing.assert_allclose(got, acc, rtol=1e-5)


def test_io_argument_checks(static_mode, tmp_path):
    main, exe, x, lin, loss, _ = _linear_program()
    with pytest.raises(ValueError, match="protocol"):
        paddle.static.save(main, str(tmp_path / "m"), protocol=5)
    with pytest.raises(ValueError, match="bytes"):
        paddle.static.save_to_file(str(tmp_path / "f"), "text")
    with pytest.raises(TypeError, match="feed_vars"):
        paddle.static.serialize_program([], [loss], program=main)
    paddle.static.save(main, str(tmp_path / "m"))
    state = paddle.static.load_program_state(str(tmp_path / "m.pdopt"))
    assert lin.weight.name in state and any(k.startswith("learning_rate") for k in state)
    only = paddle.static.load_program_state(str(tmp_path / "m"), var_list=[lin.weight])
    assert list(only) == [lin.weight.name]
    with pytest.raises(AssertionError, match="shape"):
        paddle.static.set_program_state(main, {lin.weight.name: np.zeros((3, 3), "float32")})
    with pytest.raises(AssertionError, match="data type"):
        paddle.static.set_program_state(main, {lin.weight.name: np.zeros((3, 2), "float64")})
    with pytest.warns(UserWarning, match="not used"):
        paddle.static.set_program_state(main, {"nothing_like_it": np.zeros(2)})
    prog = paddle.static.deserialize_program(paddle.static.serialize_program([x], [loss], program=main))
    data = paddle.static.serialize_persistables([x], [loss], exe, program=main)
    paddle.static.deserialize_persistables(prog, data, exe)
    other = paddle.static.Program()
    with paddle.static.program_guard(other, paddle.static.Program()):
        xx = paddle.static.data("xx", [None, 3], "float32")
        paddle.mean(paddle.nn.Linear(3, 5, weight_attr=paddle.ParamAttr(name=lin.weight.name),
                                     bias_attr=paddle.ParamAttr(name=lin.bias.name))(xx))
    with pytest.raises(Exception, match="shape"):
        paddle.static.deserialize_persistables(other, data, exe)
    normalized = paddle.static.normalize_program(main, [x], [loss])
    assert [op.type for op in normalized.global_block().ops] == ["matmul_v2", "elementwise_add", "reduce_mean"]


def test_static_only_functions_refuse_dynamic_mode():
    with pytest.raises(AssertionError, match="enable_static"):
        paddle.static.deserialize_program(b"")


def test_ema_apply_before_any_update_gives_the_zero_averages(static_mode):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        lin = paddle.nn.Linear(2, 2)
        paddle.mean(lin(paddle.static.data("x", [None, 2], "float32")))
        ema = paddle.static.ExponentialMovingAverage(0.9)
    exe = paddle.static.Executor()
    exe.run(startup)
    scope = paddle.static.global_scope()
    before = np.asarray(scope.vars[lin.weight.name]).copy()
    with ema.apply(exe):
        np.testing.assert_array_equal(np.asarray(scope.vars[lin.weight.name]), np.zeros((2, 2), "float32"))
    np.testing.assert_array_equal(np.asarray(scope.vars[lin.weight.name]), before)
