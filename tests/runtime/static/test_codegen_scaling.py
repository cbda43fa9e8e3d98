"""Compiling a Program to Python (runtime/static/codegen.py) does work linear in its length.

Counted with tests/runtime/static/work_counter.py, never timed: ``_Names.fresh`` searched for a free
suffix from 1 for every kernel global (``elementwise_add_1``, ``_2`` ...), so the n-th op of a type
cost n tries: compile_program was quadratic in the number of ops of one type.
"""
import pytest

import runtime
from runtime import static
from runtime.static.codegen import compile_program

from .work_counter import assert_linear, counting


@pytest.fixture(autouse=True)
def static_mode():
    runtime.enable_static()
    try:
        yield
    finally:
        runtime.disable_static()


def _chain(n):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        h = static.data("x", [3], "float32")
        for _ in range(n):
            h = runtime.tanh(h * 1.5 + h)
    return main, h


def _compile_work(n):
    main, out = _chain(n)
    with counting() as work:
        compile_program(main, ("x",), (out.name,), passes=())
    return work


def test_compile_work_grows_linearly():
    assert_linear(_compile_work, 100, 400)
