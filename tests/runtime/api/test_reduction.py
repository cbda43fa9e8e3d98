"""paddle.sum/mean/max/min/amax/amin/prod/all/any/var/std/median/count_nonzero."""
import numpy as np
import pytest

import runtime as paddle

X = np.array([[1.0, 5.0, 5.0, -2.0], [7.0, 2.0, 7.0, 0.5], [0.0, -1.0, 3.0, 3.5]], dtype=np.float32)


@pytest.mark.parametrize("fn,ref", [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min),
                                    ("amax", np.max), ("amin", np.min), ("prod", np.prod)])
@pytest.mark.parametrize("axis,keepdim", [(None, False), (None, True), (0, False), (-1, True), ([0, 1], False),
                                          ((1,), True)])
def test_float_reductions_match_numpy(fn, ref, axis, keepdim):
    out = getattr(paddle, fn)(paddle.to_tensor(X), axis=axis, keepdim=keepdim)
    np_axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    expected = ref(X, axis=np_axis, keepdims=keepdim)
    assert out.shape == list(np.shape(expected)) and out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_full_reduction_is_0d_and_methods_exist():
    x = paddle.to_tensor(X)
    assert paddle.sum(x).shape == [] and x.sum().shape == [] and x.mean(axis=0).shape == [4]
    assert x.max(axis=1, keepdim=True).shape == [3, 1]
    assert paddle.sum(paddle.to_tensor(2.5), axis=0).shape == []


def test_sum_dtypes_follow_paddle():
    b = paddle.to_tensor([[True, False], [True, True]])
    assert paddle.sum(b).dtype == paddle.int64 and paddle.sum(b).item() == 3
    i32 = paddle.to_tensor([1, 2], dtype="int32")
    assert paddle.sum(i32).dtype == paddle.int64
    assert paddle.sum(i32, dtype="int32").dtype == paddle.int32
    assert paddle.sum(paddle.to_tensor([1, 2], dtype="int8")).dtype == paddle.int8
    s = paddle.sum(paddle.to_tensor([1.5, 2.0]), dtype="float64")
    assert s.dtype == paddle.float64 and s.item() == 3.5
    assert paddle.prod(paddle.to_tensor([2, 3]), dtype="float32").dtype == paddle.float32


def test_integer_mean_truncates_like_paddle():
    assert paddle.mean(paddle.to_tensor([1, 2])).item() == 1
    assert paddle.mean(paddle.to_tensor([-1, -2], dtype="int32")).dtype == paddle.int32


def test_all_any():
    b = paddle.to_tensor([[True, False], [True, True]])
    assert paddle.all(b).item() is False and paddle.any(b).item() is True
    assert paddle.all(b, axis=1).tolist() == [False, True]
    assert paddle.any(paddle.to_tensor([0.0, 2.0])).dtype == paddle.bool
    assert b.all(axis=0, keepdim=True).shape == [1, 2]


def test_axis_errors():
    x = paddle.to_tensor(X)
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        paddle.sum(x, axis=2)
    with pytest.raises(ValueError, match="same dimension more than once"):
        paddle.sum(x, axis=[1, -1])
    with pytest.raises(TypeError, match="axis must be None, an int"):
        paddle.sum(x, axis=1.0)


def test_tensor_axis_accepted():
    x = paddle.to_tensor(X)
    np.testing.assert_allclose(paddle.sum(x, axis=paddle.to_tensor(1)).numpy(), X.sum(axis=1))


def test_max_gradient_is_split_between_ties():
    x = paddle.to_tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], stop_gradient=False)
    paddle.max(x, axis=1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.5, 0.5], [0.5, 0.5, 0]])
    y = paddle.to_tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], stop_gradient=False)
    paddle.min(y).backward()
    np.testing.assert_allclose(y.grad.numpy(), [[0, 0, 0], [0, 0, 1]])


def test_prod_gradient_with_zeros_is_exact():
    x = paddle.to_tensor([[2.0, 0.0, 3.0], [0.0, 0.0, 4.0]], stop_gradient=False)
    paddle.prod(x, axis=1).sum().backward()
    # d/dx_i = product of the other entries of the row
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0]])


@pytest.mark.parametrize("axis,unbiased,keepdim", [(None, True, False), (0, True, False), (1, False, True),
                                                   ([0, 1], True, False)])
def test_var_std(axis, unbiased, keepdim):
    x = paddle.to_tensor(X)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    ddof = 1 if unbiased else 0
    np.testing.assert_allclose(paddle.var(x, axis, unbiased, keepdim).numpy(),
                               np.var(X.astype(np.float64), axis=np_axis, ddof=ddof, keepdims=keepdim), rtol=1e-5)
    np.testing.assert_allclose(paddle.std(x, axis, unbiased, keepdim).numpy(),
                               np.std(X.astype(np.float64), axis=np_axis, ddof=ddof, keepdims=keepdim), rtol=1e-5)
    np.testing.assert_allclose(x.var(correction=0).numpy(), np.var(X), rtol=1e-5)


def test_var_gradient():
    data = np.array([[0.3, -1.2, 2.0], [0.7, 0.1, -0.4]])
    x = paddle.to_tensor(data, stop_gradient=False)
    paddle.var(x, axis=1).sum().backward()
    n = 3
    expected = 2 * (data - data.mean(axis=1, keepdims=True)) / (n - 1)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-10)


def test_median():
    x = paddle.to_tensor(X)
    np.testing.assert_allclose(paddle.median(x, axis=1).numpy(), np.median(X, axis=1))
    np.testing.assert_allclose(paddle.median(x, axis=0, keepdim=True).numpy(), np.median(X, axis=0, keepdims=True))
    vals, idx = paddle.median(x, axis=1, mode="min")
    lower = np.sort(X, axis=1)[:, 1]
    np.testing.assert_allclose(vals.numpy(), lower)
    assert idx.dtype == paddle.int64
    np.testing.assert_allclose(np.take_along_axis(X, idx.numpy()[:, None], 1)[:, 0], lower)
    odd = paddle.to_tensor([[3.0, 1.0, 2.0]])
    assert paddle.median(odd, axis=1).tolist() == [2.0]
    ints = paddle.median(paddle.to_tensor([1, 2, 3, 4]), axis=0)
    assert ints.dtype == paddle.float32 and ints.item() == 2.5
    with pytest.raises(ValueError, match="mode must be"):
        paddle.median(x, mode="max")


@pytest.mark.skipif("reshape2" not in paddle.ops.registry.all_ops(), reason="reshape2 not registered yet")
def test_median_over_all_elements():
    x = paddle.to_tensor(X)
    assert paddle.median(x).shape == [] and paddle.median(x).item() == pytest.approx(np.median(X))
    assert paddle.median(x, keepdim=True).shape == [1, 1]


def test_count_nonzero():
    x = paddle.to_tensor(X)
    out = paddle.count_nonzero(x, axis=1)
    assert out.dtype == paddle.int64 and out.tolist() == np.count_nonzero(X, axis=1).tolist()
    assert paddle.count_nonzero(x).item() == np.count_nonzero(X)
