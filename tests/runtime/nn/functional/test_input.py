"""F.embedding and F.one_hot vs numpy."""
import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


W = np.arange(12, dtype=np.float32).reshape(4, 3)


def test_embedding_lookup_and_grad():
    w = t(W.copy(), stop_gradient=False)
    ids = np.array([[0, 2], [3, 2]])
    out = F.embedding(t(ids), w)
    np.testing.assert_array_equal(out.numpy(), W[ids])
    assert out.dtype == paddle.float32 and out.shape == [2, 2, 3]
    out.sum().backward()
    counts = np.bincount(ids.ravel(), minlength=4).astype(np.float32)
    np.testing.assert_array_equal(w.grad.numpy(), np.repeat(counts[:, None], 3, axis=1))


@pytest.mark.parametrize("pad", [2, -2])
def test_embedding_padding_idx_rows_are_zero_and_get_no_grad(pad):
    w = t(W.copy(), stop_gradient=False)
    ids = np.array([[0, 2], [1, 2]])
    out = F.embedding(t(ids), w, padding_idx=pad)
    ref = W[ids].copy()
    ref[ids == 2] = 0
    np.testing.assert_array_equal(out.numpy(), ref)
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy()[:, 0], [1, 1, 0, 0])


def test_embedding_errors():
    with pytest.raises(ValueError, match=r"padding_idx must be within \[-4, 4\)"):
        F.embedding(t(np.array([1])), t(W), padding_idx=4)
    with pytest.raises(ValueError, match="id 7 is out of range"):
        F.embedding(t(np.array([1, 7])), t(W))


def test_one_hot():
    x = np.array([[1, 0], [3, 2]])
    out = F.one_hot(t(x), 4)
    assert out.dtype == paddle.float32 and out.shape == [2, 2, 4]
    np.testing.assert_array_equal(out.numpy(), np.eye(4, dtype=np.float32)[x])
    # -1 infers max + 1 classes, like Paddle
    np.testing.assert_array_equal(F.one_hot(t(np.array([1, 3])), -1).numpy(), np.eye(4)[[1, 3]])
    np.testing.assert_array_equal(F.one_hot(t(np.array([0, 2])), t(np.array(3))).numpy(), np.eye(3)[[0, 2]])


def test_one_hot_out_of_range():
    with pytest.raises(ValueError, match=r"label value 5 is out of range.*num_classes \(4\)"):
        F.one_hot(t(np.array([1, 5])), 4)
