"""Gradients: rsample is reparameterised (d sample / d parameter vs finite differences with the same noise),
and log_prob / entropy / kl gradients against float64 finite differences where Paddle gives no oracle."""
import numpy as np
import pytest

import dy2st as paddle

D = paddle.distribution


def T(a, grad=False):
    return paddle.to_tensor(np.asarray(a, dtype="float64"), stop_gradient=not grad)


def _fd_check(fn, params, seed=None, eps=1e-6, rtol=1e-5, atol=1e-7):
    """Autograd of sum(fn(*params)) against central differences (re-seeding before each call if ``seed``)."""
    def value(arrs):
        if seed is not None:
            paddle.seed(seed)
        return float(fn(*[T(a) for a in arrs]).sum())

    ts = [T(p, grad=True) for p in params]
    if seed is not None:
        paddle.seed(seed)
    grads = paddle.grad(fn(*ts).sum(), ts)
    for i, p in enumerate(params):
        p = np.asarray(p, dtype="float64")
        num = np.zeros_like(p)
        for idx in np.ndindex(p.shape):
            hi, lo = [q.copy() for q in params], [q.copy() for q in params]
            hi[i] = p.copy(); hi[i][idx] += eps
            lo[i] = p.copy(); lo[i][idx] -= eps
            num[idx] = (value(hi) - value(lo)) / (2 * eps)
        assert np.allclose(grads[i].numpy(), num, rtol=rtol, atol=atol), (i, grads[i].numpy(), num)


RSAMPLE = [
    ("normal", lambda l, s: D.Normal(l, s).rsample([5]), [[0.3, -1.0], [1.2, 0.7]]),
    ("exponential", lambda r: D.Exponential(r).rsample([5]), [[0.5, 2.0]]),
    ("laplace", lambda l, s: D.Laplace(l, s).rsample([5]), [[0.3, -1.0], [1.2, 0.7]]),
    ("cauchy", lambda l, s: D.Cauchy(l, s).rsample([5]), [[0.3, -1.0], [1.2, 0.7]]),
    ("gumbel", lambda l, s: D.Gumbel(l, s).rsample([5]), [[0.3, -1.0], [1.2, 0.7]]),
    ("lognormal", lambda l, s: D.LogNormal(l, s).rsample([5]), [[0.3, -1.0], [0.4, 0.7]]),
    ("gamma_rate", lambda r: D.Gamma(T([2.0, 0.7]), r).rsample([5]), [[0.5, 2.0]]),
    ("cont_bernoulli", lambda p: D.ContinuousBernoulli(p).rsample([5]), [[0.2, 0.8]]),
    ("bernoulli_relaxed", lambda p: D.Bernoulli(p).rsample([5], temperature=0.5), [[0.2, 0.8]]),
    ("mvn", lambda l, c: D.MultivariateNormal(l, covariance_matrix=c).rsample([4]),
     [[0.5, -0.5], [[2.0, 0.3], [0.3, 1.0]]]),
    ("transformed", lambda l, s: D.TransformedDistribution(D.Normal(l, s), [D.TanhTransform()]).rsample([3]),
     [[0.3, -1.0], [1.2, 0.7]]),
]


@pytest.mark.parametrize("name,fn,params", RSAMPLE, ids=[c[0] for c in RSAMPLE])
def test_rsample_is_reparameterised(name, fn, params):
    _fd_check(fn, [np.asarray(p, dtype="float64") for p in params], seed=42, rtol=1e-4, atol=1e-6)


def test_sample_is_not_differentiable():
    loc = T([0.0, 1.0], grad=True)
    assert D.Normal(loc, T([1.0, 1.0])).sample([3]).stop_gradient
    assert not D.Normal(loc, T([1.0, 1.0])).rsample([3]).stop_gradient


A = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.8]])
V = np.array([[0.5, -0.5, 1.0], [0.1, 0.2, -0.3]])


def test_mvn_precision_gradient():
    # (Paddle 3.3.1's triangular_solve backward is broken, so this is the oracle for the precision path)
    def f(loc, prec):
        prec = (prec + prec.transpose([1, 0])) / 2
        d = D.MultivariateNormal(loc, precision_matrix=prec)
        return d.log_prob(T(V)).sum() + d.entropy()
    _fd_check(f, [np.array([0.1, 0.2, 0.3]), np.linalg.inv(A)])


def test_kl_and_entropy_gradients():
    _fd_check(lambda a, b, c, d: D.kl_divergence(D.Beta(a, b), D.Beta(c, d)),
              [np.array([1.5, 0.7]), np.array([2.0, 3.0]), np.array([0.9, 1.1]), np.array([2.5, 0.6])])
    _fd_check(lambda r, s: D.kl_divergence(D.Poisson(r), D.Poisson(s)), [np.array([2.0, 5.0]), np.array([3.0, 1.5])])
    corr = A / np.sqrt(np.outer(np.diag(A), np.diag(A)))
    _fd_check(lambda c: D.LKJCholesky(3, c).log_prob(T(np.linalg.cholesky(corr))), [np.array(1.7)])
    _fd_check(lambda c: D.Multinomial(5, c).entropy(), [np.array([0.2, 0.5, 0.3])])
