"""Public math API (runtime/api/math.py): unary functions, scale, clip, cumsum, logsumexp, add_n,
in-place forms; dtype rules checked against real Paddle 3.3."""
import math

import numpy as np
import pytest

import runtime as paddle

rng = np.random.default_rng(5)


def T(a, dtype=None, stop_gradient=True):
    return paddle.to_tensor(np.asarray(a), dtype=dtype, stop_gradient=stop_gradient)


X = np.array([[0.3, 1.7, 2.5], [0.9, 0.1, 1.2]], dtype=np.float32)

UNARY = [
    ("exp", np.exp), ("log", np.log), ("log1p", np.log1p), ("log2", np.log2), ("log10", np.log10),
    ("expm1", np.expm1), ("sqrt", np.sqrt), ("rsqrt", lambda a: 1 / np.sqrt(a)), ("square", np.square),
    ("abs", np.abs), ("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc), ("sign", np.sign),
    ("sin", np.sin), ("cos", np.cos), ("tan", np.tan), ("atan", np.arctan), ("sinh", np.sinh),
    ("cosh", np.cosh), ("asinh", np.arcsinh), ("tanh", np.tanh), ("reciprocal", lambda a: 1 / a),
    ("sigmoid", lambda a: 1 / (1 + np.exp(-a))), ("erf", np.vectorize(math.erf)),
    ("neg", np.negative), ("frac", lambda a: a - np.trunc(a)),
]


@pytest.mark.parametrize("name,ref", UNARY, ids=[u[0] for u in UNARY])
def test_unary_function_and_method(name, ref):
    x = T(X)
    out = getattr(paddle, name)(x)
    assert out.dtype == paddle.float32 and out.shape == [2, 3]
    np.testing.assert_allclose(out.numpy(), ref(X.astype(np.float64)), rtol=2e-6, atol=1e-6)
    np.testing.assert_array_equal(getattr(x, name)().numpy(), out.numpy())


def test_inverse_trig_in_domain():
    a = np.array([-0.5, 0.0, 0.75])
    np.testing.assert_allclose(paddle.asin(T(a)).numpy(), np.arcsin(a))
    np.testing.assert_allclose(paddle.acos(T(a)).numpy(), np.arccos(a))
    np.testing.assert_allclose(paddle.atanh(T(a)).numpy(), np.arctanh(a))
    np.testing.assert_allclose(paddle.acosh(T([1.5, 3.0])).numpy(), np.arccosh([1.5, 3.0]))


def test_integer_dtype_rules_follow_paddle():
    xi = T([1, 4, 9], dtype="int32")
    for name in ("sqrt", "exp", "log", "sin", "reciprocal", "rsqrt", "tanh", "sigmoid", "erf", "log1p"):
        assert getattr(paddle, name)(xi).dtype == paddle.float32, name
    for name in ("abs", "square", "floor", "ceil", "round", "sign", "trunc"):
        assert getattr(paddle, name)(xi).dtype == paddle.int32, name
    np.testing.assert_allclose(paddle.sqrt(xi).numpy(), [1, 2, 3])
    np.testing.assert_array_equal(paddle.sign(T([-3, 0, 5])).numpy(), [-1, 0, 1])


def test_round_halves_to_even_and_decimals():
    np.testing.assert_array_equal(paddle.round(T([0.5, 1.5, 2.5, -0.5, -1.5, 2.45])).numpy(),
                                  [0.0, 2.0, 2.0, -0.0, -2.0, 2.0])
    np.testing.assert_allclose(paddle.round(T([0.125, -0.35, 12.5]), decimals=2).numpy(), [0.12, -0.35, 12.5])
    np.testing.assert_array_equal(paddle.round(T([125.0, 135.0]), decimals=-1).numpy(), [120.0, 140.0])
    with pytest.raises(TypeError, match="decimals must be an int"):
        paddle.round(T([1.0]), decimals=1.5)


def test_rounding_functions_have_zero_gradient():
    for name in ("floor", "ceil", "round", "trunc", "sign"):
        x = T([0.3, 1.7, -2.2], stop_gradient=False)
        getattr(paddle, name)(x).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])


