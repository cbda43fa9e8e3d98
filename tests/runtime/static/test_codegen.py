"""The compiled executor's generated code: readable, valid names, frees locals, tracebacks show it."""
import linecache
import traceback

import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.ops import registry
from runtime.ops.registry import Meta
from runtime.static.codegen import compile_program
from runtime.static.executor import Executor


@pytest.fixture(autouse=True)
def static_mode():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


def mlp_program():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [-1, 4], "float32")
        w = main.global_block().create_parameter("fc_0.w_0", [4, 2], "float32")
        h = paddle.nn.functional.relu(paddle.matmul(x, w))
        vals, idx = paddle.topk(h, 1)
        s = paddle.sum(h)
    main.verify()
    return main, h, idx, s


def test_generated_code_is_readable():
    main, h, idx, s = mlp_program()
    src = Executor(backend="compiled").code(main, ["x"], [idx, s])
    print(src)
    assert src.startswith("def run_program_")
    assert "fc_0_w_0 = S[name_fc_0_w_0]" in src        # sanitized local, loaded from the scope
    assert "x = feed[name_x]" in src                   # names are constants passed in, never text
    assert f"matmul_v2(x, fc_0_w_0)" in src
    assert "relu(" in src and "reduce_sum(" in src
    assert f", {idx.name} = top_k_v2(" in src           # multi-output unpacking
    assert "test_codegen.py:" in src and "paddle.matmul(x, w)" in src   # user line comments
    compile(src, "<check>", "exec")


def test_locals_deleted_after_last_use_but_fetches_kept():
    main, h, idx, s = mlp_program()
    src = Executor(backend="compiled").code(main, ["x"], [s])
    lines = [ln.strip() for ln in src.splitlines()]
    dels = [ln for ln in lines if ln.startswith("del ")]
    deleted = {n.strip() for ln in dels for n in ln[4:].split(",")}
    assert {"x", "fc_0_w_0"} <= deleted
    assert s.name not in deleted
    assert lines[-1] == f"return ({s.name},)"
    # top_k is not needed for the sum: pruned
    assert "top_k_v2" not in src


def test_name_sanitizing_avoids_collisions_and_keywords():
    main = static.Program()
    blk = main.global_block()
    a = blk.create_var(name="a.b", shape=[1], dtype="float32", persistable=True)
    b = blk.create_var(name="a_b", shape=[1], dtype="float32", persistable=True)
    c = blk.create_var(name="lambda", shape=[1], dtype="float32", persistable=True)
    d = blk.create_var(name="x@GRAD", shape=[1], dtype="float32")
    blk.append_op("elementwise_add", inputs={"X": a, "Y": b}, outputs={"Out": c})
    blk.append_op("elementwise_mul", inputs={"X": c, "Y": a}, outputs={"Out": d})
    main.verify()
    comp = compile_program(main, (), (d.name,))
    assert "a_b_1" in comp.source and "v_lambda" in comp.source and "x_GRAD" in comp.source
    scope = static.Scope()
    scope["a.b"], scope["a_b"] = np.array([2.0], np.float32), np.array([3.0], np.float32)
    out, = Executor(backend="compiled").run(main, fetch_list=[d], scope=scope)
    np.testing.assert_allclose(out, [10.0])
    np.testing.assert_allclose(scope["lambda"], [5.0])     # persistable written: stored back


def test_source_in_linecache_and_traceback():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [-1, -1], "float32")
        bad = paddle.matmul(x, x)
    main.verify()
    exe = Executor(backend="compiled")
    comp = exe._compiled(main, ("x",), (bad.name,))
    assert linecache.getlines(comp.filename)[0].startswith("def run_program_")
    with pytest.raises(ValueError) as ei:
        exe.run(main, feed={"x": np.ones((2, 3), np.float32)}, fetch_list=[bad])
    tb = "".join(traceback.format_exception(ei.value))
    assert comp.filename in tb and "matmul_v2(x, x)" in tb
    assert "while running op 'matmul_v2'" in tb and "bad = paddle.matmul(x, x)" in tb


@pytest.fixture
def interp_op():
    """A temporary op run through OpDef.interpret: doubles X into Out and counts its calls."""
    calls = []

    def interpret(op, env, run_block):
        calls.append(sorted(env))
        env[op.output("Out")[0]] = env[op.input("X")[0]] * 2

    registry.register("test_interp_double", ["X"], ["Out"], {}, kernel=None,
                      infer_meta=lambda x, **_: Meta(x.shape, x.dtype), interpret=interpret)
    try:
        yield calls
    finally:
        del registry._OPS["test_interp_double"]


def test_interpreted_ops_run_on_an_env_and_are_kept(interp_op):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        y = x + 1.0
    blk = main.global_block()
    z = blk.create_var(name="z", shape=[2], dtype="float32")
    blk.append_op("test_interp_double", inputs={"X": y}, outputs={"Out": z})
    w = blk.create_var(name="unused", shape=[2], dtype="float32")
    blk.append_op("test_interp_double", inputs={"X": x}, outputs={"Out": w})   # not fetched, still runs
    main.verify()
    feed = {"x": np.array([1.0, 2.0], np.float32)}
    for backend in ("compiled", "interpreter"):
        interp_op.clear()
        out, = Executor(backend=backend).run(main, feed=feed, fetch_list=[z])
        np.testing.assert_allclose(out, [4.0, 6.0])
        assert len(interp_op) == 2
    src = Executor(backend="compiled").code(main, ["x"], [z])
    assert "_env = {" in src and "test_interp_double_interpret(" in src


# -- control flow compiled inline -------------------------------------------------------------------

