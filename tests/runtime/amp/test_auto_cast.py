"""paddle.amp.auto_cast: Paddle's O1/O2/OD cast rules in eager mode, custom lists, bfloat16 emulation, decorate."""
import warnings

import numpy as np
import pytest

import dy2st as paddle
from runtime.amp.op_rules import round_to_bfloat16


def f32(shape, seed=0):
    return paddle.to_tensor(np.random.default_rng(seed).standard_normal(shape).astype("float32"))


def test_o1_white_black_and_promote():
    x, w = f32([2, 3]), f32([3, 4], 1)
    with paddle.amp.auto_cast():
        assert paddle.amp.is_autocast_enabled() and paddle.amp.get_autocast_dtype() == "float16"
        m = paddle.matmul(x, w)                     # white: float16
        r = paddle.nn.functional.relu(m)            # gray, all-float16 inputs: float16
        s = paddle.nn.functional.softmax(m)         # black: float32
        e = paddle.exp(m)                           # black
        mix = m * paddle.ones([2, 4])               # gray with a float32 input: promoted to float32
        t = m.sum()                                 # reduce_sum is black-listed
        d = paddle.matmul(x.astype("float64"), w.astype("float64"))   # float64 is never cast
    assert not paddle.amp.is_autocast_enabled()
    assert [str(v.dtype) for v in (m, r, s, e, mix, t, d)] == [
        "paddle.float16", "paddle.float16", "paddle.float32", "paddle.float32", "paddle.float32",
        "paddle.float32", "paddle.float64"]
    np.testing.assert_allclose(m.numpy().astype("float32"), x.numpy() @ w.numpy(), rtol=2e-3, atol=2e-3)


def test_linear_layer_output_is_promoted_by_its_float32_bias():
    lin = paddle.nn.Linear(3, 4)
    with paddle.amp.auto_cast():
        y = lin(f32([2, 3]))
    assert y.dtype == paddle.float32          # matmul in float16, then add with the float32 bias


def test_levels_and_custom_lists():
    x, w = f32([2, 3]), f32([3, 4], 1)
    with paddle.amp.auto_cast(level="OD"):
        m = paddle.matmul(x, w)
        r = paddle.nn.functional.relu(m)          # OD: everything off the white list is float32
    assert (m.dtype, r.dtype) == (paddle.float16, paddle.float32)
    with paddle.amp.auto_cast(custom_black_list=["matmul"]):
        assert paddle.matmul(x, w).dtype == paddle.float32
    with paddle.amp.auto_cast(custom_white_list=["exp"]):
        assert paddle.exp(x).dtype == paddle.float16
    with paddle.amp.auto_cast(level="O2", use_promote=False):
        assert (x * paddle.ones([2, 3]).astype("float16")).dtype == paddle.float16
    with paddle.amp.auto_cast(enable=False):
        assert paddle.matmul(x, w).dtype == paddle.float32
    with paddle.amp.auto_cast(level="O0"):
        assert paddle.matmul(x, w).dtype == paddle.float32
    with pytest.raises(ValueError, match="overlap"):
        with paddle.amp.auto_cast(custom_white_list=["exp"], custom_black_list=["exp"]):
            pass
    with pytest.raises(ValueError, match="level should be O0, OD, O1 or O2"):
        with paddle.amp.auto_cast(level="O3"):
            pass
    with pytest.raises(ValueError, match="dtype should be 'float16' or 'bfloat16'"):
        with paddle.amp.auto_cast(dtype="float64"):
            pass


def test_gradients_flow_back_in_float32_to_float32_params():
    lin = paddle.nn.Linear(3, 2)
    x = f32([4, 3])
    with paddle.amp.auto_cast():
        loss = paddle.nn.functional.relu(lin(x)).mean()
    loss.backward()
    assert lin.weight.grad.dtype == paddle.float32
    w, b = lin.weight.numpy(), lin.bias.numpy()
    pre = x.numpy() @ w + b
    want = x.numpy().T @ ((pre > 0) / pre.size)
    np.testing.assert_allclose(lin.weight.grad.numpy(), want, rtol=5e-3, atol=5e-4)


