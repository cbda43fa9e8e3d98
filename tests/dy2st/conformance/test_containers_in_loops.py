"""Python lists under tensor loops and branches: append with break / continue / return, pop, item
assignment, insert, extend (tensor arrays where a loop changes a list's length), staged exactly
with gradients, or refused with the construct and the user's line.

Real Paddle 3.3.1 (AST mode, ``full_graph=True``) refuses or crashes on most of these (checked:
pop(0) and item assignment of an appended list abort the process, insert/extend/slicing/iteration
of a tensor array fail, append + tensor break/return fail); we stage them exactly."""
import numpy as np
import pytest

import dy2st as paddle

from .harness import Arg, check, f32, i64

X = f32(3, 2, seed=21)
N0, N1, N3, N5 = Arg(i64(0)), Arg(i64(1)), Arg(i64(3)), Arg(i64(5))


def append_with_break(x, n):
    out = [x]
    for i in range(n):
        if i > 1:
            break
        out.append(x * 2.0 + i)
    return paddle.concat(out)


def append_with_break_on_data(x):
    out = [x[0] * 0.0]
    for row in x:
        if row.sum() > 0.5:
            break
        out.append(row * 3.0)
    return paddle.stack(out)


def append_with_continue(x, n):
    out = [x]
    for i in range(n):
        if i % 2 == 0:
            continue
        out.append(x * 2.0)
    return paddle.concat(out)


def append_with_early_return(x, n):
    out = [x]
    for i in range(n):
        if i > 1:
            return paddle.concat(out)
        out.append(x * 2.0)
    return paddle.concat(out) * 0.5


def append_in_while_with_break(x, n):
    out = []
    i = 0
    while i < n:
        out.append(paddle.tanh(x) * i)
        if x.sum() + i > 3:
            break
        i += 1
    out.append(x)
    return paddle.stack(out)


def pop_last_in_loop(x, n):
    out = [x, x + 1.0]
    for i in range(n):
        out.append(x * 2.0)
        y = out.pop()
        out.append(y * 3.0)
    return paddle.stack(out)


def pop_front_in_while(x, n):
    out = [x, x + 1.0, x * 2.0, x * 3.0, x - 1.0]
    i = 0
    y = x
    while i < n:
        y = y + out.pop(0)
        i += 1
    return y, paddle.stack(out)


def pop_middle_in_loop(x, n):
    out = [x, x * 2.0]
    for i in range(n):
        out.append(x * (3.0 + i))
        out.append(x * 0.5)
        z = out.pop(1)
    return paddle.concat(out), z


def item_assignment_in_loop(x, n):
    out = [x]
    for i in range(n):
        out.append(x)
        out[-1] = out[-1] * 3.0 + i
        out[0] = out[0] * 2.0
    return paddle.stack(out)


def insert_in_loop(x, n):
    out = [x]
    for i in range(n):
        out.insert(0, x * (2.0 + i))
    return paddle.concat(out)


def extend_in_loop(x, n):
    out = []
    for i in range(n):
        out.extend([x, x * 2.0])
    out.append(x)
    return paddle.concat(out)


def append_in_one_branch(x):
    out = [x]
    if x.sum() > 0:
        out.append(x * 2.0)
    return paddle.concat(out)


def append_in_branch_inside_loop(x, n):
    out = [x]
    for i in range(n):
        if (x * i).sum() > 0:
            out.append(x * (i + 1.0))
    return paddle.concat(out)


def read_back_after_loop(x, n):
    out = [x]
    for i in range(n):
        out.append(out[-1] * 2.0)
    return out[-1] + out[0]


def list_made_in_each_iteration(x, n, m):
    # the inner list is a tensor array made afresh in every outer iteration (it used to keep the previous
    # iteration's items: a silently wrong sum)
    s = x * 0.0
    for i in range(n):
        lst = [x]
        for j in range(m):
            lst.append(x * (2.0 + j))
        s = s + paddle.stack(lst).sum(0)
    return s


def tensor_loop_in_one_branch(x, n):
    # one branch makes the list a tensor array (a tensor loop appends to it), the other leaves a list
    lst = [x]
    if x.sum() > 0:
        for i in range(n):
            lst.append(x * (i + 2.0))
    else:
        lst.append(x - 1.0)
    return paddle.stack(lst).sum(0)


def tensor_loop_in_one_branch_inside_a_loop(x, n):
    s = x * 0.0
    for k in range(n):
        lst = [x * 0.5]
        if (x * (k - 1.0)).sum() > 0:
            for i in range(n):
                lst.append(x * (i + 2.0))
        s = s + paddle.stack(lst).sum(0)
    return s


