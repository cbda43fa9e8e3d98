"""Momentum against hand-computed updates."""
import numpy as np

from runtime.optimizer import Momentum
from runtime.regularizer import L1Decay

from .util import V0, grads_for, param, train


def ref_momentum(p, grads, lr, mu, nesterov=False, l2=0.0, l1=0.0):
    p, v = p.copy(), np.zeros_like(p)
    for g in grads:
        g = g + l2 * p + l1 * np.sign(p)
        v = mu * v + g
        p = p - lr * (g + mu * v) if nesterov else p - lr * v
    return p


def test_heavy_ball():
    p = param()
    (out,) = train(Momentum(0.1, momentum=0.8, parameters=[p]), [p])
    np.testing.assert_allclose(out, ref_momentum(V0, grads_for(0), 0.1, 0.8), rtol=1e-12)


def test_nesterov_with_l2():
    p = param()
    (out,) = train(Momentum(0.1, momentum=0.8, parameters=[p], use_nesterov=True, weight_decay=0.1), [p])
    np.testing.assert_allclose(out, ref_momentum(V0, grads_for(0), 0.1, 0.8, True, l2=0.1), rtol=1e-12)


def test_param_l1_regularizer_replaces_l2_weight_decay():
    p = param(regularizer=L1Decay(0.2))
    (out,) = train(Momentum(0.1, momentum=0.5, parameters=[p], weight_decay=0.3), [p])
    np.testing.assert_allclose(out, ref_momentum(V0, grads_for(0), 0.1, 0.5, l1=0.2), rtol=1e-12)


def test_group_overrides_momentum_and_weight_decay():
    p, q = param(), param()
    opt = Momentum(0.1, momentum=0.9, weight_decay=0.1,
                   parameters=[{"params": [p], "momentum": 0.5, "weight_decay": 0.2}, {"params": [q]}])
    op, oq = train(opt, [p, q])
    np.testing.assert_allclose(op, ref_momentum(V0, grads_for(0), 0.1, 0.5, l2=0.2), rtol=1e-12)
    np.testing.assert_allclose(oq, ref_momentum(V0, grads_for(1), 0.1, 0.9, l2=0.1), rtol=1e-12)


def test_velocity_state_key():
    p = param(name="fc_m.w_0")
    opt = Momentum(0.1, parameters=[p])
    train(opt, [p], steps=1)
    (key,) = opt.state_dict()
    assert key.startswith("fc_m.w_0_velocity_")
    np.testing.assert_allclose(opt.state_dict()[key].numpy(), grads_for(0, 1)[0])
