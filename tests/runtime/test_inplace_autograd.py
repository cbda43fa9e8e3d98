"""Gradients through in-place updates (``x.sin_()``, ``F.relu_``, ``x.add_(y)`` ...): every grad node that
read a tensor before it was updated in place sees the value it was recorded with (autograd.freeze_inputs).

Before the fix these gave silently wrong gradients: the grad rules read the tensor's NEW value. Paddle
gets the first case right and raises a version error on the others; here all are computed exactly."""
import numpy as np

import dy2st as paddle


def _leaf(v):
    return paddle.to_tensor(np.array(v, dtype=np.float64), stop_gradient=False)


def test_the_in_place_op_uses_the_old_value():
    a = _leaf([1.0, 2.0])
    b = a * 1.0
    b.sin_()
    b.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.cos([1.0, 2.0]))


def test_an_earlier_op_that_read_the_tensor_keeps_its_value():
    a = _leaf([1.0, 2.0])
    b = a * 1.0
    c = b * b                 # d c / d b = 2 b, with the b it saw
    b.sin_()
    c.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 4.0])


def test_a_constant_updated_after_use():
    w = _leaf([1.0, 2.0])
    k = paddle.to_tensor(np.array([3.0, 4.0]))
    y = w * k
    k.add_(paddle.to_tensor(np.array([10.0, 10.0])))
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(k.numpy(), [13.0, 14.0])


def test_chained_in_place_updates_and_relu_():
    x = _leaf([-1.0, 2.0])
    h = x * 2.0
    g = h * h
    paddle.nn.functional.relu_(h)
    h.multiply_(paddle.to_tensor(np.array([5.0, 5.0])))
    (g.sum() + h.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), 8 * np.array([-1.0, 2.0]) + 10 * np.array([0.0, 1.0]))


def test_finite_differences_through_a_sequence_of_in_place_ops():
    rng = np.random.default_rng(0)
    x0 = rng.uniform(0.2, 0.8, 4)

    def f(v, grad=False):
        x = paddle.to_tensor(v, stop_gradient=not grad)
        h = x * 1.5
        s = (h * x).sum()
        h.tanh_()
        h.add_(x)
        h.exp_()
        out = s + (h * h).sum()
        if grad:
            out.backward()
            return x.grad.numpy()
        return float(out.numpy())

    eps = 1e-6
    num = np.array([(f(x0 + eps * e) - f(x0 - eps * e)) / (2 * eps) for e in np.eye(4)])
    np.testing.assert_allclose(f(x0, grad=True), num, rtol=1e-6)


def test_a_parameter_read_every_step_does_not_collect_references():
    """Each grad node registers the tensors it reads; dead registrations are dropped as the list grows."""
    net = paddle.nn.Linear(4, 2)
    opt = paddle.optimizer.SGD(0.01, parameters=net.parameters())
    x = paddle.randn([3, 4])
    for _ in range(1000):
        loss = net(x).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
    assert len(net.weight._users) < 128
