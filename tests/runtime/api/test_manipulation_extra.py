"""Issue 16's functions beyond the Paddle differential test: static programs give the eager results,
errors for bad input, and the random samplers' moments and seeding."""
import numpy as np
import pytest

import dy2st as paddle
import runtime
from runtime import static

rng = np.random.default_rng(5)


def _static_vs_eager(build, *arrays):
    """``build`` on eager tensors and inside a static Program run by our Executor: same values."""
    eager = build(*[paddle.to_tensor(a) for a in arrays])
    eager = eager if isinstance(eager, (list, tuple)) else [eager]
    runtime.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            data = [static.data(f"in{i}", list(a.shape), str(a.dtype)) for i, a in enumerate(arrays)]
            outs = build(*data)
            outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        got = static.Executor().run(main, feed={f"in{i}": a for i, a in enumerate(arrays)}, fetch_list=outs)
    finally:
        runtime.disable_static()
    assert len(got) == len(eager)
    for g, e in zip(got, eager):
        np.testing.assert_allclose(np.asarray(g), e.numpy(), rtol=1e-12, atol=0)


IDX = np.array([[0, 2, 1], [1, 0, 0]], np.int64)


@pytest.mark.parametrize("build", [
    lambda x, v: paddle.hstack([x, x]),
    lambda x, v: paddle.vstack([x, v[None, :4]]),
    lambda x, v: paddle.dstack([x, x]),
    lambda x, v: paddle.column_stack([v[:3], x]),
    lambda x, v: paddle.tensor_split(x, [1, 3], axis=1),
    lambda x, v: paddle.hsplit(x, 2),
    lambda x, v: paddle.block_diag([x, v]),
    lambda x, v: paddle.diagonal_scatter(x, v[:3], 0),
    lambda x, v: paddle.select_scatter(x, v[:4], 0, 1),
    lambda x, v: paddle.slice_scatter(x, x[:, :2] * 2.0, [1], [0], [4], [2]),
    lambda x, v: paddle.scatter_add(x, 0, paddle.to_tensor(IDX), x[:2, :3]),
    lambda x, v: paddle.unfold(x, 1, 2, 1),
    lambda x, v: paddle.as_strided(x, [2, 2], [4, 1], 8),
    lambda x, v: paddle.crop(x, [2, -1], [1, 1]),
    lambda x, v: paddle.reduce_as(x, v[:4].reshape([1, 4])),
    lambda x, v: paddle.multiplex([x, x * 2.0], paddle.to_tensor(np.array([[1], [0], [1]], np.int32))),
    lambda x, v: paddle.diagflat(v),
    lambda x, v: paddle.atleast_3d(v),
], ids=lambda f: "")
def test_static_program_matches_eager(build):
    _static_vs_eager(build, rng.standard_normal((3, 4)), rng.standard_normal(5))


def test_shard_index_static():
    _static_vs_eager(lambda i: paddle.shard_index(i, 10, 3, 1), np.array([[1], [4], [7], [9]], np.int64))