def loop_with_cond():
    """while i < n: y = (y * 0.5 if sum(y) > 4 else y + 2); i += 1  (y fed; n fed)."""
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        n = static.data("n", [1], "int64")
        i = paddle.zeros([1], "int64")

        def body(i, y):
            y2 = static.nn.cond(paddle.sum(y) > 4, lambda: y * 0.5, lambda: y + 2.0)
            return [i + 1, y2]
        _, y = static.nn.while_loop(lambda i, y: i < n, body, [i, x])
    main.verify()
    return main, y


def reference_loop(x, n):
    y = x.copy()
    for _ in range(n):
        y = y * 0.5 if y.sum() > 4 else y + 2.0
    return y


@pytest.mark.parametrize("trips", [0, 1, 3])
def test_while_and_cond_compiled_inline(trips):
    main, y = loop_with_cond()
    exe = Executor(backend="compiled")
    src = exe.code(main, ["x", "n"], [y])
    # the cond pattern compiles to one if/else (no logical_not / cast / select left)
    assert "while _truth(" in src and "if _truth(" in src and "else:" in src and "_mask(" not in src
    assert "_interpret(" not in src and "run_block" not in src
    compile(src, "<check>", "exec")
    # a `del` never happens inside the loop body
    body = [ln for ln in src.splitlines() if ln.startswith("        ")]
    assert not any(ln.strip().startswith("del ") for ln in body)
    feed = {"x": np.array([1.0, 2.0], np.float32), "n": np.array([trips], np.int64)}
    out, = exe.run(main, feed=feed, fetch_list=[y])
    ref, = Executor(backend="interpreter").run(main, feed=feed, fetch_list=[y])
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_allclose(out, reference_loop(feed["x"], trips))
    assert out.dtype == np.float32


def test_value_of_branch_not_taken_is_not_computed():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [1], "float32")
        out = static.nn.cond(paddle.sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0)
    main.verify()
    cb_true = next(op for op in main.global_block().ops if op.type == "conditional_block")
    t_name = cb_true.output("Out")[0]
    for backend in ("compiled", "interpreter"):
        exe = Executor(backend=backend)
        r, t = exe.run(main, feed={"x": np.array([3.0], np.float32)}, fetch_list=[out, t_name])
        np.testing.assert_allclose(r, [6.0])
        with pytest.raises(ValueError, match=f"'{t_name}' was not computed by this run"):
            exe.run(main, feed={"x": np.array([-3.0], np.float32)}, fetch_list=[t_name])


def test_persistable_written_in_branch_keeps_scope_value_when_not_taken():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [1], "float32")
        acc = static.create_global_var([1], 5.0, "float32", persistable=True, name="acc")
        last = static.create_global_var([1], 0.0, "float32", persistable=True, name="last")

        def t():
            blk = static.default_main_program().current_block()
            blk.append_op("assign", {"X": [acc + x]}, {"Out": [acc]})   # read and written
            blk.append_op("assign", {"X": [x]}, {"Out": [last]})        # only written
        static.nn.cond(paddle.sum(x) > 0, t)
    main.verify()
    src = Executor(backend="compiled").code(main, ["x"], [])
    assert "last = S.get(name_last, _UNSET)" in src and "if last is not _UNSET: S[name_last] = last" in src
    for backend in ("compiled", "interpreter"):
        scope = static.Scope()
        exe = Executor(backend=backend)
        exe.run(startup, scope=scope)
        for v in (2.0, -1.0, 3.0, -4.0):
            exe.run(main, feed={"x": np.array([v], np.float32)}, scope=scope)
        np.testing.assert_allclose(scope["acc"], [10.0])
        np.testing.assert_allclose(scope["last"], [3.0])


def test_error_in_loop_body_names_op_and_line():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [-1, -1], "float32")
        i = paddle.zeros([1], "int64")

        def body(i, y):
            bad = paddle.matmul(y, y)
            return [i + 1, bad]
        _, y = static.nn.while_loop(lambda i, y: i < 2, body, [i, x])
    main.verify()
    exe = Executor(backend="compiled")
    with pytest.raises(ValueError) as ei:
        exe.run(main, feed={"x": np.ones((2, 3), np.float32)}, fetch_list=[y])
    tb = "".join(traceback.format_exception(ei.value))
    assert "while running op 'matmul_v2'" in tb and "bad = paddle.matmul(y, y)" in tb
    assert "<dy2st-compiled program" in tb


@pytest.fixture
def scope_reader_op():
    """A temporary op reading a while op's StepScopes var (as a gradient op would)."""
    def interpret(op, env, run_block):
        env[op.output("Out")[0]] = np.array([op.input("X")[0] in env])

    registry.register("test_read_step_scopes", ["X"], ["Out"], {}, kernel=None,
                      infer_meta=lambda x, **_: Meta((1,), np.dtype(bool)), interpret=interpret)
    try:
        yield
    finally:
        del registry._OPS["test_read_step_scopes"]


def test_while_whose_step_scopes_are_read_stays_interpreted(scope_reader_op):
    main, y = loop_with_cond()
    blk = main.global_block()
    wop = next(op for op in blk.ops if op.type == "while")
    flag = blk.create_var(name="flag", shape=[1], dtype="bool")
    blk.append_op("test_read_step_scopes", inputs={"X": wop.output("StepScopes")}, outputs={"Out": flag})
    main.verify()
    src = Executor(backend="compiled").code(main, ["x", "n"], [y])
    assert "while_interpret(" in src and "while _truth(" not in src
    feed = {"x": np.array([1.0, 2.0], np.float32), "n": np.array([3], np.int64)}
    out, = Executor(backend="compiled").run(main, feed=feed, fetch_list=[y])
    np.testing.assert_allclose(out, reference_loop(feed["x"], 3))