def test_gradients_through_the_api():
    x = T([0.5, 1.0, 4.0], dtype="float64", stop_gradient=False)
    (paddle.sqrt(x) + paddle.exp(x) * paddle.sin(x)).sum().backward()
    a = np.array([0.5, 1.0, 4.0])
    np.testing.assert_allclose(x.grad.numpy(), 0.5 / np.sqrt(a) + np.exp(a) * (np.sin(a) + np.cos(a)))
    y = T([0.0, 1.0, -1.0], stop_gradient=False)
    paddle.abs(y).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [0.0, 1.0, -1.0])


def test_unary_rejects_non_tensors():
    with pytest.raises(TypeError, match="exp: x must be a Tensor, got list"):
        paddle.exp([1.0, 2.0])


# -- scale / neg / pow / stanh ----------------------------------------------------------------
def test_scale():
    x = T([1.0, -2.0, 3.0])
    np.testing.assert_allclose(paddle.scale(x, 2.0, 1.0).numpy(), [3.0, -3.0, 7.0])
    np.testing.assert_allclose(paddle.scale(x, 2.0, 1.0, bias_after_scale=False).numpy(), [4.0, -2.0, 8.0])
    np.testing.assert_allclose(x.scale(scale=T(3.0), bias=1.0).numpy(), [4.0, -5.0, 10.0])
    np.testing.assert_allclose(paddle.scale(x, 1.0, 0.0, act="relu").numpy(), [1.0, 0.0, 3.0])
    assert paddle.scale(x, 2.0).dtype == x.dtype
    assert paddle.scale(T(X), 2.0).dtype == paddle.float32


def test_scale_on_integers_truncates_factors_like_paddle():
    xi = T([1, -2, 3])
    out = paddle.scale(xi, 2.5, 1.0)
    assert out.dtype == paddle.int64
    np.testing.assert_array_equal(out.numpy(), [3, -3, 7])
    np.testing.assert_array_equal(paddle.scale(xi, 1.0, 1.5).numpy(), [2, -1, 4])


def test_scale_gradient_and_errors():
    x = T([1.0, 2.0], dtype="float64", stop_gradient=False)
    paddle.scale(x, 3.0, 5.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    with pytest.raises(TypeError, match="scale: scale must be a number"):
        paddle.scale(x, "2")
    with pytest.raises(TypeError, match="act must be the name"):
        paddle.scale(x, 2.0, act=len)


def test_neg_and_unary_minus():
    x = T([1.0, -2.0])
    np.testing.assert_array_equal(paddle.neg(x).numpy(), [-1.0, 2.0])
    np.testing.assert_array_equal((-x).numpy(), [-1.0, 2.0])
    assert (-T([1, 2])).dtype == paddle.int64


def test_pow_with_python_exponents():
    x = T([1.0, 2.0, 3.0], dtype="float64", stop_gradient=False)
    y = paddle.pow(x, 2.5)
    np.testing.assert_allclose(y.numpy(), np.array([1.0, 2.0, 3.0]) ** 2.5)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.5 * np.array([1.0, 2.0, 3.0]) ** 1.5)
    np.testing.assert_allclose((T([2.0]) ** 2.0).numpy(), [4.0])
    xi = T([1, -2, 3])
    out = paddle.pow(xi, 2.5)    # Paddle truncates the exponent of integer tensors
    assert out.dtype == paddle.int64
    np.testing.assert_array_equal(out.numpy(), [1, 4, 9])
    with pytest.raises(ValueError, match="negative power"):
        paddle.pow(xi, -1)


def test_stanh():
    a = np.array([-1.0, 0.5, 2.0])
    np.testing.assert_allclose(paddle.stanh(T(a)).numpy(), 1.7159 * np.tanh(0.67 * a), rtol=1e-6)
    np.testing.assert_allclose(paddle.stanh(T(a), 1.0, 2.0).numpy(), 2.0 * np.tanh(a), rtol=1e-6)


# -- clip -------------------------------------------------------------------------------------
def test_clip_bounds():
    x = T([-3.0, 0.5, 5.0])
    np.testing.assert_array_equal(paddle.clip(x, -1.0, 2.0).numpy(), [-1.0, 0.5, 2.0])
    np.testing.assert_array_equal(paddle.clip(x, min=0.0).numpy(), [0.0, 0.5, 5.0])
    np.testing.assert_array_equal(paddle.clip(x, max=1).numpy(), [-3.0, 0.5, 1.0])
    np.testing.assert_array_equal(paddle.clip(x).numpy(), x.numpy())
    np.testing.assert_array_equal(x.clip(T(0.0), T([2.0])).numpy(), [0.0, 0.5, 2.0])
    big = T([1e300, -1e300], dtype="float64")
    np.testing.assert_array_equal(paddle.clip(big, min=0.0).numpy(), [1e300, 0.0])


def test_clip_integer_dtypes_follow_paddle():
    xi = T([1, -2, 3])
    assert paddle.clip(xi, 0, 2).dtype == paddle.int64
    np.testing.assert_array_equal(paddle.clip(xi, 0, 2).numpy(), [1, 0, 2])
    out = paddle.clip(xi, 0.5, 2.5)
    assert out.dtype == paddle.float32
    np.testing.assert_array_equal(out.numpy(), [1.0, 0.5, 2.5])
    assert paddle.clip(xi).dtype == paddle.int64


def test_clip_gradient_passes_at_the_bounds():
    x = T([[1.0, 3.0], [-3.0, 2.0]], stop_gradient=False)
    paddle.clip(x, -2.0, 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 0.0], [0.0, 1.0]])


def test_clip_errors():
    with pytest.raises(ValueError, match=r"clip: min \(3.0\) must not be greater than max \(1.0\)"):
        paddle.clip(T([1.0]), 3.0, 1.0)
    with pytest.raises(TypeError, match="clip: min must be a number"):
        paddle.clip(T([1.0]), "a")


# -- cumsum / logsumexp / add_n ---------------------------------------------------------------
def test_cumsum():
    a = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], dtype=np.float32)
    x = T(a)
    out = paddle.cumsum(x)
    assert out.shape == [6]
    np.testing.assert_allclose(out.numpy(), np.cumsum(a))
    np.testing.assert_allclose(paddle.cumsum(x, axis=0).numpy(), np.cumsum(a, axis=0))
    np.testing.assert_allclose(x.cumsum(axis=-1).numpy(), np.cumsum(a, axis=-1))
    np.testing.assert_allclose(paddle.cumsum(x, axis=T(1)).numpy(), np.cumsum(a, axis=1))
    assert paddle.cumsum(x, dtype="float64").dtype == paddle.float64
    with pytest.raises(ValueError, match="cumsum: axis 2 is out of range for a tensor of rank 2"):
        paddle.cumsum(x, axis=2)


def test_cumprod():
    a = np.array([[1.0, 2.0, 0.0], [2.0, -1.0, 4.0]], dtype=np.float32)
    out = paddle.cumprod(T(a))
    assert out.shape == [6] and out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), np.cumprod(a))
    np.testing.assert_allclose(T(a).cumprod(dim=0).numpy(), np.cumprod(a, axis=0))
    assert paddle.cumprod(T(a), dim=1, dtype="float64").dtype == paddle.float64
    with pytest.raises(ValueError, match="cumprod: axis 2 is out of range"):
        paddle.cumprod(T(a), dim=2)


def test_cumsum_integer_dtypes_follow_paddle():
    assert paddle.cumsum(T([1, 2], dtype="int32")).dtype == paddle.int64
    assert paddle.cumsum(T([1, 2], dtype="int16")).dtype == paddle.int64
    assert paddle.cumsum(T([1.5, 2.0]), dtype="int32").dtype == paddle.int32
    np.testing.assert_array_equal(paddle.cumsum(T([1, 2, 3])).numpy(), [1, 3, 6])


def test_cumsum_gradient():
    x = T([1.0, 2.0, 3.0], dtype="float64", stop_gradient=False)
    w = np.array([1.0, 10.0, 100.0])
    (paddle.cumsum(x) * T(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [111.0, 110.0, 100.0])


def test_logsumexp():
    a = rng.standard_normal((2, 3, 4))
    x = T(a)
    ref = lambda axis=None, keepdims=False: np.log(np.exp(a).sum(axis=axis, keepdims=keepdims))  # noqa: E731
    assert paddle.logsumexp(x).shape == []
    np.testing.assert_allclose(paddle.logsumexp(x).numpy(), ref())
    np.testing.assert_allclose(paddle.logsumexp(x, axis=1).numpy(), ref(1))
    out = x.logsumexp(axis=[0, -1], keepdim=True)
    assert out.shape == [1, 3, 1]
    np.testing.assert_allclose(out.numpy(), ref((0, 2), True))
    big = paddle.logsumexp(T([1000.0, 1000.0]))
    np.testing.assert_allclose(big.numpy(), 1000.0 + math.log(2.0))
    assert paddle.logsumexp(T([1, 2])).dtype == paddle.float32
    with pytest.raises(ValueError, match="logsumexp: axis 3 is out of range"):
        paddle.logsumexp(x, axis=3)


def test_add_n():
    a, b = T([[1.0, 2.0]]), T([[3.0, 4.0]])
    np.testing.assert_array_equal(paddle.add_n([a, b, a]).numpy(), [[5.0, 8.0]])
    np.testing.assert_array_equal(paddle.add_n(a).numpy(), [[1.0, 2.0]])
    x = T([1.0, 2.0], stop_gradient=False)
    paddle.add_n([x, x, x]).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    with pytest.raises(ValueError, match="add_n: every input must have the shape"):
        paddle.add_n([a, T([1.0])])
    with pytest.raises(ValueError, match="non-empty"):
        paddle.add_n([])


# -- in-place forms ---------------------------------------------------------------------------
def test_inplace_forms_rebind_the_tensor():
    x = T([1.0, 4.0])
    y = x.sqrt_()
    assert y is x
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
    x.clip_(1.5, 1.8)
    np.testing.assert_allclose(x.numpy(), [1.5, 1.8], rtol=1e-6)
    z = paddle.tanh_(T([0.0, 1.0]))
    np.testing.assert_allclose(z.numpy(), [0.0, math.tanh(1.0)], rtol=1e-6)
    assert hasattr(paddle.Tensor, "scale_") and hasattr(paddle.Tensor, "exp_")


def test_inplace_tracks_gradients_of_non_leaf_tensors():
    w = T([1.0, 2.0], dtype="float64", stop_gradient=False)
    h = w * 1.0
    h.exp_()
    h.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.exp([1.0, 2.0]))


ZERO_D = ["exp", "sqrt", "rsqrt", "sigmoid", "tanh", "erf", "abs", "round", "floor", "logsumexp", "cumsum", "neg"]


@pytest.mark.parametrize("name", ZERO_D)
def test_zero_d_inputs_from_other_ops(name):
    # a 0-D result of another op may hold a numpy scalar rather than a 0-D array
    x = T(0.25, dtype="float64", stop_gradient=False) + T(0.5, dtype="float64")
    out = getattr(paddle, name)(x)
    assert out.shape == ([1] if name == "cumsum" else [])
    out.sum().backward()


def test_zero_d_activations_and_clip():
    from runtime import run_op
    x = T(0.25, dtype="float64") + T(0.5, dtype="float64")
    assert run_op("softmax", x).item() == 1.0 and run_op("log_softmax", x).item() == 0.0
    for op in ("gelu", "hard_sigmoid", "silu", "softplus"):
        assert run_op(op, x).shape == []
    assert paddle.clip(x, 0.0, 0.5).item() == 0.5 and paddle.clip(x, max=1.0).item() == 0.75
