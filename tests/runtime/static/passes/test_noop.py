"""noop: scale by 1, assign, cast to the dtype it surely has and reshape to the same static shape go."""
import numpy as np

import dy2st as paddle
from runtime import static

from .util import assert_same_on_off, build, op_types, optimized

FEED = {"x": np.array([[1.5, -2.0, 3.25]], np.float32)}


def test_noops_removed():
    def f():
        x = static.data("x", [1, 3], "float32")
        a = paddle.scale(paddle.exp(x), scale=1.0, bias=0.0)
        b = paddle.assign(a)
        c = paddle.cast(paddle.cast(b, "float64"), "float64")
        d = paddle.reshape(c, [1, 3])
        return paddle.tanh(d)
    main, _, out = build(f)
    prog = optimized(main, ["x"], [out], ["dce", "noop"])
    assert op_types(prog) == ["exp", "cast", "tanh"]
    assert_same_on_off(main, FEED, [out], ["dce", "noop"])


def test_kept_when_not_sure_or_fetched():
    def f():
        x = static.data("x", [-1, 3], "float32")
        e = paddle.exp(x)
        c = paddle.cast(e, "float32")            # e's dtype is only inferred: the cast stays
        r = paddle.reshape(e, [-1, 3])           # unknown static dim: stays
        s = paddle.scale(e, scale=1.0, bias=0.5)
        a = paddle.assign(e)                     # fetched: stays
        return c + r + s, a
    main, _, (out, a) = build(f)
    prog = optimized(main, ["x"], [out, a], ["dce", "noop"])
    assert [t for t in op_types(prog) if t in ("cast", "reshape2", "scale", "assign")] == \
        ["cast", "reshape2", "scale", "assign"]
    assert_same_on_off(main, FEED, [out, a], ["dce", "noop"])
