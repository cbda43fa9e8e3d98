"""Loop state whose dtype or kind changes in the body, enumerate / zip indices, int() / float().

Checked against real Paddle 3.3.1 (AST mode, ``full_graph=True``): it accepts a Python int that
becomes a float tensor and an int64 tensor that becomes float32 after the body (the result has the
body's dtype); an ``enumerate`` index mixes with float rows like a Python int; ``int(t)`` /
``float(t)`` of a tensor give int32 / float32 tensors; ``zip`` over a tensor whose first dim is
unknown is refused (Paddle raises at conversion; we stage it as a while loop instead)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec

from .harness import Arg, check, f32, i64

X = f32(3, 2, seed=31)
N0, N1, N3 = Arg(i64(0)), Arg(i64(1)), Arg(i64(3))


def int_becomes_float_tensor(x, n):
    s = 0
    for i in range(n):
        s = s + x.sum()
    return s


def int64_tensor_becomes_float(x, n):
    s = paddle.to_tensor(np.array([2], "int64"))
    i = 0
    while i < n:
        s = s * 0.5 + x.mean()
        i += 1
    return s


def python_counter_becomes_float(x):
    c = 0
    while x.sum() < 20.0:
        x = x * 2.0 + 0.5
        c = c + x.mean()
    return x, c


def enumerate_index_times_float_row(x):
    out = x * 0.0
    for i, row in enumerate(x):
        out[i] = row * (i + 1)
    return out


def enumerate_index_sum(x):
    s = x[0] * 0.0
    for i, row in enumerate(x):
        s = s + row * (i + 1) - i
    return s


def zip_rows(x, y):
    s = x[0] * 0.0
    for a, b in zip(x, y):
        s = s + a * b
    return s


def zip_row_and_range(x, n):
    s = x[0] * 0.0
    for a, k in zip(x, range(n)):
        s = s + a * 2.0
    return s


@pytest.mark.parametrize("fn,argsets", [
    (int64_tensor_becomes_float, [[X, N1], [X, N3]]),
    (python_counter_becomes_float, [[X], [np.abs(X) + 1.0]]),
    (enumerate_index_times_float_row, [[X], [f32(5, 2)]]),
    (enumerate_index_sum, [[X], [f32(1, 2)]]),
    (zip_rows, [[X, f32(3, 2, seed=4)]]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_loop_state_kinds(fn, argsets, backend):
    check(fn, argsets, backend)


def test_python_int_becomes_float_tensor():
    # eagerly zero iterations leave the int 0; the Program's loop variable has the body's dtype
    sf = paddle.jit.to_static(int_becomes_float_tensor)
    for n in (1, 3):
        got = sf(paddle.to_tensor(X), paddle.to_tensor(i64(n)))
        assert got.dtype == paddle.float32
        np.testing.assert_allclose(got.numpy(), X.sum() * n, rtol=1e-5)


def test_narrowing_loop_state_is_refused_with_the_line():
    def narrowing(x, n):
        s = x.sum()
        for i in range(n):
            s = paddle.cast(s, "int64")
        return s
    with pytest.raises(TypeError, match="float32 tensor before .* but a int64 tensor") as ei:
        paddle.jit.to_static(narrowing)(paddle.to_tensor(X), paddle.to_tensor(i64(2)))
    assert "test_loops_state_kinds.py:" in str(ei.value)


def int_float_of_tensor(x):
    return int(x.sum()), float(x.sum())


def test_int_and_float_of_a_tensor_give_paddles_dtypes():
    a, b = paddle.jit.to_static(int_float_of_tensor)(paddle.to_tensor(X))
    assert a.dtype == paddle.int32 and b.dtype == paddle.float32
    assert int(a.numpy()) == int(X.sum()) and np.isclose(float(b.numpy()), X.sum())


def test_zip_with_unknown_first_dim_is_a_while_loop(backend):
    sf = paddle.jit.to_static(zip_rows, input_spec=[InputSpec([None, 2], "float32"), InputSpec([None, 2], "float32")])
    check(zip_rows, [[f32(1, 2), f32(1, 2, seed=2)], [f32(4, 2), f32(4, 2, seed=3)]], backend, sf=sf)
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert "while" in ops


def test_zip_stops_at_the_shortest(backend):
    check(zip_row_and_range, [[X, N0], [X, N1], [X, Arg(i64(7))]], backend)


def test_jit_save_of_zip_over_unknown_batch_does_not_hang(tmp_path):
    # run in a child with a deadline: the hang this guards against would stop the whole suite
    code = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {os.getcwd()!r})
        import numpy as np
        import dy2st as paddle
        from dy2st.static import InputSpec

        class Net(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                self.fc = paddle.nn.Linear(2, 2)

            def forward(self, x, y):
                s = x[0] * 0.0
                for a, b in zip(x, y):
                    s = s + self.fc(a) * b
                return s

        net = Net()
        net.eval()
        spec = [InputSpec([None, 2], "float32", "x"), InputSpec([None, 2], "float32", "y")]
        paddle.jit.save(net, {str(tmp_path / "zipnet")!r}, input_spec=spec)
        loaded = paddle.jit.load({str(tmp_path / "zipnet")!r})
        x = paddle.to_tensor(np.arange(8, dtype="float32").reshape(4, 2))
        np.testing.assert_allclose(loaded(x, x).numpy(), net(x, x).numpy(), rtol=1e-5)
        print("ok")
    """)
    script = tmp_path / "zip_save.py"     # to_static reads the source: a file, not -c
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-2000:]


# -- names bound on some paths only -------------------------------------------------------------------------

def bound_in_first_iteration_only(x, n):
    for i in range(n):
        if i == 0:
            first = x * 2.0
        x = x + 1.0
    return x


def bound_in_loop_body_read_there(x, n):
    i = 0
    while i < n:
        z = x * 0.5
        x = x + z
        i += 1
    return x


def bound_per_row(x):
    for row in x:
        last = row * 2.0
    return x * 3.0


@pytest.mark.parametrize("fn,argsets", [
    (bound_in_first_iteration_only, [[X, N0], [X, N3]]),
    (bound_in_loop_body_read_there, [[X, N0], [X, N3]]),
    (bound_per_row, [[X], [f32(1, 2)]]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_names_unbound_on_some_paths_convert(fn, argsets, backend):
    check(fn, argsets, backend)


def returned_where_bound_under_the_same_condition(x):
    if x.sum() > 0:
        y = x * 2.0
    if x.sum() > 0:
        return y
    return x


def test_a_name_bound_in_one_branch_returned_under_another_if_is_refused():
    # eagerly fine (same predicate); a Program cannot know the two conditions agree. It must fail naming
    # 'y' (Paddle 3.3.1 fails too), never return the other branch's placeholder zeros
    sf = paddle.jit.to_static(returned_where_bound_under_the_same_condition)
    with pytest.raises(NameError, match="variable 'y' is used but it is assigned only in the true branch"):
        sf(paddle.to_tensor(np.abs(X) + 0.1))
