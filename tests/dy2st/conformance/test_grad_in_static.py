"""``paddle.grad`` inside to_static (static double backward) and eager second-order gradients.

``loss = |d f(x)/dx|^2`` is built with ``paddle.grad`` (create_graph=True) eagerly and under
``@to_static``; ``loss.backward()`` must give the second-order gradient, checked against central
finite differences of the first derivative (computed in float64 with numpy from closed forms) and
eager against converted. Paddle's static ``paddle.grad`` semantics (warnings for ignored arguments,
None for unused inputs, no_grad_vars) and the clear error for an op without second-order rule are
checked too, and one differential run against real Paddle 3.3.1 (PIR to_static).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from runtime.errors import GradientError

X0 = np.array([[0.3, 0.7, -0.5], [1.2, -0.9, 0.4]])
Y0 = np.array([[0.5, -1.1, 0.8], [0.2, 0.6, -0.3]])


# (name, f(x, y) in paddle, first derivative df/dx of sum(f) in numpy)
CASES = [
    ("tanh_mul", lambda x, y: paddle.tanh(x) * x, lambda x, y: np.tanh(x) + x * (1 - np.tanh(x) ** 2)),
    ("cube", lambda x, y: x * x * x, lambda x, y: 3 * x ** 2),
    ("exp_sum", lambda x, y: paddle.exp(x).sum(), lambda x, y: np.exp(x)),
    ("sigmoid_y", lambda x, y: F.sigmoid(x * y), lambda x, y: y * (1 / (1 + np.exp(-x * y))) *
     (1 - 1 / (1 + np.exp(-x * y)))),
    ("div", lambda x, y: y / (x * x + 1.0), lambda x, y: -2 * x * y / (x * x + 1) ** 2),
    ("sqrt_log", lambda x, y: paddle.sqrt(x * x + 1.0) + paddle.log(x * x + 2.0),
     lambda x, y: x / np.sqrt(x * x + 1) + 2 * x / (x * x + 2)),
    ("sin_cos_square", lambda x, y: paddle.sin(x) * paddle.cos(y) + paddle.square(x),
     lambda x, y: np.cos(x) * np.cos(y) + 2 * x),
    ("matmul", lambda x, y: paddle.matmul(x * x, paddle.transpose(y, [1, 0])).sum(),
     lambda x, y: 2 * x * y.sum(0, keepdims=True)),
    ("reshape_mean_sub", lambda x, y: paddle.reshape(x * x, [3, 2]).mean() - x * y,
     lambda x, y: 2 * x - y),   # the scalar mean is broadcast over 6 elements
    ("softmax", lambda x, y: (F.softmax(x, axis=-1) * y).sum(),
     lambda x, y: (lambda s: s * (y - (s * y).sum(-1, keepdims=True)))(
         np.exp(x) / np.exp(x).sum(-1, keepdims=True))),
    ("pow_relu", lambda x, y: paddle.pow(x, 3.0) + F.relu(x) * y, lambda x, y: 3 * x ** 2 + (x > 0) * y),
    ("concat_slice", lambda x, y: paddle.concat([x * x, y], axis=0)[1:3].sum(),
     lambda x, y: np.array([[0, 0, 0], [1, 1, 1]]) * 2 * x),
]


def _fd_second(d1, x, y, eps=1e-6):
    """d/dx of sum(d1(x, y)^2) by central differences of the closed-form first derivative."""
    out = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        out[i] = ((d1(x + e, y) ** 2).sum() - (d1(x - e, y) ** 2).sum()) / (2 * eps)
    return out


def _loss_fn(f):
    def loss(x, y):
        out = f(x, y)
        (g,) = paddle.grad(out, x, create_graph=True)
        return (g * g).sum()
    return loss


def _run(fn, x0, y0):
    x = paddle.to_tensor(x0, stop_gradient=False)
    loss = fn(x) if y0 is None else fn(x, paddle.to_tensor(y0))
    loss.backward()
    return float(loss.numpy()), x.grad.numpy()


@pytest.mark.parametrize("name,f,d1", CASES, ids=[c[0] for c in CASES])
def test_second_order_eager_and_static_match_finite_differences(name, f, d1, backend):
    want_loss = float((d1(X0, Y0) ** 2).sum())
    want_grad = _fd_second(d1, X0, Y0)
    loss_e, grad_e = _run(_loss_fn(f), X0, Y0)
    np.testing.assert_allclose(loss_e, want_loss, rtol=1e-9)
    np.testing.assert_allclose(grad_e, want_grad, rtol=1e-5, atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        static = paddle.jit.to_static(_loss_fn(f))
        loss_s, grad_s = _run(static, X0, Y0)
    np.testing.assert_allclose(loss_s, want_loss, rtol=1e-9)
    np.testing.assert_allclose(grad_s, grad_e, rtol=1e-9, atol=1e-12)


def test_static_grad_of_parameters_trains_a_gradient_penalty():
    """A gradient penalty on the input gradient: the parameters get second-order gradients."""
    paddle.seed(3)
    net = paddle.nn.Linear(3, 1)
    x0 = X0.astype("float32")

    def penalty(x):
        y = paddle.tanh(net(x)).sum()
        (g,) = paddle.grad(y, x, create_graph=True)
        return (g * g).sum()

    x = paddle.to_tensor(x0, stop_gradient=False)
    penalty(x).backward()
    want = [p.grad.numpy().copy() for p in net.parameters()]
    net.clear_gradients()
    x = paddle.to_tensor(x0, stop_gradient=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # Paddle's "create_graph ... jit will discard it"
        paddle.jit.to_static(penalty)(x).backward()
    for w, p in zip(want, net.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), w, rtol=1e-5, atol=1e-6)


def test_static_grad_warns_like_paddle_for_ignored_arguments():
    def f(x):
        (g,) = paddle.grad(x * x, x, create_graph=True, retain_graph=True, allow_unused=True)
        return g

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        paddle.jit.to_static(f)(paddle.to_tensor(X0, stop_gradient=False))
    msgs = [str(i.message) for i in w]
    for name in ("retain_graph", "create_graph", "allow_unused"):
        assert f"paddle.grad has unsupported parameter in jit: {name}, jit will discard it" in msgs


def test_static_grad_create_graph_false_is_still_differentiable_as_in_paddle():
    """Paddle's static gradients are always part of the graph: create_graph=False does not cut them."""
    def f(x):
        (g,) = paddle.grad(x * x * x, x)
        return g.sum()

    x = paddle.to_tensor(X0, stop_gradient=False)
    paddle.jit.to_static(f)(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * X0, rtol=1e-12)


