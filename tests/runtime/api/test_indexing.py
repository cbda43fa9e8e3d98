"""Tensor __getitem__ / __setitem__ (runtime/api/indexing.py) against numpy, with Paddle 3.3's
semantics where they differ (integers apply before list/tensor indices; 0-D results)."""
import numpy as np
import pytest

import runtime as paddle
from runtime.api.indexing import setitem_value

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def T(a, stop_gradient=True):
    return paddle.to_tensor(np.asarray(a), stop_gradient=stop_gradient)


NUMPY_SAME = [
    0, -1, 1, (0, 1), (1, -2, 3), (slice(None), slice(1, 3)), (Ellipsis, 1), (None, 0), (0, None, Ellipsis, None),
    slice(None, None, -1), (slice(None), slice(None, None, -2)), (slice(-1, -3, -1), 1, slice(3, 0, -2)),
    (slice(5, 10),), (slice(None), slice(2, 100)), (slice(1, 0),), Ellipsis, (Ellipsis, None),
    [1, 0], [[0, 1]], [-1], (slice(None), [0, 2]), (slice(None), [2, 2, 0], slice(1, 3)), (Ellipsis, [3, 0]),
    ([0, 1], [1, 2]), (slice(None), [0, 1], [1, 2]), ([0, 1], slice(None), [1, 2]), ([1, 0], None),
    (slice(None), [[0, 1], [1, 2]]), (slice(None), [[0, 1], [1, 2]], [0, 3]), ([True, False],),
    (slice(None), [True, False, True]), (1, [2, 0]), ([0, 1], 0, [1, 2]), 
    np.array([1, 0]), (slice(None), np.array([[True, False, True, False]] * 3)), [],
]


@pytest.mark.parametrize("index", NUMPY_SAME, ids=[repr(i) for i in NUMPY_SAME])
def test_getitem_matches_numpy(index):
    out = T(A)[index]
    expected = A[index]
    assert out.shape == list(expected.shape)
    np.testing.assert_array_equal(out.numpy(), expected)
    assert out.dtype == paddle.float32


def test_getitem_zero_d_results():
    x = T(A)
    assert x[0, 1, 2].shape == [] and float(x[0, 1, 2]) == A[0, 1, 2]
    assert x[1][2][3].shape == []
    assert x[0, 1, 2].numpy().shape == ()


def test_getitem_tensor_indices():
    x = T(A)
    np.testing.assert_array_equal(x[T(np.array([1, 0]))].numpy(), A[[1, 0]])
    np.testing.assert_array_equal(x[T(np.array(1))].numpy(), A[1])          # a 0-D int tensor acts as an int
    np.testing.assert_array_equal(x[:, T(np.array(1, np.int32))].numpy(), A[:, 1])
    np.testing.assert_array_equal(x[x > 5].numpy(), A[A > 5])
    np.testing.assert_array_equal(x[x[:, :, 0] > 4].numpy(), A[A[:, :, 0] > 4])
    np.testing.assert_array_equal(x[:, T(np.array([True, False, True]))].numpy(), A[:, [True, False, True]])
    np.testing.assert_array_equal(x[T(np.array([0, 1])), 1:, T(np.array([1, 2]))].numpy(), A[[0, 1], 1:, [1, 2]])
    np.testing.assert_array_equal(x[[T(np.array(1)), 0]].numpy(), A[[1, 0]])
    np.testing.assert_array_equal(x[T(np.array(0)):T(np.array(1)), ::T(np.array(2))].numpy(), A[0:1, ::2])


def test_getitem_ints_apply_before_lists_like_paddle():
    # numpy would move the advanced dims first (shape [2, 3]); Paddle applies x[0] first
    out = T(A)[0, :, [0, 1]]
    assert out.shape == [3, 2]
    np.testing.assert_array_equal(out.numpy(), A[0][:, [0, 1]])
    mask = [True, False, True, True]
    np.testing.assert_array_equal(T(A)[1, :, mask].numpy(), A[1][:, mask])


