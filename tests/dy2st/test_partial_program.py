"""PartialProgram: a hand-built static Program run from eager code, inference and training.

Programs are built with the static API from eager Layers (their parameters are bound by name), then
compared with the same Layers run eagerly: outputs, gradients of parameters and inputs, an SGD loop,
batch-norm statistics, dropout masks, cond / while_loop, -1 batch dims, the no-grad path."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from runtime import static
from runtime.static.nn import cond, while_loop
from dy2st.partial_program import PartialProgram


@pytest.fixture(autouse=True)
def eager_after():
    yield
    paddle.disable_static()


@pytest.fixture
def f64():
    old = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    yield
    paddle.set_default_dtype(old)


def build(fn, specs, training=True):
    """Program with data inputs ``specs`` [(name, shape, dtype)] and outputs ``fn(*inputs)``."""
    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            ins = [static.data(n, s, d) for n, s, d in specs]
            outs = fn(*ins)
            outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    finally:
        paddle.disable_static()
    main.verify()
    return PartialProgram(main, ins, outs, training=training), main, ins, outs


class MLP(paddle.nn.Layer):
    def __init__(self, sizes=(4, 8, 3)):
        super().__init__()
        self.fc1 = paddle.nn.Linear(sizes[0], sizes[1])
        self.fc2 = paddle.nn.Linear(sizes[1], sizes[2])

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def grads_of(layer):
    return [None if p.grad is None else p.grad.numpy().copy() for p in layer.parameters()]


def test_forward_matches_executor_and_eager():
    paddle.seed(1)
    m = MLP()
    pp, main, ins, outs = build(lambda x: m(x), [("x", [-1, 4], "float32")])
    x = np.random.RandomState(0).rand(5, 4).astype("float32")
    got = pp([paddle.to_tensor(x)])
    exe = static.Executor().run(main, feed={"x": x}, fetch_list=outs)[0]
    np.testing.assert_array_equal(got[0].numpy(), exe)
    np.testing.assert_allclose(got[0].numpy(), m(paddle.to_tensor(x)).numpy(), rtol=1e-6)
    assert got[0].dtype == paddle.float32 and got[0].shape == [5, 3]
    # raw ndarrays are accepted as inputs
    np.testing.assert_array_equal(pp([x])[0].numpy(), exe)


def test_param_and_input_grads_match_eager(f64):
    paddle.seed(2)
    m = MLP()
    pp, *_ = build(lambda x: m(x), [("x", [-1, 4], "float64")])
    xv = np.random.RandomState(1).randn(6, 4)
    x1 = paddle.to_tensor(xv, stop_gradient=False)
    out = pp([x1])[0]
    assert not out.stop_gradient
    (out * out).sum().backward()
    g_pp, gx_pp = grads_of(m), x1.grad.numpy().copy()
    m.clear_gradients()
    x2 = paddle.to_tensor(xv, stop_gradient=False)
    ref = m(x2)
    (ref * ref).sum().backward()
    for a, b in zip(g_pp, grads_of(m)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gx_pp, x2.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_input_grad_only_when_params_frozen(f64):
    paddle.seed(3)
    m = MLP()
    for p in m.parameters():
        p.stop_gradient = True
    pp, *_ = build(lambda x: m(x), [("x", [2, 4], "float64")])
    xv = np.random.RandomState(2).randn(2, 4)
    x = paddle.to_tensor(xv, stop_gradient=False)
    pp([x])[0].sum().backward()
    assert all(p.grad is None for p in m.parameters())
    x2 = paddle.to_tensor(xv, stop_gradient=False)
    m(x2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-12)


def test_sgd_loop_matches_eager():
    paddle.seed(4)
    a, b = MLP((6, 16, 4)), MLP((6, 16, 4))
    b.set_state_dict(a.state_dict())
    pp, *_ = build(lambda x: a(x), [("x", [-1, 6], "float32")])
    opt_a = paddle.optimizer.SGD(learning_rate=0.1, parameters=a.parameters())
    opt_b = paddle.optimizer.SGD(learning_rate=0.1, parameters=b.parameters())
    rng = np.random.RandomState(5)
    for step in range(20):
        x = paddle.to_tensor(rng.randn(8, 6).astype("float32"))
        label = paddle.to_tensor(rng.randint(0, 4, (8, 1)).astype("int64"))
        la = F.cross_entropy(pp([x])[0], label)
        la.backward()
        opt_a.step()
        opt_a.clear_grad()
        lb = F.cross_entropy(b(x), label)
        lb.backward()
        opt_b.step()
        opt_b.clear_grad()
        np.testing.assert_allclose(float(la), float(lb), rtol=1e-6)
    for p, q in zip(a.parameters(), b.parameters()):
        np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-5, atol=1e-7)


def test_batch_norm_stats_written_back():
    paddle.seed(6)
    bn, ref = paddle.nn.BatchNorm1D(3), paddle.nn.BatchNorm1D(3)
    ref.set_state_dict(bn.state_dict())
    pp, *_ = build(lambda x: bn(x), [("x", [-1, 3], "float32")])
    rng = np.random.RandomState(7)
    for _ in range(3):
        x = rng.randn(10, 3).astype("float32") * 2 + 1
        out = pp([paddle.to_tensor(x)])[0]
        r = ref(paddle.to_tensor(x))
        np.testing.assert_allclose(out.numpy(), r.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(bn._mean.numpy(), ref._mean.numpy(), rtol=1e-6)
        np.testing.assert_allclose(bn._variance.numpy(), ref._variance.numpy(), rtol=1e-6)
    assert not np.allclose(bn._mean.numpy(), 0)
    # the grad path writes them back too, and trains weight/bias
    x = rng.randn(10, 3).astype("float32")
    before = bn._mean.numpy().copy()
    out = pp([paddle.to_tensor(x)])[0]
    (out * out).sum().backward()
    assert not np.allclose(bn._mean.numpy(), before)
    r = ref(paddle.to_tensor(x))
    (r * r).sum().backward()
    np.testing.assert_allclose(bn.weight.grad.numpy(), ref.weight.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), ref._mean.numpy(), rtol=1e-6)


def test_dropout_backward_uses_the_forward_mask(f64):
    pp, *_ = build(lambda x: F.dropout(x, p=0.5) * 3.0, [("x", [-1, 50], "float64")])
    xv = np.random.RandomState(8).rand(4, 50) + 0.5     # no zeros: out == 0 exactly where dropped
    x = paddle.to_tensor(xv, stop_gradient=False)
    out = pp([x])[0]
    keep = out.numpy() != 0
    assert 0 < keep.mean() < 1
    np.testing.assert_allclose(out.numpy(), np.where(keep, xv * 2 * 3, 0))
    w = np.random.RandomState(9).randn(4, 50)
    (out * paddle.to_tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(keep, w * 2 * 3, 0), rtol=1e-12)


def test_cond_program_trains_like_eager(f64):
    paddle.seed(10)
    m = MLP((3, 5, 2))

    def fn(x):
        h = m(x)
        return cond(paddle.mean(h) > 0, lambda: h * 2.0, lambda: paddle.tanh(h) - 1.0)

    def eager(x):
        h = m(x)
        return h * 2.0 if float(paddle.mean(h)) > 0 else paddle.tanh(h) - 1.0

    pp, *_ = build(fn, [("x", [-1, 3], "float64")])
    rng = np.random.RandomState(11)
    branches = set()
    for shift in (3.0, -3.0, 3.0, -3.0):
        xv = rng.randn(4, 3) + shift
        x1 = paddle.to_tensor(xv, stop_gradient=False)
        out = pp([x1])[0]
        (out * out).sum().backward()
        g1, gx1 = grads_of(m), x1.grad.numpy()
        m.clear_gradients()
        x2 = paddle.to_tensor(xv, stop_gradient=False)
        ref = eager(x2)
        branches.add(float(paddle.mean(m(x2))) > 0)
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12)
        (ref * ref).sum().backward()
        for a, b in zip(g1, grads_of(m)):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(gx1, x2.grad.numpy(), rtol=1e-10, atol=1e-12)
        m.clear_gradients()
    assert branches == {True, False}


def test_while_loop_program_trains_like_eager(f64):
    paddle.seed(12)
    fc = paddle.nn.Linear(3, 3)

    def fn(x, n):
        i = paddle.zeros([1], "int64")
        _, h = while_loop(lambda i, h: i < n, lambda i, h: (i + 1, paddle.tanh(fc(h))), [i, x])
        return h

    pp, *_ = build(fn, [("x", [-1, 3], "float64"), ("n", [1], "int64")])
    rng = np.random.RandomState(13)
    opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=fc.parameters())
    ref_fc = paddle.nn.Linear(3, 3)
    ref_fc.set_state_dict(fc.state_dict())
    ref_opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=ref_fc.parameters())
    for steps in (3, 1, 4, 0, 2):
        xv = rng.randn(2, 3)
        x1 = paddle.to_tensor(xv, stop_gradient=False)
        out = pp([x1, np.array([steps], "int64")])[0]
        loss = (out * out).sum()
        x2 = paddle.to_tensor(xv, stop_gradient=False)
        h = x2
        for _ in range(steps):
            h = paddle.tanh(ref_fc(h))
        ref_loss = (h * h).sum()
        np.testing.assert_allclose(float(loss), float(ref_loss), rtol=1e-12)
        if steps == 0:
            continue    # the output is the input itself: no parameter takes part
        loss.backward()
        ref_loss.backward()
        np.testing.assert_allclose(x1.grad.numpy(), x2.grad.numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(fc.weight.grad.numpy(), ref_fc.weight.grad.numpy(), rtol=1e-10, atol=1e-12)
        opt.step()
        opt.clear_grad()
        ref_opt.step()
        ref_opt.clear_grad()
    np.testing.assert_allclose(fc.weight.numpy(), ref_fc.weight.numpy(), rtol=1e-10)


def test_no_grad_paths_return_stop_gradient_outputs():
    paddle.seed(14)
    m = MLP()
    x = paddle.randn([2, 4])
    pp, *_ = build(lambda x: m(x), [("x", [-1, 4], "float32")])
    with paddle.no_grad():
        out = pp([x])[0]
    assert out._node is None and out.stop_gradient is False     # Paddle: the traced Variable's flag
    xg = paddle.randn([2, 4])
    xg.stop_gradient = False
    with paddle.no_grad():
        assert pp([xg])[0]._node is None
    # eval-mode program: parameters needing grad do not make the call differentiable, inputs do
    pe, *_ = build(lambda x: m(x), [("x", [-1, 4], "float32")], training=False)
    assert pe([x])[0]._node is None
    out = pe([xg])[0]
    assert not out.stop_gradient
    out.sum().backward()
    assert xg.grad is not None and m.fc1.weight.grad is not None
    # train mode without anything needing grad
    for p in m.parameters():
        p.stop_gradient = True
    assert pp([x])[0]._node is None


def test_second_batch_size_on_dynamic_dim(f64):
    paddle.seed(15)
    m = MLP()
    pp, *_ = build(lambda x: m(x), [("x", [-1, 4], "float64")])
    for n in (3, 7, 1):
        xv = np.random.RandomState(n).randn(n, 4)
        with paddle.no_grad():
            np.testing.assert_allclose(pp([xv])[0].numpy(), m(paddle.to_tensor(xv)).numpy(), rtol=1e-12)
        m.clear_gradients()
        pp([paddle.to_tensor(xv)])[0].sum().backward()
        g = grads_of(m)
        m.clear_gradients()
        m(paddle.to_tensor(xv)).sum().backward()
        for a, b in zip(g, grads_of(m)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
        m.clear_gradients()


def test_integer_outputs_unused_outputs_and_detach(f64):
    paddle.seed(16)
    fc = paddle.nn.Linear(4, 3)

    def fn(x):
        y = fc(x)
        cut = y.detach() * 5.0      # the user cut the graph: no gradient flows through it
        return y, paddle.argmax(y, axis=1), cut + y, y * 0.5

    pp, *_ = build(fn, [("x", [-1, 4], "float64")])
    xv = np.random.RandomState(17).randn(3, 4)
    y, idx, z, unused = pp([paddle.to_tensor(xv)])
    assert idx.stop_gradient and idx.dtype == paddle.int64
    assert not y.stop_gradient and not z.stop_gradient and not unused.stop_gradient
    np.testing.assert_array_equal(idx.numpy(), np.argmax(y.numpy(), axis=1))
    (y.sum() + z.sum()).backward()
    g = fc.weight.grad.numpy().copy()
    fc.clear_gradients()
    y2 = fc(paddle.to_tensor(xv))
    (y2.sum() + (y2.detach() * 5.0 + y2).sum()).backward()
    np.testing.assert_allclose(g, fc.weight.grad.numpy(), rtol=1e-12)


def test_params_are_read_at_every_call():
    paddle.seed(18)
    fc = paddle.nn.Linear(2, 2)
    pp, *_ = build(lambda x: fc(x), [("x", [1, 2], "float32")])
    x = np.ones((1, 2), "float32")
    before = pp([x])[0].numpy()
    fc.bias.set_value(fc.bias.numpy() + 1.0)
    np.testing.assert_allclose(pp([x])[0].numpy(), before + 1.0, rtol=1e-6)


def test_wrong_number_of_inputs():
    fc = paddle.nn.Linear(2, 2)
    pp, *_ = build(lambda x: fc(x), [("x", [1, 2], "float32")])
    with pytest.raises(ValueError, match="expected 1 inputs"):
        pp([])


def test_run_program_op_runs_the_forward():
    from runtime.dispatch import run_op
    paddle.seed(19)
    fc = paddle.nn.Linear(2, 3)
    pp, *_ = build(lambda x: fc(x), [("x", [-1, 2], "float32")])
    x = paddle.randn([4, 2])
    outs = run_op("run_program", [x], list(fc.parameters()), program_id=id(pp))
    np.testing.assert_allclose(outs[0].numpy(), fc(x).numpy(), rtol=1e-6)


def test_chained_with_eager_ops_unreachable_output_and_retain_graph(f64):
    paddle.seed(20)
    fc = paddle.nn.Linear(3, 2)
    pp, *_ = build(lambda x, c: (fc(x), c * 2.0), [("x", [-1, 3], "float64"), ("c", [2], "float64")])
    w = paddle.to_tensor(np.random.RandomState(21).randn(4, 3), stop_gradient=False)
    c = paddle.to_tensor(np.ones(2))
    h = paddle.tanh(w)                          # a non-leaf input: the gradient continues into w
    y, k = pp([h, c])
    assert not y.stop_gradient and k.stop_gradient     # k does not depend on anything needing grad
    loss = (y * y).sum()
    loss.backward(retain_graph=True)
    g1 = w.grad.numpy().copy()
    loss.backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * g1, rtol=1e-12)
    w2 = paddle.to_tensor(w.numpy(), stop_gradient=False)
    r = fc(paddle.tanh(w2))
    (r * r).sum().backward()
    np.testing.assert_allclose(g1, w2.grad.numpy(), rtol=1e-12)


def test_backward_program_holds_grad_ops():
    paddle.seed(22)
    fc = paddle.nn.Linear(3, 2)
    pp, main, *_ = build(lambda x: fc(x), [("x", [-1, 3], "float32")])
    n = len(main.global_block().ops)
    train = pp.backward_program()
    types = [op.type for op in train.global_block().ops]
    assert len(main.global_block().ops) == n        # the traced program is left as it was
    assert "matmul_v2_grad" in types and "elementwise_add_grad" in types
    assert fc.weight.name + "@GRAD" in train.global_block().vars


def test_outputs_that_are_inputs_or_parameters(f64):
    paddle.seed(23)
    fc = paddle.nn.Linear(2, 2)
    pp, *_ = build(lambda x: (x, fc(x), fc.weight), [("x", [-1, 2], "float64")])
    xv = np.random.RandomState(24).randn(3, 2)
    x = paddle.to_tensor(xv, stop_gradient=False)
    a, b, w = pp([x])
    np.testing.assert_array_equal(a.numpy(), xv)
    np.testing.assert_array_equal(w.numpy(), fc.weight.numpy())
    (a.sum() + b.sum() + (w * w).sum()).backward()
    x2 = paddle.to_tensor(xv, stop_gradient=False)
    gw = fc.weight.grad.numpy().copy()
    fc.clear_gradients()
    (x2.sum() + fc(x2).sum() + (fc.weight * fc.weight).sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gw, fc.weight.grad.numpy(), rtol=1e-12)


def test_dy2st_executor_interpreter_runs_the_reference_interpreter(monkeypatch, f64):
    """DY2ST_EXECUTOR=interpreter: forward, forward-with-saves and backward all run op by op, and
    give the compiled back end's outputs, gradients and batch-norm statistics."""
    from runtime.static.interpreter import InterpretedProgram

    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 3)
            self.bn = paddle.nn.BatchNorm1D(3)

        def forward(self, x):
            return F.relu(self.bn(self.fc(x)))

    xv = np.random.RandomState(7).randn(5, 4)
    results = []
    for backend in ("compiled", "interpreter"):
        monkeypatch.setenv("DY2ST_EXECUTOR", backend)
        paddle.seed(11)
        net = Net()
        pp, *_ = build(lambda x: net(x), [("x", [-1, 4], "float64")])
        x = paddle.to_tensor(xv, stop_gradient=False)
        out = pp([x])[0]
        (out * out).sum().backward()
        with paddle.no_grad():
            inference = pp([paddle.to_tensor(xv)])[0].numpy()
        plan = next(iter(pp._plans.values()))
        assert isinstance(plan.fwd, InterpretedProgram) == (backend == "interpreter")
        assert isinstance(pp._compiled, InterpretedProgram) == (backend == "interpreter")
        results.append([out.numpy(), inference, x.grad.numpy()]
                       + [p.grad.numpy() for p in net.parameters() if not p.stop_gradient]
                       + [net.bn._mean.numpy().copy(), net.bn._variance.numpy().copy()])
    assert len(results[0]) == 3 + 4 + 2     # fc weight, bias, bn weight, bias; bn statistics
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-14)
