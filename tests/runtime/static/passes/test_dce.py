"""dce: ops whose outputs nothing reads go; fetched, persistable, random and side-effecting ops stay."""
import numpy as np

import dy2st as paddle
from runtime import static

from .util import assert_same_on_off, build, op_types, optimized

FEED = {"x": np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)}


def program():
    x = static.data("x", [2, 2], "float32")
    y = paddle.nn.functional.relu(x)
    paddle.exp(x)                       # dead
    paddle.tanh(paddle.exp(x) * 2.0)    # a dead chain
    paddle.uniform([2])                 # dead, but random: dropping it would shift later draws
    static.Print(x, message="kept")     # side effect
    return y


def test_dead_ops_go_random_and_print_stay(capsys):
    main, _, y = build(program)
    prog = optimized(main, ["x"], [y], ["dce"])
    assert op_types(prog) == ["relu", "uniform_random", "print"]
    assert op_types(main).count("exp") == 2        # the user's Program is untouched
    assert_same_on_off(main, FEED, [y], ["dce"])


def test_fetched_intermediates_stay():
    main, _, y = build(program)
    e = next(op for op in main.global_block().ops if op.type == "exp").outputs["Out"][0]
    prog = optimized(main, ["x"], [y, e], ["dce"])
    assert op_types(prog).count("exp") == 1


def test_persistable_writes_stay_and_no_fetch_removes_nothing():
    def build_acc():
        x = static.data("x", [2, 2], "float32")
        acc = static.create_global_var([2, 2], 0.0, "float32", persistable=True, name="acc")
        static.default_main_program().global_block().append_op("assign", {"X": [acc + x]}, {"Out": [acc]})
        paddle.exp(x)
        return x
    main, _, x = build(build_acc)
    assert op_types(optimized(main, ["x"], [x], ["dce"])) == ["elementwise_add", "assign"]
    assert op_types(optimized(main, ["x"], [], ["dce"])) == op_types(main)
