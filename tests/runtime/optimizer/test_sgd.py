"""SGD against hand-computed updates: plain, weight decay, regularizer precedence, lr multipliers."""
import numpy as np
import pytest

import runtime as paddle
from runtime.optimizer import SGD
from runtime.regularizer import L1Decay, L2Decay

from .util import V0, grads_for, param, set_grad, train


def ref_sgd(p, grads, lr, l2=0.0, l1=0.0):
    p = p.copy()
    for g in grads:
        p = p - lr * (g + l2 * p + l1 * np.sign(p))
    return p


def test_plain_three_steps():
    p = param()
    (out,) = train(SGD(0.1, parameters=[p]), [p])
    np.testing.assert_allclose(out, ref_sgd(V0, grads_for(0), 0.1), rtol=1e-12)


def test_default_learning_rate_is_0_001():
    p = param()
    (out,) = train(SGD(parameters=[p]), [p], steps=1)
    np.testing.assert_allclose(out, V0 - 0.001 * grads_for(0, 1)[0], rtol=1e-12)


def test_float_weight_decay_is_l2():
    p = param()
    (out,) = train(SGD(0.1, parameters=[p], weight_decay=0.05), [p])
    np.testing.assert_allclose(out, ref_sgd(V0, grads_for(0), 0.1, l2=0.05), rtol=1e-12)


def test_l1_decay():
    p = param()
    (out,) = train(SGD(0.1, parameters=[p], weight_decay=L1Decay(0.05)), [p])
    np.testing.assert_allclose(out, ref_sgd(V0, grads_for(0), 0.1, l1=0.05), rtol=1e-12)


def test_param_regularizer_overrides_weight_decay():
    p = param()
    p.regularizer = L1Decay(0.2)
    q = param()
    (op, oq) = train(SGD(0.1, parameters=[p, q], weight_decay=0.05), [p, q])
    np.testing.assert_allclose(op, ref_sgd(V0, grads_for(0), 0.1, l1=0.2), rtol=1e-12)
    np.testing.assert_allclose(oq, ref_sgd(V0, grads_for(1), 0.1, l2=0.05), rtol=1e-12)


def test_optimize_attr_learning_rate_multiplier():
    p = param()
    p.optimize_attr["learning_rate"] = 0.5
    (out,) = train(SGD(0.1, parameters=[p]), [p])
    np.testing.assert_allclose(out, ref_sgd(V0, grads_for(0), 0.05), rtol=1e-12)


def test_float32_param_keeps_dtype():
    p = param(dtype="float32")
    (out,) = train(SGD(0.1, parameters=[p]), [p])
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref_sgd(V0, grads_for(0), 0.1), rtol=1e-5)


def test_skips_frozen_params_and_params_without_grad():
    frozen, nograd, live = param(), param(), param()
    frozen.stop_gradient = True
    set_grad(frozen, np.ones_like(V0))
    set_grad(live, np.ones_like(V0))
    SGD(0.1, parameters=[frozen, nograd, live]).step()
    np.testing.assert_array_equal(frozen.numpy(), V0)
    np.testing.assert_array_equal(nograd.numpy(), V0)
    np.testing.assert_allclose(live.numpy(), V0 - 0.1)


def test_param_groups_lr_multiplier_and_weight_decay():
    p, q = param(), param()
    opt = SGD(0.1, parameters=[{"params": [p]}, {"params": [q], "learning_rate": 0.5, "weight_decay": 0.2}],
              weight_decay=L1Decay(0.1))
    op, oq = train(opt, [p, q])
    np.testing.assert_allclose(op, ref_sgd(V0, grads_for(0), 0.1, l1=0.1), rtol=1e-12)
    np.testing.assert_allclose(oq, ref_sgd(V0, grads_for(1), 0.05, l2=0.2), rtol=1e-12)
    assert q.optimize_attr["learning_rate"] == 0.5


def test_param_group_resets_optimize_attr_like_paddle():
    p = param()
    p.optimize_attr["learning_rate"] = 0.5
    SGD(0.1, parameters=[{"params": [p]}])
    assert p.optimize_attr["learning_rate"] == 1.0


def test_duplicate_param_in_groups_raises():
    p = param()
    with pytest.raises(ValueError, match="more than one parameter group"):
        SGD(0.1, parameters=[{"params": [p]}, {"params": [p]}])


def test_lr_scheduler_drives_the_rate():
    p = param()
    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
    opt = SGD(sched, parameters=[p])
    (out,) = train(opt, [p], after_step=lambda s: sched.step())
    want = V0.copy()
    for s, g in enumerate(grads_for(0)):
        want = want - 0.1 * 0.5 ** s * g
    np.testing.assert_allclose(out, want, rtol=1e-12)
    assert opt.get_lr() == pytest.approx(0.1 * 0.5 ** 3)


def test_minimize_applies_existing_grads_without_running_backward():
    p = param()
    opt = SGD(0.1, parameters=[p])
    assert opt.minimize(None) == ([], [])          # no grads yet: nothing happens (as in Paddle)
    np.testing.assert_array_equal(p.numpy(), V0)
    set_grad(p, np.ones_like(V0))
    ops, pg = opt.minimize(None)
    assert ops == [] and len(pg) == 1 and pg[0][0] is p
    np.testing.assert_allclose(p.numpy(), V0 - 0.1)


def test_minimize_no_grad_set_skips_by_name():
    p, q = param(), param()
    set_grad(p, np.ones_like(V0))
    set_grad(q, np.ones_like(V0))
    SGD(0.1, parameters=[p, q]).minimize(None, no_grad_set={q.name})
    np.testing.assert_allclose(p.numpy(), V0 - 0.1)
    np.testing.assert_array_equal(q.numpy(), V0)


def test_clear_grad_zero_or_none():
    p = param()
    opt = SGD(0.1, parameters=[p])
    set_grad(p, np.ones_like(V0))
    opt.clear_grad()
    np.testing.assert_array_equal(p.grad.numpy(), np.zeros_like(V0))
    opt.clear_grad(set_to_zero=False)
    assert p.grad is None


def test_get_set_lr():
    opt = SGD(0.1, parameters=[param()])
    assert opt.get_lr() == 0.1
    opt.set_lr(0.3)
    assert opt.get_lr() == 0.3
    with pytest.raises(TypeError, match="value must be a float"):
        opt.set_lr("x")
    opt.set_lr_scheduler(paddle.optimizer.lr.ExponentialDecay(0.2, 0.5))
    assert opt.get_lr() == 0.2
    with pytest.raises(RuntimeError, match="LRScheduler"):
        opt.set_lr(0.1)


def test_constructor_errors():
    p = param()
    with pytest.raises(AttributeError, match="must not be None"):
        SGD(0.1)
    with pytest.raises(TypeError, match="iterable of Tensors"):
        SGD(0.1, parameters=p)
    with pytest.raises(TypeError, match="learning_rate must be a float or an LRScheduler"):
        SGD("0.1", parameters=[p])
    with pytest.raises(TypeError, match="grad_clip must be"):
        SGD(0.1, parameters=[p], grad_clip=1.0)
    with pytest.raises(TypeError, match="weight_decay must be a float"):
        SGD(0.1, parameters=[p], weight_decay="big")


def test_l2decay_object_equals_float():
    p, q = param(), param()
    a = train(SGD(0.1, parameters=[p], weight_decay=L2Decay(0.05)), [p])[0]
    b = train(SGD(0.1, parameters=[q], weight_decay=0.05), [q])[0]
    np.testing.assert_array_equal(a, b)
