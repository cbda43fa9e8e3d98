"""A converted training step gives eager's numbers (issue 17: whole-step training speed).

The converted step's fast paths (the run_program node's direct backward, gradients stored without
the engine, the cleared-zeros gradients, fused multi-tensor optimizer updates, grad kernels that
skip unused outputs) must not change a single result: each case trains the same float64 model
eagerly and converted from the same weights and compares losses, gradients and parameters after
every step (to 1e-12; most agree bit for bit).
"""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.partial_program import _LIVE, _is_cleared

nn = paddle.nn
F = paddle.nn.functional
TOL = 1e-12


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.fc2 = nn.Linear(16, 5)

    def forward(self, x, label):
        return F.cross_entropy(self.fc2(F.relu(self.fc1(x))), label)


class ConvNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(2, 3, 3, padding=1)
        self.fc = nn.Linear(3 * 4 * 4, 5)

    def forward(self, x, label):
        h = F.max_pool2d(F.relu(self.conv(x)), 2)
        return F.cross_entropy(self.fc(paddle.flatten(h, 1)), label)


def _data(kind, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "mlp":
        x = rng.standard_normal((6, 12))
    else:
        x = rng.standard_normal((4, 2, 8, 8))
    label = rng.integers(0, 5, (x.shape[0], 1))
    return paddle.to_tensor(x), paddle.to_tensor(label)


def _pair(kind):
    """(eager model, converted model) with the same float64 weights."""
    paddle.set_default_dtype("float64")
    try:
        paddle.seed(7)
        a = MLP() if kind == "mlp" else ConvNet()
        b = MLP() if kind == "mlp" else ConvNet()
    finally:
        paddle.set_default_dtype("float32")
    b.set_state_dict({k: paddle.to_tensor(v.numpy().copy()) for k, v in a.state_dict().items()})
    return a, paddle.jit.to_static(b, full_graph=True)


def _same(ta, tb, what):
    a, b = np.asarray(ta), np.asarray(tb)
    assert a.shape == b.shape and a.dtype == b.dtype, what
    np.testing.assert_allclose(b, a, rtol=0, atol=TOL, err_msg=what)


def _check(ma, mb, what):
    for (n, pa), (_, pb) in zip(ma.named_parameters(), mb.named_parameters()):
        _same(pa.numpy(), pb.numpy(), f"{what}: parameter {n}")
        if pa.grad is None:
            assert pb.grad is None, f"{what}: {n}.grad"
        else:
            _same(pa.grad.numpy(), pb.grad.numpy(), f"{what}: {n}.grad")


def _opt(name, params, **kw):
    o = paddle.optimizer
    if name == "sgd":
        return o.SGD(learning_rate=0.1, parameters=params, **kw)
    if name == "momentum":
        return o.Momentum(learning_rate=0.05, momentum=0.9, use_nesterov=True, parameters=params,
                          weight_decay=paddle.regularizer.L2Decay(1e-3), **kw)
    if name == "adam":
        return o.Adam(learning_rate=0.01, parameters=params, **kw)
    if name == "adamw":
        return o.AdamW(learning_rate=0.01, parameters=params, weight_decay=0.05,
                       apply_decay_param_fun=lambda n: "b_0" not in n, **kw)
    raise KeyError(name)


def _train(model, opt, x, label, steps, sched=None):
    losses = []
    for _ in range(steps):
        loss = model(x, label)
        loss.backward()
        opt.step()
        opt.clear_grad()
        if sched is not None:
            sched.step()
        losses.append(float(loss))
    return losses


@pytest.mark.parametrize("kind", ["mlp", "conv"])
@pytest.mark.parametrize("opt_name", ["sgd", "momentum", "adam", "adamw"])
def test_trajectory_matches_eager(kind, opt_name):
    ma, mb = _pair(kind)
    x, label = _data(kind)
    oa, ob = _opt(opt_name, ma.parameters()), _opt(opt_name, mb.parameters())
    la = _train(ma, oa, x, label, 4)
    lb = _train(mb, ob, x, label, 4)
    np.testing.assert_allclose(lb, la, rtol=0, atol=TOL)
    _check(ma, mb, f"{kind}/{opt_name}")


def test_clip_scheduler_and_groups():
    ma, mb = _pair("mlp")
    x, label = _data("mlp")
    res = []
    for m in (ma, mb):
        sched = paddle.optimizer.lr.StepDecay(learning_rate=0.05, step_size=2, gamma=0.5)
        groups = [{"params": [m.fc1.weight, m.fc1.bias], "learning_rate": 0.5},
                  {"params": [m.fc2.weight, m.fc2.bias]}]
        opt = paddle.optimizer.Adam(learning_rate=sched, parameters=groups,
                                    grad_clip=nn.ClipGradByGlobalNorm(0.5))
        res.append(_train(m, opt, x, label, 5, sched))
    np.testing.assert_allclose(res[1], res[0], rtol=0, atol=TOL)
    _check(ma, mb, "clip + scheduler + groups")


def test_accumulation_over_two_steps_and_set_to_zero_false():
    ma, mb = _pair("mlp")
    x, label = _data("mlp")
    x2, label2 = _data("mlp", seed=1)
    oa, ob = _opt("sgd", ma.parameters()), _opt("sgd", mb.parameters())
    for m, o in ((ma, oa), (mb, ob)):
        for _ in range(2):
            m(x, label).backward()       # two backward passes accumulate before the step
            m(x2, label2).backward()
            o.step()
            o.clear_grad(set_to_zero=False)
    _check(ma, mb, "accumulation / set_to_zero=False")
    assert all(p.grad is None for p in mb.parameters())
    for m in (ma, mb):
        m(x, label).backward()
    _check(ma, mb, "first backward after set_to_zero=False")


def test_cleared_gradient_reads_zero_and_accumulates():
    ma, mb = _pair("mlp")
    x, label = _data("mlp")
    for m in (ma, mb):
        m(x, label).backward()
        m.clear_gradients()
    for p in mb.parameters():
        assert _is_cleared(p.grad._data)
        assert p.grad.shape == p.shape and not p.grad.numpy().any()
    held = mb.fc1.weight.grad
    for m in (ma, mb):
        m(x, label).backward()
    _check(ma, mb, "backward after clear_grad")
    assert not held.numpy().any()       # the Tensor held before the backward still reads zeros (as eagerly)
    assert mb.fc1.weight.grad.numpy().flags.writeable


def test_hooks_retain_graph_and_double_forward():
    ma, mb = _pair("mlp")
    x, label = _data("mlp")
    x2, label2 = _data("mlp", seed=3)
    for m in (ma, mb):
        m.fc2.weight.register_hook(lambda g: g * 3)
    for m in (ma, mb):
        l1 = m(x, label)
        l2 = m(x2, label2)              # two forwards before any backward
        l2.backward(retain_graph=True)
        l2.backward()                   # the same graph twice
        l1.backward()
    _check(ma, mb, "hooks / retain_graph / two forwards")
    with pytest.raises(Exception, match="second time"):
        l2.backward()


def test_loss_combined_outside_and_paddle_grad():
    ma, mb = _pair("mlp")
    x, label = _data("mlp")
    for m in (ma, mb):
        loss = m(x, label) * 2.0 + (m.fc1.weight ** 2).sum() * 1e-3   # the engine's general path
        loss.backward()
    _check(ma, mb, "loss with a graph around the converted call")
    ga = paddle.grad(ma(x, label), [ma.fc1.weight, ma.fc2.bias])
    gb = paddle.grad(mb(x, label), [mb.fc1.weight, mb.fc2.bias])
    for a, b in zip(ga, gb):
        _same(a.numpy(), b.numpy(), "paddle.grad")
    _check(ma, mb, "paddle.grad leaves .grad alone")


def test_grad_of_input_and_no_grad():
    ma, mb = _pair("mlp")
    x, label = _data("mlp")
    xa, xb = x.detach(), x.detach()
    xa.stop_gradient = xb.stop_gradient = False
    ma(xa, label).backward()
    mb(xb, label).backward()
    _same(xa.grad.numpy(), xb.grad.numpy(), "input gradient")
    _check(ma, mb, "with an input gradient")
    with paddle.no_grad():
        out = mb(x, label)
    assert out._node is None        # no graph (the flag is the traced Variable's, as in Paddle)
    np.testing.assert_allclose(float(out), float(ma(x, label)), rtol=0, atol=TOL)


def test_first_layer_input_gradient_is_skipped():
    """The compiled backward does not compute the data batch's gradient (a whole GEMM / col2im)."""
    for kind in ("mlp", "conv"):
        _, mb = _pair(kind)
        x, label = _data(kind)
        mb(x, label).backward()
        pp = next(p for p in _LIVE.values() if p._plans and any(pl and pl.bwd for pl in p._plans.values())
                  and p.program is mb.forward.concrete_program.main_program)
        plan = next(pl for pl in pp._plans.values() if pl is not None)
        src = plan.bwd.source
        first = "matmul_v2_grad" if kind == "mlp" else "conv2d_grad"
        line = [ln for ln in src.splitlines() if first in ln and "= " in ln][-1]
        assert line.strip().startswith("_, "), line
        assert plan.bwd.fn.__globals__[line.split("= ")[1].split("(")[0]].__module__ == \
            "runtime.static.partial_grads"


class Shift(nn.Layer):
    """Big parameters whose gradients the backward may hand out unchanged (the output gradient itself)."""

    def __init__(self):
        super().__init__()
        self.p = self.create_parameter([160, 160], dtype="float64")
        self.w = self.create_parameter([160, 160], dtype="float64")

    def forward(self, x):
        return self.p + x, paddle.matmul(x, self.w) + self.p * 0.5 - (-self.p)


class Twins(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = self.create_parameter([200, 200], dtype="float64")
        self.b = self.create_parameter([200, 200], dtype="float64")

    def forward(self, x):
        return (self.a + self.b + x).sum()      # both gradients are the same array in the backward


def test_one_gradient_array_for_two_parameters_is_not_shared():
    m = paddle.jit.to_static(Twins(), full_graph=True)
    m(paddle.ones([200, 200], dtype="float64")).backward()
    assert not np.shares_memory(m.a.grad._data, m.b.grad._data)
    m.a.grad._data[0, 0] = 7.0
    assert m.b.grad.numpy()[0, 0] == 1.0


def test_large_gradients_never_alias_what_the_user_holds():
    m = paddle.jit.to_static(Shift(), full_graph=True)
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((160, 160)))
    m.clear_gradients()
    # from cleared zeros, then accumulating, then from None (clear_gradients(set_to_zero=False))
    for step, expect in enumerate((2.0, 4.0, None, 2.0)):
        if expect is None:
            m.clear_gradients(set_to_zero=False)
            continue
        out, out2 = m(x)
        g = paddle.to_tensor(np.full((160, 160), 2.0))
        out.backward(g)                      # p's gradient is the output gradient itself
        assert not np.shares_memory(m.p.grad._data, g._data)
        g._data[...] = 5.0
        np.testing.assert_array_equal(m.p.grad.numpy(), np.full((160, 160), expect))
    m.clear_gradients()
    _, out2 = m(x)
    out2.sum().backward()                    # a graph around the call: the engine's path
    loss = m(x)[1].mean()
    loss.backward()
    for p in (m.p, m.w):
        for t in (x, p, g, out2):
            assert not np.shares_memory(p.grad._data, t._data)
    assert not np.shares_memory(m.p.grad._data, m.w.grad._data)
    expect_w = x.numpy().T @ np.ones((160, 160)) + x.numpy().T @ np.full((160, 160), 1 / 160 ** 2)
    np.testing.assert_allclose(m.w.grad.numpy(), expect_w, rtol=1e-12)
    np.testing.assert_allclose(m.p.grad.numpy(), np.full((160, 160), 1.5 + 1.5 / 160 ** 2), rtol=1e-12)


def test_graph_before_the_converted_call():
    ma, mb = _pair("mlp")
    x, label = _data("mlp")
    leaves = []
    for m in (ma, mb):
        leaf = x.detach()
        leaf.stop_gradient = False
        m(paddle.tanh(leaf) * 2.0, label).backward()     # the node's input comes from an eager op
        leaves.append(leaf)
    _same(leaves[0].grad.numpy(), leaves[1].grad.numpy(), "gradient through an eager op before the call")
    _check(ma, mb, "graph before the call")


def test_a_training_step_does_not_install_second_order_rules():
    """The first training call of a converted Layer builds a first-order backward only: installing the
    second-order rules (importing their modules) is left to a program that holds grad ops."""
    import subprocess
    import sys
    code = (
        "import runtime.double_grad as dg\n"
        "import dy2st as paddle\n"
        "net = paddle.jit.to_static(paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), "
        "paddle.nn.Linear(8, 2)))\n"
        "opt = paddle.optimizer.Adam(parameters=net.parameters())\n"
        "loss = paddle.nn.functional.cross_entropy(net(paddle.rand([3, 4])), paddle.to_tensor([[0], [1], [1]]))\n"
        "loss.backward(); opt.step(); opt.clear_grad()\n"
        "assert not dg._installed, 'second-order rules installed by a plain training step'\n"
        "print('ok')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr[-2000:]
