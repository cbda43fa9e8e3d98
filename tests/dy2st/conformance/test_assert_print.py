"""assert and print on tensors (staged as ops) and on Python values."""
import numpy as np
import pytest

import dy2st as paddle

from .harness import check, f32

POS = f32(3, lo=0.1, hi=1.0)


def assert_tensor_ok(x):
    assert x.min() > 0, "x must be positive"
    return x * 2


def assert_python(x, k):
    assert k > 0, "k must be positive"
    return x * k


def assert_shape(x):
    assert x.shape[0] == 3
    return x + 1


def print_tensor(x):
    y = x * 2
    print(y)
    return y


def print_python(x, k):
    print("k is", k)
    return x + k


def print_in_branch(x):
    if x.mean() > 0:
        print(x)
        x = x + 1
    return x


CASES = [
    (assert_tensor_ok, [[POS]]),
    (assert_python, [[POS, 2]]),
    (assert_shape, [[POS]]),
    (print_tensor, [[POS]]),
    (print_python, [[POS, 3]]),
    (print_in_branch, [[POS], [-POS]]),
]


@pytest.mark.parametrize("fn,argsets", CASES, ids=[c[0].__name__ for c in CASES])
def test_assert_print(fn, argsets, backend):
    check(fn, argsets, backend)


def test_tensor_assert_is_an_op_and_fails_at_run_time():
    sf = paddle.jit.to_static(assert_tensor_ok)
    sf(paddle.to_tensor(POS))
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert "assert" in ops
    with pytest.raises(ValueError) as ei:
        sf(paddle.to_tensor(-POS))
    # the user's message and line first, then the op's own text
    msg = str(ei.value)
    assert msg.startswith("AssertionError at ") and "test_assert_print.py:13: x must be positive" in msg
    assert "of AssertOp must be true" in msg


def assert_with_computed_message(x, limit):
    assert x.max() < limit, f"x exceeds {limit}"
    return x + 1


@pytest.mark.parametrize("backend_name", ["compiled", "interpreter"])
def test_tensor_assert_message_on_both_back_ends(monkeypatch, backend_name):
    monkeypatch.setenv("DY2ST_EXECUTOR", backend_name)
    sf = paddle.jit.to_static(assert_with_computed_message)
    sf(paddle.to_tensor(POS), 2)
    with pytest.raises(ValueError, match="x exceeds 0.5"):
        sf(paddle.to_tensor(POS + 1.0), 0.5)


def test_python_assert_fails_at_trace_time():
    sf = paddle.jit.to_static(assert_python)
    with pytest.raises(AssertionError, match="k must be positive"):
        sf(paddle.to_tensor(POS), -1)


def test_print_of_a_tensor_prints_each_run(capsys):
    sf = paddle.jit.to_static(print_tensor)
    sf(paddle.to_tensor(POS))
    capsys.readouterr()
    sf(paddle.to_tensor(POS))          # cached Program: the print op runs again
    out = capsys.readouterr().out
    assert out.strip(), "the print op printed nothing on a cached run"
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert "print" in ops


def test_print_of_python_value_happens_at_trace_time(capsys):
    sf = paddle.jit.to_static(print_python)
    sf(paddle.to_tensor(POS), 3)
    assert "k is 3" in capsys.readouterr().out
    sf(paddle.to_tensor(POS), 3)
    assert "k is 3" not in capsys.readouterr().out
