"""Static gradients through cond / while_loop with plain static API, against eager (float64).

Regressions: a while loop variable that only needs gradients because of the body (``s = zeros``;
``s = cond(.., s + row, s)``) lost them whenever the un-taken branch passed it through; several
targets of ``gradients`` where one is computed from another; a while body handing out an outer
variable unchanged as a loop variable's new value; ops built under ``paddle.no_grad()``.
Every Program runs with both executors (compiled and interpreter).
"""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import static
from runtime.static import VarType

BACKENDS = ("compiled", "interpreter")


@pytest.fixture(autouse=True)
def static_mode():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


def _run(main, feed, fetch):
    main.verify()
    results = []
    for backend in BACKENDS:
        exe = static.Executor(backend=backend) if backend != "compiled" else static.Executor()
        results.append(exe.run(main, feed=feed, fetch_list=fetch))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, err_msg="compiled and interpreter executors differ")
    return results[0]


def _eager(fn, *arrays):
    """fn on eager float64 tensors: (value, gradients of value.sum() w.r.t. each input)."""
    paddle.disable_static()
    try:
        ts = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
        out = fn(*ts)
        out.sum().backward()
        return out.numpy(), [t.grad.numpy() if t.grad is not None else np.zeros_like(a)
                             for t, a in zip(ts, arrays)]
    finally:
        paddle.enable_static()


# -- bug 1: a loop variable that needs gradients only through the body --------------------------------

def _rows_loop(x, n_rows, false_scale):
    """s = 0; for each row: s = s + row if row.sum() > 0 else s * false_scale (static)."""
    i = paddle.full([1], 0, "int64")
    n = paddle.full([1], n_rows, "int64")
    s = paddle.zeros([x.shape[1]], "float64")

    def body(i, s):
        row = paddle.gather(x, i).reshape([x.shape[1]])
        s2 = static.nn.cond(row.sum() > 0, lambda: s + row, lambda: s * false_scale)
        return i + 1, s2
    return static.nn.while_loop(lambda i, s: i < n, body, [i, s])[1]


def _rows_eager(x, false_scale):
    s = paddle.zeros([x.shape[1]], "float64")
    for k in range(x.shape[0]):
        row = x[k]
        s = s + row if float(row.sum()) > 0 else s * false_scale
    return s


@pytest.mark.parametrize("xv", [
    np.array([[1.0, 2.0], [3.0, 4.0], [-5.0, -6.0]]),     # branch not taken on the last iteration
    np.array([[-1.0, -2.0], [3.0, 4.0], [5.0, -1.0]]),    # not taken on the first one
    np.array([[1.0, 2.0], [-3.0, -4.0], [-5.0, -6.0]]),   # taken only on the first one
], ids=["last_not_taken", "first_not_taken", "only_first_taken"])
@pytest.mark.parametrize("false_scale", [1.0, 0.5])
def test_while_with_cond_gradient_every_iteration_decides(xv, false_scale):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", list(xv.shape), "float64")
        x.stop_gradient = False
        s = _rows_loop(x, xv.shape[0], false_scale)
        assert not s.stop_gradient
        (g,) = static.gradients([s.sum()], [x])
    out, gx = _run(main, {"x": xv}, [s, g])
    want, (want_g,) = _eager(lambda t: _rows_eager(t, false_scale), xv)
    np.testing.assert_allclose(out, want)
    np.testing.assert_allclose(gx, want_g)


