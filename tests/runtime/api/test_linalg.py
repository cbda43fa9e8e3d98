"""Public linear-algebra API (runtime/api/linalg.py): matmul/mm/bmm/dot/t/norm/dist/cross against
numpy, with results and error cases checked against real Paddle 3.3."""
import numpy as np
import pytest

import runtime as paddle

rng = np.random.default_rng(7)


def T(a, dtype=None, stop_gradient=True):
    return paddle.to_tensor(np.asarray(a), dtype=dtype, stop_gradient=stop_gradient)


def A(*shape):
    return rng.standard_normal(shape)


@pytest.mark.parametrize("xs,ys,tx,ty", [
    ((3, 4), (4, 5), False, False), ((4, 3), (4, 5), True, False), ((3, 4), (5, 4), False, True),
    ((2, 1, 3, 4), (5, 4, 2), False, False), ((4,), (4,), False, False), ((4,), (2, 4, 3), False, False),
    ((2, 3, 4), (4,), False, False), ((3,), (3, 2), True, False),
])
def test_matmul_matches_numpy(xs, ys, tx, ty):
    a, b = A(*xs), A(*ys)
    out = paddle.matmul(T(a), T(b), transpose_x=tx, transpose_y=ty)
    ea = np.swapaxes(a, -1, -2) if tx and a.ndim > 1 else a
    eb = np.swapaxes(b, -1, -2) if ty and b.ndim > 1 else b
    expected = ea @ eb
    assert out.shape == list(np.shape(expected))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


def test_matmul_operator_method_and_dtypes():
    a, b = A(2, 3).astype(np.float32), A(3, 2).astype(np.float32)
    x, y = T(a), T(b)
    np.testing.assert_allclose((x @ y).numpy(), a @ b, rtol=1e-5)
    np.testing.assert_allclose(x.matmul(y).numpy(), a @ b, rtol=1e-5)
    assert (x @ y).dtype == paddle.float32
    ints = paddle.matmul(T([[1, 2]]), T([[3], [4]]))
    assert ints.dtype == paddle.int64 and ints.numpy().tolist() == [[11]]


def test_matmul_gradient_with_broadcast_batch():
    a, b = A(2, 1, 3, 4), A(5, 4, 2)
    x, y = T(a, stop_gradient=False), T(b, stop_gradient=False)
    w = A(2, 5, 3, 2)
    (paddle.matmul(x, y) * T(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (w @ np.swapaxes(b, -1, -2)).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(y.grad.numpy(), (np.swapaxes(a, -1, -2) @ w).sum(axis=0))


def test_matmul_errors_name_the_shapes():
    with pytest.raises(ValueError, match=r"matmul: the contracted dimensions differ: x has shape \[2, 3\] "
                                         r"and y has shape \[4, 2\]; 3 != 4"):
        paddle.matmul(T(A(2, 3)), T(A(4, 2)))
    with pytest.raises(TypeError, match="matmul: y must be a Tensor"):
        paddle.matmul(T(A(2, 3)), [[1.0]])


def test_mm_and_bmm():
    a, b = A(2, 3), A(3, 4)
    np.testing.assert_allclose(paddle.mm(T(a), T(b)).numpy(), a @ b)
    assert paddle.mm(T(A(2, 2, 3)), T(A(3, 2))).shape == [2, 2, 2]
    c, d = A(2, 3, 4), A(2, 4, 5)
    np.testing.assert_allclose(paddle.bmm(T(c), T(d)).numpy(), c @ d)
    np.testing.assert_allclose(T(c).bmm(T(d)).numpy(), c @ d)
    with pytest.raises(ValueError, match=r"bmm: x and y must be 3-D tensors, got shapes \[2, 3\] and \[3, 2\]"):
        paddle.bmm(T(A(2, 3)), T(A(3, 2)))
    with pytest.raises(ValueError, match="same batch size"):
        paddle.bmm(T(A(2, 3, 4)), T(A(3, 4, 5)))


def test_dot():
    a, b = A(4), A(4)
    out = paddle.dot(T(a), T(b))
    assert out.shape == []
    np.testing.assert_allclose(out.numpy(), np.sum(a * b))
    c, d = A(2, 3), A(2, 3)
    np.testing.assert_allclose(T(c).dot(T(d)).numpy(), (c * d).sum(axis=1))
    x = T(a, stop_gradient=False)
    paddle.dot(x, T(b)).backward()
    np.testing.assert_allclose(x.grad.numpy(), b)
    with pytest.raises(ValueError, match="dot: x and y must both be 1-D or both 2-D"):
        paddle.dot(T(A(2, 2, 2)), T(A(2, 2, 2)))


def test_t():
    a = A(2, 3)
    assert paddle.t(T(a)).shape == [3, 2]
    np.testing.assert_array_equal(T(a).t().numpy(), a.T)
    v = T(A(3))
    assert paddle.t(v) is v
    with pytest.raises(ValueError, match="t: input must have at most 2 dimensions"):
        paddle.t(T(A(2, 3, 4)))


X = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], dtype=np.float32)

