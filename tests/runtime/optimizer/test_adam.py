"""Adam against hand-computed updates (Paddle's bias correction through the beta-power accumulators)."""
import numpy as np
import pytest

from runtime.optimizer import Adam
from runtime.tensor import Tensor

from .util import V0, grads_for, param, train


def ref_adam(p, grads, lr, b1=0.9, b2=0.999, eps=1e-8, l2=0.0, amsgrad=False, decay=0.0, lr_ratio=1.0,
             pow_init=None):
    p = p.copy()
    m1, m2, vmax = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)
    b1p, b2p = pow_init or (b1, b2)
    lr = lr * lr_ratio
    for g in grads:
        g = g + l2 * p
        p = p * (1 - lr * decay)
        m1 = b1 * m1 + (1 - b1) * g
        m2 = b2 * m2 + (1 - b2) * g * g
        vmax = np.maximum(vmax, m2)
        v = vmax if amsgrad else m2
        lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
        p = p - lr_t * m1 / (np.sqrt(v) + eps * np.sqrt(1 - b2p))
        b1p, b2p = b1p * b1, b2p * b2
    return p


def test_three_steps():
    p = param()
    (out,) = train(Adam(0.1, parameters=[p]), [p])
    np.testing.assert_allclose(out, ref_adam(V0, grads_for(0), 0.1), rtol=1e-12)


def test_hyper_parameters():
    p = param()
    (out,) = train(Adam(0.05, beta1=0.8, beta2=0.9, epsilon=1e-3, parameters=[p]), [p])
    np.testing.assert_allclose(out, ref_adam(V0, grads_for(0), 0.05, 0.8, 0.9, 1e-3), rtol=1e-12)


def test_float32():
    p = param(dtype="float32")
    opt = Adam(0.1, parameters=[p])
    (out,) = train(opt, [p])
    assert out.dtype == np.float32
    assert all(v.numpy().dtype == np.float32 for v in opt.state_dict().values())
    np.testing.assert_allclose(out, ref_adam(V0, grads_for(0), 0.1), rtol=1e-5)


def test_weight_decay_is_coupled_l2():
    p = param()
    (out,) = train(Adam(0.1, parameters=[p], weight_decay=0.1), [p])
    np.testing.assert_allclose(out, ref_adam(V0, grads_for(0), 0.1, l2=0.1), rtol=1e-12)


def test_amsgrad():
    p = param()
    opt = Adam(0.1, parameters=[p], amsgrad=True)
    (out,) = train(opt, [p])
    np.testing.assert_allclose(out, ref_adam(V0, grads_for(0), 0.1, amsgrad=True), rtol=1e-12)
    assert any("_moment2_max_" in k for k in opt.state_dict())


def test_beta_tensors_start_powers_at_default_betas():
    p = param()
    opt = Adam(0.1, beta1=Tensor(np.array([0.7])), beta2=Tensor(np.array([0.95])), parameters=[p])
    (out,) = train(opt, [p])
    np.testing.assert_allclose(out, ref_adam(V0, grads_for(0), 0.1, 0.7, 0.95, pow_init=(0.9, 0.999)), rtol=1e-6)


def test_group_beta1_override():
    p, q = param(), param()
    opt = Adam(0.1, parameters=[{"params": [p]}, {"params": [q], "beta1": 0.5, "learning_rate": 0.3}])
    op, oq = train(opt, [p, q])
    np.testing.assert_allclose(op, ref_adam(V0, grads_for(0), 0.1), rtol=1e-12)
    np.testing.assert_allclose(oq, ref_adam(V0, grads_for(1), 0.03, b1=0.5), rtol=1e-12)


def test_state_dict_keys_follow_paddle():
    p = param(name="linear_9.w_0")
    opt = Adam(0.1, parameters=[p])
    assert opt.state_dict() == {}
    train(opt, [p], steps=1)
    keys = list(opt.state_dict())
    stem = [k.rsplit("_", 1)[0] for k in keys]
    assert stem == ["linear_9.w_0_moment1", "linear_9.w_0_moment2", "linear_9.w_0_beta1_pow_acc",
                    "linear_9.w_0_beta2_pow_acc"]
    sd = opt.state_dict()
    b1p = [k for k in keys if "beta1_pow" in k][0]
    assert sd[b1p].shape == [1]
    np.testing.assert_allclose(sd[b1p].numpy(), [0.81])


def test_bad_betas():
    with pytest.raises(ValueError, match=r"beta1 must be in \[0, 1\)"):
        Adam(0.1, beta1=1.0, parameters=[param()])
    with pytest.raises(ValueError, match="epsilon must be >= 0"):
        Adam(0.1, epsilon=-1.0, parameters=[param()])
