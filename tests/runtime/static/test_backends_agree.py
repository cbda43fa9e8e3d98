"""The compiled executor and the reference interpreter agree: on control-flow programs run
directly through both, and on every static test program (the static test suite rerun with
DY2ST_EXECUTOR=interpreter in a subprocess)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.static import nn
from runtime.static.control_flow import Assert, Print
from runtime.static.executor import Executor
from runtime.static.tensor_array import array_length, array_read, array_write, create_array, tensor_array_to_tensor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


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


def run_both(capsys, main, startup, feeds, fetch, backends=("compiled", "interpreter")):
    """Run ``main`` on every feed with each back end (fresh scope, startup first); return per back end
    the fetched values of every run and the printed text."""
    res = {}
    for backend in backends:
        exe, scope = Executor(backend=backend), static.Scope()
        exe.run(startup, scope=scope)
        capsys.readouterr()
        vals = [exe.run(main, feed=f, fetch_list=fetch, scope=scope) for f in feeds]
        res[backend] = (vals, capsys.readouterr().out)
    return res


def assert_agree(res):
    (cv, ctext), (iv, itext) = res["compiled"], res["interpreter"]
    assert ctext == itext
    assert len(cv) == len(iv)
    for crun, irun in zip(cv, iv):
        for c, i in zip(crun, irun):
            assert c.dtype == i.dtype and c.shape == i.shape
            np.testing.assert_array_equal(c, i)


def nested_program():
    """while with a cond nested in a cond in its body, a switch_case, Print, a tensor array and an
    inner while; fetches the loop results, the stacked array and one element read back."""
    x = static.data("x", [2], "float32")
    n = static.data("n", [1], "int64")
    arr = create_array("float32")
    array_write(x, 0, arr)
    i = paddle.zeros([1], "int64")
    acc = paddle.zeros([1], "float32")

    def inner(j, a):
        return [j + 1, a + paddle.sum(x)]

    def body(i, y, acc):
        s = paddle.sum(y)
        y2 = nn.cond(s > 4,
                     lambda: nn.cond(s > 20, lambda: y * 0.1, lambda: Print(y * 0.5, message="halve")),
                     lambda: y + 2.0)
        k = paddle.cast(i % 3, "int32")
        sc = nn.switch_case(k, {0: lambda: y2 * 1.0, 1: lambda: y2 + 1.0, 2: lambda: y2 - 3.0})
        array_write(sc, i + 1, arr)
        _, acc2 = nn.while_loop(lambda j, a: j < i, inner, [paddle.zeros([1], "int64"), acc])
        return [i + 1, sc, acc2]
    i2, y, acc = nn.while_loop(lambda i, y, a: i < n, body, [i, x, acc])
    last = nn.cond(array_length(arr) > 1, lambda: array_read(arr, n), lambda: x * 0.0)
    return [y, acc, i2, last, array_length(arr)], arr


@pytest.mark.parametrize("trips", [0, 1, 2, 5])
def test_nested_control_flow_agrees(capsys, trips):
    main, startup, (fetch, arr) = build(nested_program)
    src = Executor(backend="compiled").code(main, ["x", "n"], fetch)
    assert "while _truth(" in src and "while_interpret(" not in src and "conditional_block_interpret(" not in src
    feeds = [{"x": np.array([1.0, 2.0], np.float32), "n": np.array([trips], np.int64)},
             {"x": np.array([-1.0, 30.0], np.float32), "n": np.array([trips], np.int64)}]
    res = run_both(capsys, main, startup, feeds, fetch)
    assert_agree(res)
    if trips:
        assert "halve" in res["compiled"][1] or trips == 1


@pytest.mark.parametrize("use_stack", [True, False])
def test_array_to_tensor_after_loop_agrees(capsys, use_stack):
    def prog():
        x = static.data("x", [1, 2], "float32")
        arr = create_array("float32")

        def body(i, x):
            array_write(nn.cond(paddle.sum(x) > 5, lambda: x * 2.0, lambda: x), i, arr)
            return [i + 1, x + 1.0]
        nn.while_loop(lambda i, x: i < 4, body, [paddle.zeros([1], "int64"), x])
        return list(tensor_array_to_tensor(arr, axis=0, use_stack=use_stack))
    main, startup, fetch = build(prog)
    res = run_both(capsys, main, startup, [{"x": np.array([[1.0, 2.0]], np.float32)}], fetch)
    assert_agree(res)
    vals = res["compiled"][0][0][0]
    elems = [np.array([[1.0, 2.0]]) + k for k in range(4)]
    elems = [e * 2 if e.sum() > 5 else e for e in elems]
    np.testing.assert_allclose(vals, np.stack(elems) if use_stack else np.concatenate(elems))


def test_print_first_n_in_loop_agrees(capsys):
    def prog():
        x = static.data("x", [3], "float32")

        def body(i, y):
            return [i + 1, Print(y, first_n=2, message="step", summarize=2) * 2.0]
        return nn.while_loop(lambda i, y: i < 3, body, [paddle.zeros([1], "int64"), x])
    # a Print op counts its prints (first_n) across runs: one program per back end
    res = {}
    for backend in ("compiled", "interpreter"):
        main, startup, fetch = build(prog)
        res[backend] = run_both(capsys, main, startup, [{"x": np.arange(3, dtype=np.float32)}] * 2,
                                fetch, (backend,))[backend]
    assert_agree(res)
    assert res["compiled"][1].count("step") == 2


def test_an_array_no_op_wrote_is_empty_in_both_backends():
    # Paddle's scope creates tensor arrays empty: a loop that runs zero times leaves length 0
    def prog():
        n = static.data("n", [1], "int64")
        arr = create_array("float32")

        def body(i):
            array_write(paddle.cast(i, "float32"), i, arr)
            return [i + 1]
        nn.while_loop(lambda i: i < n, body, [paddle.zeros([1], "int64")])
        return [array_length(arr)]
    main, startup, fetch = build(prog)
    for trips in (2, 0):
        for backend in ("compiled", "interpreter"):
            out, = Executor(backend=backend).run(main, feed={"n": np.array([trips], np.int64)}, fetch_list=fetch)
            assert out.tolist() == [trips]


def test_persistable_counter_in_loop_agrees(capsys):
    def prog():
        x = static.data("x", [1], "float32")
        total = static.create_global_var([1], 0.0, "float32", persistable=True, name="total")

        def body(i, t):
            blk = static.default_main_program().current_block()
            blk.append_op("assign", {"X": [total + t]}, {"Out": [total]})
            return [i + 1, t * 2.0]
        nn.while_loop(lambda i, t: i < 3, body, [paddle.zeros([1], "int64"), x])
        return [total]
    main, startup, fetch = build(prog)
    res = run_both(capsys, main, startup, [{"x": np.array([1.0], np.float32)}] * 2, fetch)
    assert_agree(res)
    np.testing.assert_allclose(res["compiled"][0][-1][0], [14.0])


def test_assert_in_loop_fails_the_same_way():
    def prog():
        x = static.data("x", [1], "float32")

        def body(i, y):
            Assert(paddle.sum(y) < 10, [y])
            return [i + 1, y * 3.0]
        return nn.while_loop(lambda i, y: i < 5, body, [paddle.zeros([1], "int64"), x])
    main, startup, fetch = build(prog)
    msgs = []
    for backend in ("compiled", "interpreter"):
        with pytest.raises(ValueError, match="must be true, but received false") as ei:
            Executor(backend=backend).run(main, feed={"x": np.array([2.0], np.float32)}, fetch_list=fetch)
        msgs.append(str(ei.value))
    assert msgs[0] == msgs[1] and "[18.0]" in msgs[0]


def test_static_suite_passes_with_the_interpreter():
    """Every static test program through the reference interpreter (the default run covers the
    compiled back end)."""
    env = dict(os.environ, DY2ST_EXECUTOR="interpreter")
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
           "tests/runtime/static", "tests/examples/test_static_mnist.py",
           "--ignore=tests/runtime/static/test_backends_agree.py"]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout
