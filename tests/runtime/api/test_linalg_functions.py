"""``paddle.linalg`` functions: the namespace, Tensor methods, Paddle's argument handling and errors,
gradients of the composite functions (pinv, cond, norms, cov, corrcoef, ormqr ...) against finite
differences, and eager == static Program == to_static for a model using many of them.

The single ops are covered by the op table (tests/runtime/ops/cases_linalg.py) and real Paddle's
values by tests/interop/test_linalg_interop.py.
"""
import numpy as np
import pytest

import dy2st
import runtime as paddle
from runtime import static
from runtime.linalg import __all__ as LINALG_ALL

L = paddle.linalg if hasattr(paddle, "linalg") else dy2st.linalg
rng = np.random.default_rng(11)

# Paddle 3.3.1's paddle.linalg.__all__, its top-level aliases and Tensor methods (read from Paddle)
PADDLE_LINALG = [
    "cholesky", "cholesky_inverse", "norm", "matrix_norm", "vecdot", "vector_norm", "cond", "cov", "corrcoef",
    "cross", "inv", "eig", "eigvals", "multi_dot", "matrix_rank", "matrix_transpose", "matmul", "svd", "svdvals",
    "qr", "householder_product", "pca_lowrank", "svd_lowrank", "lu", "lu_solve", "lu_unpack", "matrix_exp",
    "matrix_power", "det", "slogdet", "eigh", "eigvalsh", "pinv", "solve", "cholesky_solve", "triangular_solve",
    "lstsq", "ormqr", "fp8_fp8_half_gemm_fused", "diagonal",
]
TOP_LEVEL = ["cholesky", "norm", "vecdot", "cross", "matrix_transpose", "matmul", "eigvalsh", "diagonal", "inverse"]
NOT_TOP_LEVEL = ["det", "slogdet", "svd", "qr", "eigh", "inv", "solve", "lstsq", "pinv", "lu"]
METHODS = ["cholesky", "cholesky_inverse", "norm", "cond", "cov", "corrcoef", "cross", "eig", "eigvals",
           "multi_dot", "matrix_transpose", "matmul", "qr", "householder_product", "pca_lowrank", "svd_lowrank",
           "lu", "lu_unpack", "matrix_power", "slogdet", "eigvalsh", "pinv", "solve", "cholesky_solve", "lstsq",
           "ormqr", "diagonal", "inverse"]


def T(a, dtype="float64", stop_gradient=True):
    return paddle.to_tensor(np.asarray(a, dtype=dtype), stop_gradient=stop_gradient)


def r(*s):
    return rng.uniform(-1, 1, s)


def spd(n):
    m = r(n, n)
    return m @ m.T + n * np.eye(n)


def test_namespace_matches_paddle():
    import dy2st.linalg
    assert sorted(LINALG_ALL) == sorted(PADDLE_LINALG)
    assert all(callable(getattr(dy2st.linalg, n)) for n in PADDLE_LINALG)
    for n in TOP_LEVEL:
        assert callable(getattr(dy2st, n)), n
    for n in NOT_TOP_LEVEL:
        assert not hasattr(dy2st, n), f"paddle.{n} is not a top-level name in Paddle"
    for n in METHODS:
        assert callable(getattr(paddle.Tensor, n)), n
    assert not hasattr(paddle.Tensor, "det") and not hasattr(paddle.Tensor, "svd")


def test_tensor_methods_give_the_functions_results():
    a = T(r(3, 3) + 3 * np.eye(3))
    np.testing.assert_allclose(a.inverse().numpy(), L.inv(a).numpy())
    np.testing.assert_allclose(a.matrix_power(2).numpy(), (a.numpy() @ a.numpy()))
    np.testing.assert_allclose(a.slogdet().numpy(), L.slogdet(a).numpy())
    s = T(spd(3))
    np.testing.assert_allclose(s.cholesky().numpy(), np.linalg.cholesky(s.numpy()))
    np.testing.assert_allclose(s.eigvalsh().numpy(), np.linalg.eigvalsh(s.numpy()))
    np.testing.assert_allclose(a.diagonal(offset=1).numpy(), np.diagonal(a.numpy(), 1))


