"""if / elif / else and ternaries on tensor and Python predicates: eager vs converted."""
import numpy as np
import pytest

import dy2st as paddle

from .harness import Arg, check, f32, i64

POS, NEG = f32(4, lo=0.1, hi=1.0), f32(4, lo=-1.0, hi=-0.1)
MIX = np.array([0.5, -0.2, 0.3, -0.9], "float32")


def if_both_assign(x):
    if x.mean() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


def if_no_else(x):
    y = x + 1
    if x.sum() > 0:
        y = y * 3
    return y


def if_elif_else(x):
    if x.mean() > 0.5:
        y = x * 2
    elif x.mean() > 0:
        y = x * 3
    else:
        y = -x
    return y


def if_nested(x):
    if x.sum() > 0:
        if x.max() > 0.8:
            y = x * 2
        else:
            y = x * 4
    else:
        if x.min() < -0.8:
            y = x - 2
        else:
            y = x + 2
    return y


def if_one_branch_local(x):
    # z only lives inside the true branch
    y = x
    if x.mean() > 0:
        z = x * 5
        y = z + 1
    return y


def if_aug_assign(x):
    y = x * 1
    if x.mean() > 0:
        y += 2
    else:
        y -= 2
    return y


def if_python_pred(x, flag):
    if flag:
        return x * 2
    return x * 3


def if_python_int_pred(x, n):
    if n > 2:
        y = x + n
    else:
        y = x - n
    return y


def if_shape_pred(x):
    if x.shape[0] > 3:
        y = x.sum()
    else:
        y = x.mean()
    return y


def ternary_tensor(x):
    return x * 2 if x.mean() > 0 else x * -3


def ternary_python(x, k):
    return x * k if k > 1 else x


def ternary_nested(x):
    return x + 1 if x.mean() > 0.5 else (x + 2 if x.mean() > 0 else x + 3)


def ternary_in_expr(x):
    y = (x.sum() if x.mean() > 0 else x.max()) * 2 + x
    return y


def if_two_outputs(x):
    a = x
    b = x * 0
    if x.mean() > 0:
        a = x * 2
        b = x + 1
    else:
        a = x * 3
    return a, b


def if_int_and_float_outputs(x, n):
    k = n * 1
    if x.mean() > 0:
        k = n + 1
        y = x * 2
    else:
        y = x / 2
    return y, k


def if_number_vs_tensor(x):
    # a Python number on one side, a tensor on the other: merged as a tensor
    s = 0.0
    if x.mean() > 0:
        s = x.sum()
    return x + s


def if_number_both(x):
    c = 1.0
    if x.mean() > 0:
        c = 2.0
    else:
        c = 3.0
    return x * c


def if_tensor_vs_tensor(x, y):
    if x.sum() > y.sum():
        z = x - y
    else:
        z = y - x
    return z


def if_all_pred(x):
    if paddle.all(x > 0):
        y = x.exp()
    else:
        y = x.abs()
    return y


def if_int_tensor_pred(x, n):
    if n:
        y = x * 2
    else:
        y = x * 5
    return y


def if_pass_branch(x):
    y = x * 1
    if x.mean() > 0:
        pass
    else:
        y = y * 7
    return y


def if_calls_helper(x):
    if x.mean() > 0:
        y = _helper_double(x)
    else:
        y = _helper_double(-x)
    return y


def _helper_double(v):
    return v * 2


def if_in_python_loop(x):
    y = x
    for k in range(3):
        if y.mean() > 0:
            y = y - 0.4
        else:
            y = y + 0.1 * k
    return y


def if_after_if(x):
    y = x
    if x.mean() > 0:
        y = y * 2
    if y.sum() > 1:
        y = y - 1
    else:
        y = y + 1
    return y


def if_list_state(x):
    ys = [x, x * 2]
    if x.mean() > 0:
        ys = [x * 3, x * 4]
    return ys[0] + ys[1]


def if_dict_state(x):
    d = {"a": x, "b": x * 2}
    if x.mean() > 0:
        d = {"a": x * 3, "b": x + 1}
    return d["a"] * d["b"]


