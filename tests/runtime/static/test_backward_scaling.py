"""Static backward (runtime/static/backward.py) does work linear in the program's length.

Counted with tests/runtime/static/work_counter.py (bytecodes of our code, Operator comparisons),
never timed. Renaming a gradient (``<var>@GRAD``) used to walk back over every op built since the
gradient was made, and to scan every op of every grad sub-block; pruning the grad ops scanned
every block of the program once per control-flow op: append_backward was quadratic in programs
with many parameters used once or many conditionals.
"""
import numpy as np
import pytest

import runtime
from runtime import static
from runtime.dispatch import run_op
from runtime.static.backward import append_backward

from .work_counter import assert_linear, counting


@pytest.fixture(autouse=True)
def static_mode():
    runtime.enable_static()
    try:
        yield
    finally:
        runtime.disable_static()


def _layers(n):
    """``n`` matmuls, each with its own parameter: every parameter's gradient is named only when
    the backward ends, long after the grad op computing it was built."""
    main = static.Program()
    with static.program_guard(main, static.Program()):
        h = static.data("x", [2, 4], "float32")
        for i in range(n):
            w = main.global_block().create_parameter(f"w{i}", [4, 4], "float32")
            h = run_op("tanh", run_op("matmul_v2", h, w))
        loss = run_op("reduce_sum", h, reduce_all=True)
    return main, loss


def _conds(n):
    """``n`` conditionals on a value needing a gradient: 2n sub-blocks and 2n grad sub-blocks."""
    main = static.Program()
    with static.program_guard(main, static.Program()):
        w = main.global_block().create_parameter("w", [3], "float32")
        h = run_op("scale", w, scale=1.0)
        for _ in range(n):
            pred = run_op("reduce_mean", h, reduce_all=True) > 0.0
            h = static.nn.cond(pred, lambda h=h: h * 0.5, lambda h=h: h + 1.0)
        loss = run_op("reduce_sum", h, reduce_all=True)
    return main, loss


def _backward_work(build, n):
    main, loss = build(n)
    with static.program_guard(main, static.Program()):
        with counting() as work:
            pairs = append_backward(loss)
    assert pairs, "the loss has no parameter gradient"
    return work


@pytest.mark.parametrize("build,small", [(_layers, 40), (_conds, 15)], ids=["parameters", "conditionals"])
def test_append_backward_work_grows_linearly(build, small):
    # linear code: ~4x the bytecodes; the quadratic walks gave ~10x here
    assert_linear(lambda n: _backward_work(build, n), small, 4 * small)


def test_gradients_still_correct_after_renames():
    """The renamed gradients are the ones the ops write and read (values checked by differences)."""
    main, loss = _layers(6)
    with static.program_guard(main, static.Program()):
        pairs = append_backward(loss)
    main.verify()
    rng = np.random.default_rng(0)
    scope = static.Scope()
    ws = {f"w{i}": rng.standard_normal((4, 4)).astype(np.float32) * 0.5 for i in range(6)}
    scope.vars.update(ws)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    exe = static.Executor()
    grads = exe.run(main, feed={"x": x}, fetch_list=[g.name for _, g in pairs], scope=scope)
    assert [p.name for p, _ in pairs] == [f"w{i}" for i in range(6)]
    assert [g.name for _, g in pairs] == [f"w{i}@GRAD" for i in range(6)]

    def f(ws_):
        h = x.astype(np.float64)
        for i in range(6):
            h = np.tanh(h @ ws_[f"w{i}"].astype(np.float64))
        return h.sum()
    eps = 1e-4
    for i in (0, 5):
        w = ws[f"w{i}"].astype(np.float64)
        num = np.zeros_like(w)
        for idx in np.ndindex(*w.shape):
            up, dn = dict(ws), dict(ws)
            wp, wm = w.copy(), w.copy()
            wp[idx] += eps
            wm[idx] -= eps
            up[f"w{i}"], dn[f"w{i}"] = wp, wm
            num[idx] = (f(up) - f(dn)) / (2 * eps)
        np.testing.assert_allclose(grads[i], num, rtol=2e-3, atol=2e-3)
