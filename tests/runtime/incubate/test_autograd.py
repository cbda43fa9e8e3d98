"""paddle.incubate.autograd: vjp/jvp/Jacobian/Hessian against analytic and finite-difference references (float64),
and the static-mode grad/forward_grad."""
import numpy as np
import pytest

import dy2st as paddle
from ._fd import numeric_grad

A = paddle.incubate.autograd
X = np.array([0.3, -0.7, 1.1])


def f_np(x):
    return np.tanh(x) * x.sum()


def f(x):
    return paddle.tanh(x) * x.sum()


def jac_np(x):
    # d f_i / d x_j = (1 - tanh^2 x_i) * sum(x) * [i == j] + tanh(x_i)
    t = np.tanh(x)
    return np.diag((1 - t ** 2) * x.sum()) + t[:, None]


def test_vjp_and_jvp_match_the_jacobian():
    v = np.array([1.0, -2.0, 0.5])
    ys, g = A.vjp(f, paddle.to_tensor(X), paddle.to_tensor(v))
    np.testing.assert_allclose(ys.numpy(), f_np(X), rtol=1e-12)
    np.testing.assert_allclose(g.numpy(), v @ jac_np(X), rtol=1e-12)
    ys, jv = A.jvp(f, paddle.to_tensor(X), paddle.to_tensor(v))
    np.testing.assert_allclose(jv.numpy(), jac_np(X) @ v, rtol=1e-12)
    _, ones = A.jvp(f, paddle.to_tensor(X))
    np.testing.assert_allclose(ones.numpy(), jac_np(X).sum(1), rtol=1e-12)


def test_vjp_two_inputs_and_leaf_is_left_alone():
    x = paddle.to_tensor(X, stop_gradient=False)
    y = paddle.to_tensor(X[::-1].copy())
    (a, b), (gx, gy) = A.vjp(lambda p, q: (p * q, (p * p).sum()), [x, y], [paddle.ones([3]), paddle.to_tensor(2.0)])
    np.testing.assert_allclose(gx.numpy(), X[::-1] + 4 * X, rtol=1e-12)
    np.testing.assert_allclose(gy.numpy(), X, rtol=1e-12)
    assert x.grad is None           # inputs are separated from the caller's graph


def test_jacobian_rows_and_batched():
    J = A.Jacobian(f, paddle.to_tensor(X))
    assert J.shape == (3, 3)
    np.testing.assert_allclose(J[:].numpy(), jac_np(X), rtol=1e-12)
    np.testing.assert_allclose(J[1].numpy(), jac_np(X)[1], rtol=1e-12)
    np.testing.assert_allclose(J[0:2, 1:].numpy(), jac_np(X)[0:2, 1:], rtol=1e-12)
    xb = np.arange(6.0).reshape(2, 3) / 5
    Jb = A.Jacobian(lambda x: paddle.sin(x) * 2.0, paddle.to_tensor(xb), is_batched=True)
    assert Jb.shape == (2, 3, 3)
    np.testing.assert_allclose(Jb[:].numpy(), np.stack([np.diag(2 * np.cos(r)) for r in xb]), rtol=1e-12)
    with pytest.raises(IndexError, match="Ellipsis"):
        J[..., 0]


def test_hessian_against_finite_differences():
    def g_np(x):
        return (x ** 3).sum() + x[0] * x[1]
    H = A.Hessian(lambda x: (x * x * x).sum() + x[0] * x[1], paddle.to_tensor(X))
    num = np.stack([numeric_grad(lambda v: numeric_grad(g_np, v, 1e-5)[i], X, 1e-5) for i in range(3)])
    np.testing.assert_allclose(H[:].numpy(), num, atol=1e-5)
    with pytest.raises(RuntimeError, match="single element"):
        A.Hessian(f, paddle.to_tensor(X))[:]


def test_errors():
    with pytest.raises(TypeError, match="Callable"):
        A.vjp(3, paddle.to_tensor(X))
    with pytest.raises(TypeError, match="xs"):
        A.vjp(f, X)
    with pytest.raises(RuntimeError, match="invalid shape"):
        A.jvp(f, paddle.to_tensor(X), paddle.ones([2], dtype="float64"))
    for fn in (A.enable_prim, A.disable_prim, lambda: A.grad(paddle.ones([1]), paddle.ones([1]))):
        with pytest.raises(AssertionError, match="static graph mode"):
            fn()


def test_static_grad_and_forward_grad():
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [3], "float64")
            x.stop_gradient = False
            v = paddle.static.data("v", [3], "float64")
            y = paddle.tanh(x) * x
            g = A.grad(y, x)
            with pytest.raises(RuntimeError, match="enable_prim"):
                A.forward_grad(y, x, v)
            A.enable_prim()
            assert A.prim_enabled()
            jv = A.forward_grad(y, x, v)
            A.disable_prim()
        exe = paddle.static.Executor()
        exe.run(start)
        vv = np.array([1.0, 2.0, -1.0])
        gv, jvv = exe.run(main, feed={"x": X, "v": vv}, fetch_list=[g, jv])
    finally:
        paddle.disable_static()
    d = np.tanh(X) + X * (1 - np.tanh(X) ** 2)
    np.testing.assert_allclose(gv, d, rtol=1e-12)
    np.testing.assert_allclose(jvv, d * vv, rtol=1e-12)