def if_matmul(x, w):
    h = paddle.matmul(x, w)
    if h.mean() > 0:
        h = paddle.nn.functional.relu(h)
    else:
        h = paddle.tanh(h)
    return h


def if_numpy_pred(x):
    if x.numpy().sum() > 0:
        y = x * 2
    else:
        y = x * 3
    return y


def if_elif_python_and_tensor(x, mode):
    if mode == "double":
        y = x * 2
    elif x.mean() > 0:
        y = x + 10
    else:
        y = x - 10
    return y


def if_reuses_pred(x):
    c = x.mean() > 0
    if c:
        y = x * 2
    else:
        y = x * 3
    if c:
        y = y + 1
    return y


def if_bool_out(x):
    flag = x.mean() > 0
    if x.max() > 0.9:
        flag = x.max() > 2
    return paddle.cast(flag, "float32") + x


def if_const_branch_values(x):
    if x.mean() > 0:
        y = paddle.ones([4])
    else:
        y = paddle.zeros([4])
    return x * y


CASES = [
    (if_both_assign, [[POS], [NEG]]),
    (if_no_else, [[POS], [NEG]]),
    (if_elif_else, [[POS + 0.5], [POS * 0.2], [NEG]]),
    (if_nested, [[POS], [POS * 0.5], [NEG], [NEG * 0.5]]),
    (if_one_branch_local, [[POS], [NEG]]),
    (if_aug_assign, [[POS], [NEG]]),
    (if_python_pred, [[POS, True], [POS, False]]),
    (if_python_int_pred, [[POS, 1], [POS, 3]]),
    (if_shape_pred, [[POS], [f32(2)]]),
    (ternary_tensor, [[POS], [NEG]]),
    (ternary_python, [[POS, 2], [POS, 1]]),
    (ternary_nested, [[POS + 0.5], [POS * 0.1], [NEG]]),
    (ternary_in_expr, [[POS], [NEG]]),
    (if_two_outputs, [[POS], [NEG]]),
    (if_int_and_float_outputs, [[POS, Arg(i64(3))], [NEG, Arg(i64(3))]]),
    (if_number_vs_tensor, [[POS], [NEG]]),
    (if_number_both, [[POS], [NEG]]),
    (if_tensor_vs_tensor, [[POS, NEG], [NEG, POS]]),
    (if_all_pred, [[POS], [MIX]]),
    (if_int_tensor_pred, [[POS, Arg(i64(1))], [POS, Arg(i64(0))]]),
    (if_pass_branch, [[POS], [NEG]]),
    (if_calls_helper, [[POS], [NEG]]),
    (if_in_python_loop, [[POS], [NEG]]),
    (if_after_if, [[POS], [NEG], [POS * 0.1]]),
    (if_list_state, [[POS], [NEG]]),
    (if_dict_state, [[POS], [NEG]]),
    (if_matmul, [[f32(2, 3, seed=1), f32(3, 4, seed=2)], [f32(2, 3, seed=1), -f32(3, 4, seed=2)]]),
    (if_numpy_pred, [[POS], [NEG]]),
    (if_elif_python_and_tensor, [[POS, "double"], [POS, "other"], [NEG, "other"]]),
    (if_reuses_pred, [[POS], [NEG]]),
    (if_bool_out, [[POS], [MIX], [f32(4, lo=0.95, hi=0.99)]]),
    (if_const_branch_values, [[POS], [NEG]]),
]


@pytest.mark.parametrize("fn,argsets", CASES, ids=[c[0].__name__ for c in CASES])
def test_ifelse(fn, argsets, backend):
    check(fn, argsets, backend)


def test_one_program_serves_both_branches():
    sf = check(if_both_assign, [[POS], [NEG]])
    assert len(sf.program_cache) == 1
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert ops.count("conditional_block") == 2 and "select_input" in ops


def test_python_predicate_builds_no_cond():
    sf = check(if_python_pred, [[POS, True]])
    ops = [op.type for b in sf.concrete_program.main_program.blocks for op in b.ops]
    assert "conditional_block" not in ops
