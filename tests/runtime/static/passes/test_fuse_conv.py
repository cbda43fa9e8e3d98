"""fuse_conv: conv2d / depthwise_conv2d + eval-mode batch_norm [+ relu / relu6] -> fused_conv2d_bn (only
when nothing else reads the convolution or the normalised value and batch_norm uses running statistics)."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from runtime import static
from runtime.static.scope import Scope

from .util import assert_same_on_off, build, op_types, optimized, run

PASSES = ["dce", "fuse_conv"]


def conv_bn(act=None, training=False, fetch_conv=False, groups=1, data_format="NCHW", shape=(-1, 4, 6, 6),
            k=3, out_ch=6, stride=1):
    def f():
        x = static.data("x", list(shape), "float32")
        c = shape[3] if data_format == "NHWC" else shape[1]
        conv = paddle.nn.Conv2D(c, out_ch, k, stride=stride, padding=k // 2, groups=groups, bias_attr=False,
                                data_format=data_format)
        bn = paddle.nn.BatchNorm2D(out_ch, data_format=data_format)
        if not training:
            bn.eval()
        h = conv(x)
        out = bn(h)
        if act is not None:
            out = act(out)
        return (out, h) if fetch_conv else (out,)
    return build(f)


def feed(shape=(2, 4, 6, 6)):
    return {"x": np.random.default_rng(0).standard_normal(shape).astype(np.float32)}


def random_stats(startup, scope):
    """Run the startup program, then give the batch norms non-trivial running statistics."""
    run(startup, {}, (), (), scope=scope)
    rng = np.random.default_rng(1)
    for name, v in list(scope.vars.items()):
        if "batch_norm" in name:
            scope.vars[name] = rng.uniform(0.3, 1.5, v.shape).astype(v.dtype)


def on_off(main, startup, fetches, x):
    scope = Scope()
    random_stats(startup, scope)
    state = {k: np.array(v, copy=True) for k, v in scope.vars.items()}
    off, _ = run(main, x, fetches, (), scope=scope)
    scope.vars.update({k: np.array(v, copy=True) for k, v in state.items()})
    on, _ = run(main, x, fetches, PASSES, scope=scope)
    return on, off


@pytest.mark.parametrize("act,expected", [(None, "none"), (F.relu, "relu"), (F.relu6, "relu6")])
def test_fused_equal_to_unfused(act, expected):
    main, startup, fetch = conv_bn(act)
    prog = optimized(main, ["x"], fetch, PASSES)
    assert op_types(prog) == ["fused_conv2d_bn"]
    assert prog.global_block().ops[0].attrs["activation"] == expected
    on, off = on_off(main, startup, fetch, feed())
    assert on[0].shape == off[0].shape and on[0].dtype == off[0].dtype
    np.testing.assert_allclose(on[0], off[0], rtol=1e-5, atol=1e-5)
    assert not np.array_equal(off[0], np.zeros_like(off[0]))


@pytest.mark.parametrize("kw", [dict(groups=4, out_ch=4, stride=2),                      # depthwise
                                dict(data_format="NHWC", shape=(-1, 6, 6, 4)),
                                dict(shape=(-1, 16, 2, 2), out_ch=8)])                    # filter > output
def test_depthwise_nhwc_and_output_scaling(kw):
    main, startup, fetch = conv_bn(F.relu, **kw)
    assert op_types(optimized(main, ["x"], fetch, PASSES)) == ["fused_conv2d_bn"]
    shape = tuple(2 if d == -1 else d for d in kw.get("shape", (-1, 4, 6, 6)))
    on, off = on_off(main, startup, fetch, feed(shape))
    np.testing.assert_allclose(on[0], off[0], rtol=1e-5, atol=1e-5)


def test_training_batch_norm_and_fetched_conv_not_fused():
    main, startup, fetch = conv_bn(F.relu, training=True)
    assert op_types(optimized(main, ["x"], fetch, PASSES)) == ["conv2d", "batch_norm", "relu"]
    main, startup, fetch = conv_bn(F.relu, fetch_conv=True)      # the conv stays; batch_norm + relu fuse
    assert op_types(optimized(main, ["x"], fetch, PASSES)) == ["conv2d", "fused_bn_eval_act"]
    on, off = on_off(main, startup, fetch, feed())
    np.testing.assert_array_equal(on[1], off[1])
    np.testing.assert_allclose(on[0], off[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("act,layout", [(F.relu, "NCHW"), (F.relu6, "NHWC")])
def test_pre_activation_batch_norm_act_fused(act, layout):
    def f():                                   # DenseNet's order: batch_norm -> relu -> conv
        x = static.data("x", [-1, 4, 5, 5] if layout == "NCHW" else [-1, 5, 5, 4], "float32")
        bn = paddle.nn.BatchNorm2D(4, data_format=layout)
        bn.eval()
        return paddle.nn.Conv2D(4, 3, 1, bias_attr=False, data_format=layout)(act(bn(x) * 4.0)), act(bn(x))
    main, startup, fetch = build(f)
    types = op_types(optimized(main, ["x"], fetch, PASSES))
    # the first batch_norm is read by a scale (not fused), the second directly by the activation
    assert types == ["batch_norm", "scale", act.__name__, "conv2d", "fused_bn_eval_act"]
    on, off = on_off(main, startup, fetch, feed((2, 4, 5, 5) if layout == "NCHW" else (2, 5, 5, 4)))
    for a, b in zip(on, off):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_normalised_value_fetched_keeps_relu_apart():
    def f():
        x = static.data("x", [-1, 4, 6, 6], "float32")
        bn = paddle.nn.BatchNorm2D(6)
        bn.eval()
        y = bn(paddle.nn.Conv2D(4, 6, 3, padding=1)(x))   # conv with a bias: conv2d + elementwise_add
        return F.relu(y), y
    main, startup, fetch = build(f)
    types = op_types(optimized(main, ["x"], fetch, PASSES))
    assert "fused_conv2d_bn" not in types and types[-1] == "relu"


def test_to_static_resnet_block_matches_eager():
    paddle.seed(0)
    net = paddle.vision.models.resnet18(num_classes=10)
    net.eval()
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 3, 32, 32)).astype("float32"))
    with paddle.no_grad():
        eager = net(x).numpy()
        converted = paddle.jit.to_static(net)(x).numpy()
    np.testing.assert_allclose(converted, eager, rtol=1e-4, atol=1e-5)


def residual_block(shortcut_conv, act=F.relu, fetch_sum=False, shortcut_first=False):
    def f():
        x = static.data("x", [-1, 4, 6, 6], "float32")
        conv, bn = paddle.nn.Conv2D(4, 4, 3, padding=1, bias_attr=False), paddle.nn.BatchNorm2D(4)
        bn.eval()
        y = bn(conv(x))
        if shortcut_conv:          # computed after the main branch's batch_norm, as Paddle's ResNet does
            sconv, sbn = paddle.nn.Conv2D(4, 4, 1, bias_attr=False), paddle.nn.BatchNorm2D(4)
            sbn.eval()
            shortcut = sbn(sconv(x))
        else:
            shortcut = x
        s = shortcut + y if shortcut_first else y + shortcut
        return (act(s), s) if fetch_sum else (act(s),)
    return build(f)


@pytest.mark.parametrize("shortcut_conv,shortcut_first", [(False, False), (True, False), (False, True)])
def test_residual_add_and_relu_fused(shortcut_conv, shortcut_first):
    main, startup, fetch = residual_block(shortcut_conv, shortcut_first=shortcut_first)
    types = op_types(optimized(main, ["x"], fetch, PASSES))
    assert types == ["fused_conv2d_bn"] * (2 if shortcut_conv else 1)
    prog = optimized(main, ["x"], fetch, PASSES)
    main_op = prog.global_block().ops[-1]
    assert main_op.inputs["ResidualData"] and main_op.attrs["activation"] == "relu"
    on, off = on_off(main, startup, fetch, feed())
    np.testing.assert_allclose(on[0], off[0], rtol=1e-5, atol=1e-5)


def test_fetched_residual_sum_keeps_relu_apart():
    main, startup, fetch = residual_block(False, fetch_sum=True)     # the sum is the fused op's output
    assert op_types(optimized(main, ["x"], fetch, PASSES)) == ["fused_conv2d_bn", "relu"]
    on, off = on_off(main, startup, fetch, feed())
    for a, b in zip(on, off):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("act,expected", [(None, "none"), (F.relu, "relu"), (F.relu6, "relu6")])
@pytest.mark.parametrize("layout,batch", [("NCHW", 2), ("NCHW", 1), ("NHWC", 2)])
def test_conv_bias_act_fused_same_bits(act, expected, layout, batch):
    def f():
        x = static.data("x", [-1, 3, 6, 6] if layout == "NCHW" else [-1, 6, 6, 3], "float32")
        y = paddle.nn.Conv2D(3, 5, 3, padding=1, data_format=layout)(x)
        return (act(y) if act else y) * 2.0
    main, startup, fetch = build(f)
    prog = optimized(main, ["x"], [fetch], PASSES)
    assert op_types(prog) == ["fused_conv2d_bias_act", "scale"]
    assert prog.global_block().ops[0].attrs["activation"] == expected
    shape = (batch, 3, 6, 6) if layout == "NCHW" else (batch, 6, 6, 3)
    assert_same_on_off(main, {"x": 3 * feed(shape)["x"]}, [fetch], PASSES, startup=startup)


class _TrainNet(paddle.nn.Layer):
    """conv + bias + relu, conv + batch_norm + residual + relu: fusable in eval, must train unchanged."""

    def __init__(self):
        super().__init__()
        self.c1 = paddle.nn.Conv2D(3, 4, 3, padding=1)
        self.c2 = paddle.nn.Conv2D(4, 4, 3, padding=1, bias_attr=False)
        self.bn = paddle.nn.BatchNorm2D(4)
        self.fc = paddle.nn.Linear(4 * 8 * 8, 3)

    def forward(self, x):
        y = F.relu(self.c1(x))
        y = F.relu(self.bn(self.c2(y)) + y)
        return self.fc(y.flatten(1))


def test_converted_training_gradients_and_eval_outputs_match_eager():
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype("float32"))
    res = {}
    for mode in ("eager", "static"):
        paddle.seed(0)
        net = _TrainNet()
        fn = paddle.jit.to_static(net) if mode == "static" else net
        out = fn(x)             # training: the batch's statistics, nothing fused away that backward needs
        out.sum().backward()
        res[mode] = [out.numpy(), net.c1.weight.grad.numpy(), net.c2.weight.grad.numpy(), net.bn.weight.grad.numpy()]
        net.eval()
        with paddle.no_grad():
            res[mode].append(fn(x).numpy())      # eval: fused convolutions
    for a, b in zip(res["eager"], res["static"]):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)
