"""Adagrad against hand-computed updates."""
import numpy as np

from runtime.optimizer import Adagrad

from .util import V0, grads_for, param, train


def ref_adagrad(p, grads, lr, eps=1e-6, init=0.0):
    p, m = p.copy(), np.full_like(p, init)
    for g in grads:
        m = m + g * g
        p = p - lr * g / (np.sqrt(m) + eps)
    return p


def test_three_steps():
    p = param()
    (out,) = train(Adagrad(0.1, parameters=[p]), [p])
    np.testing.assert_allclose(out, ref_adagrad(V0, grads_for(0), 0.1), rtol=1e-12)


def test_initial_accumulator_and_weight_decay():
    p = param()
    (out,) = train(Adagrad(0.1, epsilon=1e-3, parameters=[p], initial_accumulator_value=0.5, weight_decay=0.1), [p])
    want = V0.copy()
    m = np.full_like(V0, 0.5)
    for g in grads_for(0):
        g = g + 0.1 * want
        m = m + g * g
        want = want - 0.1 * g / (np.sqrt(m) + 1e-3)
    np.testing.assert_allclose(out, want, rtol=1e-12)