LOOPS = [
    (tensor_loop_in_one_branch, [[X, N0], [X, N3], [-X, N3]]),
    (tensor_loop_in_one_branch_inside_a_loop, [[X, N1], [X, N3], [-X, N3]]),
    (list_made_in_each_iteration, [[X, N1, N3], [X, N3, N3], [X, N3, N0]]),
    (append_with_break, [[X, N0], [X, N1], [X, N5]]),
    (append_with_break_on_data, [[X], [X * 0.1], [-X]]),
    (append_with_continue, [[X, N0], [X, N1], [X, N5]]),
    (append_with_early_return, [[X, N0], [X, N1], [X, N5]]),
    (append_in_while_with_break, [[X, N1], [X, N5], [-X, N5]]),
    (pop_last_in_loop, [[X, N0], [X, N3]]),
    (pop_front_in_while, [[X, N0], [X, N1], [X, N3]]),
    (pop_middle_in_loop, [[X, N1], [X, N3]]),
    (item_assignment_in_loop, [[X, N0], [X, N3]]),
    (insert_in_loop, [[X, N0], [X, N3]]),
    (extend_in_loop, [[X, N0], [X, N3]]),
    (append_in_one_branch, [[X], [-X]]),
    (append_in_branch_inside_loop, [[X, N0], [X, N3], [-X, N3]]),
    (read_back_after_loop, [[X, N0], [X, N3]]),
]


@pytest.mark.parametrize("fn,argsets", LOOPS, ids=[c[0].__name__ for c in LOOPS])
def test_list_changes_in_tensor_loops(fn, argsets, backend):
    check(fn, argsets, backend)


def test_pop_in_a_tensor_loop_uses_one_while_op():
    sf = check(pop_front_in_while, [[X, N3]])
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert ops.count("while") == 1, ops


def pop_empty(x, n):
    out = []
    for i in range(n):
        out.append(x)
    y = out.pop()
    y = out.pop()
    return y


def test_pop_from_an_exhausted_array_fails_at_run_time():
    sf = paddle.jit.to_static(pop_empty)
    np.testing.assert_allclose(sf(paddle.to_tensor(X), paddle.to_tensor(i64(2))).numpy(), X)
    with pytest.raises(IndexError, match="pop from an empty"):
        sf(paddle.to_tensor(X), paddle.to_tensor(i64(1)))


def iterate_array(x, n):
    out = [x]
    for i in range(n):
        out.append(x * 2.0)
    s = x * 0.0
    for o in out:
        s = s + o
    return s


def slice_array(x, n):
    out = [x]
    for i in range(n):
        out.append(x * 2.0)
    return paddle.concat(out[1:])


def enumerate_array(x, n):
    out = [x]
    for i in range(n):
        out.append(x * 2.0)
    s = x * 0.0
    for k, o in enumerate(out):
        s = s + o * (k + 1)
    return s


@pytest.mark.parametrize("fn,argsets", [(iterate_array, [[X, N0], [X, N3]]), (enumerate_array, [[X, N0], [X, N3]])],
                         ids=["iterate_array", "enumerate_array"])
def test_iterating_a_tensor_array(fn, argsets, backend):
    check(fn, argsets, backend)


def test_slicing_a_tensor_array(backend):
    # a slice of a list built in a tensor loop is a new tensor array (as Paddle's slice of an array)
    check(slice_array, [[X, N3], [X, i64(2)]], backend)


def slice_array_steps(x, n):
    out = [x]
    for i in range(n):
        out.append(x * (i + 2.0))
    parts = [out[::2], out[::-1], out[1::2], out[-1:0:-1], out[:0:-2], out[n::-2], out[-2::-3]]
    s = x * 0.0
    for k, part in enumerate(parts):
        s = s + paddle.concat(part).sum(axis=0, keepdim=True) * (k + 1.0)
    return s


def test_slicing_a_tensor_array_with_a_step(backend):
    # Python's slice rules for any int step (both signs), bounds as ints or tensors, gradients through
    check(slice_array_steps, [[X, N3], [X, i64(2)], [X, i64(4)]], backend)


def slice_array_bad_step(x, n, which):
    out = [x]
    for i in range(n):
        out.append(x * 2.0)
    return paddle.concat(out[::0] if which == 0 else out[::n])


def test_slicing_a_tensor_array_with_a_zero_or_tensor_step_is_refused():
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        paddle.jit.to_static(slice_array_bad_step)(paddle.to_tensor(X), paddle.to_tensor(i64(2)), 0)
    with pytest.raises(TypeError, match="must be a Python int") as ei:
        paddle.jit.to_static(slice_array_bad_step)(paddle.to_tensor(X), paddle.to_tensor(i64(2)), 1)
    note = "\n".join([str(ei.value)] + list(getattr(ei.value, "__notes__", [])))
    assert "test_containers_in_loops.py" in note, note


def returns_the_array_itself(x, n):
    out = [x]
    for i in range(n):
        out.append(x * 2.0)
    return out


def test_returning_a_tensor_array_is_refused_clearly():
    # never an unusable object handed back: its length exists only inside the Program
    with pytest.raises(TypeError, match="returns a Python list that became a tensor array .* paddle.stack"):
        paddle.jit.to_static(returns_the_array_itself)(paddle.to_tensor(X), paddle.to_tensor(i64(2)))
