"""paddle.Model: fit equals a hand-written training loop, the batch methods, datasets vs loaders,
gradient accumulation, num_iters, checkpoints and inference files, and the error messages."""
import os

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec

RS = np.random.RandomState(7)
X = RS.rand(40, 5).astype("float32")
Y = (X.sum(1, keepdims=True) > 2.5).astype("int64")


def dataset():
    return paddle.io.TensorDataset([paddle.to_tensor(X), paddle.to_tensor(Y)])


def build(seed=3):
    paddle.seed(seed)
    return paddle.nn.Sequential(paddle.nn.Linear(5, 12), paddle.nn.Tanh(), paddle.nn.Linear(12, 2))


def prepared(net=None, lr=0.1, metrics=None, inputs=None, opt=paddle.optimizer.Adam):
    net = net or build()
    model = paddle.Model(net, inputs=inputs)
    model.prepare(opt(learning_rate=lr, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(), metrics)
    return model


def weights(net):
    return [v.numpy().copy() for v in net.state_dict().values()]


def test_fit_equals_a_hand_written_loop():
    model = prepared()
    model.fit(dataset(), batch_size=8, epochs=3, shuffle=False, verbose=0)

    net = build()
    opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=net.parameters())
    loss_fn = paddle.nn.CrossEntropyLoss()
    loader = paddle.io.DataLoader(dataset(), batch_size=8, shuffle=False)
    for _ in range(3):
        for x, y in loader:
            loss = loss_fn(net(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
    for a, b in zip(weights(model.network), weights(net)):
        np.testing.assert_array_equal(a, b)


def test_fit_lowers_the_loss_and_evaluate_reports_it():
    model = prepared(metrics=paddle.metric.Accuracy())
    before = model.evaluate(dataset(), batch_size=40, verbose=0)
    model.fit(dataset(), dataset(), batch_size=8, epochs=15, verbose=0)
    after = model.evaluate(dataset(), batch_size=40, verbose=0)
    assert set(after) == {"loss", "acc"}
    assert after["loss"][0] < 0.6 * before["loss"][0]
    assert after["acc"] > 0.85
    # the reported loss is the loss of the (single) batch, computed independently here
    logits = paddle.to_tensor(model.predict(dataset(), batch_size=40, stack_outputs=True, verbose=0)[0])
    expect = paddle.nn.functional.cross_entropy(logits, paddle.to_tensor(Y)).item()
    assert after["loss"][0] == pytest.approx(expect, rel=1e-6)


def test_dataloader_and_dataset_inputs_agree():
    a = prepared()
    a.fit(dataset(), batch_size=10, epochs=2, shuffle=False, verbose=0)
    b = prepared()
    b.fit(paddle.io.DataLoader(dataset(), batch_size=10, shuffle=False), batch_size=999, epochs=2, verbose=0)
    for x, y in zip(weights(a.network), weights(b.network)):
        np.testing.assert_array_equal(x, y)


def test_accumulate_grad_batches_sums_gradients_of_two_batches():
    model = prepared(opt=paddle.optimizer.SGD, lr=0.05)
    model.fit(dataset(), batch_size=10, epochs=1, shuffle=False, verbose=0, accumulate_grad_batches=2)

    net = build()
    opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=net.parameters())
    loss_fn = paddle.nn.CrossEntropyLoss()
    for start in (0, 20):
        for s in (start, start + 10):
            loss_fn(net(paddle.to_tensor(X[s:s + 10])), paddle.to_tensor(Y[s:s + 10])).backward()
        opt.step()
        opt.clear_grad()
    for a, b in zip(weights(model.network), weights(net)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_num_iters_stops_early_and_batch_size_pair():
    seen = []

    class Count(paddle.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            seen.append(("train", logs["batch_size"]))

        def on_eval_batch_end(self, step, logs=None):
            seen.append(("eval", logs["batch_size"]))

    model = prepared()
    model.fit(dataset(), batch_size=[16, 40], epochs=10, verbose=0, num_iters=4, callbacks=[Count()])
    # 3 batches per epoch (16, 16, 8): 4 iterations end in the second epoch
    assert seen == [("train", 16), ("train", 16), ("train", 8), ("train", 16)]
    assert model.stop_training
    # a new fit starts afresh; eval batches use the second batch size
    seen.clear()
    model.fit(dataset(), dataset(), batch_size=[20, 40], epochs=2, verbose=0, callbacks=[Count()])
    assert seen == [("train", 20), ("train", 20), ("eval", 40)] * 2


def test_batch_methods_return_paddles_structures():
    model = prepared(metrics=paddle.metric.Accuracy())
    loss, metrics = model.train_batch([X[:8]], [Y[:8]])
    assert isinstance(loss, list) and loss[0].shape == () and len(metrics) == 1
    loss, metrics = model.eval_batch([X[:8]], [Y[:8]])
    assert float(loss[0]) > 0 and 0 <= float(metrics[0]) <= 1
    out = model.predict_batch([X[:3]])
    assert isinstance(out, list) and isinstance(out[0], np.ndarray) and out[0].shape == (3, 2)
    plain = prepared()
    assert len(plain.train_batch([X[:8]], [Y[:8]])) == 1
    no_loss = paddle.Model(build())
    no_loss.prepare(metrics=paddle.metric.Accuracy())
    assert no_loss.eval_batch([X[:8]], [Y[:8]])[0] == pytest.approx(
        float((no_loss.predict_batch([X[:8]])[0].argmax(1) == Y[:8, 0]).mean()))
    assert no_loss.evaluate(dataset(), batch_size=40, verbose=0).keys() == {"acc"}


def test_update_false_accumulates_without_stepping():
    model = prepared(opt=paddle.optimizer.SGD)
    w0 = weights(model.network)
    model.train_batch([X[:8]], [Y[:8]], update=False)
    for a, b in zip(w0, weights(model.network)):
        np.testing.assert_array_equal(a, b)
    assert model.network[0].weight.grad is not None


def test_predict_outputs_per_batch_and_stacked():
    model = prepared()
    per_batch = model.predict(dataset(), batch_size=15, verbose=0)
    assert len(per_batch) == 1 and [a.shape for a in per_batch[0]] == [(15, 2), (15, 2), (10, 2)]
    stacked = model.predict(dataset(), batch_size=15, stack_outputs=True, verbose=0)
    np.testing.assert_array_equal(stacked[0], np.vstack(per_batch[0]))
    np.testing.assert_allclose(stacked[0], model.network(paddle.to_tensor(X)).numpy(), rtol=1e-6, atol=1e-6)


def test_save_and_load_checkpoint(tmp_path):
    # optimizer states are keyed by parameter names: build both models under fresh name counters, as two
    # processes would
    with paddle.utils.unique_name.guard():
        model = prepared()
    model.fit(dataset(), batch_size=10, epochs=1, verbose=0)
    model.save(str(tmp_path / "ckpt" / "m"))
    assert (tmp_path / "ckpt" / "m.pdparams").exists() and (tmp_path / "ckpt" / "m.pdopt").exists()
    with paddle.utils.unique_name.guard():
        other = prepared(build(seed=99))
    other.load(str(tmp_path / "ckpt" / "m.pdparams"))
    for a, b in zip(weights(model.network), weights(other.network)):
        np.testing.assert_array_equal(a, b)
    # the optimizer state came back too: one more identical step gives identical weights
    model.train_batch([X[:8]], [Y[:8]])
    other.train_batch([X[:8]], [Y[:8]])
    for a, b in zip(weights(model.network), weights(other.network)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_load_mismatch(tmp_path):
    prepared().save(str(tmp_path / "m"))
    wider = paddle.Model(paddle.nn.Sequential(paddle.nn.Linear(5, 12), paddle.nn.Tanh(), paddle.nn.Linear(12, 3)))
    with pytest.raises(ValueError, match=r"2.weight receives a shape \[12, 2\], but the expected shape is \[12, 3\]"):
        wider.load(str(tmp_path / "m"))
    before = wider.network[2].weight.numpy().copy()
    with pytest.warns(UserWarning) as caught:
        wider.load(str(tmp_path / "m"), skip_mismatch=True)
    assert [str(w.message).split(".")[0:2] for w in caught] == [["Skip loading for 2", "weight"],
                                                                 ["Skip loading for 2", "bias"]]
    np.testing.assert_array_equal(wider.network[2].weight.numpy(), before)
    with pytest.raises(AssertionError, match="Failed to load parameters"):
        wider.load(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="unknown postfix"):
        wider.load(str(tmp_path / "m.txt"))


def test_save_for_inference_and_reload(tmp_path):
    model = prepared(inputs=[InputSpec([None, 5], "float32", "x")])
    model.fit(dataset(), batch_size=10, epochs=1, verbose=0)
    model.save(str(tmp_path / "infer"), training=False)
    for ext in (".pdmodel", ".pdiparams"):
        assert os.path.exists(str(tmp_path / "infer") + ext)
    loaded = paddle.jit.load(str(tmp_path / "infer"))
    expect = model.predict_batch([X])[0]
    np.testing.assert_allclose(loaded(paddle.to_tensor(X)).numpy(), expect, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loaded(paddle.to_tensor(X[:3])).numpy(), expect[:3], rtol=1e-5, atol=1e-6)


def test_save_for_inference_needs_shapes(tmp_path):
    model = prepared()
    with pytest.raises(RuntimeError, match="Saving inference model needs 'inputs' or running before saving"):
        model.save(str(tmp_path / "x"), training=False)
    model.train_batch([X[:8]], [Y[:8]])
    with pytest.warns(UserWarning, match=r"The input shape to be saved is \[\[8, 5\]\]"):
        model.save(str(tmp_path / "x"), training=False)
    assert os.path.exists(str(tmp_path / "x.pdmodel"))


def test_summary_and_parameters():
    model = paddle.Model(build(), inputs=[InputSpec([None, 5], "float32", "x")])
    assert model.summary() == {"total_params": 5 * 12 + 12 + 12 * 2 + 2, "trainable_params": 98}
    assert model.summary((1, 5)) == model.summary()
    assert [p.shape for p in model.parameters()] == [[5, 12], [12], [12, 2], [2]]


def test_errors():
    model = paddle.Model(build())
    with pytest.raises(RuntimeError, match="call `model.prepare\\(\\)` first"):
        model.train_batch([X[:4]], [Y[:4]])
    with pytest.raises(TypeError, match="'loss' must be sub classes of `paddle.nn.Layer` or any callable"):
        model.prepare(loss=3)
    with pytest.raises(TypeError, match="is not sub class of Metric"):
        model.prepare(metrics=[object()])
    with pytest.raises(ValueError, match="amp_configs should be 'O0', 'O1' or 'O2'"):
        model.prepare(amp_configs="O3")
    with pytest.raises(ValueError, match="'use_pure_fp16' is an invalid parameter"):
        model.prepare(amp_configs={"level": "O1", "use_pure_fp16": True})
    with pytest.raises(ValueError, match="supported in static graph mode only"):
        model.prepare(amp_configs={"level": "O1", "use_fp16_guard": True})
    clipped = paddle.optimizer.SGD(parameters=model.parameters(), grad_clip=paddle.nn.ClipGradByValue(1.0))
    with pytest.raises(AssertionError, match="Only ClipGradByNorm and ClipGradByGlobalNorm"):
        model.prepare(clipped, amp_configs="O2")
    with pytest.raises(ValueError, match="could not be recognized"):
        model.prepare(amp_configs={"level": "O1", "bogus": 1})
    model.prepare(amp_configs="O0")
    with pytest.raises(ValueError, match="train_data must be given"):
        model.fit()
    with pytest.raises(ValueError, match="Requires Input\\[0\\].name != None"):
        paddle.Model(build(), inputs=[InputSpec([None, 5])])
    with pytest.raises(TypeError, match="network must be a paddle.nn.Layer"):
        paddle.Model(lambda x: x)
    paddle.enable_static()
    try:
        with pytest.raises(TypeError, match="'inputs' must be list or tuple or dict"):   # Paddle's check first
            paddle.Model(build())
        static_model = paddle.Model(build(), inputs=[InputSpec([None, 5], "float32", "x")])   # the static adapter
        with pytest.raises(NotImplementedError, match="mixed precision"):
            static_model.prepare(amp_configs="O1")
    finally:
        paddle.disable_static()


def test_hapi_namespace():
    import dy2st.callbacks
    import dy2st.hapi
    assert paddle.hapi.Model is paddle.Model and paddle.hapi.summary is paddle.summary
    assert paddle.hapi.flops is paddle.flops and dy2st.callbacks is paddle.callbacks
    from dy2st.hapi.model_summary import summary
    from dy2st.hapi.progressbar import ProgressBar  # noqa: F401
    assert summary is paddle.summary


class StaticNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(5, 2)

    @paddle.jit.to_static
    def forward(self, x):
        y = self.fc(x)
        if paddle.mean(y) > 100:       # a tensor predicate: a real static branch
            y = y * 2
        return y


def test_a_to_static_network_trains_and_saves(tmp_path):
    paddle.seed(11)
    eager = paddle.nn.Linear(5, 2)
    net = StaticNet()
    net.fc.set_state_dict(eager.state_dict())
    model = paddle.Model(net, inputs=InputSpec([None, 5], "float32", "x"))
    model.prepare(paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss())
    model.fit(dataset(), batch_size=10, epochs=2, shuffle=False, verbose=0)
    assert len(net.forward.program_cache) >= 1           # the converted forward ran
    reference = paddle.Model(eager)
    reference.prepare(paddle.optimizer.SGD(learning_rate=0.1, parameters=eager.parameters()),
                      paddle.nn.CrossEntropyLoss())
    reference.fit(dataset(), batch_size=10, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(net.fc.weight.numpy(), eager.weight.numpy(), rtol=1e-5, atol=1e-6)
    model.save(str(tmp_path / "s"), training=False)
    loaded = paddle.jit.load(str(tmp_path / "s"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(X)).numpy(), model.predict_batch([X])[0], rtol=1e-5,
                               atol=1e-6)


def test_hapi_logger_writes_to_a_file(tmp_path):
    import logging
    log = paddle.hapi.logger.setup_logger(str(tmp_path / "logs"), name="hapi_test", log_level=logging.INFO)
    log.info("hello from hapi")
    for h in list(log.handlers):
        h.close()
        log.removeHandler(h)
    assert "hapi_test - INFO - hello from hapi" in (tmp_path / "logs" / "log.txt").read_text()
    assert logging.getLogger("hapi").handlers      # set up when paddle.hapi was imported, as Paddle does


def _amp_loop(level, configs, custom, steps_data):
    """Paddle's dynamic-graph adapter under AMP, written out: auto_cast forward, scaled backward,
    ``scaler.minimize``; O2 decorates the network first."""
    net = build()
    opt = paddle.optimizer.Adam(learning_rate=0.05, parameters=net.parameters())
    if level == "O2":
        net, opt = paddle.amp.decorate(models=net, optimizers=opt, level="O2")
    scaler = paddle.amp.GradScaler(**configs)
    loss_fn = paddle.nn.CrossEntropyLoss()
    losses = []
    for xb, yb in steps_data:
        with paddle.amp.auto_cast(level=level, **custom):
            out = net(paddle.to_tensor(xb))
        loss = loss_fn(out, paddle.to_tensor(yb))
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.minimize(opt, scaled)
        net.clear_gradients()
        losses.append(float(loss.numpy()))
    return net, losses, scaler


@pytest.mark.parametrize("level, configs, custom", [
    ("O1", {}, {}),
    ("O1", {"init_loss_scaling": 2.0 ** 20, "incr_every_n_steps": 2, "decr_every_n_nan_or_inf": 1}, {}),
    ("O1", {"init_loss_scaling": 64.0}, {"custom_black_list": ["matmul_v2", "linear"]}),
    ("O2", {"init_loss_scaling": 128.0}, {}),
])
def test_amp_configs_train_as_paddles_adapter(level, configs, custom):
    batches = [(X[i:i + 8], Y[i:i + 8]) for i in range(0, 40, 8)]
    ref_net, ref_losses, ref_scaler = _amp_loop(level, configs, custom, batches)

    net = build()
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.Adam(learning_rate=0.05, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(), amp_configs=dict(level=level, **configs, **custom))
    losses = [float(model.train_batch([xb], [yb])[0]) for xb, yb in batches]
    assert np.isfinite(losses).all()
    np.testing.assert_array_equal(losses, ref_losses)
    for a, b in zip(weights(model.network), weights(ref_net)):
        np.testing.assert_array_equal(a, b)
    assert model._scaler.state_dict() == ref_scaler.state_dict()
    if level == "O2":
        assert model.network.state_dict()[next(iter(model.network.state_dict()))].dtype == paddle.float16
    # the level string alone: default GradScaler arguments
    model2 = paddle.Model(build())
    model2.prepare(paddle.optimizer.Adam(learning_rate=0.05, parameters=model2.parameters()),
                   paddle.nn.CrossEntropyLoss(), amp_configs=level)
    model2.train_batch([X[:8]], [Y[:8]])
    assert model2._scaler is not None and model2._scaler.is_enable()


def test_amp_o1_computes_in_float16_and_fit_runs():
    seen = []
    paddle.seed(3)
    net = paddle.nn.Sequential(paddle.nn.Linear(5, 12, bias_attr=False), paddle.nn.Tanh(), paddle.nn.Linear(12, 2))
    # without a bias the Linear is one white-list matmul: float16 under O1 (a float32 bias add promotes back)
    net[0].register_forward_post_hook(lambda layer, inputs, out: seen.append(out.dtype))
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(), amp_configs="O1")
    model.fit(dataset(), batch_size=8, epochs=1, verbose=0)
    assert seen and all(d == paddle.float16 for d in seen)
    model.evaluate(dataset(), batch_size=8, verbose=0)