def test_static_grad_unused_input_is_none_and_no_grad_vars_cut():
    def f(x, z):
        w = x * 2.0
        y = w * x + z * 0.0
        gx, gz = paddle.grad(y, [x, z], allow_unused=True)
        (g_cut,) = paddle.grad(w * x, [x], no_grad_vars=[w])
        return gx, gz is None, g_cut

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = paddle.to_tensor(X0, stop_gradient=False)
        z = paddle.to_tensor(Y0, stop_gradient=False)
        gx, z_none, g_cut = paddle.jit.to_static(f)(x, z)
    np.testing.assert_allclose(gx.numpy(), 4 * X0, rtol=1e-12)
    assert z_none is False      # z is used (times 0), so it has a gradient
    np.testing.assert_allclose(g_cut.numpy(), 2 * X0, rtol=1e-12)   # w held constant

    def unused(x, z):
        gs = paddle.grad(x * x, [x, z])
        return gs[0], gs[1] is None

    gx, none = paddle.jit.to_static(unused)(paddle.to_tensor(X0, stop_gradient=False),
                                            paddle.to_tensor(Y0, stop_gradient=False))
    assert none is True
    np.testing.assert_allclose(gx.numpy(), 2 * X0)


def test_missing_second_order_rule_is_a_clear_error_naming_the_op():
    # digamma has a first-order gradient rule but no second-order one
    def f(x):
        (g,) = paddle.grad(paddle.digamma(x).sum(), x, create_graph=True)
        return (g * g).sum()

    x = paddle.to_tensor(np.abs(X0) + 0.5, stop_gradient=False)
    with pytest.raises(GradientError, match="second-order gradient of op 'digamma'"):
        f(x).backward()
    x = paddle.to_tensor(np.abs(X0) + 0.5, stop_gradient=False)
    with pytest.raises(GradientError, match="second-order gradient of op 'digamma'"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        paddle.jit.to_static(f)(x).backward()


def test_eager_first_order_grad_unchanged_without_create_graph():
    x = paddle.to_tensor(X0, stop_gradient=False)
    (g,) = paddle.grad(paddle.atan(x).sum(), x)
    assert g.stop_gradient
    np.testing.assert_allclose(g.numpy(), 1 / (1 + X0 ** 2), rtol=1e-12)


def test_matches_real_paddle(tmp_path):
    from .paddle_pir import run_paddle_pir
    loss_p, grad_p = run_paddle_pir(
        "import json, numpy as np, paddle\n"
        "def f(x):\n"
        "    y = paddle.tanh(x) * x * x\n"
        "    (g,) = paddle.grad(y, x, create_graph=True)\n"
        "    return (g * g).sum()\n"
        f"x = paddle.to_tensor(np.array({X0.tolist()!r}), stop_gradient=False)\n"
        "loss = paddle.jit.to_static(f, full_graph=True)(x)\n"
        "loss.backward()\n"
        "print(json.dumps([float(loss.numpy()), x.grad.numpy().tolist()]))\n", tmp_path)

    def f(x):
        y = paddle.tanh(x) * x * x
        (g,) = paddle.grad(y, x, create_graph=True)
        return (g * g).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss, grad = _run(paddle.jit.to_static(f), X0, None)
    np.testing.assert_allclose(loss, loss_p, rtol=1e-10)
    np.testing.assert_allclose(grad, np.array(grad_p), rtol=1e-9)


def test_eager_unused_input_error_is_a_value_error_as_paddle():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    z = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(ValueError, match="The 1-th input does not appear in the backward graph. Please check the "
                                         "input tensor or set allow_unused=True to get None result."):
        paddle.grad((x * x).sum(), [x, z])
    gx, gz = paddle.grad((x * x).sum(), [x, z], allow_unused=True)
    assert gz is None and gx.numpy().tolist() == [2.0, 4.0]
    w = x * 2
    (g,) = paddle.grad((w * x).sum(), x, no_grad_vars=[w])     # w held constant: d/dx = w
    assert g.numpy().tolist() == [2.0, 4.0]


def _grad_in_branch(x):
    if x.mean() > 0:
        (g,) = paddle.grad((x * x * x).sum(), x, create_graph=True)
    else:
        g = x * 2.0
    return (g * g).sum()


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_static_grad_inside_a_tensor_branch(sign):
    x0 = sign * np.array([0.5, 1.0, 1.5])
    want = _run(_grad_in_branch, x0, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _run(paddle.jit.to_static(_grad_in_branch), x0, None)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    np.testing.assert_allclose(want[1], 36 * x0 ** 3 if sign > 0 else 8 * x0, rtol=1e-12)   # d/dx sum(9x^4), sum(4x^2)
