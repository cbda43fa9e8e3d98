"""paddle.amp.GradScaler: scaling, unscaling, skipped steps on inf/nan, the dynamic scale trajectory, state."""
import numpy as np
import pytest

import dy2st as paddle

# inf * 0 in the injected bad steps: numpy's warnings, not the scaler's
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def setup(value=1.0):
    with paddle.amp.auto_cast():          # GradScaler stays enabled only after a float16 auto_cast, as in Paddle
        pass
    w = paddle.create_parameter([2], "float32", default_initializer=paddle.nn.initializer.Constant(value))
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=[w])
    return w, opt


def one_step(scaler, w, opt, bad=False, use_minimize=False):
    loss = (w * w).sum()
    if bad:
        loss = loss * float("inf")
    scaled = scaler.scale(loss)
    scaled.backward()
    if use_minimize:
        scaler.minimize(opt, scaled)
    else:
        scaler.step(opt)
        scaler.update()
    opt.clear_grad()


def test_defaults_and_getters_setters():
    s = paddle.amp.GradScaler()
    assert s.is_enable() and s.is_use_dynamic_loss_scaling()
    assert (s.get_init_loss_scaling(), s.get_incr_ratio(), s.get_decr_ratio(), s.get_incr_every_n_steps(),
            s.get_decr_every_n_nan_or_inf()) == (65536.0, 2.0, 0.5, 2000, 1)
    s.set_init_loss_scaling(1024)
    s.set_incr_ratio(3.0)
    s.set_decr_ratio(0.25)
    s.set_incr_every_n_steps(5)
    s.set_decr_every_n_nan_or_inf(2)
    assert (s.get_init_loss_scaling(), s.get_incr_ratio(), s.get_decr_ratio(), s.get_incr_every_n_steps(),
            s.get_decr_every_n_nan_or_inf()) == (1024, 3.0, 0.25, 5, 2)
    with pytest.raises(AssertionError, match="incr_ratio must be > 1.0"):
        s.set_incr_ratio(0.5)
    with pytest.raises(AssertionError, match="decr_ratio must be < 1.0"):
        paddle.amp.GradScaler(decr_ratio=2.0)
    assert paddle.amp.AmpScaler().get_init_loss_scaling() == 2.0 ** 15


def test_scale_and_unscaled_update_equal_plain_sgd():
    w, opt = setup(1.0)
    s = paddle.amp.GradScaler(init_loss_scaling=1024.0)
    scaled = s.scale((w * w).sum())
    np.testing.assert_allclose(scaled.numpy(), 2048.0)
    scaled.backward()
    np.testing.assert_allclose(w.grad.numpy(), [2048.0, 2048.0])
    s.unscale_(opt)
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        s.unscale_(opt)
    s.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        s.step(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
        s.unscale_(opt)
    s.update()
    np.testing.assert_allclose(w.numpy(), [0.0, 0.0])      # 1 - 0.5 * 2


def test_dynamic_trajectory_with_injected_inf():
    w, opt = setup(1.0)
    s = paddle.amp.GradScaler(init_loss_scaling=8.0, incr_every_n_steps=2, decr_every_n_nan_or_inf=2)
    pattern = [False, False, True, False, True, True, False, False, False, True, True]
    scales, weights = [], []
    for i, bad in enumerate(pattern):
        one_step(s, w, opt, bad=bad, use_minimize=(i % 2 == 1))
        scales.append(float(s.state_dict()["scale"][0]))
        weights.append(float(w.numpy()[0]))
    # independent model of the rule: x2 after 2 good steps in a row, x0.5 after 2 bad ones (counters reset)
    want, scale, good, badc = [], 8.0, 0, 0
    for bad in pattern:
        if bad:
            good, badc = 0, badc + 1
            if badc == 2:
                scale, badc = scale * 0.5, 0
        else:
            badc, good = 0, good + 1
            if good == 2:
                scale, good = scale * 2, 0
        want.append(scale)
    assert scales == want
    # bad steps left the weight alone; good steps did w -= 0.5 * 2w (i.e. w = 0)
    assert weights[0] == 0.0 and all(v == 0.0 for v in weights)
    st = s.state_dict()
    assert (st["incr_count"], st["decr_count"]) == (good, badc)


def test_skip_keeps_params_on_nan():
    w, opt = setup(3.0)
    s = paddle.amp.GradScaler(init_loss_scaling=4.0)
    one_step(s, w, opt, bad=True)
    np.testing.assert_allclose(w.numpy(), [3.0, 3.0])
    assert float(s.state_dict()["scale"][0]) == 2.0


def test_state_dict_roundtrip_and_disabled():
    w, opt = setup()
    s = paddle.amp.GradScaler(init_loss_scaling=16.0, incr_every_n_steps=3)
    one_step(s, w, opt)
    st = s.state_dict()
    assert st["incr_count"] == 1 and st["scale"].dtype == np.float32 and st["scale"].shape == (1,)
    t = paddle.amp.GradScaler()
    t.load_state_dict(st)
    assert t.state_dict()["incr_count"] == 1 and t.get_init_loss_scaling() == 16.0
    off = paddle.amp.GradScaler(enable=False)
    assert off.state_dict() == {} and not off.is_enable()
    loss = (w * w).sum()
    assert off.scale(loss) is loss
    with pytest.raises(RuntimeError, match="state dict is empty"):
        paddle.amp.GradScaler().load_state_dict({})


def test_scaler_disables_itself_after_a_bfloat16_auto_cast(recwarn):
    with paddle.amp.auto_cast(dtype="bfloat16"):
        pass
    s = paddle.amp.GradScaler()
    x = paddle.to_tensor([1.0])
    assert s.scale(x) is x and not s.is_enable()
    assert any("not recommended to use dynamic loss scaling for bfloat16" in str(w.message) for w in recwarn)
    with paddle.amp.auto_cast():
        pass
