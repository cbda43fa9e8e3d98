"""Distributions in static programs and under to_static; ExponentialFamily's Bregman entropy / KL;
register_kl dispatch; the package's public names."""
import math
import warnings

import numpy as np
import pytest

import dy2st as paddle

D = paddle.distribution


def T(a, grad=False, dt="float64"):
    return paddle.to_tensor(np.asarray(a, dtype=dt), stop_gradient=not grad)


def test_public_names_match_paddle_3_3_1():
    expected = {'Bernoulli', 'Beta', 'Categorical', 'Cauchy', 'Chi2', 'ContinuousBernoulli', 'Dirichlet',
                'Distribution', 'Exponential', 'ExponentialFamily', 'Multinomial', 'MultivariateNormal', 'Normal',
                'Uniform', 'kl_divergence', 'register_kl', 'Independent', 'TransformedDistribution', 'Laplace',
                'LogNormal', 'LKJCholesky', 'Gamma', 'Gumbel', 'Geometric', 'Binomial', 'Poisson', 'StudentT',
                'Transform', 'AbsTransform', 'AffineTransform', 'ChainTransform', 'ExpTransform',
                'IndependentTransform', 'PowerTransform', 'ReshapeTransform', 'SigmoidTransform', 'SoftmaxTransform',
                'StackTransform', 'StickBreakingTransform', 'TanhTransform'}
    assert set(D.__all__) == expected and all(hasattr(D, n) for n in expected)
    import dy2st.distribution as mod
    from dy2st.distribution import transform
    assert mod is D and transform.ExpTransform is D.ExpTransform


FEED = {"loc": np.array([0.0, 1.0, -0.5], "float32"), "scale": np.array([1.0, 2.0, 0.5], "float32"),
        "x": np.array([0.3, 1.5, 0.2], "float32")}


def _eager(loc, scale, x):
    n = D.Normal(loc, scale)
    return [n.log_prob(x), n.entropy(), D.kl_divergence(n, D.Normal(loc * 0.5, scale + 1.0)),
            D.Gamma(scale, scale + 1.0).log_prob(x.abs() + 0.1), D.Beta(scale, scale + 0.5).entropy(),
            D.TransformedDistribution(n, [D.ExpTransform()]).log_prob(x.abs() + 0.1),
            D.Dirichlet(scale).log_prob(paddle.nn.functional.softmax(x)), D.Laplace(loc, scale).cdf(x),
            D.Independent(D.Cauchy(loc, scale), 1).log_prob(x), D.StudentT(scale + 2.0, loc, scale).log_prob(x),
            D.MultivariateNormal(loc, scale_tril=paddle.diag(scale)).log_prob(x)]


def test_static_program_matches_eager():
    expected = [t.numpy() for t in _eager(*[paddle.to_tensor(FEED[k]) for k in ("loc", "scale", "x")])]
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            ins = [paddle.static.data(k, [3], "float32") for k in ("loc", "scale", "x")]
            outs = _eager(*ins) + [D.Normal(ins[0], ins[1]).sample([2])]
        res = paddle.static.Executor().run(main, feed=FEED, fetch_list=outs)
    finally:
        paddle.disable_static()
    for got, want in zip(res, expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert np.asarray(res[-1]).shape == (2, 3)


def test_to_static_trains_through_log_prob_and_rsample():
    @paddle.jit.to_static
    def loss_fn(loc, scale, x):
        n = D.Normal(loc, scale)
        return -n.log_prob(x).sum() + D.kl_divergence(n, D.Normal(loc * 0.0, scale * 0.0 + 1.0)).sum(), \
            n.rsample([4])

    loc, scale = T(FEED["loc"], True, "float32"), T(FEED["scale"], True, "float32")
    loss, s = loss_fn(loc, scale, T(FEED["x"], dt="float32"))
    loss.backward()
    l, sc, x = FEED["loc"], FEED["scale"], FEED["x"]
    # d/dloc: -(x - loc)/s^2 + loc ; d/dscale: 1/s - (x - loc)^2/s^3 + s - 1/s
    np.testing.assert_allclose(loc.grad.numpy(), -(x - l) / sc ** 2 + l, rtol=1e-5)
    np.testing.assert_allclose(scale.grad.numpy(), 1 / sc - (x - l) ** 2 / sc ** 3 + sc - 1 / sc, rtol=1e-5)
    assert s.shape == [4, 3]


def test_to_static_with_unknown_batch_dimension():
    from dy2st.static import InputSpec

    class Policy(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 3)

        def forward(self, x):
            mu = self.fc(x)
            d = D.Normal(mu, paddle.exp(mu * 0.0))
            a = d.sample([])
            probs = paddle.nn.functional.softmax(mu)
            return (d.log_prob(a) + d.entropy(), d.rsample([2]), D.Categorical(probs).sample([2]),
                    D.Uniform(mu, mu + 1.0).sample([2]), D.Laplace(mu, mu * 0.0 + 1.0).rsample([2]),
                    D.Bernoulli(probs).sample([2]), D.MultivariateNormal(mu, scale_tril=paddle.eye(3)).sample([2]))

    net = paddle.jit.to_static(Policy(), input_spec=[InputSpec([None, 4], "float32")])
    outs = net(paddle.randn([5, 4]))
    assert [o.shape for o in outs] == [[5, 3], [2, 5, 3], [2, 5], [2, 5, 3], [2, 5, 3], [2, 5, 3], [2, 5, 3]]


class _Expo(D.ExponentialFamily):
    """Exponential written only through the exponential-family hooks (no closed-form entropy)."""

    def __init__(self, rate):
        self.rate = rate
        super().__init__(rate.shape)

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -paddle.log(-x)

    @property
    def _mean_carrier_measure(self):
        return 0.0


def test_exponential_family_bregman_entropy_and_kl():
    h = _Expo(T([0.5, 2.0])).entropy()     # (like Paddle's, it detaches the natural parameters)
    np.testing.assert_allclose(h.numpy(), 1 - np.log([0.5, 2.0]), rtol=1e-12)
    p, q = np.array([0.5, 2.0]), np.array([1.5, 0.3])
    kl = D.kl_divergence(_Expo(T(p)), _Expo(T(q)))
    np.testing.assert_allclose(kl.numpy(), np.log(p / q) + q / p - 1, rtol=1e-12)


def test_exponential_family_entropy_in_static_mode():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            r = paddle.static.data("r", [2], "float64")
            h = _Expo(r).entropy()
        (got,) = paddle.static.Executor().run(main, feed={"r": np.array([0.5, 2.0])}, fetch_list=[h])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, 1 - np.log([0.5, 2.0]), rtol=1e-12)


