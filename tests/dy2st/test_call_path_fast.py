"""The merged hot path (issue 17): StaticFunction's signature/mode checks and PartialProgram's inference
or training call run as ONE function (``PartialProgram.infer_call`` with StaticFunction's guard; returns
a miss marker when the call differs), and the training step's ``_fast_backward`` stores the backward's
arrays without the grad rule's Tensors. Each test establishes the hot path, then checks what it must
still see: a fresh thread's own framework state, a plain function's train()/eval(), a Layer's mode, an
explicit output gradient, retain_graph, outputs the loss does not use; results against eager."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.static_function import _MISS


class Mlp(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(5, 7)
        self.fc2 = paddle.nn.Linear(7, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class TwoOut(Mlp):
    def forward(self, x):
        h = F.relu(self.fc1(x))
        return self.fc2(h), h.mean()


def _x(n=4, seed=0, sg=True):
    return paddle.to_tensor(np.random.RandomState(seed).standard_normal((n, 5)).astype("float32"),
                            stop_gradient=sg)


def _pair(cls=Mlp):
    paddle.seed(11)
    eager = cls()
    conv = cls()
    conv.set_state_dict(eager.state_dict())
    return eager, paddle.jit.to_static(conv, full_graph=True)


def test_guard_miss_returns_the_marker_and_the_call_takes_the_general_path():
    eager, conv = _pair()
    eager.eval()
    conv.eval()
    with paddle.no_grad():
        conv(_x())
        fast = conv.forward._fast_args
        assert fast((_x(),)) is not _MISS
        assert fast((_x(6),)) is _MISS                 # another shape
        assert fast((_x().astype("float64"),)) is _MISS     # another dtype
        assert fast((_x()._data,)) is _MISS            # not a Tensor
        assert fast((_x(), _x())) is _MISS             # another arity
        conv.train()
        assert fast((_x(),)) is _MISS                  # the Layer's mode changed
        conv.eval()
        np.testing.assert_allclose(conv(_x(6)).numpy(), eager(_x(6)).numpy(), rtol=1e-6)
        np.testing.assert_allclose(conv(_x()).numpy(), eager(_x()).numpy(), rtol=1e-6)


def test_hot_path_first_used_in_a_fresh_thread():
    # the guard reads the framework state through the thread's own dict: a thread whose first touch of
    # the state is this call must see its defaults (gradients on, eager mode), not another thread's
    eager, conv = _pair()
    eager.eval()
    conv.eval()
    with paddle.no_grad():
        conv(_x())
        conv(_x())
    out = {}
    xt = _x()       # (made here: creating a tensor in the thread would touch its state first)

    def run():
        try:
            out["y"] = conv(xt)
        except Exception as e:      # noqa: BLE001 -- reported by the assertion below
            out["error"] = e
    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert "error" not in out, out.get("error")
    np.testing.assert_allclose(out["y"].numpy(), eager(_x()).numpy(), rtol=1e-6)
    assert out["y"]._node is None       # eval mode, no input needing gradients: nothing recorded


def test_plain_function_mode_is_read_at_every_hot_call():
    # train()/eval() drop the hot path; a hot path built by a call that raced with the switch must still
    # see the function's current mode (the guard reads it through a weakref to the function)
    def f(x):
        return x * 2.0

    sf = paddle.jit.to_static(f, full_graph=True)
    sf.eval()
    with paddle.no_grad():
        sf(_x())
        fast = sf._fast_args
        assert fast((_x(),)) is not _MISS
        sf._training = True         # what train() sets (without dropping the hot path, as in a race)
        assert fast((_x(),)) is _MISS
        sf._training = False
        np.testing.assert_allclose(fast((_x(),)).numpy(), _x().numpy() * 2.0)
        sf.train()
        assert sf._fast_args is None
        np.testing.assert_allclose(sf(_x()).numpy(), _x().numpy() * 2.0)
    assert sf.get_traced_count() == 2


def test_hot_path_for_an_input_needing_gradients_follows_the_layer_mode():
    eager, conv = _pair()
    for m in (eager, conv):
        m.eval()
    xe, xc = _x(sg=False), _x(sg=False)
    for _ in range(2):
        conv(xc).sum().backward()
    eager(xe).sum().backward()
    eager(xe).sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), xe.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(conv.fc1.weight.grad.numpy(), eager.fc1.weight.grad.numpy(), rtol=1e-5)
    fast = conv.forward._fast_args
    assert fast((xc,)) is not _MISS
    conv.train()
    eager.train()
    assert fast((xc,)) is _MISS
    conv(xc).sum().backward()       # the mode changed: the general path, then the train program
    eager(xe).sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), xe.grad.numpy(), rtol=1e-5)


def _step(net, x, label, **backward_kwargs):
    out = net(x)
    loss = F.cross_entropy(out[0] if isinstance(out, tuple) else out, label)
    loss.backward(**backward_kwargs)
    return loss


def test_training_step_gradients_match_eager_with_explicit_grad_and_retain_graph():
    eager, conv = _pair()
    x = _x()
    label = paddle.to_tensor(np.array([[0], [2], [1], [2]], "int64"))

    def loss_of(net):
        return F.cross_entropy(net(x), label).mean() * 1.0

    for net in (eager, conv):
        loss_of(net)        # (establish the hot path on the converted one)
        for p in net.parameters():
            p.clear_gradient()
    # an explicit output gradient (the root's gradient comes from it) and retain_graph, then again
    le, lc = loss_of(eager), conv(x)
    lc = F.cross_entropy(lc, label).mean() * 1.0
    g = paddle.to_tensor(np.array(0.5, "float32"))
    le.backward(g, retain_graph=True)
    lc.backward(g, retain_graph=True)
    le.backward()
    lc.backward()
    for pe, pc in zip(eager.parameters(), conv.parameters()):
        np.testing.assert_allclose(pc.grad.numpy(), pe.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_converted_loss_backward_directly_with_an_unused_second_output():
    paddle.seed(5)

    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1 = paddle.nn.Linear(5, 7)
            self.fc2 = paddle.nn.Linear(7, 3)

        def forward(self, x, label):
            h = F.relu(self.fc1(x))
            return F.cross_entropy(self.fc2(h), label), h.mean()

    eager = Net()
    conv = Net()
    conv.set_state_dict(eager.state_dict())
    conv = paddle.jit.to_static(conv, full_graph=True)
    x = _x()
    label = paddle.to_tensor(np.array([[0], [2], [1], [2]], "int64"))
    for _ in range(3):      # the hot path and the direct backward, gradients replaced after clear_grad
        for net in (eager, conv):
            loss, aux = net(x, label)
            loss.backward()     # aux's output gradient: zeros
        for pe, pc in zip(eager.parameters(), conv.parameters()):
            np.testing.assert_allclose(pc.grad.numpy(), pe.grad.numpy(), rtol=1e-5, atol=1e-7)
            pe.clear_gradient()
            pc.clear_gradient()
    # without clear_grad the second backward accumulates
    for net in (eager, conv):
        net(x, label)[0].backward()
        net(x, label)[0].backward()
    for pe, pc in zip(eager.parameters(), conv.parameters()):
        np.testing.assert_allclose(pc.grad.numpy(), pe.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_stored_gradients_are_not_shared_between_steps():
    _, conv = _pair()
    x = _x()
    label = paddle.to_tensor(np.array([[0], [2], [1], [2]], "int64"))
    _step(conv, x, label)
    held = [p.grad._data for p in conv.parameters()]      # the arrays the first backward stored
    first = [a.copy() for a in held]
    for p in conv.parameters():
        p.clear_gradient()
    _step(conv, x2 := _x(seed=1), label)
    for p, h, f in zip(conv.parameters(), held, first):
        assert p.grad._data is not h
        assert not np.shares_memory(p.grad._data, h)
        np.testing.assert_array_equal(h, f)             # nothing wrote into the first step's arrays
    assert x2.grad is None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_training_dtypes(dtype):
    paddle.set_default_dtype(dtype)
    try:
        eager, conv = _pair()
    finally:
        paddle.set_default_dtype("float32")
    x = _x().astype(dtype)
    label = paddle.to_tensor(np.array([[1], [0], [2], [2]], "int64"))
    for _ in range(2):
        for net in (eager, conv):
            _step(net, x, label)
    for pe, pc in zip(eager.parameters(), conv.parameters()):
        assert pc.grad.dtype == pe.grad.dtype
        np.testing.assert_allclose(pc.grad.numpy(), pe.grad.numpy(), rtol=1e-5 if dtype == "float32" else 1e-12)
