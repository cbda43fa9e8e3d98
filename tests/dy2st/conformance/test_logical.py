"""and / or / not on tensors (logical ops) and on Python values (short-circuit), chained compares."""
import numpy as np
import pytest

import dy2st as paddle

from .harness import check, f32

POS, NEG = f32(3, lo=0.1, hi=1.0), f32(3, lo=-1.0, hi=-0.1)
MIX = np.array([0.5, -0.5, 0.2], "float32")


def and_tensors(x):
    if x.mean() > 0 and x.max() > 0.5:
        return x * 2
    return x * 3


def or_tensors(x):
    if x.mean() > 0 or x.min() > -0.3:
        return x * 2
    return x * 3


def not_tensor(x):
    if not x.mean() > 0:
        return x * 2
    return x * 3


def and_value(x):
    c = (x.mean() > 0) and (x.max() < 0.7)
    return paddle.cast(c, "float32") * x


def or_value(x):
    c = (x.max() > 0.7) or (x.min() < 0)
    return paddle.cast(c, "float32") + x


def not_value(x):
    c = not (x.sum() > 0)
    if c:
        x = x * 2
    return x


def and_python_short_circuit(x, items):
    # the right side would fail when items is empty
    if len(items) > 0 and items[0] > 1:
        return x * items[0]
    return x


def or_python_short_circuit(x, d):
    if d is None or d["k"] > 0:
        return x + 1
    return x - 1


def and_python_returns_operand(x, a, b):
    return x * (a and b)


def or_python_returns_operand(x, a, b):
    return x * (a or b)


def mixed_python_and_tensor(x, flag):
    if flag and x.mean() > 0:
        return x * 2
    return x * 5


def mixed_tensor_and_python(x, flag):
    if x.mean() > 0 and flag:
        return x * 2
    return x * 5


def chained_compare_tensor(x):
    if 0 < x.mean() < 0.5:
        return x + 1
    return x - 1


def chained_compare_python(x, a):
    if 0 < a < 5:
        return x + a
    return x


def three_way_and(x):
    if x.mean() > -1 and x.max() > 0 and x.min() < 0:
        return x * 2
    return x


def not_python(x, flag):
    if not flag:
        return x * 2
    return x


def is_none_check(x, y=None):
    if y is not None:
        return x + y
    return x


def in_operator(x, mode):
    if mode in ("a", "b"):
        return x * 2
    return x


def logical_in_while(x):
    i = 0
    while i < 10 and x.sum() < 3:
        x = x + 0.5
        i += 1
    return x


CASES = [
    (and_tensors, [[POS], [POS * 0.1], [NEG]]),
    (or_tensors, [[POS], [NEG * 0.1], [NEG]]),
    (not_tensor, [[POS], [NEG]]),
    (and_value, [[MIX], [POS * 0.5], [POS + 1]]),
    (or_value, [[MIX], [POS * 0.5], [POS + 1]]),
    (not_value, [[POS], [NEG]]),
    (and_python_short_circuit, [[POS, []], [POS, [2.0]], [POS, [0.5]]]),
    (or_python_short_circuit, [[POS, None], [POS, {"k": 1}], [POS, {"k": -1}]]),
    (and_python_returns_operand, [[POS, 2, 3], [POS, 0, 3]]),
    (or_python_returns_operand, [[POS, 2, 3], [POS, 0, 3]]),
    (mixed_python_and_tensor, [[POS, True], [POS, False], [NEG, True]]),
    (mixed_tensor_and_python, [[POS, True], [POS, False], [NEG, True]]),
    (chained_compare_tensor, [[POS * 0.4], [POS + 1], [NEG]]),
    (chained_compare_python, [[POS, 3], [POS, 7]]),
    (three_way_and, [[MIX], [POS], [NEG]]),
    (not_python, [[POS, True], [POS, False]]),
    (is_none_check, [[POS], [POS, POS]]),
    (in_operator, [[POS, "a"], [POS, "c"]]),
    (logical_in_while, [[POS], [POS * 10], [NEG]]),
]


@pytest.mark.parametrize("fn,argsets", CASES, ids=[c[0].__name__ for c in CASES])
def test_logical(fn, argsets, backend):
    check(fn, argsets, backend)


def test_tensor_and_builds_logical_op():
    sf = check(and_value, [[MIX]])
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert "logical_and" in ops
