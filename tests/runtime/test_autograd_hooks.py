"""paddle.autograd.saved_tensors_hooks: pack at record time, unpack at backward, values from unpack used,
nesting, retain_graph, errors. (Against real Paddle: tests/interop/test_autograd_hooks_interop.py.)"""
import numpy as np
import pytest

import dy2st as paddle


def _ab():
    a = paddle.to_tensor(np.arange(1, 7, dtype="float64").reshape(2, 3) / 10, stop_gradient=False)
    b = paddle.to_tensor(np.full((3, 2), 2.0), stop_gradient=False)
    return a, b


def test_documented_example_order_and_values():
    events = []

    def pack(x):
        events.append(("pack", x.shape))
        return x.numpy()

    def unpack(x):
        events.append(("unpack", list(x.shape)))
        return paddle.to_tensor(x)
    a = paddle.ones([3, 3])
    b = paddle.ones([3, 3]) * 2
    a.stop_gradient = False
    b.stop_gradient = False
    with paddle.autograd.saved_tensors_hooks(pack, unpack):
        y = paddle.multiply(a, b)
    assert events == [("pack", [3, 3]), ("pack", [3, 3])]
    y.sum().backward()
    assert events[2:] == [("unpack", [3, 3]), ("unpack", [3, 3])]
    np.testing.assert_array_equal(a.grad.numpy(), np.full((3, 3), 2.0))
    np.testing.assert_array_equal(b.grad.numpy(), np.ones((3, 3)))


def test_backward_computes_with_the_unpacked_values():
    a, b = _ab()
    with paddle.autograd.saved_tensors_hooks(lambda x: x.numpy(), lambda x: paddle.to_tensor(x * 2)):
        y = paddle.matmul(a, b)
    y.sum().backward()
    # d/da sum(a @ b) = ones @ b^T, with the saved b doubled
    np.testing.assert_allclose(a.grad.numpy(), np.ones((2, 2)) @ (2 * np.full((3, 2), 2.0)).T)
    np.testing.assert_allclose(b.grad.numpy(), (2 * a.numpy()).T @ np.ones((2, 2)))


def test_only_nodes_recorded_inside_are_packed_and_contexts_nest():
    a, _ = _ab()
    outer, inner = [], []
    y1 = a * a
    with paddle.autograd.saved_tensors_hooks(lambda x: outer.append(1) or x, lambda x: x):
        y2 = y1 * 3.0
        with paddle.autograd.saved_tensors_hooks(lambda x: inner.append(1) or x, lambda x: x):
            y3 = paddle.exp(y2)
        y4 = y3 * y1
    n_outer, n_inner = len(outer), len(inner)
    assert n_outer >= 2 and n_inner >= 1
    y4.sum().backward()
    ref = np.exp(3 * a.numpy() ** 2)
    want = ref * 6 * a.numpy() * a.numpy() ** 2 + ref * 2 * a.numpy()
    np.testing.assert_allclose(a.grad.numpy(), want, rtol=1e-12)
    assert (len(outer), len(inner)) == (n_outer, n_inner)     # backward does not pack again


def test_retain_graph_unpacks_on_every_backward():
    a, b = _ab()
    unpacked = []
    with paddle.autograd.saved_tensors_hooks(lambda x: x, lambda x: unpacked.append(1) or x):
        y = (a * 2.0).sum() + paddle.matmul(a, b).sum()
    y.backward(retain_graph=True)
    first = len(unpacked)
    g1 = a.grad.numpy().copy()
    y.backward()
    assert len(unpacked) == 2 * first
    np.testing.assert_allclose(a.grad.numpy(), 2 * g1)


def test_errors():
    with pytest.raises(TypeError, match="callables"):
        paddle.autograd.saved_tensors_hooks(lambda x: x, None)
    a, b = _ab()
    with paddle.autograd.saved_tensors_hooks(lambda x: x.numpy(), lambda x: x):
        y = paddle.multiply(a, a)
    with pytest.raises(TypeError, match="unpack_hook must return a paddle Tensor"):
        y.sum().backward()
