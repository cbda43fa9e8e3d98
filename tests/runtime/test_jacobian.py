"""paddle.autograd.jacobian / hessian: lazy row evaluation, shapes, indexing, values vs analytic."""
import numpy as np
import pytest

import dy2st as paddle


def leaf(a):
    return paddle.to_tensor(np.asarray(a, dtype="float64"), stop_gradient=False)


def test_jacobian_of_elementwise_and_matmul():
    a = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    x = leaf([0.3, -0.2, 0.7])
    y = paddle.matmul(paddle.to_tensor(a), x) + paddle.sin(x)[:2]
    J = paddle.autograd.jacobian(y, x)
    assert J.shape == [2, 3]
    want = a + np.diag(np.cos(x.numpy()))[:2]
    np.testing.assert_allclose(J[:].numpy(), want)
    np.testing.assert_allclose(J[1].numpy(), want[1])
    np.testing.assert_allclose(J[:, 2].numpy(), want[:, 2])
    np.testing.assert_allclose(float(J[0, 1]), want[0, 1])
    np.testing.assert_allclose(J[-1, -1:].numpy(), want[-1, -1:])
    assert set(J._jacobian._cache) == {0, 1}          # rows are cached, evaluated once each
    np.testing.assert_allclose((J * 2).numpy(), 2 * want)    # arithmetic acts on the whole matrix
    np.testing.assert_allclose(J.numpy(), want)


def test_jacobian_zero_dim_and_sequences():
    x = leaf([1.0, 2.0])
    s = (x * x).sum()
    J = paddle.autograd.jacobian(s, x)
    assert J.shape == [2]
    np.testing.assert_allclose(J[:].numpy(), [2.0, 4.0])
    x2 = leaf([3.0])
    y1, y2 = x * x2, x.sum() * 0 + x2 * 2
    Js = paddle.autograd.jacobian((y1, y2), (x, x2))
    assert len(Js) == 2 and len(Js[0]) == 2
    np.testing.assert_allclose(Js[0][0][:].numpy(), np.diag([3.0, 3.0]))
    np.testing.assert_allclose(Js[0][1][:].numpy(), [[1.0], [2.0]])
    np.testing.assert_allclose(Js[1][1][:].numpy(), [[2.0]])
    np.testing.assert_allclose(Js[1][0][:].numpy(), [[0.0, 0.0]])   # unused input: zeros


def test_batched_jacobian():
    xb = leaf(np.arange(6.0).reshape(3, 2) / 5)
    yb = paddle.concat([xb * xb, xb.sum(axis=1, keepdim=True)], axis=1)   # [3, 3]
    J = paddle.autograd.jacobian(yb, xb, batch_axis=0)
    assert J.shape == [3, 3, 2]
    x = xb.numpy()
    want = np.zeros((3, 3, 2))
    for b in range(3):
        want[b, 0, 0], want[b, 1, 1] = 2 * x[b, 0], 2 * x[b, 1]
        want[b, 2] = 1.0
    np.testing.assert_allclose(J[:].numpy(), want)
    np.testing.assert_allclose(J[:, 1, :].numpy(), want[:, 1, :])


def test_hessian_values_and_shapes():
    x = leaf([0.5, -1.0, 2.0])
    y = (x * x * x).sum() + (x[0] * x[1])
    H = paddle.autograd.hessian(y, x)
    assert type(H).__name__ == "Hessian" and H.shape == [3, 3]
    want = np.diag(6 * x.numpy())
    want[0, 1] = want[1, 0] = 1.0
    np.testing.assert_allclose(H[:].numpy(), want)
    # batched: one scalar per row
    xb = leaf([[1.0, 2.0], [3.0, 4.0]])
    yb = (xb * xb * xb).sum(axis=1)
    Hb = paddle.autograd.hessian(yb, xb, batch_axis=0)
    assert Hb.shape == [2, 2, 2]
    np.testing.assert_allclose(Hb[:].numpy(), np.stack([np.diag(6 * r) for r in xb.numpy()]))
    Jb = paddle.autograd.jacobian(yb, xb, batch_axis=0)
    assert Jb.shape == [2, 2] and Jb[:].shape == [2, 1, 2]    # as Paddle 3.3.1 returns it
    # tuple of inputs
    a, b = leaf([1.0, 2.0]), leaf([3.0])
    hs = paddle.autograd.hessian((a * a).sum() * b.sum(), (a, b))
    np.testing.assert_allclose(hs[0][0][:].numpy(), np.diag([6.0, 6.0]))
    np.testing.assert_allclose(hs[0][1][:].numpy(), [[2.0], [4.0]])
    np.testing.assert_allclose(hs[1][1][:].numpy(), [[0.0]])


def test_errors_as_paddle():
    x = leaf(np.ones((2, 2)))
    with pytest.raises(ValueError, match="xs.ndim should be 0 or 1"):
        paddle.autograd.jacobian(x.sum(), x)
    with pytest.raises(ValueError, match="batch_axis should be None or 0"):
        paddle.autograd.jacobian(x, x, batch_axis=1)
    with pytest.raises(ValueError, match=r"ys.numel\(\)"):
        paddle.autograd.hessian(x, x[0])
    J = paddle.autograd.jacobian(x[0], x[0])
    with pytest.raises(IndexError, match="Ellipsis"):
        J[..., 0]
    x0 = x[0, 0]
    J0 = paddle.autograd.jacobian(x0 * 3, x0)
    with pytest.raises(IndexError, match="0-D tensor can not be indexed"):
        J0[0]
    np.testing.assert_allclose(J0._evaluate_all().numpy(), 3.0)


def test_backward_is_exposed():
    x = leaf([1.0, 2.0])
    paddle.autograd.backward([(x * x).sum()])
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def _jac_and_hess(x):
    y = paddle.sin(x) * x.sum()
    return paddle.autograd.jacobian(y, x)[:], paddle.autograd.hessian((x * x * x).sum(), x)[:]


def test_under_to_static_matches_eager():
    x = leaf([0.3, -0.7, 1.1])
    j_e, h_e = _jac_and_hess(x)
    j_s, h_s = paddle.jit.to_static(_jac_and_hess)(x)
    np.testing.assert_allclose(j_s.numpy(), j_e.numpy(), rtol=1e-12)
    np.testing.assert_allclose(h_s.numpy(), h_e.numpy(), rtol=1e-12)
    np.testing.assert_allclose(h_e.numpy(), np.diag(6 * x.numpy()))
