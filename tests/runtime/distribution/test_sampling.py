"""Samples of every distribution: shapes, dtypes, supports and moments (fixed seeds, statistical bounds)."""
import math

import numpy as np
import pytest

import dy2st as paddle

D = paddle.distribution
N = 20000


def T(a, dt="float64"):
    return paddle.to_tensor(np.asarray(a, dtype=dt))


def _moments(name, dist, mean, var, n=N, tol=5.0):
    """Sample mean within ``tol`` standard errors; sample variance within 10% (+ a small absolute slack)."""
    paddle.seed(123)
    x = dist.sample([n]).numpy().astype("float64")
    mean, var = np.broadcast_to(mean, x.shape[1:]), np.broadcast_to(var, x.shape[1:])
    se = np.sqrt(var / n)
    assert np.all(np.abs(x.mean(0) - mean) <= tol * se + 1e-9), (name, x.mean(0), mean)
    assert np.allclose(x.var(0), var, rtol=0.1, atol=1e-3), (name, x.var(0), var)
    return x


CASES = [
    ("normal", lambda: D.Normal(T([0.0, 2.0]), T([1.0, 0.5])), [0.0, 2.0], [1.0, 0.25]),
    ("uniform", lambda: D.Uniform(T([0.0, -1.0]), T([1.0, 3.0])), [0.5, 1.0], [1 / 12, 16 / 12]),
    ("exponential", lambda: D.Exponential(T([0.5, 2.0])), [2.0, 0.5], [4.0, 0.25]),
    ("gamma", lambda: D.Gamma(T([0.5, 3.0]), T([1.0, 2.0])), [0.5, 1.5], [0.5, 0.75]),
    ("chi2", lambda: D.Chi2(T([3.0])), [3.0], [6.0]),
    ("beta", lambda: D.Beta(T([2.0, 0.5]), T([3.0, 0.5])), [0.4, 0.5], [0.04, 0.125]),
    ("laplace", lambda: D.Laplace(T([1.0]), T([2.0])), [1.0], [8.0]),
    ("gumbel", lambda: D.Gumbel(T([1.0]), T([2.0])), [1.0 + 2.0 * np.euler_gamma], [math.pi ** 2 * 4 / 6]),
    ("lognormal", lambda: D.LogNormal(T([0.0]), T([0.5])), [math.exp(0.125)],
     [(math.exp(0.25) - 1) * math.exp(0.25)]),
    ("student_t", lambda: D.StudentT(T([6.0]), T([1.0]), T([2.0])), [1.0], [4.0 * 6 / 4]),
    ("bernoulli", lambda: D.Bernoulli(T([0.2, 0.7])), [0.2, 0.7], [0.16, 0.21]),
    ("geometric", lambda: D.Geometric(T([0.3])), [1 / 0.3 - 1], [(1 / 0.3 - 1) / 0.3]),
    ("poisson", lambda: D.Poisson(T([0.5, 4.0])), [0.5, 4.0], [0.5, 4.0]),
    ("binomial", lambda: D.Binomial(T([10.0, 4.0]), T([0.3, 0.9])), [3.0, 3.6], [2.1, 0.36]),
    ("cont_bernoulli", lambda: D.ContinuousBernoulli(T([0.2, 0.5, 0.9])), None, None),
    ("dirichlet", lambda: D.Dirichlet(T([1.0, 2.0, 3.0])), [1 / 6, 2 / 6, 3 / 6],
     [1 * 5 / 36 / 7, 2 * 4 / 36 / 7, 3 * 3 / 36 / 7]),
]


@pytest.mark.parametrize("name,make,mean,var", CASES, ids=[c[0] for c in CASES])
def test_sample_moments(name, make, mean, var):
    dist = make()
    if mean is None:   # moments from the distribution's own closed forms (checked against Paddle elsewhere)
        mean, var = dist.mean.numpy(), dist.variance.numpy()
    x = _moments(name, dist, mean, var)
    assert x.shape[1:] == tuple(dist.batch_shape) + tuple(dist.event_shape)


