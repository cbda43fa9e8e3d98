"""paddle.argmax/argmin/topk/argsort/sort/nonzero."""
import numpy as np
import pytest

import runtime as paddle

X = np.array([[1.0, 5.0, 5.0, -2.0], [7.0, 2.0, 7.0, 0.5], [0.0, -1.0, 3.0, 3.5]], dtype=np.float32)


def test_argmax_defaults_flatten_to_0d():
    x = paddle.to_tensor(X)
    out = paddle.argmax(x)
    assert out.shape == [] and out.dtype == paddle.int64 and out.item() == int(np.argmax(X))
    assert paddle.argmax(x, keepdim=True).shape == [1, 1]
    assert x.argmin().item() == int(np.argmin(X))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_argmax_argmin_axis(axis):
    x = paddle.to_tensor(X)
    assert paddle.argmax(x, axis=axis).tolist() == np.argmax(X, axis=axis).tolist()
    assert paddle.argmin(x, axis=axis, keepdim=True).tolist() == np.argmin(X, axis=axis, keepdims=True).tolist()
    assert paddle.argmax(x, axis=axis, dtype="int32").dtype == paddle.int32


def test_argmax_errors():
    x = paddle.to_tensor(X)
    with pytest.raises(ValueError, match="dtype must be int32 or int64"):
        paddle.argmax(x, dtype="float32")
    with pytest.raises(ValueError, match="out of range"):
        paddle.argmax(x, axis=2)


def test_topk():
    x = paddle.to_tensor([[1.0, 5.0, 4.0, -2.0], [7.0, 2.0, 6.0, 0.5]])
    v, i = paddle.topk(x, 2)
    assert v.tolist() == [[5.0, 4.0], [7.0, 6.0]] and i.tolist() == [[1, 2], [0, 2]]
    v, i = x.topk(1, axis=0, largest=False)
    assert v.tolist() == [[1.0, 2.0, 4.0, -2.0]] and i.tolist() == [[0, 1, 0, 0]]
    v, _ = paddle.topk(x, paddle.to_tensor(3))
    assert v.shape == [2, 3]
    with pytest.raises(ValueError, match="k=5 is out of range"):
        paddle.topk(x, 5)


def test_topk_ties_in_paddles_order_and_grad():
    # real Paddle 3.3.1 (CPU: std::nth_element, then std::sort of the first k-1) returns [2, 3]
    v, i = paddle.topk(paddle.to_tensor([3.0, 1.0, 3.0, 3.0, 2.0]), 2)
    assert i.tolist() == [2, 3]
    assert paddle.topk(paddle.to_tensor([[1, 1, 0, 1], [2, 2, 2, 1]]), k=2)[1].tolist() == [[1, 3], [1, 2]]
    x = paddle.to_tensor([[1.0, 5.0, 4.0], [7.0, 2.0, 3.0]], stop_gradient=False)
    v, _ = paddle.topk(x, 2)
    (v * paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 2.0], [3.0, 0.0, 4.0]]


def test_argsort_and_sort():
    x3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 7
    t = paddle.to_tensor(x3)
    for axis in (0, 1, -1):
        assert paddle.argsort(t, axis=axis).tolist() == np.argsort(x3, axis=axis, kind="stable").tolist()
        np.testing.assert_array_equal(paddle.sort(t, axis=axis).numpy(), np.sort(x3, axis=axis))
        np.testing.assert_array_equal(t.sort(axis=axis, descending=True).numpy(),
                                      -np.sort(-x3, axis=axis))
    # descending keeps tied values in index order (Paddle does the same)
    assert paddle.argsort(paddle.to_tensor([3.0, 1.0, 3.0, 3.0, 2.0]), descending=True).tolist() == [0, 2, 3, 4, 1]


def test_sort_gradient_goes_back_to_original_positions():
    x = paddle.to_tensor([[1.0, 5.0, 4.0], [7.0, 2.0, 3.0]], stop_gradient=False)
    (paddle.sort(x) * paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    assert x.grad.tolist() == [[1.0, 3.0, 2.0], [6.0, 4.0, 5.0]]


def test_0d_inputs():
    s = paddle.to_tensor(3.0)
    assert paddle.argmax(s).shape == [] and paddle.sort(s).item() == 3.0 and paddle.argsort(s).item() == 0


def test_nonzero():
    x = paddle.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
    out = paddle.nonzero(x)
    assert out.dtype == paddle.int64 and out.tolist() == np.argwhere(x.numpy()).tolist()
    with pytest.raises(ValueError, match="at least 1 dimension"):
        paddle.nonzero(paddle.to_tensor(1.0))


@pytest.mark.skipif("slice" not in paddle.ops.registry.all_ops(), reason="slice not registered yet")
def test_nonzero_as_tuple():
    x = paddle.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
    rows, cols = paddle.nonzero(x, as_tuple=True)
    assert rows.tolist() == [0, 1, 1] and cols.tolist() == [1, 0, 2]
