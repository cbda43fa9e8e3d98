"""``Optimizer.step()`` runs its updates with gradient recording off and restores the mode after, also
when the update raises (it sets the flag itself instead of the no_grad decorator); SGD's direct
update (runtime/optimizer/multi_tensor.py) takes each parameter's own learning rate."""
import numpy as np
import pytest

import dy2st as paddle
from runtime.framework import state
from runtime.optimizer import multi_tensor

O = paddle.optimizer


def _param(value, lr_mult=1.0):
    attr = paddle.ParamAttr(learning_rate=lr_mult)
    p = paddle.create_parameter(list(np.shape(value)), "float32", attr=attr)
    p.set_value(np.asarray(value, np.float32))
    return p


def test_step_records_nothing_and_restores_the_mode():
    p = _param([1.0, 2.0])
    opt = O.SGD(0.5, parameters=[p])
    seen = []

    class Probe(paddle.nn.ClipGradByValue):
        def __call__(self, params_grads):
            seen.append(state.grad_enabled)
            return super().__call__(params_grads)
    opt._grad_clip = Probe(10.0)
    p.grad = paddle.to_tensor(np.array([1.0, 1.0], np.float32))
    opt.step()
    assert seen == [False] and state.grad_enabled
    with paddle.no_grad():
        opt.step()
        assert not state.grad_enabled
    assert state.grad_enabled


def test_mode_restored_when_the_update_raises():
    p = _param([1.0, 2.0])

    class Boom(paddle.nn.ClipGradByValue):
        def __call__(self, params_grads):
            raise RuntimeError("clip failed")
    opt = O.SGD(0.5, parameters=[p], grad_clip=Boom(1.0))
    p.grad = paddle.to_tensor(np.array([1.0, 1.0], np.float32))
    with pytest.raises(RuntimeError, match="clip failed"):
        opt.step()
    assert state.grad_enabled


@pytest.mark.parametrize("fused", [True, False])
def test_sgd_learning_rates_per_parameter_and_scheduled(fused):
    prev = multi_tensor.enabled
    multi_tensor.enabled = fused
    try:
        a, b = _param([1.0, -2.0, 3.0]), _param([[0.5, 0.25]], lr_mult=0.1)
        sched = O.lr.StepDecay(0.3, step_size=1, gamma=0.5)
        opt = O.SGD(sched, parameters=[a, b])
        ga, gb = np.array([0.2, 0.4, -0.6], np.float32), np.array([[1.0, -3.0]], np.float32)
        expect_a, expect_b = a.numpy().copy(), b.numpy().copy()
        for k in range(3):
            lr = np.float32(0.3 * 0.5 ** k)
            a.grad, b.grad = paddle.to_tensor(ga), paddle.to_tensor(gb)
            opt.step()
            opt.clear_grad()
            sched.step()
            expect_a = expect_a - lr * ga
            expect_b = expect_b - np.float32(0.3 * 0.5 ** k * 0.1) * gb
            np.testing.assert_array_equal(a.numpy(), expect_a)
            np.testing.assert_array_equal(b.numpy(), expect_b)
    finally:
        multi_tensor.enabled = prev
