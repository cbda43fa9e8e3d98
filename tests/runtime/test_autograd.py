"""Eager autograd: accumulation, broadcasting, retain_graph, paddle.grad, hooks, no_grad."""
import numpy as np
import pytest

import runtime as paddle
from runtime.errors import GradientError
from runtime.tensor import Tensor


def leaf(arr):
    return Tensor(np.asarray(arr, dtype=np.float64), stop_gradient=False)


def test_backward_accumulates_and_broadcasts():
    x = leaf(np.arange(6).reshape(2, 3) + 1.0)
    b = leaf([1.0, 2.0, 3.0])
    y = x * b + b            # b used twice, broadcast over rows
    y.backward(Tensor(np.ones((2, 3))))
    np.testing.assert_allclose(x.grad.numpy(), np.tile([1.0, 2.0, 3.0], (2, 1)))
    np.testing.assert_allclose(b.grad.numpy(), x.numpy().sum(0) + 2)
    # a second backward accumulates
    y2 = x * 2.0
    y2.backward(Tensor(np.ones((2, 3))))
    np.testing.assert_allclose(x.grad.numpy(), np.tile([3.0, 4.0, 5.0], (2, 1)))


def test_second_backward_needs_retain_graph():
    x = leaf([2.0])
    y = x * x
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [8.0])
    with pytest.raises(GradientError, match="second time"):
        y.backward()


def test_stop_gradient_inputs_get_no_grad_and_int_outputs_stop():
    x = leaf([1.0, 2.0])
    c = Tensor([3.0, 4.0])
    y = x * c
    y.backward(Tensor([1.0, 1.0]))
    assert c.grad is None


def test_backward_on_stop_gradient_tensor_does_nothing_as_paddle():
    c = Tensor([1.0, 2.0])
    (c * 2).sum().backward()                       # Paddle: no error, no gradient
    assert c.grad is None
    x = leaf([1.0, 2.0])
    paddle.autograd.backward([(c * 3).sum(), (x * x).sum()], [Tensor(5.0), Tensor(2.0)])
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 8.0])   # the stop_gradient root's grad is dropped


def test_no_grad_context_and_decorator():
    x = leaf([1.0])
    with paddle.no_grad():
        y = x * 2.0
    assert y.stop_gradient

    @paddle.no_grad()
    def f(t):
        return t * 3.0

    @paddle.no_grad
    def g(t):
        return t * 3.0
    assert f(x).stop_gradient and g(x).stop_gradient
    assert not (x * 2.0).stop_gradient


def test_paddle_grad_does_not_touch_dot_grad():
    x = leaf([1.0, 2.0])
    y = x * x * x
    (gx,) = paddle.grad(y, x, Tensor([1.0, 1.0]))
    np.testing.assert_allclose(gx.numpy(), 3 * x.numpy() ** 2)
    assert x.grad is None


def test_paddle_grad_unused_input():
    x, z = leaf([1.0]), leaf([1.0])
    y = x * 2.0
    with pytest.raises(GradientError, match="allow_unused"):
        paddle.grad(y, [x, z], retain_graph=True)
    gx, gz = paddle.grad(y, [x, z], allow_unused=True)
    assert gz is None and gx.tolist() == [2.0]


def test_create_graph_second_derivative():
    x = leaf([3.0])
    y = x * x * x
    (g,) = paddle.grad(y, x, create_graph=True)
    assert not g.stop_gradient
    (g2,) = paddle.grad(g, x)
    np.testing.assert_allclose(g2.numpy(), [18.0])   # d2/dx2 x^3 = 6x


def test_grad_wrt_intermediate():
    x = leaf([1.0, 2.0])
    h = x * 3.0
    y = h * h
    (gh,) = paddle.grad(y, h, Tensor([1.0, 1.0]))
    np.testing.assert_allclose(gh.numpy(), 2 * h.numpy())


def test_hooks_modify_and_remove():
    x = leaf([1.0, 2.0])
    seen = []
    handle = x.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 2.0)
    (x * 3.0).backward(Tensor([1.0, 1.0]))
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])
    np.testing.assert_allclose(seen[0], [3.0, 3.0])
    handle.remove()
    x.clear_gradient()
    (x * 3.0).backward(Tensor([1.0, 1.0]))
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_hook_on_intermediate_tensor():
    x = leaf([1.0])
    h = x * 2.0
    h.register_hook(lambda g: g * 10.0)
    (h * 1.0).backward()
    np.testing.assert_allclose(x.grad.numpy(), [20.0])


def test_clear_gradient_modes():
    x = leaf([1.0])
    (x * 2.0).backward()
    x.clear_gradient()
    assert x.grad.tolist() == [0.0]
    x.clear_gradient(set_to_zero=False)
    assert x.grad is None


def test_grad_dtype_matches_leaf():
    x = Tensor(np.ones(2, np.float32), stop_gradient=False)
    (x * 2.0).backward(Tensor([1.0, 1.0]))
    assert x.grad.dtype == paddle.float32


def test_diamond_graph_order():
    # x feeds two paths that join: each node must run after all its consumers
    x = leaf([2.0])
    a = x * 3.0
    b = a * a
    c = a + b
    c.backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0 + 2 * 6.0 * 3.0])
