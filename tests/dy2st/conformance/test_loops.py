"""while / for loops on tensor and Python values (zero, one and many iterations)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec

from .harness import Arg, check, f32, i64

X = f32(3, seed=3)
N0, N1, N4 = Arg(i64(0)), Arg(i64(1)), Arg(i64(4))


def while_tensor_count(x, n):
    i = 0
    while i < n:
        x = x * 1.5
        i += 1
    return x


def while_tensor_cond_on_value(x):
    # runs until the sum is large: the number of iterations depends on the data
    while x.sum() < 10:
        x = x * 2 + 0.1
    return x


def while_python_cond(x, n):
    i = 0
    while i < n:
        x = x + i
        i += 1
    return x


def while_two_vars(x, n):
    i = paddle.zeros([1], "int64")
    s = paddle.zeros([3])
    while i < n:
        s = s + x * paddle.cast(i, "float32")
        i = i + 1
    return s, i


def while_var_first_set_inside(x, n):
    i = 0
    while i < n:
        last = x * i
        i += 1
    return x + 1


def while_with_if(x, n):
    i = 0
    while i < n:
        if x.sum() > 0:
            x = x - 1
        else:
            x = x + 2
        i += 1
    return x


def while_nested(x, n, m):
    i = 0
    s = x * 0
    while i < n:
        j = 0
        while j < m:
            s = s + x
            j += 1
        i += 1
    return s


def while_else(x, n):
    i = 0
    while i < n:
        x = x + 1
        i += 1
    else:
        x = x * 10
    return x


def for_range_int(x):
    for k in range(4):
        x = x * 0.5 + k
    return x


def for_range_tensor(x, n):
    s = x * 0
    for k in range(n):
        s = s + x * 2
    return s


def for_range_tensor_index_used(x, n):
    s = x * 0
    for k in range(n):
        s = s + paddle.full([1], k, "float32")
    return s + x


def for_range_start_stop(x, n):
    s = x
    for k in range(1, n):
        s = s * 1.1 + 1
    return s


def for_range_step(x, n):
    s = x
    for k in range(0, n, 2):
        s = s + 1
    return s


def for_over_tensor(x):
    s = paddle.zeros([3])
    for row in x:
        s = s + row * row
    return s


def for_enumerate_tensor(x):
    s = paddle.zeros([3])
    for i, row in enumerate(x):
        s = s + row * paddle.full([1], i, "float32")
    return s


def for_enumerate_list(x):
    s = x * 0
    for i, w in enumerate([1.0, 2.0, 3.0]):
        s = s + x * w * i
    return s


def for_zip_lists(x):
    s = x * 0
    for a, b in zip([1.0, 2.0], [3.0, 4.0]):
        s = s + x * a - b
    return s


def for_list_of_tensors(x, y):
    s = x * 0
    for t in [x, y, x * y]:
        s = s + t
    return s


def for_range_shape(x):
    # a known dim: plain Python loop
    s = x[0] * 0
    for k in range(x.shape[0]):
        s = s + x[k]
    return s


def for_nested_tensor_python(x, n):
    s = x * 0
    for i in range(n):
        for j in range(2):
            s = s + x * (j + 1)
    return s


def for_nested_tensor_tensor(x, n, m):
    s = x * 0
    for i in range(n):
        for j in range(m):
            s = s + x
    return s


def for_else(x, n):
    for i in range(n):
        x = x + 1
    else:
        x = x * 2
    return x


def for_dict_items(x):
    s = x
    for k, v in {"a": 1.0, "b": 2.0}.items():
        s = s * v
    return s


def loop_grad_mul(x, n):
    y = x
    for _ in range(n):
        y = y * x
    return y


def loop_grad_while(x, n):
    i = paddle.zeros([1], "int64")
    y = x
    while i < n:
        y = paddle.tanh(y) + x
        i = i + 1
    return y


def for_matrix_rows_dynamic(x):
    s = paddle.zeros([2])
    for row in x:
        s = s + row
    return s


def while_int_tensor_only(n):
    i = paddle.zeros([1], "int64")
    total = paddle.zeros([1], "int64")
    while i < n:
        total = total + i
        i = i + 1
    return total


def for_python_counter_in_tensor_loop(x, n):
    c = 0
    for i in range(n):
        c = c + 1
        x = x * 1.5
    return x, c


def while_loop_var_list(x, n):
    i = 0
    vals = [x, x * 2]
    while i < n:
        vals = [vals[0] + 1, vals[1] * 0.5]
        i += 1
    return vals[0] + vals[1]


CASES = [
    (while_tensor_count, [[X, N0], [X, N1], [X, N4]]),
    (while_tensor_cond_on_value, [[f32(3, lo=0.1, hi=1)], [np.full([3], 5, "float32")]]),
    (while_python_cond, [[X, 0], [X, 3]]),
    (while_two_vars, [[X, N0], [X, N4]]),
    (while_var_first_set_inside, [[X, N0], [X, N4]]),
    (while_with_if, [[X, N0], [X, N4]]),
    (while_nested, [[X, N0, N1], [X, Arg(i64(2)), Arg(i64(3))]]),
    (while_else, [[X, N0], [X, N4]]),
    (for_range_int, [[X]]),
    (for_range_tensor, [[X, N0], [X, N1], [X, N4]]),
    (for_range_tensor_index_used, [[X, N0], [X, N4]]),
    (for_range_start_stop, [[X, N0], [X, N1], [X, N4]]),
    (for_range_step, [[X, N0], [X, N1], [X, Arg(i64(5))]]),
    (for_over_tensor, [[f32(1, 3)], [f32(4, 3)]]),
    (for_enumerate_tensor, [[f32(1, 3)], [f32(4, 3)]]),
    (for_enumerate_list, [[X]]),
    (for_zip_lists, [[X]]),
    (for_list_of_tensors, [[X, f32(3, seed=9)]]),
    (for_range_shape, [[f32(3, 2)]]),
    (for_nested_tensor_python, [[X, N0], [X, Arg(i64(3))]]),
    (for_nested_tensor_tensor, [[X, N0, N1], [X, Arg(i64(2)), Arg(i64(3))], [X, Arg(i64(2)), N0]]),
    (for_else, [[X, N0], [X, N4]]),
    (for_dict_items, [[X]]),
    (loop_grad_mul, [[X, N0], [X, Arg(i64(3))]]),
    (loop_grad_while, [[X, N0], [X, Arg(i64(3))]]),
    (while_int_tensor_only, [[N0], [N4]]),
    (for_python_counter_in_tensor_loop, [[X, N0], [X, N4]]),
    (while_loop_var_list, [[X, N0], [X, N4]]),
]


@pytest.mark.parametrize("fn,argsets", CASES, ids=[c[0].__name__ for c in CASES])
def test_loop(fn, argsets, backend):
    check(fn, argsets, backend)


def test_for_over_tensor_dynamic_length(backend):
    sf = paddle.jit.to_static(for_matrix_rows_dynamic, input_spec=[InputSpec([None, 2], "float32")])
    check(for_matrix_rows_dynamic, [[f32(1, 2)], [f32(5, 2)], [f32(3, 2)]], backend, sf=sf)
    assert len(sf.program_cache) == 1
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert "while" in ops


def test_tensor_loop_is_one_while_op():
    sf = check(for_range_tensor, [[X, N1], [X, N4]])
    assert len(sf.program_cache) == 1
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert ops.count("while") == 1


def test_python_loop_is_unrolled():
    sf = check(for_range_int, [[X]])
    ops = [op.type for b in sf.concrete_program.main_program.blocks for op in b.ops]
    assert "while" not in ops
