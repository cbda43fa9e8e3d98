"""list.append inside tensor loops (tensor arrays) followed by paddle.stack / paddle.concat."""
import pytest

import dy2st as paddle

from .harness import Arg, check, f32, i64

X = f32(2, 3, seed=8)
N0, N1, N4 = Arg(i64(0)), Arg(i64(1)), Arg(i64(4))


def append_stack_for(x, n):
    outs = []
    for i in range(n):
        x = x * 0.5 + 1
        outs.append(x)
    return paddle.stack(outs)


def append_concat_for(x, n):
    outs = []
    for i in range(n):
        outs.append(x * (i + 1))
    return paddle.concat(outs, axis=0)


def append_stack_while(x, n):
    outs = []
    i = 0
    while i < n:
        x = paddle.tanh(x)
        outs.append(x)
        i += 1
    return paddle.stack(outs, axis=1)


def append_then_last(x, n):
    outs = [x]
    for i in range(n):
        outs.append(outs[-1] * 2)
    return outs[-1]


def append_python_loop(x):
    outs = []
    for i in range(3):
        outs.append(x * i)
    return paddle.stack(outs)


def append_over_rows(x):
    outs = []
    for row in x:
        outs.append(row * 2)
    return paddle.stack(outs)


def append_prefilled(x, n):
    outs = [x, x + 1]
    for i in range(n):
        outs.append(x * 3)
    return paddle.concat(outs)


def append_two_lists(x, n):
    a, b = [], []
    for i in range(n):
        a.append(x + 1)
        b.append(x * 2)
    return paddle.stack(a) + paddle.stack(b)


def append_len_after(x, n):
    outs = [x]
    for i in range(n):
        outs.append(x)
    return paddle.stack(outs).sum(axis=0) / paddle.full([1], len(outs), "float32")


EMPTY_ARRAY_BUG = ("runtime/static/tensor_array.py create_array: an empty tensor array has no value until it is "
                   "written, so lod_array_length / a while op reading it fails ('reads variable array_0, which has no "
                   "value'); Paddle gives an empty array of length 0")

# lists that start non-empty
PREFILLED = [
    (append_then_last, [[X, N0], [X, N1], [X, N4]]),
    (append_prefilled, [[X, N0], [X, N4]]),
    (append_len_after, [[X, N0], [X, N4]]),
]
# lists that start empty
EMPTY = [
    (append_stack_for, [[X, N1], [X, N4]]),
    (append_concat_for, [[X, N1], [X, N4]]),
    (append_stack_while, [[X, N1], [X, N4]]),
    (append_over_rows, [[X], [f32(5, 3)]]),
    (append_two_lists, [[X, N1], [X, N4]]),
]


def test_append_python_loop(backend):
    check(append_python_loop, [[X]], backend)


@pytest.mark.parametrize("fn,argsets", PREFILLED, ids=[c[0].__name__ for c in PREFILLED])
def test_tensor_array_prefilled(fn, argsets, backend):
    check(fn, argsets, backend, grad=False)


@pytest.mark.parametrize("fn,argsets", PREFILLED, ids=[c[0].__name__ for c in PREFILLED])
def test_tensor_array_prefilled_grad(fn, argsets):
    check(fn, argsets)


@pytest.mark.parametrize("fn,argsets", EMPTY, ids=[c[0].__name__ for c in EMPTY])
def test_tensor_array_from_empty_list(fn, argsets, backend):
    check(fn, argsets, backend, grad=False)


def test_append_in_tensor_loop_uses_array_ops():
    sf = check(append_prefilled, [[X, N4]], grad=False)
    ops = [op.type for b in sf.concrete_program.main_program.blocks for op in b.ops]
    assert "write_to_array" in ops and "tensor_array_to_tensor" in ops, ops