def test_errors():
    x = paddle.to_tensor(np.arange(12.0).reshape(3, 4))
    with pytest.raises(ValueError, match="offset is in bytes"):
        paddle.as_strided(x, [2], [1], 3)
    with pytest.raises(ValueError, match="past the end"):
        paddle.as_strided(x, [4, 4], [4, 1])
    with pytest.raises(ValueError, match="shard_id"):
        paddle.shard_index(paddle.to_tensor([[1]]), 10, 2, 2)
    with pytest.raises(ValueError, match=r"in \[0, 10\)"):
        paddle.shard_index(paddle.to_tensor([[11]]), 10, 2, 0)
    with pytest.raises(TypeError, match="int32 or int64"):
        paddle.shard_index(x, 10, 2, 0)
    with pytest.raises(ValueError, match="reduce must be one of"):
        paddle.scatter_reduce(x, 0, paddle.to_tensor(IDX), x[:2, :3], "max")
    with pytest.raises(ValueError, match="cannot be summed"):
        paddle.reduce_as(x, paddle.zeros([2, 4]))
    with pytest.raises(ValueError, match="does not fit"):
        paddle.crop(x, [3, 3], [1, 0])
    with pytest.raises(IndexError, match="index values"):
        paddle.multiplex([x, x], paddle.to_tensor(np.array([[0], [2], [1]], np.int32)))
    with pytest.raises(ValueError, match="step must be positive"):
        paddle.unfold(x, 0, 2, 0)
    with pytest.raises(ValueError, match="size"):
        paddle.unfold(x, 0, 4, 1)
    with pytest.raises(IndexError, match="out of range"):
        paddle.select_scatter(x, paddle.zeros([4], "float64"), 0, 3)
    with pytest.raises(ValueError, match="shape of the slice"):
        paddle.slice_scatter(x, paddle.zeros([2, 4], "float64"), [0], [0], [3], [1])


def test_unfold_overlapping_gradient_sums_windows():
    x = paddle.to_tensor(np.arange(7.0), stop_gradient=False)
    w = paddle.unfold(x, 0, 3, 2)
    (w * paddle.to_tensor(np.arange(9.0).reshape(3, 3))).sum().backward()
    # element 2 is in windows 0 and 1 (weights 2 and 3), element 4 in windows 1 and 2 (5 and 6)
    np.testing.assert_array_equal(x.grad.numpy(), [0, 1, 5, 4, 11, 7, 8])


def _moments(values, mean, var, tol):
    assert abs(values.mean() - mean) < tol * max(1, abs(mean)), (values.mean(), mean)
    assert abs(values.var() - var) < 3 * tol * max(1, var), (values.var(), var)


def _fill(method, *args, n=40000, dtype="float64"):
    t = paddle.zeros([n], dtype)
    getattr(t, method)(*args)
    return t.numpy()


@pytest.mark.parametrize("method, args, mean, var", [
    ("exponential_", (2.0,), 0.5, 0.25),
    ("bernoulli_", (0.3,), 0.3, 0.21),
    ("geometric_", (0.4,), -1 / np.log(0.6), 1 / np.log(0.6) ** 2),   # Paddle's continuous form: Exp(-log(1-p))
    ("log_normal_", (0.0, 0.5), np.exp(0.125), (np.exp(0.25) - 1) * np.exp(0.25)),
    ("random_", (0, 10), 4.5, 8.25),
])
def test_random_fill_moments_and_seeding(method, args, mean, var):
    paddle.seed(7)
    a = _fill(method, *args)
    _moments(a, mean, var, 0.03)
    paddle.seed(7)
    np.testing.assert_array_equal(a, _fill(method, *args))
    assert not np.array_equal(a, _fill(method, *args))


def test_cauchy_quantiles_and_seeding():
    paddle.seed(3)
    a = _fill("cauchy_", 1.0, 2.0)
    q1, med, q3 = np.quantile(a, [0.25, 0.5, 0.75])
    assert abs(med - 1.0) < 0.06 and abs(q1 - (-1.0)) < 0.08 and abs(q3 - 3.0) < 0.08
    paddle.seed(3)
    np.testing.assert_array_equal(a, _fill("cauchy_", 1.0, 2.0))


def test_samplers_moments():
    paddle.seed(11)
    _moments(paddle.poisson(paddle.full([40000], 4.0, "float64")).numpy(), 4, 4, 0.03)
    _moments(paddle.standard_gamma(paddle.full([40000], 3.0, "float64")).numpy(), 3, 3, 0.03)
    b = paddle.binomial(paddle.full([40000], 8, "int64"), paddle.full([40000], 0.25, "float64"))
    assert b.dtype == paddle.int64
    _moments(b.numpy(), 2, 1.5, 0.03)
    ln = paddle.log_normal(0.0, 0.5, [40000]).numpy()
    _moments(ln, np.exp(0.125), (np.exp(0.25) - 1) * np.exp(0.25), 0.03)
    x = paddle.zeros([40000], "int32")
    x.random_()
    assert x.numpy().min() >= 0 and x.numpy().max() > 2 ** 30   # up to int32's max