# (p, axis, value computed by hand / by real Paddle 3.3 for X)
NORMS = [
    (None, None, np.sqrt(91.0)), ("fro", None, np.sqrt(91.0)), (2, None, np.sqrt(91.0)),
    ("fro", [0, 1], np.sqrt(91.0)), (None, [0, 1], np.linalg.norm(X, 2)), ("nuc", None, np.linalg.norm(X, "nuc")),
    (-2, [1, 0], np.linalg.norm(X, -2)),
    (1, None, 21.0), (np.inf, None, 6.0), (-np.inf, None, 1.0), (0, None, 6.0),
    (2, 0, np.sqrt([17.0, 29.0, 45.0])), ("fro", 1, np.sqrt([14.0, 77.0])), (1, 0, [5.0, 7.0, 9.0]),
    (np.inf, 1, [3.0, 6.0]), (-np.inf, 0, [1.0, 2.0, 3.0]), (0, 1, [3.0, 3.0]),
    (3, 1, [36.0 ** (1 / 3), 405.0 ** (1 / 3)]),
    (1, [0, 1], 9.0), (np.inf, [0, 1], 15.0), (-1, [0, 1], 5.0), (-np.inf, [0, 1], 6.0),
]


@pytest.mark.parametrize("p,axis,expected", NORMS, ids=[f"{p}-{a}" for p, a, _ in NORMS])
def test_norm(p, axis, expected):
    out = paddle.norm(T(X), p=p, axis=axis)
    assert out.dtype == paddle.float32 and out.shape == list(np.shape(expected))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_norm_keepdim_and_method():
    x = T(X)
    assert paddle.norm(x, axis=1, keepdim=True).shape == [2, 1]
    assert paddle.norm(x, keepdim=True).shape == [1, 1]
    assert x.norm(p="fro", axis=[0, 1], keepdim=True).shape == [1, 1]
    assert paddle.norm(x, p=1, axis=[0, 1], keepdim=True).shape == [1, 1]
    np.testing.assert_allclose(x.norm(p=1, axis=-1).numpy(), [6.0, 15.0])


def test_norm_gradient():
    a = np.array([0.0, 1.0, 4.0])
    x = T(a, stop_gradient=False)
    paddle.norm(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), a / np.sqrt(17.0))
    z = T([0.0, 0.0], stop_gradient=False)
    paddle.norm(z).backward()
    np.testing.assert_array_equal(z.grad.numpy(), [0.0, 0.0])
    m = T([[3.0, -3.0, 2.0]], stop_gradient=False)
    paddle.norm(m, p=np.inf, axis=1).sum().backward()
    np.testing.assert_array_equal(m.grad.numpy(), [[1.0, -1.0, 0.0]])   # every tie gets the gradient


def test_norm_errors():
    x = T(X)
    with pytest.raises(ValueError, match="just support p value 'fro','nuc',1,-1,inf,-inf,2,-2"):
        paddle.norm(x, p=3, axis=[0, 1])
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        paddle.norm(x, axis=2)
    with pytest.raises(ValueError, match="axis"):
        paddle.norm(x, p="max", axis=0)
    with pytest.raises(ValueError, match="p must be 'fro', 'nuc' or a number"):
        paddle.norm(x, p=[1], axis=0)


def test_dist():
    y = T(np.zeros(3, dtype=np.float32))
    np.testing.assert_allclose(paddle.dist(T(X), y).numpy(), np.sqrt(91.0), rtol=1e-6)
    np.testing.assert_allclose(paddle.dist(T(X), y, p=0).numpy(), 6.0)
    np.testing.assert_allclose(T(X).dist(y, p=np.inf).numpy(), 6.0)
    a, b = A(2, 3), A(3)
    xa, xb = T(a, stop_gradient=False), T(b, stop_gradient=False)
    paddle.dist(xa, xb).backward()
    d = a - b
    np.testing.assert_allclose(xa.grad.numpy(), d / np.sqrt((d ** 2).sum()))
    np.testing.assert_allclose(xb.grad.numpy(), -(d / np.sqrt((d ** 2).sum())).sum(axis=0))


def test_cross():
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    np.testing.assert_allclose(paddle.cross(T(a), T(b)).numpy(), [[-3.0, 0.0, 1.0], [0.0, 6.0, -5.0]])
    np.testing.assert_allclose(T(a.T).cross(T(b.T), axis=0).numpy(), [[-3.0, 0.0], [0.0, 6.0], [1.0, -5.0]])
    with pytest.raises(ValueError, match="cross: dimension 0 of shape"):
        paddle.cross(T(a), T(b), axis=0)
    with pytest.raises(ValueError, match="cross: x and y must have the same shape"):
        paddle.cross(T(a), T(b[0]))


def test_linalg_namespace():
    import dy2st
    import dy2st.linalg as L
    x = paddle.to_tensor(np.array([[3.0, 4.0]], np.float32))
    assert L.norm is dy2st.linalg.norm
    np.testing.assert_allclose(L.norm(x).numpy(), 5.0)
