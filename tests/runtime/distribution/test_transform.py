"""Transforms: inverse(forward(x)) round trips, log-det-Jacobians against finite differences, chained
event ranks, TransformedDistribution log_prob by change of variables against a numpy density."""
import math

import numpy as np
import pytest

import dy2st as paddle

D = paddle.distribution


def T(a):
    return paddle.to_tensor(np.asarray(a, dtype="float64"))


X = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])
ELEMENTWISE = [
    ("exp", lambda: D.ExpTransform(), X),
    ("affine", lambda: D.AffineTransform(T([1.0, -2.0, 0.5]), T([2.0, -0.5, 3.0])), X),
    ("power", lambda: D.PowerTransform(T(2.5)), np.abs(X) + 0.2),
    ("sigmoid", lambda: D.SigmoidTransform(), X),
    ("tanh", lambda: D.TanhTransform(), X),
]


@pytest.mark.parametrize("name,make,x", ELEMENTWISE, ids=[c[0] for c in ELEMENTWISE])
def test_elementwise_round_trip_and_log_det(name, make, x):
    t = make()
    y = t.forward(T(x))
    np.testing.assert_allclose(t.inverse(y).numpy(), x, rtol=1e-10, atol=1e-12)
    eps = 1e-6
    slope = (t.forward(T(x + eps)).numpy() - t.forward(T(x - eps)).numpy()) / (2 * eps)
    ldj = np.broadcast_to(t.forward_log_det_jacobian(T(x)).numpy(), x.shape)
    np.testing.assert_allclose(ldj, np.log(np.abs(slope)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.broadcast_to(t.inverse_log_det_jacobian(y).numpy(), x.shape), -ldj, rtol=1e-10)


def test_stick_breaking_maps_to_the_simplex_and_back():
    t = D.StickBreakingTransform()
    y = t.forward(T(X)).numpy()
    assert y.shape == (2, 4) and np.all(y > 0) and np.allclose(y.sum(-1), 1.0)
    np.testing.assert_allclose(t.inverse(T(y)).numpy(), X, rtol=1e-6)
    # log-det of the map x -> y[:-1] (square), by finite differences
    eps = 1e-6
    for row in range(2):
        J = np.zeros((3, 3))
        for j in range(3):
            hi, lo = X[row].copy(), X[row].copy()
            hi[j] += eps
            lo[j] -= eps
            J[:, j] = (t.forward(T(hi)).numpy()[:-1] - t.forward(T(lo)).numpy()[:-1]) / (2 * eps)
        np.testing.assert_allclose(t.forward_log_det_jacobian(T(X[row])).numpy(), np.log(abs(np.linalg.det(J))),
                                   rtol=1e-5)


def test_chain_and_independent_event_ranks():
    chain = D.ChainTransform([D.AffineTransform(T(0.0), T(2.0)), D.StickBreakingTransform()])
    assert chain._domain.event_rank == 1 and chain._codomain.event_rank == 1
    assert chain.forward_shape([5, 3]) == (5, 4)
    ind = D.IndependentTransform(D.ExpTransform(), 1)
    np.testing.assert_allclose(ind.forward_log_det_jacobian(T(X)).numpy(), X.sum(-1))
    assert isinstance(D.ExpTransform()(D.TanhTransform()), D.ChainTransform)


def test_abs_transform_is_not_injective():
    t = D.AbsTransform()
    neg, pos = t.inverse(T([1.0, 2.0]))
    np.testing.assert_array_equal(neg.numpy(), [-1.0, -2.0])
    np.testing.assert_array_equal(pos.numpy(), [1.0, 2.0])
    with pytest.raises(NotImplementedError):
        t.forward_log_det_jacobian(T([1.0]))


def test_transformed_distribution_change_of_variables():
    loc, scale = np.array([0.2, -0.3]), np.array([0.5, 1.5])
    d = D.TransformedDistribution(D.Normal(T(loc), T(scale)), [D.AffineTransform(T(1.0), T(2.0)), D.ExpTransform()])
    y = np.array([1.7, 4.0])
    x = (np.log(y) - 1.0) / 2.0
    ref = -((x - loc) ** 2) / (2 * scale ** 2) - np.log(scale) - 0.5 * math.log(2 * math.pi) - np.log(2.0 * y)
    np.testing.assert_allclose(d.log_prob(T(y)).numpy(), ref, rtol=1e-12)
    assert d.batch_shape == (2,) and d.event_shape == ()
    r = D.TransformedDistribution(D.Normal(T(np.zeros((2, 3))), T(np.ones((2, 3)))), [D.ReshapeTransform((3,), (3, 1))])
    assert r.batch_shape == (2,) and r.event_shape == (3, 1)
