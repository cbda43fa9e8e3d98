"""nn.initializer and ParamAttr: value statistics, bounds, fans, gains, precedence, reproducibility."""
import math

import numpy as np
import pytest

import runtime as paddle
from runtime.nn import initializer as I
from runtime.nn.initializer.initializer import compute_fans
from runtime.nn.param_attr import ParamAttr, create_parameter
from runtime.ops.registry import _OPS

nn = paddle.nn


def make(shape, init, dtype=None):
    return nn.Layer().create_parameter(shape, dtype=dtype, default_initializer=init)


def stats(p):
    a = p.numpy().astype(np.float64)
    return a.mean(), a.std(), a.min(), a.max()


def test_constant():
    p = make([3, 4], I.Constant(2.5))
    np.testing.assert_array_equal(p.numpy(), np.full([3, 4], 2.5, np.float32))
    assert p.dtype == paddle.float32
    p = make([5], I.Constant(), dtype="float64")
    assert p.dtype == paddle.float64 and not p.numpy().any()
    with pytest.raises(TypeError, match="Constant: value must be a number"):
        I.Constant("1")


def test_normal_statistics():
    mean, std, _, _ = stats(make([200, 200], I.Normal(1.5, 2.0)))
    assert abs(mean - 1.5) < 0.05 and abs(std - 2.0) < 0.05
    with pytest.raises(ValueError, match="std must be non-negative"):
        I.Normal(0.0, -1.0)


def test_uniform_statistics_and_bounds():
    mean, std, lo, hi = stats(make([200, 200], I.Uniform(-3.0, 1.0)))
    assert -3.0 <= lo and hi <= 1.0
    assert abs(mean - (-1.0)) < 0.03 and abs(std - 4.0 / math.sqrt(12)) < 0.02
    with pytest.raises(ValueError, match="low must not exceed high"):
        I.Uniform(1.0, 0.0)


def test_truncated_normal_bounds():
    mean, std, lo, hi = stats(make([200, 200], I.TruncatedNormal(0.0, 1.0)))
    assert -2.0 <= lo and hi <= 2.0 and abs(mean) < 0.03
    assert abs(std - 0.8796) < 0.02        # std of N(0,1) truncated to [-2, 2]
    # a, b are absolute bounds
    _, _, lo, hi = stats(make([1000], I.TruncatedNormal(5.0, 1.0, a=4.0, b=5.5)))
    assert 4.0 <= lo and hi <= 5.5
    with pytest.raises(ValueError, match="a must be less than b"):
        I.TruncatedNormal(a=1.0, b=0.0)


def test_compute_fans():
    assert compute_fans([]) == (1, 1)
    assert compute_fans([7]) == (7, 7)
    assert compute_fans([3, 5]) == (3, 5)                    # Linear weight [in, out]
    assert compute_fans([8, 4, 3, 3]) == (4 * 9, 8 * 9)      # conv [out, in/groups, kh, kw]


def test_xavier_uniform_and_normal():
    shape = [400, 600]
    limit = math.sqrt(6.0 / 1000)
    mean, std, lo, hi = stats(make(shape, I.XavierUniform()))
    assert -limit <= lo and hi <= limit and hi > 0.95 * limit
    assert abs(std - limit / math.sqrt(3)) < 0.002 and abs(mean) < 0.002
    mean, std, _, _ = stats(make(shape, I.XavierNormal()))
    assert abs(std - math.sqrt(2.0 / 1000)) < 0.002
    _, _, lo, hi = stats(make(shape, I.XavierUniform(fan_in=10.0, fan_out=14.0, gain=2.0)))
    assert hi <= 2.0 * math.sqrt(6.0 / 24) and hi > 0.95 * 2.0 * math.sqrt(6.0 / 24)


def test_kaiming_uniform_and_normal():
    shape = [64, 16, 3, 3]                        # fan_in = 16 * 9
    limit = math.sqrt(2.0) * math.sqrt(3.0 / 144)
    _, std, lo, hi = stats(make(shape, I.KaimingUniform()))
    assert -limit <= lo and hi <= limit and hi > 0.95 * limit
    _, std, _, _ = stats(make(shape, I.KaimingNormal()))
    assert abs(std - math.sqrt(2.0 / 144)) < 0.005
    _, std, _, _ = stats(make(shape, I.KaimingNormal(mode="fan_out")))
    assert abs(std - math.sqrt(2.0 / (64 * 9))) < 0.003
    _, _, _, hi = stats(make([400, 300], I.KaimingUniform(fan_in=25.0, nonlinearity="leaky_relu",
                                                           negative_slope=0.2)))
    bound = math.sqrt(2.0 / 1.04) * math.sqrt(3.0 / 25)
    assert hi <= bound and hi > 0.95 * bound
    with pytest.raises(ValueError, match="nonlinearity function foo is not supported"):
        I.KaimingUniform(nonlinearity="foo")
    with pytest.raises(ValueError, match="mode must be 'fan_in' or 'fan_out'"):
        I.KaimingNormal(mode="avg")


