"""AdamW: decoupled weight decay, apply_decay_param_fun, lr_ratio, groups."""
import numpy as np
import pytest

from runtime.optimizer import AdamW
from runtime.regularizer import L2Decay

from .test_adam import ref_adam
from .util import V0, grads_for, param, train


def test_decoupled_decay():
    p = param()
    (out,) = train(AdamW(0.1, parameters=[p], weight_decay=0.1), [p])
    np.testing.assert_allclose(out, ref_adam(V0, grads_for(0), 0.1, decay=0.1), rtol=1e-12)


def test_default_weight_decay_is_0_01():
    p = param()
    (out,) = train(AdamW(0.1, parameters=[p]), [p])
    np.testing.assert_allclose(out, ref_adam(V0, grads_for(0), 0.1, decay=0.01), rtol=1e-12)


def test_apply_decay_param_fun_selects_by_name():
    p, q = param(name="adamw_decay_me"), param(name="adamw_bias")
    opt = AdamW(0.1, parameters=[p, q], weight_decay=0.1, apply_decay_param_fun=lambda n: n == "adamw_decay_me")
    op, oq = train(opt, [p, q])
    np.testing.assert_allclose(op, ref_adam(V0, grads_for(0), 0.1, decay=0.1), rtol=1e-12)
    np.testing.assert_allclose(oq, ref_adam(V0, grads_for(1), 0.1), rtol=1e-12)


def test_lr_ratio_scales_rate_and_decay():
    p = param()
    (out,) = train(AdamW(0.1, parameters=[p], weight_decay=0.1, lr_ratio=lambda prm: 0.5), [p])
    np.testing.assert_allclose(out, ref_adam(V0, grads_for(0), 0.1, decay=0.1, lr_ratio=0.5), rtol=1e-12)


def test_param_regularizer_still_adds_to_grad():
    p = param(regularizer=L2Decay(0.5))
    (out,) = train(AdamW(0.1, parameters=[p], weight_decay=0.0), [p])
    np.testing.assert_allclose(out, ref_adam(V0, grads_for(0), 0.1, l2=0.5), rtol=1e-12)


def test_group_weight_decay_is_the_coefficient():
    p, q = param(), param()
    opt = AdamW(0.1, parameters=[{"params": [p]}, {"params": [q], "weight_decay": 0.5, "beta1": 0.5}],
                weight_decay=0.01)
    op, oq = train(opt, [p, q])
    np.testing.assert_allclose(op, ref_adam(V0, grads_for(0), 0.1, decay=0.01), rtol=1e-12)
    np.testing.assert_allclose(oq, ref_adam(V0, grads_for(1), 0.1, b1=0.5, decay=0.5), rtol=1e-12)


def test_bad_weight_decay():
    with pytest.raises(TypeError, match="weight_decay must be a float"):
        AdamW(0.1, parameters=[param()], weight_decay=L2Decay(0.1))
