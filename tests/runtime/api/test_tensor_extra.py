"""The extra top-level functions and Tensor methods (unique ... vander), the torch-style aliases and
the topk / argsort tie order: names, numpy references, errors, and eager == static Program ==
to_static (values and gradients). The ops are in the op table (tests/runtime/ops/cases_tensor_extra.py);
real Paddle's values, dtypes and gradients in tests/interop/test_tensor_functions_interop.py.
"""
import itertools

import numpy as np
import pytest

import dy2st
import runtime as paddle
from runtime import static

rng = np.random.default_rng(161)

# what Paddle 3.3.1 offers (read from the installed package): top level / Tensor method
TOP_AND_METHOD = ["unique", "unique_consecutive", "mode", "kron", "diff", "bincount", "histogram", "bucketize",
                  "quantile", "nanquantile", "nan_to_num", "outer", "inner", "tensordot", "diag_embed", "index_fill",
                  "index_add", "masked_scatter", "lerp", "logcumsumexp", "cummax", "cummin", "renorm", "take",
                  "reverse", "rot90", "combinations", "vander", "clamp", "div", "eq", "ge", "gt", "le", "lt", "ne",
                  "sub", "mul", "swapdims", "take_along_dim", "permute", "true_divide", "negative", "increment",
                  "index_put", "index_put_", "histogram_bin_edges", "renorm_", "index_add_", "index_fill_",
                  "masked_scatter_", "nan_to_num_", "histogramdd"]
METHOD_ONLY = ["lerp_", "clamp_"]
TOP_ONLY = ["searchsorted", "tril_indices", "triu_indices", "cartesian_prod", "cat", "concatenate", "ger",
            "from_numpy", "manual_seed"]


def T(a, dtype=None, stop_gradient=True):
    a = np.asarray(a)
    return paddle.to_tensor(a if dtype is None else a.astype(dtype), stop_gradient=stop_gradient)


def r(*s):
    return rng.uniform(-1, 1, s)


@pytest.mark.parametrize("name", TOP_AND_METHOD + TOP_ONLY + METHOD_ONLY)
def test_names(name):
    assert hasattr(paddle, name) == hasattr(dy2st, name) == (name not in METHOD_ONLY)
    assert hasattr(paddle.Tensor, name) == (name not in TOP_ONLY)


def test_numpy_references():
    x = r(4, 5)
    np.testing.assert_allclose(paddle.quantile(T(x), [0.25, 0.9], axis=1).numpy(),
                               np.quantile(x, [0.25, 0.9], axis=1), rtol=1e-12)
    for method in ("lower", "higher", "nearest", "midpoint"):
        np.testing.assert_allclose(paddle.quantile(T(x), 0.4, axis=0, interpolation=method).numpy(),
                                   np.quantile(x, 0.4, axis=0, method=method), rtol=1e-12)
    xn = x.copy()
    xn[0, 1] = np.nan
    np.testing.assert_allclose(paddle.nanquantile(T(xn), 0.5, axis=1).numpy(), np.nanquantile(xn, 0.5, axis=1))
    a, b = r(2, 3, 4), r(4, 3, 5)
    np.testing.assert_allclose(paddle.tensordot(T(a), T(b), [[1, 2], [1, 0]]).numpy(),
                               np.tensordot(a, b, [[1, 2], [1, 0]]), rtol=1e-12)
    np.testing.assert_allclose(paddle.inner(T(a), T(r(6, 4))).numpy().shape, (2, 3, 6))
    for k in range(-2, 5):
        np.testing.assert_array_equal(paddle.rot90(T(a), k, [2, 0]).numpy(), np.rot90(a, k, (2, 0)))
    np.testing.assert_array_equal(paddle.diff(T(a), n=2, axis=1).numpy(), np.diff(a, n=2, axis=1))
    v = np.array([np.nan, np.inf, -np.inf, 2.0])
    np.testing.assert_array_equal(paddle.nan_to_num(T(v)).numpy(), np.nan_to_num(v))
    np.testing.assert_allclose(paddle.vander(T([1.0, 2, 3]), 4, increasing=True).numpy(),
                               np.vander([1.0, 2, 3], 4, increasing=True))
    got = paddle.cartesian_prod([T([1, 2]), T([3, 4, 5]), T([6])]).numpy()
    np.testing.assert_array_equal(got, np.array(list(itertools.product([1, 2], [3, 4, 5], [6]))))
    np.testing.assert_array_equal(paddle.combinations(T([1, 2, 3, 4]), 3).numpy(),
                                  np.array(list(itertools.combinations([1, 2, 3, 4], 3))))
    np.testing.assert_array_equal(paddle.take(T([[1, 2], [3, 4]]), T([[0, -1], [5, 2]]), mode="wrap").numpy(),
                                  np.take([[1, 2], [3, 4]], [[0, -1], [5, 2]], mode="wrap"))
    np.testing.assert_array_equal(paddle.bucketize(T([0.5, 3.0, 9.0]), T([1.0, 3, 5])).numpy(), [0, 1, 3])


