"""paddle.nn.functional activations vs numpy formulas (Paddle's default arguments)."""
import math

import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F

rng = np.random.default_rng(2)
X = np.array([-4.0, -1.5, -0.3, 0.2, 0.9, 2.5, 7.0])


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


def sig(x):
    return 1 / (1 + np.exp(-x))


def softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


_erf = np.vectorize(math.erf)

CASES = {
    "relu": (F.relu, lambda x: np.maximum(x, 0)),
    "relu6": (F.relu6, lambda x: np.clip(x, 0, 6)),
    "leaky_relu": (F.leaky_relu, lambda x: np.where(x > 0, x, 0.01 * x)),
    "leaky_relu_slope": (lambda x: F.leaky_relu(x, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    "elu": (F.elu, lambda x: np.where(x > 0, x, np.exp(x) - 1)),
    "elu_alpha": (lambda x: F.elu(x, alpha=0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1))),
    "gelu": (F.gelu, lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2)))),
    "gelu_tanh": (lambda x: F.gelu(x, approximate=True),
                  lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    "sigmoid": (F.sigmoid, sig),
    "tanh": (F.tanh, np.tanh),
    "silu": (F.silu, lambda x: x * sig(x)),
    "swish": (F.swish, lambda x: x * sig(x)),
    "hardswish": (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "hardsigmoid": (F.hardsigmoid, lambda x: np.clip(x * 0.1666667 + 0.5, 0, 1)),
    "softplus": (F.softplus, softplus),
    "softplus_beta": (lambda x: F.softplus(x, beta=2, threshold=5), lambda x: softplus(x, 2, 5)),
    "softsign": (F.softsign, lambda x: x / (1 + np.abs(x))),
    "tanhshrink": (F.tanhshrink, lambda x: x - np.tanh(x)),
    "hardtanh": (F.hardtanh, lambda x: np.clip(x, -1, 1)),
    "log_sigmoid": (F.log_sigmoid, lambda x: np.log(sig(x))),
    "mish": (F.mish, lambda x: x * np.tanh(softplus(x))),
    "selu": (F.selu, lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * (np.exp(x) - 1))),
    "celu": (lambda x: F.celu(x, alpha=0.7), lambda x: np.maximum(x, 0) + np.minimum(0, 0.7 * (np.exp(x / 0.7) - 1))),
    "softshrink": (F.softshrink, lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0))),
    "hardshrink": (F.hardshrink, lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    "thresholded_relu": (lambda x: F.thresholded_relu(x, 1.0, value=-0.5), lambda x: np.where(x > 1.0, x, -0.5)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_activation_values(name):
    fn, ref = CASES[name]
    out = fn(t(X))
    np.testing.assert_allclose(out.numpy(), ref(X), rtol=1e-6, atol=1e-7, err_msg=name)
    out32 = fn(t(X.astype(np.float32)))
    assert out32.dtype == paddle.float32, name


@pytest.mark.parametrize("name", ["mish", "log_sigmoid", "selu", "celu", "tanhshrink", "softshrink"])
def test_composite_activation_grads(name):
    fn, ref = CASES[name]
    x = t(X.copy(), stop_gradient=False)
    fn(x).sum().backward()
    eps = 1e-6
    num = (ref(X + eps) - ref(X - eps)) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-5, atol=1e-7)


def test_softmax_and_log_softmax():
    x = rng.standard_normal((2, 3, 4))
    e = np.exp(x - x.max(1, keepdims=True))
    sm = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(F.softmax(t(x), axis=1).numpy(), sm, rtol=1e-10)
    np.testing.assert_allclose(F.log_softmax(t(x), axis=1).numpy(), np.log(sm), rtol=1e-10)
    out = F.softmax(t(x.astype(np.float32)), dtype="float64")
    assert out.dtype == paddle.float64
    assert F.softmax(t(x.astype(np.float32))).dtype == paddle.float32


def test_relu_inplace():
    x = t(np.array([-1.0, 2.0, -3.0]))
    y = F.relu_(x)
    assert y is x
    np.testing.assert_array_equal(x.numpy(), [0.0, 2.0, 0.0])
    a = t(np.array([-1.0, 2.0, 3.0]), stop_gradient=False)
    h = F.relu_(a * 2)
    (h * h).sum().backward()        # d/da relu(2a)^2 = 8a for a > 0
    np.testing.assert_allclose(a.grad.numpy(), [0.0, 16.0, 24.0])
    leaf = t(np.array([1.0]), stop_gradient=False)
    with pytest.raises(ValueError, match="can't use inplace strategy"):     # Paddle's error type
        F.relu_(leaf)


def test_prelu_and_glu():
    x = rng.standard_normal((2, 3, 2))
    w = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(F.prelu(t(x), t(w)).numpy(), np.where(x > 0, x, x * w[None, :, None]), rtol=1e-10)
    np.testing.assert_allclose(F.prelu(t(x), t(np.array([0.25]))).numpy(), np.where(x > 0, x, 0.25 * x), rtol=1e-10)
    g = rng.standard_normal((2, 4))
    np.testing.assert_allclose(F.glu(t(g)).numpy(), g[:, :2] * sig(g[:, 2:]), rtol=1e-10)


def test_gelu_bad_approximate():
    with pytest.raises(ValueError, match="approximate"):
        F.gelu(t(X), approximate="fast")


def test_maxout_and_its_layer():
    # nn.Maxout called F.maxout, which did not exist (found by tests/interop/test_zoo.py)
    x = np.random.default_rng(1).standard_normal((2, 6, 3, 2)).astype(np.float32)
    want = x.reshape(2, 3, 2, 3, 2).max(axis=2)           # runs of 2 consecutive channels
    np.testing.assert_array_equal(paddle.nn.functional.maxout(paddle.to_tensor(x), 2).numpy(), want)
    np.testing.assert_array_equal(paddle.nn.Maxout(2)(paddle.to_tensor(x)).numpy(), want)
    nhwc = paddle.nn.functional.maxout(paddle.to_tensor(x.transpose(0, 2, 3, 1)), 3, axis=-1).numpy()
    np.testing.assert_array_equal(nhwc, x.reshape(2, 2, 3, 3, 2).max(axis=2).transpose(0, 2, 3, 1))
    with pytest.raises(ValueError, match="maxout: the 6 channels"):
        paddle.nn.functional.maxout(paddle.to_tensor(x), 4)
    assert paddle.nn.functional.logsigmoid is paddle.nn.functional.log_sigmoid
