"""cse: a pure op repeating an earlier one (type, inputs, attrs) is dropped; random ops never merge."""
import numpy as np

import dy2st as paddle
from runtime import static

from .util import assert_same_on_off, build, op_types, optimized

FEED = {"x": np.array([0.5, -1.0, 2.0], np.float32)}


def test_duplicate_pure_ops_merge():
    def f():
        x = static.data("x", [3], "float32")
        a = paddle.exp(x) * 2.0
        b = paddle.exp(x) * 2.0          # exp and scale both repeat
        c = paddle.exp(x) * 3.0          # other attrs: only its exp repeats
        return a + b + c
    main, _, out = build(f)
    prog = optimized(main, ["x"], [out], ["dce", "cse"])
    assert op_types(prog).count("exp") == 1 and op_types(prog).count("scale") == 2
    assert_same_on_off(main, FEED, [out], ["dce", "cse"])


def test_random_ops_and_fetched_duplicates_stay():
    def f():
        x = static.data("x", [3], "float32")
        u1 = paddle.uniform([3], seed=0)
        u2 = paddle.uniform([3], seed=0)
        a, b = paddle.exp(x), paddle.exp(x)
        return u1 + u2, a, b
    main, _, (u, a, b) = build(f)
    prog = optimized(main, ["x"], [u, a, b], ["dce", "cse"])
    assert op_types(prog).count("uniform_random") == 2
    assert op_types(prog).count("exp") == 2           # b is fetched: it keeps its own op
    prog = optimized(main, ["x"], [u, a], ["dce", "cse"])
    assert op_types(prog).count("exp") == 1


def test_inputs_written_twice_do_not_merge():
    def f():
        x = static.data("x", [3], "float32")
        acc = static.create_global_var([3], 1.0, "float32", persistable=True, name="acc_cse")
        a = paddle.exp(acc)
        static.default_main_program().global_block().append_op("assign", {"X": [acc + x]}, {"Out": [acc]})      # acc changes between the two reads
        b = paddle.exp(acc)
        return a + b
    main, startup, out = build(f)
    prog = optimized(main, ["x"], [out], ["dce", "cse"])
    assert op_types(prog).count("exp") == 2
    assert_same_on_off(main, FEED, [out], ["dce", "cse"], startup=startup)