@pytest.mark.parametrize("name, args", [
    ("inv", [np.eye(3, dtype=np.int32)]), ("det", [np.eye(3, dtype=np.int64)]),
    ("cholesky", [np.eye(3, dtype=np.int32)]), ("svd", [np.eye(3, dtype=np.int32)]),
    ("qr", [np.eye(3, dtype=np.int32)]), ("eigh", [np.eye(3, dtype=np.int32)]),
])
def test_integer_inputs_are_refused(name, args):
    # Paddle has no integer kernels for these ops: eager Paddle raises RuntimeError (kernel not found),
    # static Paddle TypeError; ours is both
    with pytest.raises(RuntimeError, match="must be a float32"):
        getattr(L, name)(*[paddle.to_tensor(a) for a in args])
    with pytest.raises(TypeError, match="must be a float32"):
        getattr(L, name)(*[paddle.to_tensor(a) for a in args])


@pytest.mark.parametrize("call, match", [
    (lambda: L.inv(T(r(3, 4))), "last two dimensions of x must be equal"),
    (lambda: L.det(T(r(3))), "at least 2 dimensions"),
    (lambda: L.solve(T(np.eye(3)), T(r(4, 2))), "do not match"),
    (lambda: L.cholesky(T(-np.eye(3))), "not be positive definite"),
    (lambda: L.inv(T(np.zeros((3, 3)))), "not invertible"),
    (lambda: L.solve(T(np.zeros((2, 2))), T(r(2))), "not invertible"),
    (lambda: L.qr(T(r(3, 3)), mode="x"), "mode must be"),
    (lambda: L.eigh(T(np.eye(2)), UPLO="X"), "UPLO must be"),
    (lambda: L.lstsq(T(r(3, 2)), T(r(3, 1)), driver="x"), "Only support valid driver"),
    (lambda: L.lstsq(T(r(3, 2)), T(r(4, 1))), "should have same M"),
    (lambda: L.lstsq(T(r(3, 2)), T(r(3, 1), "float32")), "same dtype"),
    (lambda: L.matrix_rank(T(r(3, 3)), tol=0.1, atol=0.1), "tol alone"),
    (lambda: L.matrix_norm(T(r(3, 3)), p=3), "just support p value"),
    (lambda: L.cond(T(r(3, 4)), p="fro"), "square matrix"),
    (lambda: L.cond(T(r(3, 3)), p=3), "unsupported 3 for p"),
    (lambda: L.multi_dot([T(r(2, 3)), T(r(2, 3))]), "cannot be multiplied"),
    (lambda: L.multi_dot([T(r(2, 3, 3)), T(r(3, 3))]), "1-D or 2-D"),
    (lambda: L.lu(T(r(3, 3)), pivot=False), "without pivoting is not implemented on the CPU"),
    (lambda: L.lu_solve(T(r(3, 1)), T(r(3, 3)), paddle.to_tensor(np.array([1, 2], np.int32))), "`pivots` shape"),
    (lambda: L.cov(T(r(2, 2, 2))), "only support N-D"),
    (lambda: L.cov(T(r(2, 3)), fweights=T([1, 2], "int64")), "should equal to x's dim"),
    (lambda: L.cov(T(r(2, 3)), fweights=T([1, -1, 2], "int64")), "cannot be negative"),
    (lambda: L.matrix_exp(T(r(3, 4))), "must be square"),
    (lambda: L.matrix_exp(T(r(3))), "at least two-dimensional"),
    (lambda: L.cholesky_inverse(T(r(2, 3, 3))), "2-dimensional"),
    (lambda: L.householder_product(T(r(2, 3)), T(r(2))), "M >= N"),
    (lambda: L.triangular_solve(T(r(3, 3)), T(r(2, 1))), "do not match"),
    (lambda: L.svd_lowrank(T(r(4, 3)), q=5), "not greater than min"),
])
def test_errors_match_paddles_types(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_fp8_gemm_is_gpu_only():
    with pytest.raises(RuntimeError, match="CUDA GPU"):
        L.fp8_fp8_half_gemm_fused(T(r(2, 2)), T(r(2, 2)))


def test_solve_forms_and_out():
    a, b = r(3, 3) + 3 * np.eye(3), r(2, 3)
    np.testing.assert_allclose(L.solve(T(a), T(b), left=False).numpy(), b @ np.linalg.inv(a))
    out = T(np.zeros((3, 2)))
    res = L.solve(T(a), T(b.T), out=out)
    assert res is out
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(a, b.T))


