"""paddle.sparse binary functions against dense numpy references: Paddle's output patterns, values,
float64 finite-difference gradients of both inputs, mask_as, and the products Paddle's CPU lacks."""
import numpy as np
import pytest

import dy2st as paddle
from .helpers import check_values_grad, coo, csr

sp = paddle.sparse
A = np.array([[0., 1, 0, 2], [3, 0, 0, 0], [0, 4, 5, 0]])
B = np.array([[1., 0, 0, 2], [0, 0, 6, 0], [0, 7, 0, 0]])
UNION = (A != 0) | (B != 0)


@pytest.mark.parametrize("name, ref", [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply)])
@pytest.mark.parametrize("fmt", [coo, csr])
def test_union_pattern_ops(name, ref, fmt):
    out = getattr(sp, name)(fmt(A), fmt(B))
    assert out.is_sparse_csr() == (fmt is csr) and out.nnz() == int(UNION.sum())
    np.testing.assert_array_equal(out.to_dense().numpy(), ref(A, B))
    if fmt is coo:
        np.testing.assert_array_equal(out.indices().numpy(), np.stack(np.nonzero(UNION)))


def test_divide_gives_every_position():
    with np.errstate(divide="ignore", invalid="ignore"):
        ref = A / B
    for fmt in (coo, csr):
        out = sp.divide(fmt(A), fmt(B))
        assert out.nnz() == A.size
        np.testing.assert_array_equal(out.to_dense().numpy(), ref)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide"])
def test_gradients_of_both_inputs(name):
    b = B + 0.5 * (B == 0)          # no zero divisor
    fn = getattr(sp, name)
    check_values_grad(lambda: coo(A), lambda x: fn(x, coo(b)))
    check_values_grad(lambda: coo(b), lambda y: fn(coo(A), y))
    check_values_grad(lambda: csr(A), lambda x: fn(x, csr(b)))


def test_dense_dims_and_duplicates():
    a3 = np.array([[[0, 1.], [2, 0]], [[0, 0], [3, 4]]])
    out = sp.add(coo(a3, 2), coo(a3[::-1], 2))
    np.testing.assert_array_equal(out.to_dense().numpy(), a3 + a3[::-1])
    dup = sp.sparse_coo_tensor([[0, 0], [1, 1]], np.array([1., 2.]), [2, 2])
    np.testing.assert_array_equal(sp.add(dup, coo(np.eye(2))).to_dense().numpy(), [[1, 3], [0, 1]])


def test_scalars():
    np.testing.assert_array_equal(sp.multiply(coo(A), 2.5).to_dense().numpy(), A * 2.5)
    np.testing.assert_array_equal(sp.divide(csr(A), 4.0).to_dense().numpy(), A / 4)
    check_values_grad(lambda: coo(A), lambda x: sp.multiply(x, 2.5))
    with pytest.raises(ValueError):
        sp.add(coo(A), 2.0)


@pytest.mark.parametrize("call, err", [
    (lambda: sp.add(coo(A), coo(np.ones((3, 5)))), ValueError),
    (lambda: sp.add(coo(A), csr(B)), NotImplementedError),
    (lambda: sp.add(coo(A), paddle.to_tensor(B)), NotImplementedError),
    (lambda: sp.add(paddle.to_tensor(A), coo(B)), NotImplementedError),
    (lambda: sp.multiply(coo(A), paddle.to_tensor(B)), NotImplementedError),
    (lambda: sp.matmul(coo(A), paddle.ones([4, 2], "float64")), NotImplementedError),
    (lambda: sp.matmul(csr(A), paddle.ones([4, 2], "float64")), NotImplementedError),
    (lambda: sp.mv(csr(A), paddle.ones([4], "float64")), NotImplementedError),
    (lambda: sp.addmm(paddle.ones([3, 2]), csr(A), paddle.ones([4, 2])), NotImplementedError),
    (lambda: sp.masked_matmul(paddle.ones([3, 2]), paddle.ones([2, 3]), csr(np.eye(3))), NotImplementedError),
])
def test_errors(call, err):
    with pytest.raises(err):
        call()


def test_mask_as_and_gradient_to_dense_input():
    for fmt in (coo, csr):
        out = sp.mask_as(paddle.to_tensor(B), fmt(A))
        assert out.nnz() == int((A != 0).sum())
        np.testing.assert_array_equal(out.to_dense().numpy(), np.where(A != 0, B, 0))
    d = paddle.to_tensor(B, stop_gradient=False)
    sp.mask_as(d, coo(A)).values().sum().backward()
    np.testing.assert_array_equal(d.grad.numpy(), (A != 0).astype(float))


def test_is_same_shape():
    assert sp.is_same_shape(coo(A), paddle.to_tensor(B))
    assert not sp.is_same_shape(coo(A), csr(A.T))