def test_getitem_errors():
    x = T(A)
    with pytest.raises(IndexError, match=r"index 5 is out of bounds for axis 0 with size 2"):
        x[5]
    with pytest.raises(IndexError, match="axis 2 with size 4"):
        x[0, 0, -5]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., 0, ...]
    with pytest.raises(ValueError, match="step cannot be zero"):
        x[::0]
    with pytest.raises(ValueError, match="got float"):
        x[1.0]
    with pytest.raises(ValueError, match="str"):
        x["a"]
    with pytest.raises(ValueError, match="integers or bools, got paddle.float"):
        x[T(np.array([1.0]))]
    with pytest.raises(IndexError, match="boolean index"):
        x[T(np.array([True, False, True]))]
    with pytest.raises(IndexError, match="too many indices"):
        T(np.float32(1.0))[0]


def test_getitem_is_a_new_tensor_and_iterates():
    x = T(A)
    y = x[:]
    assert y is not x and y.shape == x.shape
    rows = list(x)
    assert len(rows) == 2 and rows[1].shape == [3, 4]


def _grad(index, shape=(2, 3, 4)):
    base = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    x = T(base, stop_gradient=False)
    y = x[index]
    w = np.random.default_rng(0).standard_normal(y.shape)
    (y * T(w)).sum().backward()
    expected = np.zeros(shape)
    np.add.at(expected, index if not isinstance(index, tuple) else index, w)
    return x.grad.numpy(), expected


@pytest.mark.parametrize("index", [
    0, (slice(None), slice(1, 3)), (slice(None, None, -1), 1, slice(None, None, 2)), (1, None, 2),
    (slice(None), [0, 2, 0]), ([1, 1],), ([0, 1], [1, 2]), (slice(None), [True, False, True]),
    (Ellipsis, [3, 3]),
], ids=repr)
def test_getitem_grads(index):
    got, expected = _grad(index)
    np.testing.assert_allclose(got, expected)


def test_getitem_bool_tensor_grad():
    x = T(A.astype(np.float64), stop_gradient=False)
    m = x > 10
    y = x[m]
    (y * 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.where(A > 10, 2.0, 0.0))


# -- __setitem__ --------------------------------------------------------------------------------------

SET_CASES = [
    (0, 7.0), ((slice(None), 1), np.float32(5)), ((Ellipsis, -1), np.array([1.0, 2.0, 3.0])),
    ((slice(1, None), slice(None, None, 2)), np.array([[1, 2], [3, 4]])), ((None, 1), 3.0),
    ((slice(None, None, -1), slice(3, 0, -2)), np.ones((3, 2))), (1, np.arange(4.0)),
    ([0, 2], np.array([1.0, 2.0, 3.0, 4.0])), ((slice(None), [0, 2]), 7.0), (([0, 1], [1, 2]), np.array([5.0, 6.0])),
    (np.array([True, False, True]), -1.0), ((slice(None), [True, False, True, False]), np.array([8.0, 9.0])),
    ([1, 1], 4.0), (Ellipsis, 0.5), ((slice(5, 10),), 1.0),
]


@pytest.mark.parametrize("index,value", SET_CASES, ids=[repr(c[0]) for c in SET_CASES])
def test_setitem_matches_numpy(index, value):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = T(a)
    x[index] = value
    expected = a.copy()
    expected[index] = value
    np.testing.assert_array_equal(x.numpy(), expected)
    assert x.dtype == paddle.float32 and x.shape == [3, 4]