def test_calculate_gain():
    assert I.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert I.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert I.calculate_gain("sigmoid") == 1 and I.calculate_gain("conv2d") == 1
    assert I.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    assert I.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert I.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="nonlinearity function foo is not supported now"):
        I.calculate_gain("foo")


def test_assign():
    value = np.arange(6, dtype=np.float64).reshape(2, 3)
    p = make([2, 3], I.Assign(value))
    np.testing.assert_array_equal(p.numpy(), value.astype(np.float32))
    assert p.dtype == paddle.float32
    p = make([3], I.Assign([1, 2, 3]), dtype="float64")
    np.testing.assert_array_equal(p.numpy(), [1.0, 2.0, 3.0])
    p = make([2], I.Assign(paddle.to_tensor([4.0, 5.0])))
    np.testing.assert_array_equal(p.numpy(), [4.0, 5.0])
    with pytest.raises(ValueError, match=r"Assign: value has shape \[2, 3\] \(6 elements\) "
                                         r"but the parameter has shape \[4\]"):
        make([4], I.Assign(value))
    with pytest.raises(TypeError, match="Assign: value must be an ndarray"):
        I.Assign("abc")


@pytest.mark.skipif("qr" not in _OPS, reason="needs the qr op")
def test_orthogonal():
    w = make([6, 10], I.Orthogonal()).numpy().astype(np.float64)
    np.testing.assert_allclose(w @ w.T, np.eye(6), atol=1e-5)
    w = make([12, 2, 2], I.Orthogonal(gain=2.0)).numpy().astype(np.float64).reshape(12, 4)
    np.testing.assert_allclose(w.T @ w, 4 * np.eye(4), atol=1e-4)


def test_reproducible_with_seed():
    def draw():
        paddle.seed(123)
        return [make([5, 4], init).numpy().copy() for init in
                (I.Normal(), I.Uniform(), I.XavierUniform(), I.KaimingNormal(), I.TruncatedNormal())]

    a, b = draw(), draw()
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], a[1])
    paddle.seed(7)
    l1 = nn.Linear(4, 3)
    paddle.seed(7)
    l2 = nn.Linear(4, 3)
    np.testing.assert_array_equal(l1.weight.numpy(), l2.weight.numpy())


def test_initializer_called_directly_writes_in_place():
    p = make([3, 3], I.Constant(0.0))
    I.Constant(4.0)(p)
    np.testing.assert_array_equal(p.numpy(), np.full([3, 3], 4.0, np.float32))
    assert p.shape == [3, 3] and p.dtype == paddle.float32


# -- ParamAttr and creation precedence -------------------------------------------------------------

def test_param_attr_fields_reach_the_parameter():
    reg = object()
    attr = ParamAttr(name="w_custom", initializer=I.Constant(3.0), learning_rate=0.5, regularizer=reg,
                     trainable=False, need_clip=False)
    p = nn.Layer().create_parameter([2], attr=attr)
    assert p.name == "w_custom"
    np.testing.assert_array_equal(p.numpy(), [3.0, 3.0])
    assert p.optimize_attr == {"learning_rate": 0.5}
    assert p.regularizer is reg and p.need_clip is False
    assert p.trainable is False and p.stop_gradient is True


def test_param_attr_to_attr_forms():
    assert isinstance(ParamAttr._to_attr(None), ParamAttr)
    assert ParamAttr._to_attr("nm").name == "nm"
    init = I.Constant(1.0)
    assert ParamAttr._to_attr(init).initializer is init
    assert ParamAttr._to_attr(False) is False
    assert isinstance(ParamAttr._to_attr(True), ParamAttr)
    a = ParamAttr()
    assert ParamAttr._to_attr(a) is a
    assert [x.name for x in ParamAttr._to_attr(["a", "b"])] == ["a", "b"]
    with pytest.raises(TypeError, match="a parameter attribute must be"):
        ParamAttr._to_attr(3)
    with pytest.raises(TypeError, match="ParamAttr: initializer must be an Initializer"):
        ParamAttr(initializer=3)
    with pytest.raises(TypeError, match="ParamAttr: learning_rate must be a number"):
        ParamAttr(learning_rate="x")
    d = ParamAttr()
    assert (d.name, d.initializer, d.learning_rate, d.regularizer, d.trainable, d.do_model_average,
            d.need_clip) == (None, None, 1.0, None, True, True, True)