def test_qr_r_mode_and_lstsq_empty_outputs():
    x = r(4, 3)
    rr = L.qr(T(x), mode="r")
    assert isinstance(rr, paddle.Tensor) and rr.shape == [3, 3]
    sol, res, rank, sv = L.lstsq(T(x), T(r(4, 2)))           # default driver: gelsy
    assert sol.shape == [3, 2] and res.shape == [0] and rank.shape == [] and sv.shape == [0]
    assert rank.dtype == paddle.int32 and int(rank.numpy()) == 3
    _, _, rank, _ = L.lstsq(T(x), T(r(4, 2)), driver="gels")
    assert rank.shape == [0] and rank.dtype == paddle.int64


def _fd_grad(fn, a, eps=1e-6):
    g = np.zeros_like(a)
    for i in range(a.size):
        up, dn = a.copy(), a.copy()
        up.flat[i] += eps
        dn.flat[i] -= eps
        g.flat[i] = (fn(up) - fn(dn)) / (2 * eps)
    return g


_Y32, _V3 = r(3, 2), r(3)   # constants of the functions below (drawn once: finite differences re-run them)
COMPOSITES = [
    ("pinv", lambda x: L.pinv(x), r(4, 3)),
    ("pinv_hermitian", lambda x: L.pinv(x + x.T, hermitian=True), spd(3)),
    ("cond_2", lambda x: L.cond(x), r(3, 3) + 2 * np.eye(3)),
    ("cond_fro", lambda x: L.cond(x, p="fro"), r(3, 3) + 2 * np.eye(3)),
    ("matrix_norm_nuc", lambda x: L.matrix_norm(x, p="nuc", axis=[0, 2]), r(3, 2, 4)),
    ("matrix_norm_-2", lambda x: L.matrix_norm(x, p=-2), r(2, 3, 3)),
    ("vector_norm_axes", lambda x: L.vector_norm(x, p=3, axis=[0, 1]), r(2, 3, 2)),
    ("cov_weighted", lambda x: L.cov(x, fweights=T([1, 2, 1, 1], "int64"), aweights=T([0.5, 1.0, 0.7, 0.2])),
     r(3, 4)),
    ("corrcoef", lambda x: L.corrcoef(x, rowvar=False), r(5, 3)),
    ("cholesky_inverse", lambda x: L.cholesky_inverse(x), np.linalg.cholesky(spd(3))),
    ("ormqr", lambda x: L.ormqr(x, T([0.3, -0.5, 1.1]), T(_Y32)), r(3, 3)),
    ("vecdot", lambda x: L.vecdot(x, T(_V3)), r(2, 3)),
    ("lu_unpack_of_lu", lambda x: L.lu_unpack(*L.lu(x))[2], r(3, 3) + 2 * np.eye(3)),
]


@pytest.mark.parametrize("name, fn, a", COMPOSITES, ids=[c[0] for c in COMPOSITES])
def test_composite_gradients_match_finite_differences(name, fn, a):
    w = np.random.default_rng(1).standard_normal(np.shape(fn(T(a)).numpy()))
    x = T(a, stop_gradient=False)
    (fn(x) * T(w)).sum().backward()
    num = _fd_grad(lambda v: float(np.sum(fn(T(v)).numpy() * w)), a.copy())
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-5, atol=1e-6)