def test_register_kl_dispatch_and_ambiguity():
    class A(D.Normal):
        pass

    class B(D.Normal):
        pass

    @D.register_kl(A, D.Normal)
    def _a_normal(p, q):
        return paddle.to_tensor(1.0)

    @D.register_kl(D.Normal, B)
    def _normal_b(p, q):
        return paddle.to_tensor(2.0)

    assert float(D.kl_divergence(A(0.0, 1.0), D.Normal(0.0, 1.0))) == 1.0
    assert float(D.kl_divergence(D.Normal(0.0, 1.0), B(0.0, 1.0))) == 2.0
    with pytest.warns(RuntimeWarning, match="Ambiguous"):
        D.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))
    with pytest.raises(NotImplementedError, match="register_kl"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Gumbel(0.0, 1.0))


def test_closed_forms_against_numpy():
    x = np.array([0.3, 1.5, 2.0])
    n = D.Normal(T([0.0, 1.0, 2.0]), T([1.0, 0.5, 2.0]))
    ref = -((x - [0, 1, 2]) ** 2) / (2 * np.array([1, 0.25, 4])) - np.log([1, 0.5, 2]) - 0.5 * math.log(2 * math.pi)
    np.testing.assert_allclose(n.log_prob(T(x)).numpy(), ref, rtol=1e-12)
    lk = [math.lgamma(k + 1) for k in (0, 1, 4)]
    p = D.Poisson(T([2.0, 2.0, 2.0]))
    np.testing.assert_allclose(p.log_prob(T([0.0, 1.0, 4.0])).numpy(), -2 + np.array([0, 1, 4]) * np.log(2) - lk,
                               rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="dtype of input 'value'"):
            n.log_prob(T(x, dt="float32"))


def test_poisson_and_binomial_support_sums_in_static_mode():
    rate, rate2 = np.array([2.0, 7.5]), np.array([3.0, 1.0])
    n, p = np.array([5.0, 12.0]), np.array([0.3, 0.6])
    eager = [D.Poisson(T(rate)).entropy(), D.kl_divergence(D.Poisson(T(rate)), D.Poisson(T(rate2))),
             D.Binomial(T(n), T(p)).entropy(), D.kl_divergence(D.Binomial(T(n), T(p)), D.Binomial(T(n), T(p[::-1])))]
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            r, r2, c, q = [paddle.static.data(k, [2], "float64") for k in ("r", "r2", "c", "q")]
            outs = [D.Poisson(r).entropy(), D.kl_divergence(D.Poisson(r), D.Poisson(r2)), D.Binomial(c, q).entropy(),
                    D.kl_divergence(D.Binomial(c, q), D.Binomial(c, paddle.flip(q, [0])))]
        res = paddle.static.Executor().run(main, feed={"r": rate, "r2": rate2, "c": n, "q": p}, fetch_list=outs)
    finally:
        paddle.disable_static()
    for got, want in zip(res, eager):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-12)
