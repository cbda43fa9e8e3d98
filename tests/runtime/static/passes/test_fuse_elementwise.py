"""fuse_elementwise: single-use chains of elementwise/activation ops -> fused_elementwise_chain."""
import numpy as np

import dy2st as paddle
import dy2st.nn.functional as F
from runtime import static

from .util import assert_same_on_off, build, op_types, optimized

rng = np.random.default_rng(1)
FEED = {"x": rng.standard_normal((3, 4)).astype(np.float32), "y": rng.standard_normal((3, 4)).astype(np.float32),
        "b": rng.standard_normal((4,)).astype(np.float32)}
PASSES = ["dce", "fuse_elementwise"]


def data():
    return (static.data("x", [3, 4], "float32"), static.data("y", [3, 4], "float32"),
            static.data("b", [4], "float32"))


def test_chain_fuses():
    def f():
        x, y, b = data()
        return F.relu(paddle.tanh(x * y + b) * 2.0 - y)
    main, _, out = build(f)
    prog = optimized(main, ["x", "y", "b"], [out], PASSES)
    assert op_types(prog) == ["fused_elementwise_chain"]
    op = prog.global_block().ops[0]
    assert op.inputs["X"] == ["x", "y", "b", "y"]
    src = assert_same_on_off(main, FEED, [out], PASSES)
    assert "fused_elementwise_chain(" in src


def test_fetched_intermediate_splits_the_chain_and_a_step_continues_one_chain():
    def f():
        x, y, b = data()
        s = F.sigmoid(x) * paddle.tanh(y)        # both feed the mul: only one chain takes it
        t = s + b
        return paddle.exp(t), t
    main, _, (out, t) = build(f)
    prog = optimized(main, ["x", "y", "b"], [out, t], PASSES)
    assert op_types(prog) == ["tanh", "fused_elementwise_chain", "exp"]
    assert_same_on_off(main, FEED, [out, t], PASSES)


def test_legacy_axis_and_int_chain():
    def f():
        x, y, b = data()
        blk = static.default_main_program().global_block()
        z = blk.create_var(name="z_axis", shape=[3, 4], dtype="float32")
        bb = paddle.reshape(b[:3], [3])
        blk.append_op("elementwise_add", inputs={"X": x, "Y": bb}, outputs={"Out": z}, attrs={"axis": 0})
        i = paddle.cast(x * 10.0, "int64")
        return F.relu(z), F.relu(i * i - 3)
    main, _, (o1, o2) = build(f)
    prog = optimized(main, ["x", "y", "b"], [o1, o2], PASSES)
    assert op_types(prog).count("fused_elementwise_chain") == 2
    assert_same_on_off(main, FEED, [o1, o2], PASSES)