def test_increment_updates_eager_x_in_place():
    x = T(np.array([3.0], np.float32))
    assert paddle.increment(x, 2.0) is x and x.numpy().tolist() == [5.0]
    with pytest.raises(ValueError, match="exactly one element"):
        paddle.increment(T(r(2)))


def test_inplace_forms_rebind_the_tensor():
    x = T(np.array([np.nan, 1.0]))
    assert x.nan_to_num_() is x and x.numpy().tolist() == [0.0, 1.0]
    y = T(np.zeros((3, 2)))
    y.index_add_(T([0, 0]), 0, T(np.ones((2, 2))))
    assert y.numpy()[0].tolist() == [2.0, 2.0]
    z = T(np.zeros((2, 2)))
    z.index_fill_(T([1]), 1, 5.0)
    assert z.numpy().tolist() == [[0.0, 5.0], [0.0, 5.0]]


def test_errors_say_what_and_how():
    with pytest.raises(ValueError, match="non-negative"):
        paddle.bincount(T([-1, 2]))
    with pytest.raises(ValueError, match=r"q must be in \[0, 1\]"):
        paddle.quantile(T(r(3)), 1.5)
    with pytest.raises(TypeError, match="float32 or float64"):
        paddle.quantile(T([1, 2, 3]), 0.5)
    with pytest.raises(IndexError, match="mode='wrap'"):
        paddle.take(T(r(2, 2)), T([4]))
    with pytest.raises(ValueError, match="must differ"):
        paddle.rot90(T(r(2, 2)), axes=[1, 1])
    with pytest.raises(ValueError, match="1-D"):
        paddle.bucketize(T(r(2)), T(r(2, 2)))
    with pytest.raises(ValueError, match="int32' or 'int64"):
        paddle.unique(T([1, 2]), dtype="float32")
    with pytest.raises(ValueError, match="only 1 elements"):
        paddle.masked_scatter(T(r(2)), T([True, True]), T(r(1)))


def test_topk_and_argsort_tie_order_is_paddles():
    # measured on real Paddle 3.3.1 (tests/interop/test_tensor_functions_interop.py checks many more)
    assert paddle.topk(T([[1, 1, 0, 1], [2, 2, 2, 1]]), 2)[1].tolist() == [[1, 3], [1, 2]]
    ties = T([5.0, 1, 5, 5, 2, 5, 0, 5, 1, 1, 5, 2, 2, 5, 5, 5, 1, 5, 0, 5])
    assert paddle.argsort(ties).tolist() == [18, 6, 1, 16, 8, 9, 4, 11, 12, 19, 0, 17, 15, 14, 13, 10, 7, 5, 3, 2]
    assert paddle.argsort(ties, stable=True).tolist() == np.argsort(ties.numpy(), kind="stable").tolist()
    assert paddle.mode(T([[1.0, 2, 2, 3, 3], [5, 5, 1, 1, 0]]))[1].tolist() == [2, 3]


