"""Cheap compiled control flow: the if/else pattern as one ``if``/``else``, constants computed once
(shared read-only, or copied when they could escape), assigns that alias fresh temporaries. Every
program also runs on the interpreter: outputs (and gradients) must be bit-identical."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.static.codegen import compile_program
from runtime.static.codegen_patterns import find_aliases
from runtime.static.passes import DEFAULT
from runtime.static.executor import Executor


@pytest.fixture(autouse=True)
def static_mode():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


def build(fn):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        outs = fn()
    main.verify()
    return main, startup, outs


def source(main, feed_names, fetch):
    """The generated code (default passes, whatever DY2ST_PASSES says) without its comment lines
    (they quote the user's source)."""
    fetch = [f if isinstance(f, str) else f.name for f in fetch]
    src = compile_program(main, feed_names, fetch, passes=DEFAULT).source
    compile(src, "<check>", "exec")
    return "\n".join(ln for ln in src.splitlines() if not ln.strip().startswith("#")) + "\n"


def same_as_interpreter(main, feed, fetch, startup=None, runs=2):
    """Run compiled and interpreted (each in a fresh scope, ``runs`` times): bit-identical results."""
    results = {}
    for backend in ("compiled", "interpreter"):
        scope = static.Scope()
        with static.scope_guard(scope):
            exe = Executor(backend=backend)
            if startup is not None:
                exe.run(startup)
            for _ in range(runs):
                out = exe.run(main, feed=feed, fetch_list=fetch)
        results[backend] = out
    for a, b in zip(results["compiled"], results["interpreter"]):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    return results["compiled"]


def lines_of(src):
    return [ln.strip() for ln in src.splitlines()]


# -- the if/else pattern ------------------------------------------------------------------------------

def simple_cond():
    x = static.data("x", [3], "float32")
    y = static.nn.cond(paddle.mean(x) > 0.5, lambda: x * 2.0, lambda: x - 1.0)
    return y


def test_cond_compiled_as_one_if_else():
    main, _, y = build(simple_cond)
    src = source(main, ["x"], [y])
    print(src)
    ls = lines_of(src)
    assert sum(ln.startswith("if _truth(") for ln in ls) == 1
    assert ls.count("else:") == 1
    assert "_mask(" not in src and "logical_not(" not in src and "cast(" not in src
    assert "assign(" not in src            # branch outputs alias the fresh scale results
    assert f"{y.name} = " in src
    for xv in ([1.0, 2.0, 3.0], [-1.0, 0.0, 0.5]):      # both branches
        out, = same_as_interpreter(main, {"x": np.array(xv, np.float32)}, [y])
        np.testing.assert_array_equal(out, np.array(xv, np.float32) * 2 if np.mean(xv) > 0.5
                                      else np.array(xv, np.float32) - 1)


def test_cond_pattern_falls_back_when_not_c_is_used_elsewhere():
    holder = {}

    def f():
        x = static.data("x", [3], "float32")
        y = static.nn.cond(paddle.mean(x) > 0.5, lambda: x * 2.0, lambda: x - 1.0)
        lnot = next(op for op in static.default_main_program().global_block().ops if op.type == "logical_not")
        holder["nc"] = lnot.output("Out")[0]
        return y
    main, _, y = build(f)
    src = source(main, ["x"], [y, holder["nc"]])
    assert "logical_not(" in src and "_mask(" in src and "else:" not in src
    for xv in ([1.0, 2.0, 3.0], [-1.0, 0.0, 0.5]):
        same_as_interpreter(main, {"x": np.array(xv, np.float32)}, [y, holder["nc"]])


def test_cond_with_a_gradient_reading_its_scopes_keeps_the_op_by_op_code():
    def f():
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        y = static.nn.cond(paddle.sum(x) > 0, lambda: x * x, lambda: x * 3.0)
        g, = static.gradients([y.sum()], [x])
        return y, g
    main, _, (y, g) = build(f)
    for xv in ([1.0, 2.0, 3.0], [-1.0, -2.0, 0.5]):
        out, gx = same_as_interpreter(main, {"x": np.array(xv)}, [y, g])
        xa = np.array(xv)
        np.testing.assert_array_equal(gx, 2 * xa if xa.sum() > 0 else np.full(3, 3.0))


def cond_in_while():
    x = static.data("x", [2], "float32")
    n = static.data("n", [1], "int64")
    i = paddle.zeros([1], "int64")

    def body(i, y):
        y2 = static.nn.cond(paddle.sum(y) > 4, lambda: y * 0.5, lambda: y + 2.0)
        return [i + 1, y2]
    return static.nn.while_loop(lambda i, y: i < n, body, [i, x])[1]


@pytest.mark.parametrize("trips", [0, 1, 3])
def test_cond_inside_while(trips):
    main, _, y = build(cond_in_while)
    src = source(main, ["x", "n"], [y])
    ls = src.splitlines()
    # the fused if/else is inside the loop body (two levels of indentation)
    assert any(ln.startswith("        if _truth(") for ln in ls) and "        else:" in ls
    assert "_mask(" not in src and "fill_constant(" not in src
    feed = {"x": np.array([1.0, 2.0], np.float32), "n": np.array([trips], np.int64)}
    same_as_interpreter(main, feed, [y])


def while_in_cond():
    x = static.data("x", [2], "float32")
    n = static.data("n", [1], "int64")

    def loop():
        i = paddle.zeros([1], "int64")
        return static.nn.while_loop(lambda i, y: i < n, lambda i, y: [i + 1, y * 1.5 + 1.0], [i, x])[1]
    return static.nn.cond(paddle.sum(x) > 0, loop, lambda: x - 3.0)


@pytest.mark.parametrize("trips", [0, 1, 3])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_while_inside_cond(trips, sign):
    main, _, y = build(while_in_cond)
    src = source(main, ["x", "n"], [y])
    assert "        while _truth(" in src and "_mask(" not in src
    feed = {"x": np.array([1.0, 2.0], np.float32) * sign, "n": np.array([trips], np.int64)}
    same_as_interpreter(main, feed, [y])


def nested_conds_in_while():
    x = static.data("x", [2], "float32")
    n = static.data("n", [1], "int64")

    def body(i, y):
        def inner_true():
            return static.nn.cond(paddle.max(y) > 3.0, lambda: y * 0.25, lambda: y + 0.5)
        y2 = static.nn.cond(paddle.sum(y) > 2, inner_true, lambda: y + 2.0)
        return [i + 1, y2]
    i = paddle.zeros([1], "int64")
    return static.nn.while_loop(lambda i, y: i < n, body, [i, x])[1]


@pytest.mark.parametrize("trips", [0, 1, 3, 6])
def test_nested_conds_in_while(trips):
    main, _, y = build(nested_conds_in_while)
    src = source(main, ["x", "n"], [y])
    assert src.count("else:") == 2 and "_mask(" not in src
    feed = {"x": np.array([0.5, 1.0], np.float32), "n": np.array([trips], np.int64)}
    same_as_interpreter(main, feed, [y])


@pytest.mark.parametrize("trips", [0, 1, 3])
def test_gradients_through_cond_in_while(trips):
    def f():
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        n = paddle.full([1], trips, "int64")
        i = paddle.full([1], 0, "int64")

        def body(i, y):
            y2 = static.nn.cond(paddle.sum(y) > 3, lambda: y * 0.5, lambda: y * y + 1.0)
            return [i + 1, y2]
        y = static.nn.while_loop(lambda i, y: i < n, body, [i, x * 1.0])[1]
        g, = static.gradients([y.sum()], [x])
        return y, g
    main, _, (y, g) = build(f)
    same_as_interpreter(main, {"x": np.array([0.5, 1.25])}, [y, g])


# -- constants ------------------------------------------------------------------------------------------

def test_constants_hoisted_out_of_the_while_body():
    main, _, y = build(cond_in_while)
    src = source(main, ["x", "n"], [y])
    body = [ln for ln in src.splitlines() if ln.startswith("        ")]
    assert not any("fill_constant" in ln for ln in body)
    assert "const_" in "\n".join(body)          # the body reads the shared constants (globals)
    assert "fill_constant(" not in src


def test_fetched_constant_is_a_fresh_copy_per_run():
    def f():
        x = static.data("x", [2], "float32")
        c = paddle.full([2], 7.0, "float32")
        return x + c, c
    main, _, (y, c) = build(f)
    src = source(main, ["x"], [y, c])
    assert f"{c.name} = const_fill_constant" in src and ".copy()" in src
    exe = Executor(backend="compiled")
    feed = {"x": np.ones(2, np.float32)}
    out1, c1 = exe.run(main, feed=feed, fetch_list=[y, c])
    assert c1.flags.writeable
    c1[:] = -100.0               # the user writes into the fetched array
    out2, c2 = exe.run(main, feed=feed, fetch_list=[y, c])
    np.testing.assert_array_equal(c2, [7.0, 7.0])
    np.testing.assert_array_equal(out2, [8.0, 8.0])
    assert c2 is not c1
    same_as_interpreter(main, feed, [y, c])


def test_constant_written_to_a_persistable():
    c_name = []

    def f():
        g = static.create_global_var(shape=[2], value=0.0, dtype="float32", persistable=True, name="g_acc")
        h = static.create_global_var(shape=[2], value=0.0, dtype="float32", persistable=True, name="h_acc")
        x = static.data("x", [2], "float32")
        c = paddle.full([2], 3.0, "float32")
        c_name.append(c.name)
        blk = static.default_main_program().global_block()
        blk.append_op("assign", inputs={"X": [c]}, outputs={"Out": [g]})   # a constant into a persistable
        blk.append_op("fill_constant", outputs={"Out": [h]},
                      attrs={"shape": [2], "dtype": 5, "value": 4.0})   # a constant op writing one
        return x + c, g, h
    main, startup, (y, g, h) = build(f)
    src = source(main, ["x"], [y])
    assert f"g_acc = {'const_' + c_name[0]}.copy()" in src       # the assign copies the shared constant
    assert "h_acc = const_fill_constant" in src and "S[name_h_acc] = h_acc" in src
    scope = static.Scope()
    with static.scope_guard(scope):
        exe = Executor(backend="compiled")
        exe.run(startup)
        feed = {"x": np.ones(2, np.float32)}
        exe.run(main, feed=feed, fetch_list=[y])
        gv, hv = scope.vars["g_acc"], scope.vars["h_acc"]
        assert gv.flags.writeable and hv.flags.writeable
        gv[:] = -1.0
        hv[:] = -1.0
        out, = exe.run(main, feed=feed, fetch_list=[y])
        np.testing.assert_array_equal(out, [4.0, 4.0])
        np.testing.assert_array_equal(scope.vars["g_acc"], [3.0, 3.0])
        np.testing.assert_array_equal(scope.vars["h_acc"], [4.0, 4.0])
    same_as_interpreter(main, {"x": np.ones(2, np.float32)}, [y, g, h], startup=startup)


def test_shared_constants_are_read_only():
    main, _, y = build(cond_in_while)
    src = source(main, ["x", "n"], [y])
    exe = Executor(backend="compiled")
    c = exe._compiled(main, ("x", "n"), (y.name,))
    consts = [val for k, val in c.fn.__globals__.items() if k.startswith("const_") and isinstance(val, np.ndarray)]
    assert consts and not any(a.flags.writeable for a in consts)
    assert "const_" in src


def test_constant_made_in_a_branch_and_handed_out():
    def f():
        x = static.data("x", [2], "float32")
        return static.nn.cond(paddle.sum(x) > 0, lambda: paddle.full([2], 5.0, "float32"), lambda: x * 2.0)
    main, _, y = build(f)
    exe = Executor(backend="compiled")
    feed = {"x": np.ones(2, np.float32)}
    out, = exe.run(main, feed=feed, fetch_list=[y])
    assert out.flags.writeable
    out[:] = 0.0
    out2, = exe.run(main, feed=feed, fetch_list=[y])
    np.testing.assert_array_equal(out2, [5.0, 5.0])
    for xv in (1.0, -1.0):
        same_as_interpreter(main, {"x": np.full(2, xv, np.float32)}, [y])


# -- aliasing assigns -----------------------------------------------------------------------------------

def test_loop_carried_assigns_alias_fresh_temporaries():
    def f():
        x = static.data("x", [2], "float32")
        i = paddle.zeros([1], "int64")
        return static.nn.while_loop(lambda i, y: i < 3, lambda i, y: [i + 1, paddle.tanh(y) + y * 0.5], [i, x])[1]
    main, _, y = build(f)
    src = source(main, ["x"], [y])
    print(src)
    body = [ln.strip() for ln in src.splitlines() if ln.startswith("        ")]
    assert not any("assign" in ln for ln in body)       # every loop variable handed over, none copied
    # the loop variable is the fed x itself: the local is rebound, the user's array never written
    feed = {"x": np.array([0.5, -1.0], np.float32)}
    out, = same_as_interpreter(main, feed, [y])
    assert not np.shares_memory(out, feed["x"])


def assign_program(make_src, read_after=False):
    def f():
        x = static.data("x", [2, 3], "float32")
        src = make_src(x)
        dst = paddle.assign(src)
        outs = [dst * 2.0]
        if read_after:
            outs.append(src + 1.0)
        return outs
    return build(f)


@pytest.mark.parametrize("case, aliased", [
    ("fresh", True),           # tanh(x): a new array read only by the assign
    ("feed", False),           # the feed itself
    ("view", False),           # reshape2 may return a view of the feed
    ("read_after", False),     # the source is read again after the assign
])
def test_alias_rule(case, aliased):
    makers = {"fresh": lambda x: paddle.tanh(x), "feed": lambda x: x,
              "view": lambda x: paddle.reshape(x, [3, 2]).reshape([2, 3]),
              "read_after": lambda x: paddle.tanh(x)}
    main, _, outs = assign_program(makers[case], read_after=(case == "read_after"))
    src = source(main, ["x"], outs)
    assert ("assign(" not in src) == aliased, src
    feed = {"x": np.arange(6, dtype=np.float32).reshape(2, 3) / 6}
    same_as_interpreter(main, feed, outs)


def test_fetched_alias_is_not_shared_with_anything():
    def f():
        x = static.data("x", [2], "float32")
        t = paddle.tanh(x)
        return paddle.assign(t)
    main, _, y = build(f)
    src = source(main, ["x"], [y])
    assert "assign(" not in src
    exe = Executor(backend="compiled")
    feed = {"x": np.array([0.1, 0.2], np.float32)}
    out, = exe.run(main, feed=feed, fetch_list=[y])
    out[:] = 9.0
    out2, = exe.run(main, feed=feed, fetch_list=[y])
    np.testing.assert_array_equal(out2, np.tanh(feed["x"]))


def test_alias_decisions_on_a_training_program_with_gradients():
    """Gradient ops read the forward temporaries: those assigns stay copies and results match."""
    def f():
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        i = paddle.full([1], 0, "int64")
        y = static.nn.while_loop(lambda i, y: i < 3, lambda i, y: [i + 1, paddle.tanh(y) * y], [i, x * 1.0])[1]
        g, = static.gradients([y.sum()], [x])
        return y, g
    main, _, (y, g) = build(f)
    same_as_interpreter(main, {"x": np.array([0.3, -0.7])}, [y, g])


def test_kernel_calls_pass_only_non_default_attrs():
    main, _, y = build(simple_cond)
    src = source(main, ["x"], [y])
    # reduce_mean has no make_kernel: called directly with the attrs that differ from its defaults
    assert "reduce_mean(x, " in src and "reduce_all=True" in src
    assert "keep_dim" not in src and "out_dtype" not in src     # equal to the kernel's defaults: not passed


def test_find_aliases_ignores_interpreted_programs():
    main, _, y = build(cond_in_while)
    from runtime.static.codegen_patterns import Uses
    assert find_aliases(main, {}, Uses(main), set(), {}) == set()


def test_cond_with_two_outputs_one_fetched():
    def f():
        x = static.data("x", [3], "float32")
        a, b = static.nn.cond(paddle.mean(x) > 0.5, lambda: (x * 2.0, x + 1.0), lambda: (x - 1.0, x * 3.0))
        return a, b
    main, _, (a, b) = build(f)
    src = source(main, ["x"], [a])
    assert src.count("else:") == 1 and "_mask(" not in src
    for xv in ([1.0, 2.0, 3.0], [-1.0, 0.0, 0.5]):
        same_as_interpreter(main, {"x": np.array(xv, np.float32)}, [a])
        same_as_interpreter(main, {"x": np.array(xv, np.float32)}, [b, a])
