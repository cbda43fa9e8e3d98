"""constant_fold: pure ops on constants become ``folded_constant``; random, large, fetched and
escaping values stay computed at run time."""
import numpy as np

import dy2st as paddle
from runtime import static

from .util import assert_same_on_off, build, op_types, optimized

FEED = {"x": np.ones((2, 2), np.float32)}


def test_constant_subgraph_folds():
    def f():
        x = static.data("x", [2, 2], "float32")
        c = paddle.full([2, 2], 3.0)
        d = (c + c) * 0.5 - 1.0          # all constant
        return x * d
    main, _, out = build(f)
    prog = optimized(main, ["x"], [out], ["dce", "constant_fold"])
    assert op_types(prog) == ["folded_constant", "elementwise_mul"]
    src = assert_same_on_off(main, FEED, [out], ["dce", "constant_fold"])
    assert "folded_constant()" in src


def test_not_folded_random_large_fetched_escaping():
    def f():
        x = static.data("x", [2, 2], "float32")
        u = paddle.uniform([2, 2]) + 1.0                 # random
        big = paddle.full([100, 100], 1.0) * 2.0         # 10000 elements > MAX_ELEMENTS
        c = paddle.full([2, 2], 2.0)                     # fetched below
        r = paddle.reshape(paddle.full([4], 5.0), [2, 2])  # reshape may return a view: must not escape
        return x + u + paddle.sum(big), c, r
    main, _, (out, c, r) = build(f)
    prog = optimized(main, ["x"], [out, c, r], ["dce", "constant_fold"])
    types = op_types(prog)
    assert "uniform_random" in types and types.count("fill_constant") == 3 and "folded_constant" not in types


def test_folded_value_is_read_only_and_shared():
    def f():
        x = static.data("x", [2], "float32")
        return x + paddle.full([2], 4.0)
    main, _, out = build(f)
    prog = optimized(main, ["x"], [out], ["constant_fold"])
    op = prog.global_block().ops[0]
    assert op.type == "folded_constant"
    from runtime.ops.registry import lookup
    k = lookup("folded_constant").bind(op.attrs)
    assert k() is k() and not k().flags.writeable
    np.testing.assert_array_equal(k(), [4.0, 4.0])
