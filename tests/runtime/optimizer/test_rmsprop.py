"""RMSProp against hand-computed updates."""
import numpy as np
import pytest

from runtime.optimizer import RMSProp

from .util import V0, grads_for, param, train


def ref_rmsprop(p, grads, lr, rho=0.95, eps=1e-6, momentum=0.0, centered=False):
    p = p.copy()
    ms, mg, mom = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)
    for g in grads:
        ms = rho * ms + (1 - rho) * g * g
        if centered:
            mg = rho * mg + (1 - rho) * g
            denom = np.sqrt(ms - mg * mg + eps)
        else:
            denom = np.sqrt(ms + eps)
        mom = momentum * mom + lr * g / denom
        p = p - mom
    return p


def test_defaults():
    p = param(name="rms_w")
    opt = RMSProp(0.01, parameters=[p])
    (out,) = train(opt, [p])
    np.testing.assert_allclose(out, ref_rmsprop(V0, grads_for(0), 0.01), rtol=1e-12)
    assert [k.rsplit("_", 1)[0] for k in opt.state_dict()] == ["rms_w_momentum", "rms_w_mean_square",
                                                               "rms_w_mean_grad"]


def test_centered_with_momentum():
    p = param()
    (out,) = train(RMSProp(0.01, rho=0.9, epsilon=1e-4, momentum=0.5, centered=True, parameters=[p]), [p])
    np.testing.assert_allclose(out, ref_rmsprop(V0, grads_for(0), 0.01, 0.9, 1e-4, 0.5, True), rtol=1e-12)


def test_errors():
    with pytest.raises(ValueError, match="rho must be >= 0"):
        RMSProp(0.01, rho=-0.1, parameters=[param()])
    with pytest.raises(ValueError, match="learning_rate is not set"):
        RMSProp(None, parameters=[param()])