def test_bfloat16_is_emulated_by_rounding():
    a = np.array([1.0, 1.00390625, 1.005859375, -3.14159, 1e-3, np.inf, np.nan], dtype=np.float32)
    r = round_to_bfloat16(a)
    # bfloat16 keeps 8 significant bits: the values are those of float32 with the low 16 bits cleared
    assert np.all((r[:5].view(np.uint32) & 0xFFFF) == 0)
    np.testing.assert_allclose(r[:5], [1.0, 1.0, 1.0078125, -3.140625, 0.00099945068359375])
    assert np.isinf(r[5]) and np.isnan(r[6])
    x, w = f32([2, 3]), f32([3, 4], 1)
    x.stop_gradient = False
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        with paddle.amp.auto_cast(dtype="bfloat16"):
            m = paddle.matmul(x, w)
    assert m.dtype == paddle.float32
    want = round_to_bfloat16(x.numpy()) @ round_to_bfloat16(w.numpy())
    np.testing.assert_allclose(m.numpy(), want, rtol=1e-6)
    m.sum().backward()
    # the matmul saw rounded w; the gradient reaching x is rounded again on its way through the rounding op
    want_grad = round_to_bfloat16(np.ones((2, 4), np.float32) @ round_to_bfloat16(w.numpy()).T)
    np.testing.assert_allclose(x.grad.numpy(), want_grad, rtol=1e-6)


def test_decorate_o2_casts_params_but_keeps_norms_float32():
    model = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.BatchNorm1D(4), paddle.nn.LayerNorm(4))
    opt = paddle.optimizer.SGD(parameters=model.parameters())
    same = paddle.amp.decorate(model, level="O1")
    assert same is model and model[0].weight.dtype == paddle.float32
    model2, opt2 = paddle.amp.decorate(model, opt, level="O2", save_dtype="float32")
    assert model2 is model and opt2 is opt and opt._multi_precision
    assert model[0].weight.dtype == paddle.float16
    assert model[1].weight.dtype == paddle.float32 and model[2].weight.dtype == paddle.float32
    assert model.state_dict()["0.weight"].dtype == paddle.float32      # save_dtype
    with paddle.amp.auto_cast(level="O2"):
        y = model[0](f32([2, 3]).astype("float16"))
    assert y.dtype == paddle.float16
    with pytest.raises(ValueError, match="level should be O1 or O2"):
        paddle.amp.decorate(model, level="O3")
    with pytest.raises(TypeError, match="models must be either"):
        paddle.amp.decorate("m", level="O2")
    excl = paddle.nn.Sequential(paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 2))
    paddle.amp.decorate(excl, level="O2", excluded_layers=[excl[1]])
    assert excl[0].weight.dtype == paddle.float16 and excl[1].weight.dtype == paddle.float32


def test_support_queries_answer_as_paddles_cpu_build():
    assert paddle.amp.is_float16_supported() is False
    assert paddle.amp.is_bfloat16_supported() is True
    assert paddle.amp.is_bfloat16_supported("cpu") is True
    assert "matmul" in paddle.amp.white_list()["float16"]["O1"]
    assert "softmax" in paddle.amp.black_list()["float16"]["O1"]
    assert paddle.amp.amp_guard is not None and paddle.amp.get_autocast_gpu_dtype() == "float16"


def test_amp_off_costs_one_check_and_changes_nothing():
    from runtime.framework import state
    assert state.amp is None
    x = f32([2, 3])
    assert paddle.matmul(x, f32([3, 2])).dtype == paddle.float32


class _AmpNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x):
        with paddle.amp.auto_cast():
            m = paddle.matmul(x, self.fc.weight)
            r = paddle.nn.functional.relu(m)
            s = paddle.nn.functional.softmax(self.fc(x))
        return m, r, s


def test_to_static_stages_the_same_casts_as_eager():
    net = _AmpNet()
    x = f32([2, 3])
    eager = net(x)
    snet = paddle.jit.to_static(net)
    static = snet(x)
    assert [str(t.dtype) for t in static] == [str(t.dtype) for t in eager] == [
        "paddle.float16", "paddle.float16", "paddle.float32"]
    for a, b in zip(static, eager):
        np.testing.assert_allclose(a.numpy().astype("float32"), b.numpy().astype("float32"), rtol=1e-3, atol=1e-3)
    assert "cast" in str(snet.forward.concrete_program.main_program)