def test_supports_and_dtypes():
    paddle.seed(5)
    assert set(np.unique(D.Bernoulli(T([0.3])).sample([200]).numpy())) <= {0.0, 1.0}
    g = D.Geometric(T([0.4])).sample([500]).numpy()
    assert np.all(g >= 0) and np.all(g == np.floor(g))
    d = D.Dirichlet(T([[0.5, 1.0, 2.0]])).sample([50]).numpy()
    assert np.all(d > 0) and np.allclose(d.sum(-1), 1.0)
    u = D.Uniform(T([-1.0]), T([2.0])).sample([500]).numpy()
    assert np.all((u >= -1.0) & (u < 2.0))
    cb = D.ContinuousBernoulli(T([0.1, 0.9])).sample([300]).numpy()
    assert np.all((cb >= 0) & (cb <= 1))
    assert D.Normal(0.0, 1.0).sample([4]).dtype == paddle.float32
    assert D.Normal(T([0.0]), T([1.0])).sample([4]).dtype == paddle.float64
    assert D.Categorical(T([1.0, 2.0])).sample([4]).dtype == paddle.int64


def test_categorical_and_multinomial_frequencies():
    paddle.seed(7)
    w = np.array([[1.0, 2.0, 5.0], [3.0, 1.0, 1.0]])
    c = D.Categorical(T(np.log(w))).sample([N]).numpy()       # sample/entropy read logits (softmax)
    freq = np.stack([(c[:, i:i + 1] == np.arange(3)).mean(0) for i in range(2)])
    assert np.allclose(freq, w / w.sum(-1, keepdims=True), atol=0.015)
    m = D.Multinomial(10, T(w[0])).sample([4000]).numpy()
    assert np.all(m.sum(-1) == 10)
    assert np.allclose(m.mean(0), 10 * w[0] / w[0].sum(), atol=0.1)


def test_mvn_sample_covariance():
    paddle.seed(11)
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    loc = np.array([1.0, -1.0, 0.0])
    for kw in ({"covariance_matrix": T(cov)}, {"precision_matrix": T(np.linalg.inv(cov))},
               {"scale_tril": T(np.linalg.cholesky(cov))}):
        x = D.MultivariateNormal(T(loc), **kw).sample([N]).numpy()
        assert np.allclose(x.mean(0), loc, atol=0.05)
        assert np.allclose(np.cov(x.T), cov, atol=0.06)


@pytest.mark.parametrize("method", ["onion", "cvine"])
def test_lkj_samples_are_correlation_cholesky_factors(method):
    paddle.seed(3)
    L = D.LKJCholesky(4, 1.5, method).sample([500]).numpy()
    assert L.shape == (500, 4, 4)
    assert np.allclose(np.triu(L, 1), 0) and np.all(np.diagonal(L, axis1=-2, axis2=-1) > 0)
    C = L @ np.swapaxes(L, -1, -2)
    assert np.allclose(np.diagonal(C, axis1=-2, axis2=-1), 1.0, atol=1e-6)
    # LKJ(eta): each off-diagonal correlation is Beta(eta - 1 + d/2, same) on (-1, 1): variance 1 / (2 eta + d - 1)
    off = C[:, 1, 0]
    assert abs(off.mean()) < 0.1 and abs(off.var() - 1 / (2 * 1.5 + 3)) < 0.03


def test_complex_normal_samples():
    paddle.seed(17)
    z = D.Normal(1 + 2j, 2.0).sample([N]).numpy()
    assert z.dtype == np.complex64 and z.shape == (N,)
    assert abs(z.mean() - (1 + 2j)) < 0.1
    assert np.allclose([z.real.var(), z.imag.var()], 2.0, rtol=0.1)     # scale^2 / 2 in each component


def test_sample_seed_argument_fixes_the_draw():
    n = D.Normal(T([0.0, 1.0]), T([1.0, 2.0]))
    np.testing.assert_array_equal(n.sample([3], seed=7).numpy(), n.sample([3], seed=7).numpy())
    u = D.Uniform(T([0.0]), T([1.0]))
    np.testing.assert_array_equal(u.sample([4], seed=3).numpy(), u.sample([4], seed=3).numpy())
    assert not np.array_equal(n.sample([3]).numpy(), n.sample([3]).numpy())