def test_attr_false_means_no_parameter():
    assert nn.Layer().create_parameter([2], attr=False) is None
    lin = nn.Linear(2, 3, bias_attr=False)
    assert lin.bias is None and [n for n, _ in lin.named_parameters()] == ["weight"]


def test_defaults_and_global_initializer_precedence():
    layer = nn.Layer()
    assert not layer.create_parameter([4], is_bias=True).numpy().any()        # bias: zeros
    limit = math.sqrt(6.0 / 1000)
    assert np.abs(layer.create_parameter([400, 600]).numpy()).max() <= limit  # weight: XavierUniform
    try:
        I.set_global_initializer(I.Constant(3.0), I.Constant(4.0))
        conv = nn.Conv2D(2, 3, 3)
        assert (conv.weight.numpy() == 3.0).all() and (conv.bias.numpy() == 4.0).all()   # beats the default
        bn = nn.BatchNorm2D(2)
        assert (bn.weight.numpy() == 3.0).all() and (bn._mean.numpy() == 0.0).all()     # ParamAttr beats it
        lin = nn.Linear(2, 3, weight_attr=ParamAttr(initializer=I.Constant(7.0)))
        assert (lin.weight.numpy() == 7.0).all() and (lin.bias.numpy() == 4.0).all()
    finally:
        I.set_global_initializer(None)
    assert not (nn.Linear(2, 3).weight.numpy() == 3.0).all()
    with pytest.raises(TypeError, match="weight_init must be an Initializer or None"):
        I.set_global_initializer(3)


def test_create_parameter_function_and_errors():
    p = create_parameter([2, 3], "float64")
    assert isinstance(p, paddle.Parameter) and p.dtype == paddle.float64 and p.shape == [2, 3]
    assert p.name.startswith("create_parameter_") and p.name.endswith(".w_0")
    assert not p.stop_gradient and p.persistable
    assert create_parameter([2], "float32", name="named_p").name == "named_p"
    b = create_parameter([2], "float32", is_bias=True)
    assert b.name.endswith(".b_0") and not b.numpy().any()
    with pytest.raises(TypeError, match="shape must hold ints"):
        create_parameter([2.5], "float32")
    with pytest.raises(ValueError, match="every dimension of shape must be non-negative"):
        nn.Layer().create_parameter([-1, 2])
    with pytest.raises(TypeError, match="shape must be a list or tuple"):
        nn.Layer().create_parameter(3)


def test_default_dtype_follows_paddle():
    old = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    try:
        assert nn.Layer().create_parameter([2]).dtype == paddle.float64
        lin = nn.Linear(2, 2)
        assert lin.weight.dtype == paddle.float64
        assert repr(lin) == "Linear(in_features=2, out_features=2, dtype=float64)"
    finally:
        paddle.set_default_dtype(old)


# -- each layer's default initialisation (Paddle's choices) ----------------------------------------

def test_layer_default_initialisation():
    lin = nn.Linear(400, 600)
    assert np.abs(lin.weight.numpy()).max() <= math.sqrt(6.0 / 1000) and not lin.bias.numpy().any()
    conv = nn.Conv2D(16, 32, 3, groups=4)          # Normal(0, sqrt(2 / (in_channels * k * k)))
    assert conv.weight.shape == [32, 4, 3, 3]
    assert abs(conv.weight.numpy().std() - math.sqrt(2.0 / 144)) < 0.01 and not conv.bias.numpy().any()
    convt = nn.Conv2DTranspose(16, 32, 3)          # XavierUniform on [in, out, k, k]
    assert convt.weight.shape == [16, 32, 3, 3]
    assert np.abs(convt.weight.numpy()).max() <= math.sqrt(6.0 / (32 * 9 + 16 * 9))
    emb = nn.Embedding(1000, 64)
    assert np.abs(emb.weight.numpy()).max() <= math.sqrt(6.0 / 1064)
    for cell in (nn.LSTMCell(30, 50), nn.GRUCell(30, 50), nn.SimpleRNNCell(30, 50)):
        for p in cell.parameters():
            assert np.abs(p.numpy()).max() <= 1.0 / math.sqrt(50)
            assert p.numpy().std() > 0.05
    bn = nn.BatchNorm2D(5)
    for p, v in zip(bn.parameters(), (1.0, 0.0, 0.0, 1.0)):
        np.testing.assert_array_equal(p.numpy(), np.full([5], v, np.float32))
    ln = nn.LayerNorm([3, 4])
    assert ln.weight.shape == [12] and (ln.weight.numpy() == 1).all() and not ln.bias.numpy().any()
    prelu = nn.PReLU(3, 0.1)
    np.testing.assert_allclose(prelu._weight.numpy(), [0.1] * 3)
