"""F.rrelu / F.gumbel_softmax / F.feature_alpha_dropout and their layers: eval-mode values, the
distributions of the random draws, and gradients (gumbel_softmax's with the noise held fixed)."""
import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F

rng = np.random.default_rng(21)
X = rng.standard_normal((6, 5))


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


def test_rrelu_eval_and_train():
    np.testing.assert_allclose(F.rrelu(t(X), 0.1, 0.3, training=False).numpy(), np.where(X >= 0, X, 0.2 * X),
                               rtol=1e-6)
    big = rng.standard_normal((200, 100))
    x = t(big, stop_gradient=False)
    out = F.rrelu(x, 0.1, 0.5)
    slope = out.numpy()[big < 0] / big[big < 0]
    assert slope.min() >= 0.1 and slope.max() <= 0.5 and abs(slope.mean() - 0.3) < 0.01
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[big < 0], slope, rtol=1e-12)
    assert np.all(x.grad.numpy()[big >= 0] == 1)
    layer = paddle.nn.RReLU(0.1, 0.3)
    layer.eval()
    np.testing.assert_allclose(layer(t(X)).numpy(), np.where(X >= 0, X, 0.2 * X), rtol=1e-6)
    with pytest.raises(TypeError, match="floats"):
        F.rrelu(t(X), 0, 1)
    with pytest.raises(ValueError, match="upper"):
        F.rrelu(t(X), 0.5, 0.2)


def test_gumbel_softmax_distribution():
    logits = np.log(np.array([0.1, 0.6, 0.3]))
    paddle.seed(3)
    hard = F.gumbel_softmax(t(np.tile(logits, (4000, 1))), hard=True).numpy()
    assert set(np.unique(hard).tolist()) == {0.0, 1.0}
    np.testing.assert_allclose(hard.mean(axis=0), [0.1, 0.6, 0.3], atol=0.03)
    soft = F.gumbel_softmax(t(X), temperature=0.3, axis=0).numpy()
    np.testing.assert_allclose(soft.sum(axis=0), 1.0, rtol=1e-12)
    with pytest.raises(ValueError, match="temperature"):
        F.gumbel_softmax(t(X), temperature=0)


def test_gumbel_softmax_grad_with_fixed_noise():
    """Paddle's rule: out * (dout - sum(out * dout)) (no 1/temperature) checked against finite
    differences of out * temperature-free softmax with the same noise draw."""
    w = rng.standard_normal(X.shape)
    x = t(X, stop_gradient=False)
    paddle.seed(11)
    out = F.gumbel_softmax(x, temperature=1.0)
    (out * t(w)).sum().backward()
    eps, num = 1e-6, np.zeros_like(X)
    for idx in np.ndindex(X.shape):
        vals = []
        for d in (eps, -eps):
            xp = X.copy()
            xp[idx] += d
            paddle.seed(11)
            vals.append(float((F.gumbel_softmax(t(xp), temperature=1.0).numpy() * w).sum()))
        num[idx] = (vals[0] - vals[1]) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-5, atol=1e-7)


def test_feature_alpha_dropout():
    x = rng.standard_normal((8, 50, 3, 3))
    np.testing.assert_array_equal(F.feature_alpha_dropout(t(x), 0.4, training=False).numpy(), x)
    out = F.feature_alpha_dropout(t(x), 0.4).numpy()
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - 0.4) * (1 + 0.4 * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * 0.4
    kept = np.isclose(out, a * x + b).all(axis=(2, 3))
    dropped = np.isclose(out, a * alpha_p + b).all(axis=(2, 3))
    assert np.all(kept | dropped) and abs(dropped.mean() - 0.4) < 0.08
    np.testing.assert_array_equal(F.feature_alpha_dropout(t(x), 1.0).numpy(), np.zeros_like(x))
    layer = paddle.nn.FeatureAlphaDropout(0.4)
    layer.eval()
    np.testing.assert_array_equal(layer(t(x)).numpy(), x)
    with pytest.raises(ValueError, match="2-D"):
        F.feature_alpha_dropout(t(x[0, 0, 0]), 0.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.feature_alpha_dropout(t(x), 1.5)
