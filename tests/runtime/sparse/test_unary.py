"""paddle.sparse unary functions against dense numpy references, with float64 finite-difference
gradients of the input values."""
import numpy as np
import pytest

import dy2st as paddle
from .helpers import check_values_grad, coo, csr

sp = paddle.sparse
U = np.array([[0., 0.5, 0, -0.25], [0.75, 0, 0, 0], [0, -0.5, 0.3, 0]])
A3 = np.array([[[0, 1.], [2, 0]], [[0, 0], [3, 4]]])
MASK = U != 0

REF = {
    "sin": np.sin, "tan": np.tan, "asin": np.arcsin, "atan": np.arctan, "sinh": np.sinh, "tanh": np.tanh,
    "asinh": np.arcsinh, "atanh": np.arctanh, "sqrt": lambda a: np.sqrt(np.abs(a)), "square": np.square,
    "log1p": np.log1p, "abs": np.abs, "neg": np.negative, "expm1": np.expm1,
    "deg2rad": lambda a: a * np.float32(np.pi / 180), "rad2deg": lambda a: a * np.float32(180 / np.pi),
}


@pytest.mark.parametrize("name", sorted(REF))
@pytest.mark.parametrize("fmt", [coo, csr])
def test_unary_against_numpy(name, fmt):
    a = np.abs(U) if name == "sqrt" else U
    out = getattr(sp, name)(fmt(a))
    assert out.is_sparse_coo() == (fmt is coo) and out.nnz() == int(MASK.sum())
    np.testing.assert_allclose(out.to_dense().numpy(), np.where(MASK, REF[name](a), 0), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(REF))
def test_unary_gradients(name):
    a = np.abs(U) + 0.1 * MASK if name == "sqrt" else U
    check_values_grad(lambda: coo(a), getattr(sp, name))


def test_pow_isnan_cast():
    np.testing.assert_allclose(sp.pow(coo(U), 3).to_dense().numpy(), U ** 3)
    check_values_grad(lambda: coo(U), lambda x: sp.pow(x, 3))
    n = coo(np.array([[0., np.nan], [1, 0]]))
    out = sp.isnan(n)
    assert out.dtype == paddle.bool
    np.testing.assert_array_equal(out.values().numpy(), [True, False])
    c = sp.cast(coo(U), "int32", "float32")
    assert c.indices().dtype == paddle.int32 and c.dtype == paddle.float32
    assert sp.cast(csr(U), "int32").crows().dtype == paddle.int32
    assert sp.sin(paddle.to_tensor([[0, 1], [2, 0]]).to_sparse_coo(2)).dtype == paddle.float32
    with pytest.raises(RuntimeError):
        sp.abs(paddle.to_tensor([[0, -1]]).to_sparse_coo(2))


@pytest.mark.parametrize("perm", [[1, 0, 2], [2, 0, 1], [0, 2, 1]])
def test_transpose(perm):
    out = sp.transpose(coo(A3), perm)
    np.testing.assert_array_equal(out.to_dense().numpy(), A3.transpose(perm))
    outc = sp.transpose(csr(A3), perm)
    assert outc.is_sparse_csr()
    np.testing.assert_array_equal(outc.to_dense().numpy(), A3.transpose(perm))
    check_values_grad(lambda: coo(A3), lambda x: sp.transpose(x, perm))


@pytest.mark.parametrize("shape", [[2, 6], [-1, 3], [2, 3, 2], [12]])
def test_reshape(shape):
    ref = U.reshape(shape)
    np.testing.assert_array_equal(sp.reshape(coo(U), shape).to_dense().numpy(), ref)
    if ref.ndim in (2, 3):
        np.testing.assert_array_equal(sp.reshape(csr(U), shape).to_dense().numpy(), ref)
    check_values_grad(lambda: coo(U), lambda x: sp.reshape(x, shape))


@pytest.mark.parametrize("axis, keepdim", [(0, False), (1, True), (-1, False), (2, False), (2, True)])
def test_sum_coo(axis, keepdim):
    for sd in (3, 2):
        if axis == 2 and sd == 3 and keepdim:
            continue
        out = sp.sum(coo(A3, sd), axis, keepdim=keepdim)
        np.testing.assert_allclose(out.to_dense().numpy(), A3.sum(axis, keepdims=keepdim))
        check_values_grad(lambda: coo(A3, sd), lambda x: sp.sum(x, axis, keepdim=keepdim))


def test_sum_all_and_csr():
    out = sp.sum(coo(U))
    assert out.shape == [1] and out.values().shape == []
    np.testing.assert_allclose(out.to_dense().numpy(), [U.sum()])
    assert sp.sum(coo(U), 0, dtype="float32").dtype == paddle.float32
    c = sp.sum(csr(U), -1)
    assert c.shape == [3, 1]
    np.testing.assert_allclose(c.to_dense().numpy(), U.sum(1, keepdims=True))
    check_values_grad(lambda: csr(U), lambda x: sp.sum(x, -1))
    np.testing.assert_allclose(sp.sum(csr(A3)).to_dense().numpy(), [[A3.sum()]])
    with pytest.raises(NotImplementedError):
        sp.sum(csr(U), 0)


@pytest.mark.parametrize("axes, starts, ends", [([0, 1], [1, 0], [3, 2]), ([1], [-3], [10]), ([0], [0], [0])])
def test_slice(axes, starts, ends):
    ref = U
    for a, s, e in zip(axes, starts, ends):
        ref = ref[(slice(None),) * a + (slice(s, e),)]
    np.testing.assert_array_equal(sp.slice(coo(U), axes, starts, ends).to_dense().numpy(), ref)
    np.testing.assert_array_equal(sp.slice(csr(U), axes, starts, ends).to_dense().numpy(), ref)
    if ref.size:
        check_values_grad(lambda: coo(U), lambda x: sp.slice(x, axes, starts, ends))


def test_slice_dense_dims():
    out = sp.slice(coo(A3, 1), [0, 2], [1, 1], [2, 2])
    np.testing.assert_array_equal(out.to_dense().numpy(), A3[1:2, :, 1:2])


def test_coalesce_gradient():
    idx = [[1, 0, 1, 0], [0, 2, 0, 1]]

    def make():
        return sp.sparse_coo_tensor(idx, np.array([1., 2, 3, 4]), [2, 3])
    out = sp.coalesce(make())
    np.testing.assert_array_equal(out.values().numpy(), [4., 2., 4.])
    check_values_grad(make, sp.coalesce)


def test_pca_lowrank_refuses_like_paddle_cpu():
    with pytest.raises(ValueError, match="CUDA"):
        sp.pca_lowrank(coo(U))