def test_setitem_with_tensor_values_and_masks():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = T(a)
    x[x > 5] = 0.0
    expected = np.where(a > 5, 0, a)
    np.testing.assert_array_equal(x.numpy(), expected)
    x = T(a)
    x[T(np.array([True, False, True]))] = T(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    expected = a.copy()
    expected[[0, 2]] = [1, 2, 3, 4]
    np.testing.assert_array_equal(x.numpy(), expected)
    x = T(a)
    y = T(a * 10)
    x[x > 5] = y[x > 5]          # value with one entry per selected element
    np.testing.assert_array_equal(x.numpy(), np.where(a > 5, a * 10, a))
    x = T(a)
    x[T(np.array([2, 0])), 1] = T(np.array([7.0, 8.0], np.float32))
    expected = a.copy()
    expected[[2, 0], 1] = [7, 8]
    np.testing.assert_array_equal(x.numpy(), expected)


def test_setitem_casts_value_to_tensor_dtype():
    z = paddle.zeros([3, 4], dtype="int64")
    z[0, 1] = 2.7
    assert z.dtype == paddle.int64 and z.numpy()[0, 1] == 2
    z[1] = T(np.array([1.5, 2.5, 3.5, 4.5]))
    assert z.numpy()[1].tolist() == [1, 2, 3, 4]
    b = paddle.zeros([2], dtype="bool")
    b[1] = True
    assert b.numpy().tolist() == [False, True]


def test_setitem_keeps_identity_and_is_out_of_place_for_old_values():
    x = paddle.zeros([3])
    old = x.numpy()
    ident = id(x)
    x[0] = 5.0
    assert id(x) == ident and x.numpy().tolist() == [5, 0, 0]
    assert old.tolist() == [0, 0, 0]


def test_setitem_errors():
    x = paddle.zeros([3, 4])
    with pytest.raises(ValueError, match=r"shape \[3\] cannot be broadcast"):
        x[0] = paddle.ones([3])
    with pytest.raises(IndexError, match="out of bounds"):
        x[5] = 1.0
    with pytest.raises(ValueError, match=r"value of shape \[5\]"):
        x[[0, 1]] = np.ones(5)
    p = paddle.zeros([2])
    p.stop_gradient = False
    with pytest.raises(ValueError, match="inplace"):
        p[0] = 1.0
    with paddle.no_grad():
        p[0] = 1.0        # allowed without gradient recording (e.g. initialising a parameter)
    assert p.numpy().tolist() == [1, 0] and not p.stop_gradient


def test_setitem_gradients_to_both_sides():
    base = T(np.arange(12.0).reshape(3, 4), stop_gradient=False)
    x = base * 1.0
    v = T(np.array([1.0, 2.0, 3.0, 4.0]), stop_gradient=False)
    x[1] = v
    assert not x.stop_gradient
    w = np.arange(12.0).reshape(3, 4)
    (x * T(w)).sum().backward()
    expected = w.copy()
    expected[1] = 0
    np.testing.assert_allclose(base.grad.numpy(), expected)
    np.testing.assert_allclose(v.grad.numpy(), w[1])


@pytest.mark.parametrize("index,vshape", [
    ((slice(None), 2), (1,)), ((slice(None, None, 2), slice(1, 3)), (2, 1)), (([0, 2],), (4,)),
    ((np.array([True, False, True]),), ()), (([2, 0], [1, 3]), (2,)),
], ids=repr)
def test_setitem_value_gradient_sums_broadcasts(index, vshape):
    x = T(np.zeros((3, 4)))
    v = T(np.ones(vshape), stop_gradient=False)
    x[index] = v
    w = np.random.default_rng(1).standard_normal((3, 4))
    (x * T(w)).sum().backward()
    region = w[index]
    # each element of v received the sum of the weights of the positions it was broadcast to
    lead = region.ndim - len(vshape)
    region = region.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, d in enumerate(vshape) if d == 1 and region.shape[i] != 1)
    expected = region.sum(axis=axes, keepdims=True)
    np.testing.assert_allclose(v.grad.numpy(), expected.reshape(vshape))


def test_setitem_value_function_is_out_of_place():
    x = T(np.zeros((2, 2), np.float32))
    y = setitem_value(x, (0, 1), 3.0)
    assert x.numpy().sum() == 0 and y.numpy()[0, 1] == 3
