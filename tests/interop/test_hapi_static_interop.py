"""Differential test (against real Paddle 3.3.1) of paddle.Model created in static-graph mode (the
static adapter, dy2st/hapi/static_adapter.py): train_batch losses and metrics over several SGD steps,
eval_batch, predict_batch, the parameters after training, save/load round trips (static save loaded
by a dynamic-mode Model) and Paddle's errors (update=False). Weights are loaded from a file, so no
initializer randomness is involved. One Paddle subprocess for the module; a local test runs what
save(training=False) writes through paddle.static.load_inference_model.
"""
import textwrap

import pytest

from .diff_prelude import PADDLE_MAIN, assert_same_as_paddle, with_helpers

CODE = with_helpers(textwrap.dedent('''
    import os
    import tempfile

    import numpy as np

    def compute(paddle):
        out = {}
        h = diff_helpers(paddle, out, err_prefix="err.")
        put, err = h.put, h.err
        rng = np.random.default_rng(4)
        w = rng.standard_normal((6, 3)).astype("float32")
        b = rng.standard_normal(3).astype("float32")
        x = rng.standard_normal((8, 6)).astype("float32")
        y = rng.integers(0, 3, (8, 1)).astype("int64")
        d = tempfile.mkdtemp()
        init = os.path.join(d, "init")
        paddle.save({"fc.weight": paddle.to_tensor(w), "fc.bias": paddle.to_tensor(b)}, init + ".pdparams")

        class Net(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                self.fc = paddle.nn.Linear(6, 3)

            def forward(self, inp):
                return paddle.nn.functional.relu(self.fc(inp)) - 0.5

        Spec = paddle.static.InputSpec
        paddle.enable_static()
        try:
            net = Net()
            model = paddle.Model(net, [Spec([None, 6], "float32", "inp")], [Spec([None, 1], "int64", "label")])
            opt = paddle.optimizer.SGD(learning_rate=0.2, parameters=net.parameters())
            model.prepare(opt, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy(topk=(1, 2)))
            model.load(init)
            for step in range(3):
                loss, metrics = model.train_batch([x], [y])
                put(f"train.{step}.loss", loss)
                put(f"train.{step}.acc", np.asarray(metrics, "float64"))
            loss, metrics = model.eval_batch([x[:5]], [y[:5]])
            put("eval.loss", loss)
            put("eval.acc", np.asarray(metrics, "float64"))
            put("predict", model.predict_batch([x[2:7]]))
            err("train.update_false", lambda: model.train_batch([x], [y], update=False))
            model.save(os.path.join(d, "trained"))
        finally:
            paddle.disable_static()
        net2 = Net()
        model2 = paddle.Model(net2, [Spec([None, 6], "float32", "inp")])
        model2.prepare()
        model2.load(os.path.join(d, "trained"))
        put("reloaded.weight", net2.fc.weight)
        put("reloaded.bias", net2.fc.bias)
        put("reloaded.predict", model2.predict_batch([x]))
        return out
'''))


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    from .paddle_runner import differential
    return differential(CODE, PADDLE_MAIN, tmp_path_factory.mktemp("hapi_static"), "hapi static")


def test_same_results_and_errors(both):
    ours, theirs, dtypes = both
    assert_same_as_paddle(ours, theirs, dtypes)


def test_static_save_inference_model_runs(tmp_path):
    import numpy as np

    import dy2st as paddle
    x = np.random.default_rng(2).standard_normal((5, 6)).astype("float32")
    paddle.enable_static()
    try:
        net = paddle.nn.Sequential(paddle.nn.Linear(6, 4), paddle.nn.Tanh())
        model = paddle.Model(net, [paddle.static.InputSpec([None, 6], "float32", "inp")])
        model.prepare()
        want = model.predict_batch([x])[0]
        with pytest.raises(ValueError, match="file_prefix"):
            model.save(str(tmp_path) + "/", training=False)
        model.save(str(tmp_path / "infer"), training=False)
        exe = paddle.static.Executor(paddle.CPUPlace())
        prog, feeds, fetches = paddle.static.load_inference_model(str(tmp_path / "infer"), exe)
        got = exe.run(prog, feed={feeds[0]: x}, fetch_list=fetches)[0]
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, want, rtol=1e-6)
