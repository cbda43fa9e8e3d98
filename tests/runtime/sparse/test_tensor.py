"""Sparse COO/CSR tensors: construction, conversions, printing, flags, errors and autograd plumbing."""
import numpy as np
import pytest

import dy2st as paddle
from .helpers import coo, csr

sp = paddle.sparse
A = np.array([[0., 1, 0, 2], [3, 0, 0, 0], [0, 4, 5, 0]])
A3 = np.array([[[0, 1.], [2, 0]], [[0, 0], [3, 4]]])


def test_sparse_coo_tensor_round_trip():
    x = sp.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1., 2., 3.], [3, 3])
    assert isinstance(x, paddle.Tensor) and x.is_sparse() and x.is_sparse_coo() and not x.is_sparse_csr()
    assert x.shape == [3, 3] and x.dtype == paddle.float32 and x.nnz() == 3 and x.stop_gradient
    np.testing.assert_array_equal(x.indices().numpy(), [[0, 1, 2], [1, 2, 0]])
    expect = np.zeros((3, 3), np.float32)
    expect[[0, 1, 2], [1, 2, 0]] = [1, 2, 3]
    np.testing.assert_array_equal(x.to_dense().numpy(), expect)
    assert not x.is_coalesced()


def test_shape_inference_and_dense_dims():
    x = sp.sparse_coo_tensor([[0, 2]], [[1., 2], [3, 4]])
    assert x.shape == [3, 2] and x.sparse_dim() == 1 and x.dense_dim() == 1
    np.testing.assert_array_equal(x.to_dense().numpy(), [[1, 2], [0, 0], [3, 4]])
    assert sp.sparse_coo_tensor([[0, 1]], [1, 2]).dtype == paddle.int64


def test_duplicates_last_wins_in_to_dense_and_sum_in_coalesce():
    x = sp.sparse_coo_tensor([[0, 1, 2, 0], [1, 2, 0, 1]], [1., 2., 3., 4.], [3, 3])
    assert x.to_dense().numpy()[0, 1] == 4.0        # Paddle writes in order
    c = x.coalesce()
    assert c.is_coalesced() and c.nnz() == 3
    np.testing.assert_array_equal(c.indices().numpy(), [[0, 1, 2], [1, 2, 0]])
    np.testing.assert_array_equal(c.values().numpy(), [5., 2., 3.])


@pytest.mark.parametrize("sparse_dim", [1, 2, 3])
def test_dense_to_coo(sparse_dim):
    x = coo(A3, sparse_dim)
    assert x.sparse_dim() == sparse_dim and x.dense_dim() == 3 - sparse_dim and x.is_coalesced()
    np.testing.assert_array_equal(x.to_dense().numpy(), A3)
    flat = A3.reshape(A3.shape[:sparse_dim] + (-1,))
    assert x.nnz() == int(np.count_nonzero(np.any(flat != 0, axis=-1)))


def test_csr_round_trips():
    for a in (A, A3):
        x = csr(a)
        assert x.is_sparse_csr()
        np.testing.assert_array_equal(x.to_dense().numpy(), a)
        np.testing.assert_array_equal(x.to_sparse_coo(a.ndim).to_dense().numpy(), a)
        np.testing.assert_array_equal(coo(a).to_sparse_csr().crows().numpy(), x.crows().numpy())
    np.testing.assert_array_equal(csr(A).crows().numpy(), [0, 2, 3, 5])
    np.testing.assert_array_equal(csr(A3).crows().numpy(), [0, 1, 2, 0, 0, 2])


def test_sparse_csr_tensor_infers_batches():
    x = sp.sparse_csr_tensor([0, 1, 2, 0, 0, 2], [1, 0, 0, 1], [1., 2, 3, 4])
    assert x.shape == [2, 2, 2]
    np.testing.assert_array_equal(x.to_dense().numpy(), A3)


def test_printing_matches_paddle_layout():
    x = coo(A.astype(np.float32))
    x = sp.cast(x, value_dtype="float32")
    assert repr(x) == ("Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True, \n"
                       "       indices=[[0, 0, 1, 2, 2],\n"
                       "                [1, 3, 0, 1, 2]], \n"
                       "       values=[1., 2., 3., 4., 5.])")
    assert str(sp.cast(csr(A), value_dtype="float32")) == (
        "Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True, \n"
        "       crows=[0, 2, 3, 5], \n       cols=[1, 3, 0, 1, 2], \n       values=[1., 2., 3., 4., 5.])")


