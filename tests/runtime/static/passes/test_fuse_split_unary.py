"""fuse_split_unary: outputs of one split each read by the same total unary op -> the op once on the
split's input (or the covering slice) and a second split, in the global block and in loop bodies;
values and gradients equal with the pass on and off, and no fusion where it would not be exact
(non-total ops, different ops, other splits, tensor sections, a covering slice the old split would not
check, a loop-body read of the last iteration's value)."""
import warnings

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.static import InputSpec
from runtime import static
from runtime.static import Program, program_guard
from runtime.static.passes import fuse_split_unary

from .util import assert_same_on_off, build, op_types, optimized

rng = np.random.default_rng(5)
PASSES = ["dce", "fuse_split_unary"]


def feed(shape=(3, 16), dtype="float32", scale=4.0):
    return {"x": (rng.standard_normal(shape) * scale).astype(dtype)}


def lstm_cell(x, c):
    i, f, g, o = paddle.split(x, 4, axis=1)
    c = F.sigmoid(f) * c + F.sigmoid(i) * paddle.tanh(g)
    return F.sigmoid(o) * paddle.tanh(c), c


def ops_reading(prog, name):
    return [op.type for op in prog.global_block().ops if name in op.input_arg_names]


def test_lstm_gates_one_sigmoid_on_the_whole_input():
    def f():
        x = static.data("x", [3, 16], "float32")
        c = paddle.full([3, 4], 0.5, "float32")
        return lstm_cell(x, c)
    main, _, fetch = build(f)
    prog = optimized(main, ["x"], fetch, PASSES)
    types = op_types(prog)
    assert types.count("sigmoid") == 1 and types.count("split") == 2 and types.count("tanh") == 2
    assert ops_reading(prog, "x") == ["split", "sigmoid"]        # the old split stays for g
    src = assert_same_on_off(main, feed(), fetch, PASSES)
    assert "_uf_sigmoid(x)" in src


