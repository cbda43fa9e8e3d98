"""TracedLayer: the ops of one eager run recorded as a Program that reproduces the Layer's outputs."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.traced_layer import TracedLayer


class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(6, 16)
        self.fc2 = paddle.nn.Linear(16, 4)

    def forward(self, x):
        return F.softmax(self.fc2(F.relu(self.fc1(x))))


class ConvNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(2, 4, 3, padding=1)
        self.bn = paddle.nn.BatchNorm2D(4)
        self.fc = paddle.nn.Linear(4 * 3 * 3, 5)

    def forward(self, x):
        h = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        h = paddle.flatten(h, 1)
        return self.fc(h) + paddle.to_tensor(np.arange(5, dtype="float32"))   # a constant made inside


def op_types(program):
    return [op.type for op in program.global_block().ops]


def test_mlp_outputs_equal_eager():
    paddle.seed(0)
    m = MLP()
    x = paddle.randn([3, 6])
    out, traced = TracedLayer.trace(m, inputs=[x])
    np.testing.assert_allclose(out.numpy(), m(x).numpy(), rtol=1e-6)
    res = traced([x])
    assert isinstance(res, list) and len(res) == 1 and isinstance(res[0], np.ndarray)
    assert res[0].shape == (3, 4)
    np.testing.assert_allclose(res[0], out.numpy(), rtol=1e-6)
    x2 = paddle.randn([3, 6])
    np.testing.assert_allclose(traced([x2])[0], m(x2).numpy(), rtol=1e-6)
    assert op_types(traced.program) == ["matmul_v2", "elementwise_add", "relu", "matmul_v2", "elementwise_add",
                                        "softmax"]
    gb = traced.program.global_block()
    assert gb.var("feed_0").shape == [3, 6]
    assert set(traced.program._eager_bindings) == {p.name for p in m.parameters()}


def test_traced_program_shares_parameters():
    paddle.seed(1)
    m = MLP()
    x = paddle.randn([2, 6])
    _, traced = TracedLayer.trace(m, x)
    m.fc2.bias.set_value(m.fc2.bias.numpy() + 3.0)
    np.testing.assert_allclose(traced([x])[0], m(x).numpy(), rtol=1e-6)


def test_conv_net_outputs_equal_eager():
    paddle.seed(2)
    net = ConvNet()
    net.eval()
    x = paddle.randn([2, 2, 6, 6])
    out, traced = TracedLayer.trace(net, inputs=[x])
    np.testing.assert_allclose(traced([x])[0], out.numpy(), rtol=1e-5, atol=1e-6)
    x2 = paddle.randn([2, 2, 6, 6])
    np.testing.assert_allclose(traced([x2])[0], net(x2).numpy(), rtol=1e-5, atol=1e-6)
    types = op_types(traced.program)
    for t in ("conv2d", "batch_norm", "relu", "pool2d", "matmul_v2", "elementwise_add"):
        assert t in types, (t, types)
    assert "assign_value" in types     # the constant made inside forward
    assert types.index("conv2d") < types.index("batch_norm") < types.index("pool2d") < types.index("matmul_v2")
    traced.program.verify()


def test_train_mode_batch_norm_updates_shared_stats():
    paddle.seed(3)
    net = ConvNet()
    x = paddle.randn([2, 2, 6, 6])
    _, traced = TracedLayer.trace(net, [x])
    before = net.bn._mean.numpy().copy()
    traced([x])
    assert not np.allclose(net.bn._mean.numpy(), before)


def test_multiple_inputs_and_outputs():
    class Two(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(3, 3)

        def forward(self, a, b):
            return self.fc(a) * b, (a + 1.0, b)

    paddle.seed(4)
    m = Two()
    a, b = paddle.randn([2, 3]), paddle.randn([2, 3])
    out, traced = TracedLayer.trace(m, [a, b])
    res = traced([a, b])
    assert len(res) == 3
    np.testing.assert_allclose(res[0], out[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(res[1], a.numpy() + 1.0, rtol=1e-6)
    np.testing.assert_array_equal(res[2], b.numpy())


def test_set_strategy_and_errors():
    m = MLP()
    _, traced = TracedLayer.trace(m, [paddle.randn([1, 6])])
    traced.set_strategy(build_strategy=None, exec_strategy=None)
    with pytest.raises(TypeError, match="must be a paddle.nn.Layer"):
        TracedLayer.trace(lambda x: x, [paddle.randn([1])])
    with pytest.raises(TypeError, match="inputs must be a Tensor"):
        TracedLayer.trace(m, [np.zeros((1, 6), "float32")])
    with pytest.raises(ValueError, match="expected 1 inputs"):
        traced([paddle.randn([1, 6]), paddle.randn([1, 6])])


def test_save_inference_model(tmp_path):
    m = MLP()
    _, traced = TracedLayer.trace(m, [paddle.randn([1, 6])])
    try:
        import runtime.formats.model_io  # noqa: F401
    except ImportError:
        with pytest.raises(NotImplementedError, match="model_io.py"):
            traced.save_inference_model(str(tmp_path / "m"))
        return
    traced.save_inference_model(str(tmp_path / "m"))
    assert (tmp_path / "m.pdmodel").exists() and (tmp_path / "m.pdiparams").exists()
    from runtime import static
    from runtime.formats.model_io import load_model
    loaded = load_model(str(tmp_path / "m"))
    assert loaded.feed_names == ["feed_0"] and len(loaded.fetch_names) == 1
    scope = static.Scope()
    scope.vars.update(loaded.params)
    x = paddle.randn([1, 6])
    got = static.Executor().run(loaded.program, feed={"feed_0": x.numpy()}, fetch_list=loaded.fetch_names,
                                scope=scope)[0]
    np.testing.assert_allclose(got, m(x).numpy(), rtol=1e-6)


def test_layer_calling_a_partial_program_records_run_program():
    from runtime import static
    from dy2st.partial_program import PartialProgram
    paddle.seed(5)
    fc = paddle.nn.Linear(3, 2)
    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [-1, 3], "float32")
            y = fc(x)
    finally:
        paddle.disable_static()
    pp = PartialProgram(main, [x], [y], training=True)

    class Outer(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.inner = fc

        def forward(self, a):
            return F.relu(pp([a * 2.0])[0])

    m = Outer()
    a = paddle.randn([4, 3])
    out, traced = TracedLayer.trace(m, [a])
    assert op_types(traced.program) == ["scale", "run_program", "relu"]
    a2 = paddle.randn([4, 3])
    np.testing.assert_allclose(traced([a2])[0], F.relu(fc(a2 * 2.0)).numpy(), rtol=1e-6)
