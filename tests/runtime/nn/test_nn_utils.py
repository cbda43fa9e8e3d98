"""paddle.nn.utils against numpy references: weight_norm / remove_weight_norm (reparameterisation, state_dict
keys, gradients), spectral_norm (power iteration), parameters_to_vector / vector_to_parameters, clip_grad_norm_ /
clip_grad_value_. Values against real Paddle: tests/interop/test_module_surface_interop.py."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.nn import utils as U


def _linear(rng, i=3, o=4):
    lin = paddle.nn.Linear(i, o)
    lin.weight.set_value(rng.standard_normal((i, o)).astype("float32"))
    return lin


@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_reparameterises(dim):
    rng = np.random.default_rng(0)
    lin = _linear(rng)
    w = lin.weight.numpy().copy()
    U.weight_norm(lin, dim=dim)
    assert list(lin.state_dict()) == ["bias", "weight_v", "weight_g"]
    # dim -1 means "all elements" in Paddle (as None), not the last dimension
    axes = None if dim in (None, -1) else tuple(a for a in range(2) if a != dim)
    want_g = np.sqrt((w.astype(np.float64) ** 2).sum(axis=axes))
    np.testing.assert_allclose(lin.weight_g.numpy(), want_g, rtol=1e-5)
    np.testing.assert_allclose(lin.weight_v.numpy(), w)
    x = rng.standard_normal((2, 3)).astype("float32")
    np.testing.assert_allclose(lin(paddle.to_tensor(x)).numpy(), x @ w + lin.bias.numpy(), rtol=1e-5, atol=1e-6)
    # doubling g doubles the weight: the hook recomputes it before each forward
    lin.weight_g.set_value(lin.weight_g.numpy() * 2)
    np.testing.assert_allclose(lin(paddle.to_tensor(x)).numpy(), x @ (2 * w) + lin.bias.numpy(), rtol=1e-5,
                               atol=1e-5)
    U.remove_weight_norm(lin)
    assert list(lin.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(lin.weight.numpy(), 2 * w, rtol=1e-5)


def test_weight_norm_gradient_matches_finite_differences():
    rng = np.random.default_rng(1)
    conv = paddle.nn.Conv2D(2, 3, 2)
    conv.weight.set_value(rng.standard_normal((3, 2, 2, 2)).astype("float32"))
    U.weight_norm(conv, dim=1)
    x = paddle.to_tensor(rng.standard_normal((1, 2, 3, 3)).astype("float32"))
    conv(x).sum().backward()
    g0 = conv.weight_g.numpy().astype(np.float64)
    eps = 1e-2
    for k in range(2):
        def f(delta):
            g = g0.copy()
            g[k] += delta
            conv.weight_g.set_value(g.astype("float32"))
            return float(conv(x).sum())
        num = (f(eps) - f(-eps)) / (2 * eps)
        assert abs(num - conv.weight_g.grad.numpy()[k]) < 1e-2 * max(1.0, abs(num))


def test_weight_norm_errors():
    lin = U.weight_norm(paddle.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="two weight_norm hooks"):
        U.weight_norm(lin)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        U.remove_weight_norm(paddle.nn.Linear(2, 2))
    with pytest.raises(AssertionError, match="dim must set between"):
        U.weight_norm(paddle.nn.Linear(2, 2), dim=2)


def test_spectral_norm_divides_by_the_power_iteration_sigma():
    rng = np.random.default_rng(2)
    lin = _linear(rng, 4, 3)
    w = lin.weight.numpy().astype(np.float64)
    U.spectral_norm(lin, n_power_iterations=3)      # Linear: dim 1, the weight matrix is w.T
    assert list(lin.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    u0, v0 = lin.weight_u.numpy().astype(np.float64), lin.weight_v.numpy().astype(np.float64)
    mat = w.T
    u, v = u0, v0
    for _ in range(3):
        v = mat.T @ u
        v /= max(np.linalg.norm(v), 1e-12)
        u = mat @ v
        u /= max(np.linalg.norm(u), 1e-12)
    sigma = u @ mat @ v
    x = rng.standard_normal((2, 4)).astype("float32")
    np.testing.assert_allclose(lin(paddle.to_tensor(x)).numpy(), x @ (w / sigma) + lin.bias.numpy(), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(lin.weight_u.numpy(), u, rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        U.spectral_norm(paddle.nn.Linear(2, 2), n_power_iterations=0)


def test_parameters_vector_round_trip():
    lin = paddle.nn.Linear(2, 3)
    vec = U.parameters_to_vector(lin.parameters())
    np.testing.assert_array_equal(vec.numpy(), np.concatenate([lin.weight.numpy().ravel(), lin.bias.numpy()]))
    assert vec.stop_gradient is False
    U.vector_to_parameters(paddle.arange(10, dtype="float32"), lin.parameters())   # longer vec: leading part
    np.testing.assert_array_equal(lin.weight.numpy(), np.arange(6, dtype="float32").reshape(2, 3))
    np.testing.assert_array_equal(lin.bias.numpy(), [6, 7, 8])
    with pytest.raises(ValueError, match="total_elements"):
        U.vector_to_parameters(paddle.arange(4, dtype="float32"), lin.parameters())


@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf"), 0])
def test_clip_grad_norm_(norm_type):
    rng = np.random.default_rng(3)
    a = paddle.to_tensor(rng.standard_normal((3, 2)).astype("float32"), stop_gradient=False)
    b = paddle.to_tensor(rng.standard_normal(4).astype("float32"), stop_gradient=False)
    ((a * a).sum() * 3 + (b * b * b).sum()).backward()
    ga, gb = a.grad.numpy().astype(np.float64), b.grad.numpy().astype(np.float64)
    flat = np.concatenate([ga.ravel(), gb.ravel()])
    if norm_type == 0:
        total = 2.0     # Paddle: the 0-"norm" of the per-tensor 0-norms (both non-zero)
    else:
        total = np.linalg.norm(flat, ord=norm_type)
    got = U.clip_grad_norm_([a, b], max_norm=1.5, norm_type=norm_type)
    np.testing.assert_allclose(float(got), total, rtol=1e-5)
    coef = min(1.5 / (total + 1e-6), 1.0)
    np.testing.assert_allclose(a.grad.numpy(), ga * coef, rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), gb * coef, rtol=1e-5)


def test_clip_grad_value_and_errors():
    a = paddle.to_tensor([1.0, -2.0, 3.0], stop_gradient=False)
    (a * paddle.to_tensor([0.1, -3.0, 2.0])).sum().backward()
    U.clip_grad_value_(a, 1.0)
    np.testing.assert_allclose(a.grad.numpy(), [0.1, -1.0, 1.0], rtol=1e-6)
    assert float(U.clip_grad_norm_([paddle.to_tensor([1.0])], 1.0)) == 0.0    # no gradients: 0
    with pytest.raises(ValueError, match="norm_type only support"):
        U.clip_grad_norm_([a], 1.0, norm_type=3)
    paddle.enable_static()
    try:
        with pytest.raises(RuntimeError, match="dynamic mode"):
            U.clip_grad_value_([a], 1.0)
    finally:
        paddle.disable_static()
