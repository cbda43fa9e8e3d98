"""Loop counters of compiled while loops kept as Python ints (runtime/static/codegen_loops.py): the
converted function equals eager on every input (zero, one and many iterations, every comparison,
negative steps, int32 and int64, the counter and the condition read after the loop), the compiled
program equals the interpreter bit for bit, and loops whose counter the body also reads keep arrays."""
import os

import numpy as np
import pytest

import dy2st as paddle
from runtime.static import codegen
from runtime.static.executor import Executor


def count_up(x, n):
    i = paddle.zeros([1], dtype="int64")
    while i < n:
        x = paddle.tanh(x) + x * 0.5
        i = i + 1
    return x


def count_to_three(x):
    i = paddle.zeros([1], dtype="int64")
    while i < 3:
        x = paddle.tanh(x) + x * 0.5
        i = i + 1
    return x


def zero_iterations(x):
    i = paddle.full([1], 5, dtype="int64")
    while i < 3:
        x = x * 3.0
        i = i + 1
    return x, i, i < 3


def count_down_le(x):
    i = paddle.full([1], 7, dtype="int32")
    while i >= 2:
        x = x * 1.5 - 0.25
        i = i - 2
    return x, i


def step_three_ne(x):
    i = paddle.full([1], 0, dtype="int64")
    while i != 9:
        x = x + 1.0
        i = i + 3
    return x * i.astype("float32")


def counter_read_in_body(x):
    i = paddle.zeros([1], dtype="int64")
    while i < 3:
        x = x + i.astype("float32")          # the body reads the counter: not a pure counter
        i = i + 1
    return x


def bound_from_input(x, n):
    i = paddle.zeros([1], dtype="int64")
    while i < n:                              # bound read from a tensor input: not a constant
        x = x * 2.0
        i = i + 1
    return x


def nested(x):
    i = paddle.zeros([1], dtype="int64")
    while i < 2:
        j = paddle.zeros([1], dtype="int64")
        while j <= 1:
            x = x + 1.0
            j = j + 1
        i = i + 1
    return x, i, j


CASES = [(count_up, False), (count_to_three, True), (zero_iterations, True), (count_down_le, True), (step_three_ne, True), (counter_read_in_body, False),
         (bound_from_input, False), (nested, True)]


def _run(fn, *args):
    out = fn(*args)
    outs = out if isinstance(out, tuple) else (out,)
    return [o.numpy() for o in outs]


@pytest.mark.parametrize("fn, counted", CASES, ids=[c[0].__name__ for c in CASES])
def test_converted_equals_eager(fn, counted):
    rng = np.random.default_rng(0)
    sf = paddle.jit.to_static(fn)
    for trial in range(3):
        x = paddle.to_tensor(rng.standard_normal((2, 3)).astype("float32"))
        args = (x,)
        if fn in (count_up, bound_from_input):
            args = (x, paddle.to_tensor(np.array([trial * 2], dtype="int64")))   # 0, 2 and 4 iterations
        want = _run(fn, *args)
        got = _run(sf, *args)
        for a, b in zip(got, want):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)


def _compiled_sources(fn, *args):
    seen = []
    orig = codegen.compile_program

    def spy(*a, **k):
        c = orig(*a, **k)
        seen.append(c.source)
        return c
    codegen.compile_program = spy
    try:
        import dy2st.partial_program as pp
        before = pp._compile_program
        pp._compile_program = spy
        try:
            paddle.jit.to_static(fn)(*args)
        finally:
            pp._compile_program = before
    finally:
        codegen.compile_program = orig
    return "\n".join(seen)


@pytest.mark.skipif(os.environ.get("DY2ST_EXECUTOR") == "interpreter",
                    reason="reads the compiled source; the interpreter back end compiles nothing")
@pytest.mark.parametrize("fn, counted", CASES, ids=[c[0].__name__ for c in CASES])
def test_which_loops_use_a_python_counter(fn, counted):
    x = paddle.to_tensor(np.ones((2, 3), "float32"))
    args = (x, paddle.to_tensor(np.array([3], "int64"))) if fn in (count_up, bound_from_input) else (x,)
    src = _compiled_sources(fn, *args)
    assert ("counter +=" in src) == counted, src


def test_static_program_matches_interpreter():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [2, 3], "float32")
            i = paddle.full([1], 10, dtype="int64")
            cond = paddle.greater_than(i, paddle.full([], 3, dtype="int64"))

            def body(i, x):
                return [i - 2, x * 0.5 + 1.0]
            i_out, x_out = paddle.static.nn.while_loop(lambda i, x: i > 3, body, [i, x])
        feed = {"x": np.arange(6, dtype="float32").reshape(2, 3)}
        res = {}
        for backend in ("compiled", "interpreter"):
            scope = paddle.static.Scope()
            with paddle.static.scope_guard(scope):
                exe = Executor(backend=backend)
                exe.run(startup)
                res[backend] = exe.run(main, feed=feed, fetch_list=[i_out, x_out])
        for a, b in zip(*res.values()):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
        assert int(res["compiled"][0].reshape(-1)[0]) == 2
        del cond
    finally:
        paddle.disable_static()
