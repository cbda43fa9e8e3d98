"""Comparisons, logical and bitwise functions, isfinite/isnan/isinf, isclose/allclose/equal_all."""
import numpy as np
import pytest

import runtime as paddle

A = np.array([[1.0, 2.0, 3.0], [4.0, 2.0, 0.0]], dtype=np.float32)
B = np.array([2.0, 2.0, 1.0], dtype=np.float32)


@pytest.mark.parametrize("fn,ref", [("equal", np.equal), ("not_equal", np.not_equal), ("less_than", np.less),
                                    ("less_equal", np.less_equal), ("greater_than", np.greater),
                                    ("greater_equal", np.greater_equal), ("less", np.less),
                                    ("greater", np.greater)])
def test_comparisons_broadcast(fn, ref):
    out = getattr(paddle, fn)(paddle.to_tensor(A), paddle.to_tensor(B))
    assert out.dtype == paddle.bool and out.tolist() == ref(A, B).tolist()
    method = getattr(paddle.to_tensor(A), fn)(paddle.to_tensor(B))
    assert method.tolist() == ref(A, B).tolist()


def test_functional_scalar_takes_x_dtype_but_operator_promotes():
    xi = paddle.to_tensor([1, 2, 3])
    # paddle.equal converts 2.5 to int64 (2); ``xi == 2.5`` compares in float
    assert paddle.equal(xi, 2.5).tolist() == [False, True, False]
    assert (xi == 2.5).tolist() == [False, False, False]
    assert (xi < 2.5).tolist() == [True, True, False]


def test_logical():
    a = paddle.to_tensor([True, True, False, False])
    b = paddle.to_tensor([True, False, True, False])
    assert paddle.logical_and(a, b).tolist() == [True, False, False, False]
    assert paddle.logical_or(a, b).tolist() == [True, True, True, False]
    assert paddle.logical_xor(a, b).tolist() == [False, True, True, False]
    assert paddle.logical_not(a).tolist() == [False, False, True, True]
    assert a.logical_and(b).tolist() == [True, False, False, False]
    assert (a & b).tolist() == [True, False, False, False] and (~a).tolist() == [False, False, True, True]
    out = paddle.logical_and(paddle.to_tensor([1, 0, 2]), paddle.to_tensor([3.0, 1.0, 0.0]))
    assert out.dtype == paddle.bool and out.tolist() == [True, False, False]


def test_bitwise():
    x = paddle.to_tensor([12, 10, -1])
    y = paddle.to_tensor([10, 6, 5])
    assert paddle.bitwise_and(x, y).tolist() == [8, 2, 5]
    assert paddle.bitwise_or(x, y).tolist() == [14, 14, -1]
    assert paddle.bitwise_xor(x, y).tolist() == [6, 12, -6]
    assert paddle.bitwise_not(x).tolist() == [-13, -11, 0]
    assert (x & 3).tolist() == [0, 2, 3] and (x | y).tolist() == [14, 14, -1] and (~x).tolist() == [-13, -11, 0]
    with pytest.raises(TypeError, match="integer or bool tensor"):
        paddle.bitwise_and(paddle.to_tensor([1.0]), paddle.to_tensor([1.0]))


def test_isfinite_isnan_isinf():
    z = paddle.to_tensor([1.0, np.inf, -np.inf, np.nan])
    assert paddle.isfinite(z).tolist() == [True, False, False, False]
    assert paddle.isnan(z).tolist() == [False, False, False, True]
    assert z.isinf().tolist() == [False, True, True, False]
    assert paddle.isnan(paddle.to_tensor([1, 2])).tolist() == [False, False]


def test_isclose_allclose():
    x = paddle.to_tensor([1.0, np.inf, np.nan, 1e-3])
    y = paddle.to_tensor([1.000001, np.inf, np.nan, 1.001e-3])
    xs, ys = x.numpy(), y.numpy()
    assert paddle.isclose(x, y).tolist() == np.isclose(xs, ys).tolist()
    assert paddle.isclose(x, y, equal_nan=True).tolist() == np.isclose(xs, ys, equal_nan=True).tolist()
    assert paddle.isclose(x, y, rtol=1e-2).tolist() == np.isclose(xs, ys, rtol=1e-2).tolist()
    assert paddle.allclose(x, y).item() is False and paddle.allclose(x, y, equal_nan=True).item() is False
    assert paddle.allclose(x, y, rtol=1e-2, equal_nan=True).item() is True
    assert paddle.allclose(x, y).shape == []
    with pytest.raises(TypeError, match="floating-point"):
        paddle.isclose(paddle.to_tensor([1]), paddle.to_tensor([1]))


def test_equal_all():
    x = paddle.to_tensor(A)
    assert paddle.equal_all(x, x).item() is True
    assert paddle.equal_all(x, x + 1).item() is False
    assert paddle.equal_all(paddle.to_tensor([1.0, 1.0]), paddle.to_tensor([1.0])).item() is False
    assert paddle.equal_all(x, x).shape == []