def test_while_loop_var_flags_reach_a_fixpoint():
    """r and s start as constants and need gradients only through later iterations (x -> t -> s -> r):
    the flags of the loop variables and of the body values computed from them reach the fixpoint."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        i = paddle.full([1], 0, "int64")
        zeros = [paddle.zeros([2], "float64") for _ in range(3)]
        seen = {}

        def body(i, r, s, t):
            seen["r"] = s * 3.0
            return i + 1, seen["r"], t * 2.0, t + x
        _, r, s, t = static.nn.while_loop(lambda i, r, s, t: i < 3, body, [i] + zeros)
        assert not r.stop_gradient and not s.stop_gradient and not t.stop_gradient
        assert not seen["r"].stop_gradient
        gr, gs = static.gradients([r.sum()], [x])[0], static.gradients([s.sum()], [x])[0]
    rv, sv, grv, gsv = _run(main, {"x": np.array([1.0, 2.0])}, [r, s, gr, gs])
    # t: x, 2x, 3x; s: 0, 2x, 4x; r: 0, 0, 6x
    np.testing.assert_allclose(rv, [6.0, 12.0])
    np.testing.assert_allclose(sv, [4.0, 8.0])
    np.testing.assert_allclose(grv, [6.0, 6.0])
    np.testing.assert_allclose(gsv, [4.0, 4.0])


def test_while_loop_keeps_a_detach_in_the_body():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        i = paddle.full([1], 0, "int64")
        cut = {}

        def body(i, s):
            cut["d"] = s.detach()
            return i + 1, cut["d"] * 0.5 + x
        _, s_out = static.nn.while_loop(lambda i, s: i < 3, body, [i, x * 1.0])
        assert cut["d"].stop_gradient and not s_out.stop_gradient
        (g,) = static.gradients([s_out.sum()], [x])
    (gx,) = _run(main, {"x": np.array([1.0, 2.0])}, [g])
    np.testing.assert_allclose(gx, [1.0, 1.0])   # only the last iteration's x reaches s


def test_while_loop_without_gradients_keeps_flags():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        i = paddle.full([1], 0, "int64")
        s = paddle.zeros([2], "float64")
        _, s_out = static.nn.while_loop(lambda i, s: i < 3, lambda i, s: [i + 1, s + 1.0], [i, s])
        assert s_out.stop_gradient
    (v,) = _run(main, {}, [s_out])
    np.testing.assert_allclose(v, [3.0, 3.0])


# -- bug 3: several targets, one computed from another -------------------------------------------------

def test_gradients_of_several_targets_one_reading_another():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        y = x * 2.0
        z = paddle.exp(y) * y
        (g,) = static.gradients([y, z], [x])
        gy = static.gradients([y, z], [y])[0]
    xv = np.array([0.1, -0.3, 0.5])
    gx, gyv = _run(main, {"x": xv}, [g, gy])
    _, (want,) = _eager(lambda t: (t * 2.0) + paddle.exp(t * 2.0) * (t * 2.0), xv)
    np.testing.assert_allclose(gx, want)
    np.testing.assert_allclose(gyv, 1.0 + np.exp(2 * xv) * (1 + 2 * xv))


def test_gradients_of_several_targets_with_target_gradients():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        dy = static.data("dy", [2], "float64")
        dz = static.data("dz", [2], "float64")
        y = x * x
        z = y * 3.0
        (g,) = static.gradients([y, z], [x], target_gradients=[dy, dz])
    xv, dyv, dzv = np.array([1.0, 2.0]), np.array([1.0, -1.0]), np.array([0.5, 2.0])
    (gx,) = _run(main, {"x": xv, "dy": dyv, "dz": dzv}, [g])
    np.testing.assert_allclose(gx, 2 * xv * (dyv + 3 * dzv))


def test_append_backward_names_the_loss_gradient():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        loss = (x * x).sum()
        static.gradients([loss], [x])
    assert loss.name + "@GRAD" in main.global_block().vars


# -- bug 4: a while body handing out an outer variable as a new value --------------------------------

def test_while_loop_new_values_from_outside_the_body():
    """``return i + 1, b, a * 2, x``: a loop variable's new value is another loop variable (a swap) or
    an input of the loop; the swap must read the values from before the iteration."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        i = paddle.full([1], 0, "int64")
        loop = [i, x * 1.0, x * 3.0, paddle.zeros([3], "float64")]
        _, a, b, c = static.nn.while_loop(lambda i, a, b, c: i < 3, lambda i, a, b, c: [i + 1, b, a * 2.0, x],
                                          loop)
        (g,) = static.gradients([(a + b * 10.0 + c * 100.0).sum()], [x])
    xv = np.array([1.0, 2.0, 3.0])
    av, bv, gx = _run(main, {"x": xv}, [a, b, g])
    # (a, b): (x, 3x) -> (3x, 2x) -> (2x, 6x) -> (6x, 4x)
    np.testing.assert_allclose(av, 6 * xv)
    np.testing.assert_allclose(bv, 4 * xv)
    np.testing.assert_allclose(gx, np.full(3, 6.0 + 40.0 + 100.0))