@pytest.mark.parametrize("call, err", [
    (lambda: sp.sparse_coo_tensor([0, 1], [1., 2.], [2]), ValueError),
    (lambda: sp.sparse_coo_tensor([[0., 1], [1, 0]], [1., 2.], [2, 2]), TypeError),
    (lambda: sp.sparse_coo_tensor([[0, 1], [1, 0]], [1., 2., 3.], [2, 2]), ValueError),
    (lambda: sp.sparse_coo_tensor([[0, 1], [1, 5]], [1., 2.], [2, 2]), ValueError),
    (lambda: sp.sparse_csr_tensor([1, 2, 3, 5], [1, 3, 2, 0, 1], [1., 2, 3, 4, 5], [3, 4]), ValueError),
    (lambda: sp.sparse_csr_tensor([0, 2, 5], [1, 3, 2, 0, 1], [1., 2, 3, 4, 5], [1, 1, 3, 4]), ValueError),
    (lambda: paddle.to_tensor(A).to_sparse_coo(0), ValueError),
    (lambda: paddle.to_tensor([1., 0]).to_sparse_csr(), ValueError),
    (lambda: paddle.to_tensor(A).values(), NotImplementedError),
    (lambda: paddle.to_tensor(A).nnz(), SystemError),
    (lambda: paddle.to_tensor(A).to_dense(), NotImplementedError),
    (lambda: csr(A).indices(), SystemError),
    (lambda: coo(A).crows(), SystemError),
    (lambda: csr(A).is_coalesced(), TypeError),
    (lambda: coo(A).numpy(), NotImplementedError),
    (lambda: paddle.sin(coo(A)), NotImplementedError),
    (lambda: sp.sparse_coo_tensor([[0]], [1.], place="gpu:0"), ValueError),
])
def test_errors(call, err):
    with pytest.raises(err):
        call()


def test_dense_tensor_flags_unchanged():
    t = paddle.to_tensor(A)
    assert not t.is_sparse() and not t.is_sparse_coo() and not t.is_sparse_csr() and t.is_dense()


def test_grad_is_sparse_with_the_input_pattern():
    x = coo(A, grad=True)
    out = sp.sin(x)
    out.backward()
    assert x.grad.is_sparse_coo()
    np.testing.assert_array_equal(x.grad.indices().numpy(), x.indices().numpy())
    np.testing.assert_allclose(x.grad.values().numpy(), np.cos(x.values().numpy()))
    y = csr(A, grad=True)
    sp.sin(y).backward()
    assert y.grad.is_sparse_csr()
    np.testing.assert_allclose(y.grad.values().numpy(), np.cos(A[A != 0]))


def test_values_and_to_dense_carry_gradients():
    d = paddle.to_tensor(A, stop_gradient=False)
    d.to_sparse_coo(2).to_dense().sum().backward()
    np.testing.assert_array_equal(d.grad.numpy(), (A != 0).astype(float))
    x = coo(A, grad=True)
    v = x.values()
    (v * v).sum().backward()
    np.testing.assert_array_equal(x.grad.values().numpy(), 2 * A[A != 0])


def test_sparse_coo_tensor_values_collect_the_gradient():
    v = paddle.to_tensor([1., 2., 3.], dtype="float64", stop_gradient=False)
    x = sp.sparse_coo_tensor([[0, 1, 1], [1, 0, 2]], v, [2, 3], stop_gradient=False)
    sp.square(x).to_dense().sum().backward()
    assert x.grad is None                       # as in Paddle: an op output, not a leaf
    np.testing.assert_allclose(v.grad.numpy(), [2., 4., 6.])


def test_detach_clone_astype():
    x = coo(A, grad=True)
    assert x.detach().stop_gradient and x.clone().nnz() == 5
    assert x.astype("float32").dtype == paddle.float32
    assert x.is_same_shape(paddle.to_tensor(A)) and not x.is_same_shape(coo(A3))


def test_public_modules():
    import dy2st.sparse.nn.functional as F
    assert paddle.sparse.nn.functional is F
    assert len(paddle.sparse.__all__) == 37 and len(paddle.sparse.nn.__all__) == 11
    for name in paddle.sparse.__all__ + [f"nn.{n}" for n in paddle.sparse.nn.__all__]:
        obj = paddle.sparse
        for part in name.split("."):
            obj = getattr(obj, part)
    import importlib
    for path, name in (("unary", "sin"), ("binary", "add"), ("multiary", "addmm"), ("creation", "sparse_coo_tensor"),
                       ("nn.layer.conv", "SubmConv3D"), ("nn.layer.norm", "BatchNorm"), ("nn.layer.pooling", "MaxPool3D"),
                       ("nn.layer.activation", "ReLU"), ("nn.functional.conv", "conv3d")):
        assert hasattr(importlib.import_module("dy2st.sparse." + path), name)     # Paddle's module paths


def test_static_mode_is_refused_clearly():
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            x = paddle.static.data("x", [3, 4], "float32")
            with pytest.raises(AssertionError, match="dynamic mode"):
                x.to_sparse_coo(2)
            with pytest.raises(AssertionError, match="dynamic mode"):
                sp.sparse_coo_tensor([[0]], [1.0], [1])
    finally:
        paddle.disable_static()