def _model(x, y):
    """Many linalg functions in one graph (every result depends on x)."""
    s = paddle.matmul(x, x, transpose_y=True) + 3.0 * paddle.eye(3, dtype="float64")
    chol = L.cholesky(s)
    q, rr = L.qr(x)
    u, sv, vh = L.svd(x)
    w, v = L.eigh(s)
    lu_, piv = L.lu(s)
    _, lo, up = L.lu_unpack(lu_, piv)
    return [L.inv(s), L.det(s), L.slogdet(s), L.solve(s, y), chol, L.cholesky_solve(y, chol),
            L.triangular_solve(chol, y, upper=False), paddle.matmul(q, rr), sv, w, L.eigvalsh(s), L.pinv(x),
            L.matrix_power(s, -2), L.matrix_rank(s), L.matrix_norm(x, "nuc"), L.vector_norm(x, 3.0, axis=[0, 1]),
            L.cond(s), L.multi_dot([s, x, paddle.transpose(x, [1, 0])]), L.cov(x), L.corrcoef(x),
            L.matrix_exp(s * 0.1), paddle.matmul(lo, up), L.lstsq(x, y[:, :1] + 0.0, driver="gelsd")[0],
            L.householder_product(x, sv), L.diagonal(s, 1)]


def test_eager_static_and_to_static_agree():
    xv, yv = r(3, 2) + np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), r(3, 2)
    eager = [t.numpy() for t in _model(T(xv), T(yv))]

    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            xs = static.data("x", [3, 2], "float64")
            ys = static.data("y", [3, 2], "float64")
            outs = _model(xs, ys)
        main.verify()
        got = static.Executor().run(main, feed={"x": xv, "y": yv}, fetch_list=outs)
    finally:
        paddle.disable_static()
    for k, (e, s) in enumerate(zip(eager, got)):
        np.testing.assert_allclose(s, e, rtol=1e-9, atol=1e-10, err_msg=f"static output {k}")

    fn = dy2st.jit.to_static(_model)
    conv = [t.numpy() for t in fn(T(xv), T(yv))]
    for k, (e, c) in enumerate(zip(eager, conv)):
        np.testing.assert_allclose(c, e, rtol=1e-9, atol=1e-10, err_msg=f"to_static output {k}")


def test_static_gradient_through_linalg_equals_eager():
    av = spd(3)
    x = T(av, stop_gradient=False)
    loss = (L.inv(x).sum() + L.slogdet(x)[1] + L.eigvalsh(x).max() + L.svd(x)[1].sum()).sum()
    loss.backward()
    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            xs = static.data("x", [3, 3], "float64")
            xs.stop_gradient = False
            ls = (L.inv(xs).sum() + L.slogdet(xs)[1] + L.eigvalsh(xs).max() + L.svd(xs)[1].sum()).sum()
            (g,) = static.gradients(ls, [xs])
        got = static.Executor().run(main, feed={"x": av}, fetch_list=[g])[0]
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, x.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_jit_save_and_load_a_linalg_model(tmp_path):
    class Net(paddle.nn.Layer):
        def forward(self, x):
            s = paddle.matmul(x, x, transpose_y=True) + paddle.eye(3)
            return L.inv(s) + L.cholesky(s), L.svd(x)[1], L.det(s)

    net = Net()
    xv = r(3, 4).astype("float32")
    ref = [t.numpy() for t in net(T(xv, "float32"))]
    dy2st.jit.save(net, str(tmp_path / "net"),
                   input_spec=[dy2st.static.InputSpec([3, 4], "float32", "x")])
    loaded = dy2st.jit.load(str(tmp_path / "net"))
    got = [t.numpy() for t in loaded(T(xv, "float32"))]
    for e, g in zip(ref, got):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_lowrank_svds_reconstruct_low_rank_matrices():
    paddle.seed(3)
    a = r(6, 2) @ r(2, 5)
    u, s, v = L.svd_lowrank(T(a), q=2)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, a, atol=1e-8)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a, compute_uv=False)[:2], rtol=1e-8)
    u, s, v = L.pca_lowrank(T(a), q=2)
    c = a - a.mean(axis=0, keepdims=True)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, c, atol=1e-8)