def _hand_built_while(main, x, n_iter, passthrough, init=None):
    """A while op whose body's final assign reads an outer variable directly (no op of the body computes
    the new value), as Programs not built by while_loop may have it."""
    block = main.current_block()
    i = paddle.full([1], 0, "int64")
    n = paddle.full([1], n_iter, "int64")
    s = paddle.zeros([3], "float64") if init is None else init
    s.stop_gradient = False
    pre = paddle.less_than(i, n)
    body = main._create_block()
    try:
        i2 = i + 1
        c2 = paddle.less_than(i2, n)
        src = x if passthrough == "outer" else s
        body.append_op("assign", {"X": [src]}, {"Out": [s]})
        body.append_op("assign", {"X": [i2]}, {"Out": [i]})
        body.append_op("assign", {"X": [c2]}, {"Out": [pre]})
    finally:
        main._rollback()
    scope = block.create_var(name="hand_while_scopes", type=VarType.STEP_SCOPES)
    block.append_op("while", {"X": [x, i, n, s] if passthrough == "outer" else [i, n, s], "Condition": [pre]},
                    {"Out": [s, i, pre], "StepScopes": [scope]}, {"sub_block": body.idx, "is_test": False})
    return s


@pytest.mark.parametrize("n_iter,want", [(2, 1.0), (0, 0.0)])
def test_while_grad_outer_variable_as_new_value(n_iter, want):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        s = _hand_built_while(main, x, n_iter, "outer")
        (g,) = static.gradients([(s * np.array([1.0, 2.0, 3.0])).sum()], [x])
    out, gx = _run(main, {"x": np.array([4.0, 5.0, 6.0])}, [s, g])
    np.testing.assert_allclose(out, [4.0, 5.0, 6.0] if n_iter else [0.0, 0.0, 0.0])
    np.testing.assert_allclose(gx, want * np.array([1.0, 2.0, 3.0]))


def test_while_grad_loop_variable_passed_through_unchanged():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        s = _hand_built_while(main, x, 2, "self", init=x * 2.0)
        (g,) = static.gradients([s.sum()], [x])
    out, gx = _run(main, {"x": np.array([1.0, 2.0, 3.0])}, [s, g])
    np.testing.assert_allclose(out, [2.0, 4.0, 6.0])
    np.testing.assert_allclose(gx, [2.0, 2.0, 2.0])


# -- bug 5: paddle.no_grad() while building ----------------------------------------------------------------

def test_no_grad_cuts_what_is_built_under_it():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        with paddle.no_grad():
            c = x * 2.0
            d = paddle.exp(x)
        assert c.stop_gradient and d.stop_gradient
        y = x + c + d
        assert not y.stop_gradient
        (g,) = static.gradients([y.sum()], [x])
    xv = np.array([0.5, 1.0, 2.0])
    yv, gx = _run(main, {"x": xv}, [y, g])
    np.testing.assert_allclose(yv, xv + 2 * xv + np.exp(xv))
    np.testing.assert_allclose(gx, np.ones(3))
    _, (want,) = _eager(lambda t: t + _no_grad(lambda: t * 2.0 + paddle.exp(t)), xv)
    np.testing.assert_allclose(gx, want)


def _no_grad(fn):
    with paddle.no_grad():
        return fn()


def test_no_grad_cond_and_while_loop_outputs():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        with paddle.no_grad():
            r = static.nn.cond(x.sum() > 0, lambda: x * 3.0, lambda: x)
        i = paddle.full([1], 0, "int64")

        def body(i, s):
            with paddle.no_grad():
                extra = s * 10.0
            return i + 1, s + x + extra * 0.0
        _, s = static.nn.while_loop(lambda i, s: i < 2, body, [i, paddle.zeros([2], "float64")])
        assert r.stop_gradient and not s.stop_gradient
        (g,) = static.gradients([(r + x + s).sum()], [x])
    (gx,) = _run(main, {"x": np.array([1.0, 2.0])}, [g])
    np.testing.assert_allclose(gx, [3.0, 3.0])   # 1 from x, 2 from the two iterations' "+ x"


def test_enable_grad_inside_no_grad_builds_normally():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        with paddle.no_grad():
            with paddle.enable_grad():
                y = x * 5.0
        assert not y.stop_gradient
        (g,) = static.gradients([y.sum()], [x])
    (gx,) = _run(main, {"x": np.array([1.0, 2.0])}, [g])
    np.testing.assert_allclose(gx, [5.0, 5.0])
