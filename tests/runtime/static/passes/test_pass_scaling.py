"""Graph passes do work linear in the program's length (counted with work_counter, never timed).

cse and noop renamed the readers of each removed op's output by walking the whole block (one walk
per removed op); fuse_gemm and fuse_elementwise found each fused op's position with
``block.ops.index`` (a scan per fusion): each was quadratic in the number of ops.
"""
import numpy as np
import pytest

import dy2st as paddle
from runtime import static
from runtime.dispatch import run_op
from runtime.static.passes.manager import PASSES

from ..work_counter import assert_linear, counting
from .util import assert_same_on_off, build, names

X = np.linspace(-1.0, 1.0, 8, dtype=np.float32).reshape(2, 4)


def _program(kind, n):
    def f():
        x = static.data("x", [2, 4], "float32")
        w = paddle.static.create_parameter([4, 4], "float32", name="w")
        b = paddle.static.create_parameter([4], "float32", name="b")
        h = x
        for _ in range(n):
            if kind == "noop":        # every assign is dropped, its readers read its source
                h = run_op("assign", run_op("tanh", h))
            elif kind == "cse":       # every second tanh repeats the first one
                h = run_op("tanh", h) * 0.5 + run_op("tanh", h)
            elif kind == "fuse_gemm":
                h = run_op("tanh", paddle.matmul(h, w) + b)
            else:                     # fuse_elementwise: a tanh -> exp chain after each matmul
                h = run_op("exp", run_op("tanh", paddle.matmul(h, w)))
        return h
    main, startup, out = build(f)
    return main, startup, out


def _pass_work(kind, n):
    main, _, out = _program(kind, n)
    prog = main.clone()
    with counting() as work:
        changed = PASSES[kind](prog, ("x",), names([out]))
    assert changed >= n - 1, f"{kind} changed {changed} places in a program built for {n}"
    return work


@pytest.mark.parametrize("kind", ["noop", "cse", "fuse_gemm", "fuse_elementwise"])
def test_pass_work_grows_linearly(kind):
    # linear code: ~4x the bytecodes and no op comparisons; the walks over the block (cse, noop) and
    # the ``ops.index`` scans (fusions: 16x the comparisons) were quadratic
    assert_linear(lambda n: _pass_work(kind, n), 60, 240)


@pytest.mark.parametrize("kind", ["noop", "cse", "fuse_gemm", "fuse_elementwise"])
def test_pass_results_unchanged(kind):
    main, startup, out = _program(kind, 5)
    assert_same_on_off(main, {"x": X}, [out], ["dce", kind], startup=startup)
