"""break / continue under tensor and Python conditions, in while and for loops (nested too)."""
import numpy as np
import pytest

import dy2st as paddle

from .harness import Arg, check, f32, i64

X = f32(3, lo=0.1, hi=0.5, seed=4)
N0, N1, N5 = Arg(i64(0)), Arg(i64(1)), Arg(i64(5))


def while_break_tensor(x, n):
    i = 0
    while i < n:
        x = x * 2
        if x.sum() > 4:
            break
        i += 1
    return x


def while_continue_tensor(x, n):
    i = 0
    s = x * 0
    while i < n:
        i += 1
        if (x * i).sum() > 2:
            continue
        s = s + x
    return s


def while_true_break(x):
    while True:
        x = x + 0.5
        if x.mean() > 2:
            break
    return x


def for_range_tensor_break(x, n):
    s = x * 0
    for i in range(n):
        if s.sum() > 3:
            break
        s = s + x
    return s


def for_range_tensor_continue(x, n):
    s = x * 0
    for i in range(n):
        s = s + 1
        if s.sum() > 6:
            continue
        s = s + x
    return s


def for_range_int_break_tensor(x):
    # a Python loop unrolled; the break depends on a tensor
    s = x * 0
    for i in range(5):
        if s.sum() > 2:
            break
        s = s + x * 2
    return s


def for_range_int_continue_tensor(x):
    s = x * 0
    for i in range(4):
        if (x * i).sum() > 1:
            continue
        s = s + x * i
    return s


def for_list_break_tensor(x):
    s = x
    for w in [0.5, 2.0, 4.0, 8.0]:
        s = s * w
        if s.sum() > 5:
            break
    return s


def for_tensor_rows_break(x):
    s = paddle.zeros([3])
    for row in x:
        if s.sum() > 1:
            break
        s = s + row
    return s


def for_tensor_rows_continue(x):
    s = paddle.zeros([3])
    for row in x:
        if row.sum() < 0:
            continue
        s = s + row
    return s


def nested_break_inner(x, n, m):
    s = x * 0
    i = 0
    while i < n:
        j = 0
        while j < m:
            if j >= 2:
                break
            s = s + x
            j += 1
        i += 1
    return s


def nested_for_break_outer(x, n):
    s = x * 0
    for i in range(n):
        for j in range(3):
            s = s + x
            if s.sum() > 3:
                break
        if s.sum() > 5:
            break
    return s


def break_and_continue(x, n):
    s = x * 0
    for i in range(n):
        if i == 1:
            continue
        if s.sum() > 4:
            break
        s = s + x * 2
    return s


def for_else_break(x, n):
    for i in range(n):
        if x.sum() > 10:
            break
        x = x + 1
    else:
        x = x * -1
    return x


def break_python_cond_in_tensor_loop(x, n):
    i = 0
    while i < n:
        if i > 2:
            break
        x = x + 1
        i += 1
    return x


def python_loop_python_break(x):
    s = x
    for i in range(10):
        if i == 3:
            break
        if i == 1:
            continue
        s = s + i
    return s


def while_break_grad(x, n):
    i = paddle.zeros([1], "int64")
    y = x
    while i < n:
        y = y * x
        i = i + 1
        if y.sum() < 0.01:
            break
    return y


CASES = [
    (while_break_tensor, [[X, N0], [X, N1], [X, N5]]),
    (while_continue_tensor, [[X, N0], [X, N5]]),
    (while_true_break, [[X], [X * 10]]),
    (for_range_tensor_break, [[X, N0], [X, N1], [X, Arg(i64(20))]]),
    (for_range_tensor_continue, [[X, N0], [X, N5]]),
    (for_range_int_break_tensor, [[X], [X * 0.1], [X * 10]]),
    (for_range_int_continue_tensor, [[X], [X * 0.1]]),
    (for_list_break_tensor, [[X], [X * 100], [X * 0.01]]),
    (nested_break_inner, [[X, N0, N1], [X, Arg(i64(3)), N5]]),
    (nested_for_break_outer, [[X, N0], [X, N5], [X * 0.1, N5]]),
    (break_and_continue, [[X, N0], [X, N5], [X * 0.1, N5]]),
    (for_else_break, [[X, N0], [X, N5], [X * 30, N5]]),
    (break_python_cond_in_tensor_loop, [[X, N0], [X, N5]]),
    (python_loop_python_break, [[X]]),
    (while_break_grad, [[X, N0], [X, N5], [X * 3, N5]]),
]


@pytest.mark.parametrize("fn,argsets", CASES, ids=[c[0].__name__ for c in CASES])
def test_break_continue(fn, argsets, backend):
    check(fn, argsets, backend)


ROWS_CASES = [
    (for_tensor_rows_break, [[f32(1, 3, lo=0, hi=1)], [f32(6, 3, lo=0, hi=1)]]),
    (for_tensor_rows_continue, [[f32(1, 3)], [f32(6, 3)]]),
]


@pytest.mark.parametrize("fn,argsets", ROWS_CASES, ids=[c[0].__name__ for c in ROWS_CASES])
def test_break_continue_over_tensor_rows(fn, argsets, backend):
    check(fn, argsets, backend, grad=False)


@pytest.mark.parametrize("fn,argsets", ROWS_CASES, ids=[c[0].__name__ for c in ROWS_CASES])
def test_break_continue_over_tensor_rows_grad(fn, argsets):
    check(fn, argsets)
