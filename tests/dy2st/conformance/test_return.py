"""return inside tensor-dependent if and loops (early return), tuple/dict returns."""
import pytest

import dy2st as paddle

from .harness import Arg, check, f32, i64

POS, NEG = f32(3, lo=0.1, hi=1.0), f32(3, lo=-1.0, hi=-0.1)
N0, N1, N4 = Arg(i64(0)), Arg(i64(1)), Arg(i64(4))


def early_return_if(x):
    if x.mean() > 0:
        return x * 2
    return x - 1


def return_both_branches(x):
    if x.mean() > 0:
        return x * 2
    else:
        return x * 3


def return_nested_if(x):
    if x.mean() > 0:
        if x.max() > 0.9:
            return x + 10
        return x + 20
    return x + 30


def return_then_code(x):
    if x.mean() > 0:
        return x
    y = x * 2
    y = y + 1
    return y


def return_tuple_both(x):
    if x.mean() > 0:
        return x, x * 2
    return x * 3, x * 4


def return_dict_both(x):
    if x.mean() > 0:
        return {"a": x, "b": x + 1}
    return {"a": x - 1, "b": x * 5}


def return_in_while(x, n):
    i = 0
    while i < n:
        x = x + 1
        if x.sum() > 5:
            return x * 100
        i += 1
    return x


def return_in_for_range(x, n):
    for i in range(n):
        x = x * 2
        if x.sum() > 4:
            return x
    return x - 1


def return_in_for_list(x):
    for w in [1.0, 2.0, 3.0]:
        x = x * w
        if x.sum() > 2:
            return x
    return x * 0


def return_python_cond(x, k):
    if k > 1:
        return x * k
    return x


def return_python_in_loop(x):
    for i in range(10):
        if i == 2:
            return x + i
    return x


def return_no_value_end(x):
    y = x * 2
    return


def return_none_python(x, flag):
    if flag:
        return None
    return x


def return_elif_chain(x):
    m = x.mean()
    if m > 0.5:
        return x * 1
    elif m > 0:
        return x * 2
    elif m > -0.5:
        return x * 3
    return x * 4


def return_nested_in_loops(x, n):
    for i in range(n):
        for j in range(n):
            if (x * (i + j)).sum() > 3:
                return x * 7
    return x


def return_list(x):
    if x.sum() > 0:
        return [x, x]
    return [x * 2, x * 3]


CASES = [
    (early_return_if, [[POS], [NEG]]),
    (return_both_branches, [[POS], [NEG]]),
    (return_nested_if, [[POS], [POS * 0.5], [NEG]]),
    (return_then_code, [[POS], [NEG]]),
    (return_tuple_both, [[POS], [NEG]]),
    (return_dict_both, [[POS], [NEG]]),
    (return_in_while, [[POS, N0], [POS, N1], [POS, N4], [POS * 5, N4]]),
    (return_in_for_range, [[POS, N0], [POS, N1], [POS, N4]]),
    (return_in_for_list, [[POS], [POS * 0.01], [NEG]]),
    (return_python_cond, [[POS, 2], [POS, 1]]),
    (return_python_in_loop, [[POS]]),
    (return_no_value_end, [[POS]]),
    (return_none_python, [[POS, True], [POS, False]]),
    (return_elif_chain, [[POS + 0.5], [POS * 0.1], [NEG * 0.1], [NEG - 1]]),
    (return_nested_in_loops, [[POS, N0], [POS, Arg(i64(3))], [POS * 0.01, Arg(i64(3))]]),
    (return_list, [[POS], [NEG]]),
]


@pytest.mark.parametrize("fn,argsets", CASES, ids=[c[0].__name__ for c in CASES])
def test_return(fn, argsets, backend):
    check(fn, argsets, backend)