def test_random_fill_errors_and_autograd():
    leaf = paddle.zeros([3])
    leaf.stop_gradient = False
    with pytest.raises(ValueError, match="inplace"):
        leaf.exponential_()
    with pytest.raises(TypeError, match="floating-point"):
        paddle.zeros([3], "int64").cauchy_()
    with pytest.raises(ValueError, match="probs"):
        paddle.zeros([3]).geometric_(1.5)
    with pytest.raises(TypeError, match="bool"):
        paddle.zeros([3], "bool").random_(0, 2)
    with pytest.raises(TypeError, match="float32 or float64"):
        paddle.poisson(paddle.zeros([2], "int64"))
    # a filled non-leaf no longer carries the old graph: its gradient stops there
    x = paddle.ones([3])
    x.stop_gradient = False
    y = x * 3.0
    y.exponential_()
    (y * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.numpy())


def test_to_static_matches_eager():
    def f(x, i):
        parts = paddle.tensor_split(x, 2, axis=1)
        return [paddle.hstack([x, parts[1]]), paddle.select_scatter(x, x[0] * 2.0, 0, 1), paddle.unfold(x, 1, 2, 2),
                paddle.crop(x, [2, 2], [1, 0]), paddle.reduce_as(x, x[:1]), paddle.multiplex([x, x * 2.0], i),
                paddle.diagonal_scatter(x, x[1, :3], 1), paddle.scatter_add(x, 1, paddle.zeros([3, 1], "int64"), x)]
    x = paddle.to_tensor(rng.standard_normal((3, 4)), stop_gradient=False)
    i = paddle.to_tensor(np.array([[0], [1], [1]], np.int32))
    eager = f(x, i)
    compiled = paddle.jit.to_static(f)(x, i)
    for e, c in zip(eager, compiled):
        np.testing.assert_allclose(c.numpy(), e.numpy(), rtol=1e-12)
    # training through the converted program: the gradients match eager's
    sum(t.sum() for t in eager).backward()
    g_eager = x.grad.numpy().copy()
    x.clear_gradient()
    sum(t.sum() for t in paddle.jit.to_static(f)(x, i)).backward()
    np.testing.assert_allclose(x.grad.numpy(), g_eager, rtol=1e-12)


def _scatter_reduce_ref(x, dim, index, src, reduce, include_self):
    """A plain loop over index entries (numpy)."""
    out = x.copy()
    groups = {}
    for pos in np.ndindex(*index.shape):
        tgt = list(pos)
        tgt[dim] = index[pos]
        groups.setdefault(tuple(tgt), []).append(src[pos])
    for tgt, vals in groups.items():
        vals = vals + ([x[tgt]] if include_self else [])
        out[tgt] = {"mean": np.mean, "amax": np.max, "amin": np.min}[reduce](vals)
    return out


@pytest.mark.parametrize("reduce", ["mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_composites(reduce, include_self):
    x, src = rng.standard_normal((4, 5)), rng.standard_normal((3, 4))
    index = np.array([[0, 1, 1, 3], [2, 1, 0, 3], [0, 1, 2, 2]])
    got = paddle.scatter_reduce(paddle.to_tensor(x), 1, paddle.to_tensor(index), paddle.to_tensor(src), reduce,
                                include_self=include_self)
    np.testing.assert_allclose(got.numpy(), _scatter_reduce_ref(x, 1, index, src[:, :4], reduce, include_self))
    _static_vs_eager(lambda a, b: paddle.scatter_reduce(a, 0, paddle.to_tensor(index[:2]), b, reduce,
                                                        include_self=include_self), x, src)
