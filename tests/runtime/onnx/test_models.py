"""ONNX export of the deployment models (issue 5's list): checker, and onnxruntime == our executor."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.static import nn as snn

from .helpers import build, needs_ort, parity, static_mode  # noqa: F401

nn = paddle.nn
F = nn.functional
pytestmark = [needs_ort, pytest.mark.usefixtures("static_mode")]

RNG = np.random.default_rng(7)


def rand(*shape, dtype="float32"):
    return RNG.standard_normal(shape).astype(dtype)


def test_linear_relu_two_batch_sizes():
    def fn():
        x = static.data("x", [None, 8])
        return F.relu(nn.Linear(8, 4)(x))
    b = build(fn)
    model = parity(b, [{"x": rand(3, 8)}, {"x": rand(7, 8)}])
    # the batch dim stays symbolic, in the input and (through shape inference) the output
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "x_dim0"
    assert model.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "x_dim0"
    assert {i.name for i in model.graph.initializer} == {p.name for p in b.main.all_parameters()}
    assert model.graph.output[0].name == b.fetch[0].name


def test_mlp_softmax():
    def fn():
        x = static.data("x", [None, 10])
        h = F.relu(nn.Linear(10, 16)(x))
        h = F.tanh(nn.Linear(16, 16)(h))
        return F.softmax(nn.Linear(16, 5)(h))
    parity(build(fn), [{"x": rand(4, 10)}, {"x": rand(1, 10)}])


def _lenet(x):
    h = F.relu(nn.Conv2D(1, 6, 5, padding=2)(x))
    h = nn.MaxPool2D(2, 2)(h)
    h = F.relu(nn.Conv2D(6, 16, 5)(h))
    h = nn.AvgPool2D(2, 2)(h)
    h = paddle.flatten(h, 1)
    h = F.relu(nn.Linear(16 * 5 * 5, 32)(h))
    return nn.Linear(32, 10)(h)


@pytest.mark.parametrize("opset", [13, 17, 20])
def test_lenet(opset):
    def fn():
        return _lenet(static.data("img", [None, 1, 28, 28]))
    parity(build(fn), [{"img": rand(2, 1, 28, 28)}, {"img": rand(5, 1, 28, 28)}], opset=opset)


def test_if_else_both_branches():
    def fn():
        x = static.data("x", [None, 4])
        h = nn.Linear(4, 4)(x)
        return snn.cond(paddle.mean(x) > 0, lambda: F.relu(h) * 2, lambda: h - 1)
    b = build(fn)
    model = parity(b, [{"x": np.abs(rand(3, 4))}, {"x": -np.abs(rand(2, 4))}])
    assert [n.op_type for n in model.graph.node].count("If") == 1


def test_if_else_multiple_outputs_and_one_sided_value():
    def fn():
        x = static.data("x", [None, 3])
        a, c = snn.cond(paddle.sum(x) > 0, lambda: (x + 1, paddle.full([1], 5.0)),
                        lambda: (x * x, paddle.full([1], -5.0)))
        return a, c
    parity(build(fn), [{"x": np.abs(rand(2, 3))}, {"x": -np.abs(rand(2, 3))}])


def test_nested_if():
    def fn():
        x = static.data("x", [2, 3])
        m = paddle.mean(x)
        return snn.cond(m > 0, lambda: snn.cond(m > 1, lambda: x * 10, lambda: x * 2), lambda: x - 1)
    b = build(fn)
    parity(b, [{"x": np.full((2, 3), v, np.float32)} for v in (-2.0, 0.5, 2.0)])


def test_while_trip_counts():
    def fn():
        x = static.data("x", [None, 3])
        n = static.data("n", [1], "int64")
        i = paddle.zeros([1], "int64")
        i, y = snn.while_loop(lambda i, y: i < n, lambda i, y: [i + 1, y * 1.5 + 1.0], [i, x])
        return y, i
    b = build(fn)
    model = parity(b, [{"x": rand(2, 3), "n": np.array([k], np.int64)} for k in (0, 1, 4)])
    assert [n.op_type for n in model.graph.node].count("Loop") == 1


def test_while_with_if_inside_and_if_after():
    def fn():
        x = static.data("x", [None, 3])
        n = static.data("n", [1], "int64")
        i = paddle.zeros([1], "int64")

        def body(i, y):
            y = snn.cond(paddle.mean(y) > 2.0, lambda: y * 0.5, lambda: y + 1.0)
            return [i + 1, y]
        i, y = snn.while_loop(lambda i, y: i < n, body, [i, x])
        return snn.cond(paddle.mean(y) > 1.5, lambda: y - 10.0, lambda: y + 10.0)
    b = build(fn)
    feeds = [{"x": np.full((2, 3), v, np.float32), "n": np.array([k], np.int64)}
             for v, k in ((0.0, 0), (0.0, 1), (0.0, 3), (3.0, 2), (1.9, 0))]
    parity(b, feeds)


def test_batchnorm_eval():
    def fn():
        x = static.data("x", [None, 3, 8, 8])
        conv = nn.Conv2D(3, 4, 3, padding=1)
        bn = nn.BatchNorm2D(4)
        bn.eval()
        bn1 = nn.BatchNorm1D(4 * 8 * 8)
        bn1.eval()
        return bn1(paddle.flatten(F.relu(bn(conv(x))), 1))
    b = build(fn)
    # non-trivial running statistics
    for name, v in list(b.scope.vars.items()):
        if name.endswith((".w_1", ".w_2")) and "batch_norm" in name:
            b.scope.vars[name] = (np.abs(rand(*v.shape)) + 0.5).astype(np.float32)
    parity(b, [{"x": rand(2, 3, 8, 8)}, {"x": rand(3, 3, 8, 8)}])


def test_two_inputs():
    def fn():
        x = static.data("x", [None, 4])
        y = static.data("y", [None, 6])
        h = paddle.concat([nn.Linear(4, 3)(x), nn.Linear(6, 3)(y)], axis=1)
        return F.sigmoid(h), paddle.sum(h, axis=1)
    parity(build(fn), [{"x": rand(2, 4), "y": rand(2, 6)}, {"x": rand(5, 4), "y": rand(5, 6)}])


def test_parameterless():
    def fn():
        x = static.data("x", [None, 5])
        return paddle.exp(-x * x) * 2.0 + paddle.sin(x) - paddle.max(x, axis=1, keepdim=True)
    b = build(fn)
    model = parity(b, [{"x": rand(3, 5)}, {"x": rand(1, 5)}])
    assert all(i.name.startswith("const") for i in model.graph.initializer)


def _encoder_block(x, d=16, heads=2, ff=32, act=F.gelu):
    q, k, v = nn.Linear(d, d)(x), nn.Linear(d, d)(x), nn.Linear(d, d)(x)

    def split(t):
        return paddle.reshape(t, [0, 0, heads, d // heads]).transpose([0, 2, 1, 3])
    q, k, v = split(q), split(k), split(v)
    att = F.softmax(paddle.matmul(q, k, transpose_y=True) * (1.0 / np.sqrt(d // heads)))
    att = F.dropout(att, 0.1, training=False)
    o = paddle.matmul(att, v).transpose([0, 2, 1, 3]).reshape([0, 0, d])
    o = nn.Linear(d, d)(o)
    h = nn.LayerNorm(d)(x + F.dropout(o, 0.1, training=False))
    f = nn.Linear(ff, d)(F.dropout(act(nn.Linear(d, ff)(h)), 0.1, training=False, mode="downscale_in_infer"))
    return nn.LayerNorm(d)(h + f)


@pytest.mark.parametrize("opset", [13, 17, 18, 20])
def test_transformer_encoder_block(opset):
    def fn():
        return _encoder_block(static.data("x", [None, 5, 16]))
    parity(build(fn), [{"x": rand(2, 5, 16)}, {"x": rand(3, 5, 16)}], opset=opset)


def test_transformer_encoder_block_relu_dynamic_seq():
    def fn():
        return _encoder_block(static.data("x", [None, None, 16]), act=F.relu)
    parity(build(fn), [{"x": rand(2, 5, 16)}, {"x": rand(1, 9, 16)}])


def test_write_file_atomically(tmp_path):
    import onnx

    def fn():
        x = static.data("x", [None, 3])
        return F.relu(nn.Linear(3, 2)(x))
    b = build(fn)
    path = tmp_path / "sub" / "model.onnx"
    model = b.export(path=str(path))
    assert path.exists() and [p.name for p in path.parent.iterdir()] == ["model.onnx"]
    loaded = onnx.load(str(path))
    assert loaded.SerializeToString() == model.SerializeToString()
    parity(b, [{"x": rand(2, 3)}])


def test_eager_bound_parameters_and_global_scope():
    """Values come from params=, else the program's eager bindings, else the global scope."""
    import onnxruntime as ort
    from runtime.onnx import export_program
    paddle.disable_static()
    lin = nn.Linear(3, 2)
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3])
        y = lin(x)       # an eager Layer used in static mode: its parameters are eager bindings
    assert main._eager_bindings
    model = export_program(main, ["x"], [y])
    xv = rand(4, 3)
    (ref,) = static.Executor().run(main, feed={"x": xv}, fetch_list=[y])
    (got,) = ort.InferenceSession(model.SerializeToString()).run(None, {"x": xv})
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_fetch_an_input_a_parameter_and_the_same_var_twice():
    def fn():
        x = static.data("x", [None, 3])
        lin = nn.Linear(3, 2)
        y = F.relu(lin(x))
        return x, y, y, lin.weight
    b = build(fn)
    model = parity(b, [{"x": rand(2, 3)}])
    names = [o.name for o in model.graph.output]
    assert len(set(names)) == 4 and names[1] == b.fetch[1].name