def _model(x, w):
    q = paddle.quantile(x, [0.25, 0.5], axis=1)
    return [q, paddle.kron(x[:2, :2], w[:2].reshape([1, 2])), paddle.diff(x, axis=0),
            paddle.lerp(x, x * 2.0, 0.3), paddle.logcumsumexp(x, axis=1), paddle.cummax(x, axis=1)[0],
            paddle.renorm(x, 2.0, 0, 1.0), paddle.index_add(x, T([0, 2]), 0, x[:2] * 0.5),
            paddle.tensordot(x, w.reshape([4, 1]), 1), paddle.outer(w, w), paddle.rot90(x),
            paddle.take(x, T([0, 5, -1])), paddle.mode(x, axis=0)[0], paddle.cummin(x, axis=0)[0],
            paddle.masked_scatter(x, x > 0, w.tile([3])), paddle.index_fill(x, T([1]), 1, 0.5),
            paddle.vander(w, 3), paddle.inner(x, w.reshape([1, 4])), paddle.nan_to_num(x),
            paddle.unique(paddle.round(x * 2.0)), paddle.searchsorted(paddle.sort(w), x)]


def test_eager_static_and_to_static_agree():
    xv, wv = r(3, 4), r(4)
    eager = [t.numpy() for t in _model(T(xv), T(wv))]
    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            outs = _model(static.data("x", [3, 4], "float64"), static.data("w", [4], "float64"))
        main.verify()
        got = static.Executor().run(main, feed={"x": xv, "w": wv}, fetch_list=outs)
    finally:
        paddle.disable_static()
    for k, (e, s) in enumerate(zip(eager, got)):
        np.testing.assert_allclose(s, e, rtol=1e-10, atol=1e-12, err_msg=f"static output {k}")
    conv = [t.numpy() for t in dy2st.jit.to_static(_model)(T(xv), T(wv))]
    for k, (e, c) in enumerate(zip(eager, conv)):
        np.testing.assert_allclose(c, e, rtol=1e-10, atol=1e-12, err_msg=f"to_static output {k}")


def test_histogramdd_static_matches_eager():
    xv = r(6, 2)
    eager = paddle.histogramdd(T(xv), bins=[2, 3], density=True)
    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            hist, edges = paddle.histogramdd(static.data("x", [6, 2], "float64"), bins=[2, 3], density=True)
        got = static.Executor().run(main, feed={"x": xv}, fetch_list=[hist] + edges)
    finally:
        paddle.disable_static()
    for g, e in zip(got, [eager[0]] + eager[1]):
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-12)
    np.testing.assert_allclose(eager[0].numpy(), np.histogramdd(xv, bins=[2, 3], density=True)[0], rtol=1e-12)


def _loss(x, w):
    return sum((o * o).sum() for o in _model(x, w) if o.dtype == paddle.float64)


def test_static_and_to_static_gradients_equal_eager():
    xv, wv = r(3, 4), r(4)
    x, w = T(xv, stop_gradient=False), T(wv, stop_gradient=False)
    _loss(x, w).backward()
    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            xs, ws = static.data("x", [3, 4], "float64"), static.data("w", [4], "float64")
            xs.stop_gradient = ws.stop_gradient = False
            gx, gw = static.gradients(_loss(xs, ws), [xs, ws])
        got = static.Executor().run(main, feed={"x": xv, "w": wv}, fetch_list=[gx, gw])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got[0], x.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got[1], w.grad.numpy(), rtol=1e-9, atol=1e-12)
    x2, w2 = T(xv, stop_gradient=False), T(wv, stop_gradient=False)
    dy2st.jit.to_static(_loss)(x2, w2).backward()
    np.testing.assert_allclose(x2.grad.numpy(), x.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(w2.grad.numpy(), w.grad.numpy(), rtol=1e-9, atol=1e-12)