@pytest.mark.parametrize("typ", ["sigmoid", "tanh", "relu", "relu6", "abs", "floor", "ceil", "sign", "atan"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_total_op_every_output(typ, dtype):
    """All outputs through the op: the old split goes (dce), one op and one split remain."""
    def f():
        x = static.data("x", [3, 12], dtype)
        blk = static.default_main_program().global_block()
        outs = []
        for k, p in enumerate(paddle.split(x, [2, 6, 4], axis=-1)):
            outs.append(blk.create_var(name=f"{typ}_out_{k}", shape=p.shape, dtype=p.dtype))
            blk.append_op(typ, inputs={"X": p}, outputs={"Out": outs[-1]})
        return outs
    main, _, fetch = build(f)
    prog = optimized(main, ["x"], fetch, PASSES)
    assert op_types(prog) == [typ, "split"]
    x = feed((3, 12), dtype, 3.0)
    x["x"].flat[:6] = [np.nan, np.inf, -np.inf, -0.0, 1e30 if dtype == "float32" else 1e300, -1e4]
    assert_same_on_off(main, x, fetch, PASSES)
    assert typ in fuse_split_unary.TOTAL_UNARY


def test_integer_input_and_axis_zero():
    def f():
        x = static.data("x", [6, 5], "int32")
        a, b, c = paddle.split(x, 3, axis=0)
        return F.sigmoid(a) + 1.0, F.sigmoid(c) * 2.0, b
    main, _, fetch = build(f)
    prog = optimized(main, ["x"], fetch, PASSES)
    assert op_types(prog).count("sigmoid") == 1
    assert_same_on_off(main, {"x": rng.integers(-9, 9, (6, 5)).astype("int32")}, fetch, PASSES)


def test_covering_slice_when_the_old_split_stays():
    """Sigmoid on outputs 1 and 2 of explicit sections, output 0 read elsewhere: a slice [2:9] of x."""
    def f():
        x = static.data("x", [3, 14], "float32")
        a, b, c, d = paddle.split(x, [2, 3, 4, 5], axis=1)
        return a * 2.0, F.sigmoid(b), F.sigmoid(c) + 1.0, d
    main, _, fetch = build(f)
    prog = optimized(main, ["x"], fetch, PASSES)
    sl = [op for op in prog.global_block().ops if op.type == "slice"]
    assert len(sl) == 1 and sl[0].attrs["starts"] == [2] and sl[0].attrs["ends"] == [9]
    assert op_types(prog).count("sigmoid") == 1
    assert_same_on_off(main, feed((3, 14)), fetch, PASSES)


def test_no_slice_when_the_other_reader_is_pruned():
    """Output 0's reader computes nothing fetched: pruning drops it and the old split with it, so the
    new split must check x's size itself (whole input), with or without dce before the pass."""
    def f():
        x = static.data("x", [3, 14], "float32")
        a, b, c, d = paddle.split(x, [2, 3, 4, 5], axis=1)
        a * 2.0
        return F.sigmoid(b), F.sigmoid(c)
    main, _, fetch = build(f)
    for passes in (["fuse_split_unary"], PASSES):
        prog = optimized(main, ["x"], fetch, passes)
        assert "slice" not in op_types(prog) and ops_reading(prog, "x")[-1] == "sigmoid"
        assert_same_on_off(main, feed((3, 14)), fetch, passes)


def test_whole_input_when_the_old_split_would_go_or_sizes_come_from_num():
    def only_inner():        # outputs 0 and 3 unread: the old split dies, the new one checks x's size
        x = static.data("x", [3, 14], "float32")
        _, b, c, _ = paddle.split(x, [2, 3, 4, 5], axis=1)
        return F.relu(b), F.relu(c)

    def by_num():            # sizes follow x's runtime size: no fixed slice
        x = static.data("x", [3, 16], "float32")
        a, b, c, d = paddle.split(x, 4, axis=1)
        return a, F.relu(b), F.relu(c), d
    for fn, shape in ((only_inner, (3, 14)), (by_num, (3, 16))):
        main, _, fetch = build(fn)
        prog = optimized(main, ["x"], fetch, PASSES)
        assert "slice" not in op_types(prog) and op_types(prog).count("relu") == 1
        assert ops_reading(prog, "x")[-1] == "relu"
        assert_same_on_off(main, feed(shape), fetch, PASSES)


def test_not_fused():
    def non_total():         # log / sqrt / exp warn or give NaN on the other parts
        x = static.data("x", [3, 16], "float32")
        a, b, c, d = paddle.split(x, 4, axis=1)
        return paddle.log(a), paddle.log(b), paddle.sqrt(c), paddle.exp(d), paddle.exp(a)

    def different_ops():     # each output read by another op
        x = static.data("x", [3, 16], "float32")
        a, b = paddle.split(x, 2, axis=1)
        return F.sigmoid(a), paddle.tanh(b)

    def different_splits():  # the same op on outputs of two splits (other axes) of one input
        x = static.data("x", [3, 16], "float32")
        a, _ = paddle.split(x, [1, 2], axis=0)
        _, d = paddle.split(x, 2, axis=1)
        return F.sigmoid(a), F.sigmoid(d)

    def tensor_sections():   # sizes known only at run time
        x = static.data("x", [3, 16], "float32")
        n = paddle.full([1], 6, "int32")
        a, b = paddle.split(x, [n, 10], axis=1)
        return F.sigmoid(a), F.sigmoid(b)

    def leaky():             # leaky_relu: attrs, not in the total set
        x = static.data("x", [3, 16], "float32")
        a, b = paddle.split(x, 2, axis=1)
        return F.leaky_relu(a), F.leaky_relu(b)
    for fn in (non_total, different_ops, different_splits, tensor_sections, leaky):
        main, _, fetch = build(fn)
        prog = optimized(main, ["x"], fetch, PASSES)
        assert op_types(prog) == op_types(main), fn.__name__
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)     # log of negative parts, as without the pass
            assert_same_on_off(main, feed(), fetch, PASSES)


def test_output_also_read_elsewhere_and_fetched_results():
    """An output read by the op and by another op keeps the old split for it; fetched op outputs are
    written by the new split under their own names."""
    def f():
        x = static.data("x", [3, 16], "float32")
        a, b, c, d = paddle.split(x, 4, axis=1)
        sa, sb = F.sigmoid(a), F.sigmoid(b)
        return sa, sb * a, paddle.tanh(c) + d
    main, _, fetch = build(f)
    prog = optimized(main, ["x"], fetch, PASSES)
    assert op_types(prog).count("sigmoid") == 1
    writers = {n: op.type for op in prog.global_block().ops for n in op.output_arg_names}
    assert writers[fetch[0].name] == "split"
    assert_same_on_off(main, feed(), fetch, PASSES)


def test_no_warning_from_the_unread_parts():
    """NaN / inf / huge values in the parts nobody reads through the op: no floating-point warning."""
    def f():
        x = static.data("x", [2, 12], "float32")
        a, b, c = paddle.split(x, 3, axis=1)
        return F.sigmoid(a), F.sigmoid(c), b
    main, _, fetch = build(f)
    x = feed((2, 12))
    x["x"][:, 4:8] = np.array([np.nan, np.inf, -np.inf, -3e38], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same_on_off(main, x, fetch, PASSES)


def test_static_backward_gradients_equal_on_off():
    """A training program (forward + append_backward) compiled with the pass: same grads."""
    from runtime.static.backward import append_backward

    def f():
        x = static.data("x", [3, 16], "float32")
        x.stop_gradient = False
        w = static.create_parameter([16, 16], "float32", name="w_su")
        z = paddle.matmul(x, w)
        c = paddle.full([3, 4], 0.25, "float32")
        h, c = lstm_cell(z, c)
        h2, _ = lstm_cell(paddle.matmul(paddle.concat([h, h, h, h], axis=1), w), c)
        loss = paddle.mean(h2 * h2)
        grads = append_backward(loss)
        return [loss, h2] + [g for _, g in grads] + [static.default_main_program().global_block().var("x@GRAD")]
    main, startup, fetch = build(f)
    prog = optimized(main, ["x"], fetch, PASSES)
    assert op_types(prog).count("sigmoid") == 2 and "sigmoid_grad" in op_types(prog)
    assert_same_on_off(main, feed(), fetch, PASSES, startup=startup)


class Cell(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(8 + 6, 24)

    def forward(self, x):
        h = paddle.zeros([x.shape[1], 6], dtype=x.dtype)
        c = paddle.zeros([x.shape[1], 6], dtype=x.dtype)
        outs = []
        for t in range(x.shape[0]):
            h, c = lstm_cell(self.fc(paddle.concat([x[t], h], axis=-1)), c)
            outs.append(h)
        return paddle.stack(outs, axis=0)


def _converted_run(monkeypatch, passes):
    monkeypatch.setenv("DY2ST_PASSES", passes)
    paddle.seed(3)
    net = paddle.jit.to_static(Cell())
    xv = np.random.default_rng(2).standard_normal((3, 2, 8)).astype("float32")
    x = paddle.to_tensor(xv, stop_gradient=False)
    out = net(x)
    (out * paddle.to_tensor(np.linspace(-1, 1, out.size, dtype="float32").reshape(out.shape))).sum().backward()
    net.eval()
    with paddle.no_grad():
        infer = net(paddle.to_tensor(xv)).numpy()
    return [out.numpy(), x.grad.numpy(), net.fc.weight.grad.numpy(), net.fc.bias.grad.numpy(), infer]


def test_converted_lstm_training_and_inference_bit_identical_on_off(monkeypatch):
    off = _converted_run(monkeypatch, "dce,fuse_gemm")
    on = _converted_run(monkeypatch, "dce,fuse_gemm,fuse_split_unary")
    for a, b in zip(on, off):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def test_converted_while_loop_lstm_fuses_in_the_body_bit_identical(monkeypatch):
    """Time dimension unknown: the steps are a while loop; the pass works in its body (inference and
    training: the forward run records the body's values for the backward by their names)."""
    import dy2st.partial_program as pp
    orig = pp._compile_program
    res, sources = {}, {}
    for passes in ("dce,fuse_gemm", "dce,fuse_gemm,fuse_split_unary"):
        monkeypatch.setenv("DY2ST_PASSES", passes)
        paddle.seed(3)
        net = paddle.jit.to_static(Cell(), input_spec=[InputSpec([None, None, 8], "float32", "x")])
        xv = np.random.default_rng(4).standard_normal((4, 2, 8)).astype("float32")
        x = paddle.to_tensor(xv, stop_gradient=False)
        out = net(x)
        out.sum().backward()
        net.eval()
        seen = []
        monkeypatch.setattr(pp, "_compile_program", lambda *a, **k: seen.append(orig(*a, **k)) or seen[-1])
        with paddle.no_grad():
            infer = net(paddle.to_tensor(xv)).numpy()
        sources[passes] = "\n".join(c.source for c in seen)
        res[passes] = [out.numpy(), x.grad.numpy(), net.fc.weight.grad.numpy(), infer]
    on, off = res["dce,fuse_gemm,fuse_split_unary"], res["dce,fuse_gemm"]
    for a, b in zip(on, off):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    if sources["dce,fuse_gemm"]:        # the compiled back end (not DY2ST_EXECUTOR=interpreter)
        assert sources["dce,fuse_gemm"].count("_uf_sigmoid(") == 3
        assert sources["dce,fuse_gemm,fuse_split_unary"].count("_uf_sigmoid(") == 1


def _loop_program(read_between):
    """A while body: a, b = split(x); ya = sigmoid(a); [t = scale(w)]; w = sigmoid(b) [; t = scale(w)].
    With ``read_between`` the scale reads w between the two sigmoids: last iteration's w."""
    paddle.enable_static()
    try:
        main = Program()
        with program_guard(main, Program()):
            x = static.data("x", [3, 8], "float32")
            g = main.global_block()
            cond = g.create_var(name="c_loop", shape=[1], dtype="bool")
            w = g.create_var(name="w_loop", shape=[3, 4], dtype="float32")
            t = g.create_var(name="t_loop", shape=[3, 4], dtype="float32")
            body = main._create_block()
            a = body.create_var(name="a_loop", shape=[3, 4], dtype="float32")
            b = body.create_var(name="b_loop", shape=[3, 4], dtype="float32")
            ya = body.create_var(name="ya_loop", shape=[3, 4], dtype="float32")
            body.append_op("split", {"X": x}, {"Out": [a, b]}, {"num": 2, "axis": 1})
            body.append_op("sigmoid", {"X": a}, {"Out": ya})
            scale = ("scale", {"X": w}, {"Out": t}, {"scale": 2.0})
            if read_between:
                body.append_op(*scale)
            body.append_op("sigmoid", {"X": b}, {"Out": w})
            if not read_between:
                body.append_op(*scale)
            main._rollback()
            g.append_op("while", {"X": [x, w], "Condition": [cond]}, {"Out": [t]},
                        {"sub_block": body.idx, "is_test": True})
        return main, body.idx
    finally:
        paddle.disable_static()


def test_loop_body_read_of_the_last_iterations_value_blocks_the_move():
    for read_between, fused in ((True, 0), (False, 1)):
        main, idx = _loop_program(read_between)
        prog = main.clone()
        assert fuse_split_unary.run(prog, ["x"], ["t_loop"]) == fused
        types = [op.type for op in prog.blocks[idx].ops]
        assert types.count("sigmoid") == 2 - fused, types
