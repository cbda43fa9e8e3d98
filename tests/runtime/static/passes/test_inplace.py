"""inplace: an elementwise op writes into an input that dies there, never into feeds, parameters,
fetched values or shared constants, and the values stay exactly those of a fresh result."""
import numpy as np

import dy2st as paddle
import dy2st.nn.functional as F
from runtime import static

from .util import assert_same_on_off, build, op_types, optimized, run

rng = np.random.default_rng(2)
PASSES = ["dce", "inplace"]


def test_dying_product_is_reused_feeds_and_params_are_not():
    def f():
        x = static.data("x", [4, 8], "float32")
        w = static.create_parameter([8, 8], "float32", name="w_ip")
        b = static.create_parameter([8], "float32", name="b_ip")
        h = paddle.matmul(x, w)          # fresh, dies at the add: reused
        out = h + x                      # x is fed: never written
        return out * 1.5 + F.relu(b)     # b is a parameter; out dies at the scale
    main, startup, out = build(f)
    prog = optimized(main, ["x"], [out], PASSES)
    chains = [op for op in prog.global_block().ops if op.type == "fused_elementwise_chain"]
    assert [(op.inputs["X"], op.attrs["inplace"]) for op in chains] == \
        [([next(op.outputs["Out"][0] for op in main.global_block().ops if op.type == "matmul_v2"), "x"], 0),
         ([chains[0].outputs["Out"][0]], 0)]
    assert "relu" in op_types(prog)          # relu(b): b is a parameter, stays a plain op
    feed = {"x": rng.standard_normal((4, 8)).astype(np.float32)}
    x_before = feed["x"].copy()
    scope = static.Scope()
    run(startup, {}, (), (), scope=scope)
    w_before = scope.vars["b_ip"].copy()
    on, _ = run(main, feed, [out], PASSES, scope=scope)
    np.testing.assert_array_equal(feed["x"], x_before)
    np.testing.assert_array_equal(scope.vars["b_ip"], w_before)
    off, _ = run(main, feed, [out], (), scope=scope)
    np.testing.assert_array_equal(on[0], off[0])


def test_fetched_or_twice_read_values_are_not_reused():
    def f():
        x = static.data("x", [4, 8], "float32")
        h = paddle.matmul(x, x, transpose_y=True)
        g = paddle.matmul(x, x, transpose_y=True)
        return h + 1.0, h, g * g
    main, _, fetch = build(f)
    prog = optimized(main, ["x"], fetch, PASSES)
    assert "fused_elementwise_chain" not in op_types(prog)
    assert_same_on_off(main, {"x": rng.standard_normal((4, 8)).astype(np.float32)}, fetch, PASSES)


def test_broadcasting_into_a_smaller_buffer_falls_back():
    def f():
        x = static.data("x", [-1, 1], "float32")
        y = static.data("y", [-1, 5], "float32")
        h = paddle.matmul(x, paddle.ones([1, 1]))   # static shape [-1, 1]; the sum is [n, 5]
        return paddle.exp(h) + y
    main, _, out = build(f)
    feed = {"x": rng.standard_normal((3, 1)).astype(np.float32), "y": rng.standard_normal((3, 5)).astype(np.float32)}
    assert_same_on_off(main, feed, [out], ["dce", "fuse_elementwise", "inplace"])


def _chain(steps, inplace):
    import json
    from runtime.ops.fused import _make_chain
    return _make_chain(json.dumps(steps), inplace)


def test_kernel_writes_into_the_buffer_only_when_exact():
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    add_relu = [["elementwise_add", {"axis": -1}, [0, 1]], ["relu", {}, [-1]]]
    buf = a.copy()
    out = _chain(add_relu, 0)([buf, b])
    assert out is buf                                      # written in place
    np.testing.assert_array_equal(out, np.maximum(a + b, 0))
    # float64 operand: the result is float64, the float32 buffer is left alone
    buf = a.copy()
    out = _chain(add_relu, 0)([buf, b.astype(np.float64)])
    assert out.dtype == np.float64 and out is not buf
    np.testing.assert_array_equal(buf, a)
    np.testing.assert_array_equal(out, np.maximum(a + b.astype(np.float64), 0))
    # the buffer would have to grow (broadcasting): a new array
    small = a[:1].copy()
    out = _chain(add_relu, 0)([small, b])
    np.testing.assert_array_equal(small, a[:1])
    np.testing.assert_array_equal(out, np.maximum(a[:1] + b, 0))
    # read-only buffers (shared constants) are never written
    ro = a.copy()
    ro.flags.writeable = False
    out = _chain([["scale", {"scale": 2.0, "bias": 1.0, "bias_after_scale": True}, [0]], ["tanh", {}, [-1]]], 0)([ro])
    np.testing.assert_array_equal(ro, a)
    np.testing.assert_array_equal(out, np.tanh(a * 2.0 + 1.0))
    # without ``inplace`` the inputs are never written, but later steps reuse the first result
    buf = a.copy()
    out = _chain(add_relu, -1)([buf, b])
    assert out is not buf
    np.testing.assert_array_equal(buf, a)
    # 0-D operands: numpy gives scalars, no buffer to write
    out = _chain(add_relu, 0)([np.array(1.5, np.float32), np.array(-0.5, np.float32)])
    assert float(out) == 1.0
