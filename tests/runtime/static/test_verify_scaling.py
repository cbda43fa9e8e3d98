"""The verifier (runtime/static/verify.py) does work linear in the program's length.

Counted with tests/runtime/static/work_counter.py, never timed. It used to copy the names of every
variable of a block's ancestors into a new set for each block: with many control-flow ops (a
sub-block each, all children of the global block) that was quadratic.
"""
import pytest

import runtime
from runtime import static
from runtime.dispatch import run_op
from runtime.static.verify import ProgramVerifyError, verify_program

from .work_counter import assert_linear, counting


@pytest.fixture(autouse=True)
def static_mode():
    runtime.enable_static()
    try:
        yield
    finally:
        runtime.disable_static()


def _conds(n):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        h = static.data("x", [3], "float32")
        for _ in range(n):
            pred = run_op("reduce_mean", h, reduce_all=True) > 0.0
            h = static.nn.cond(pred, lambda h=h: h * 0.5, lambda h=h: h + 1.0)
    return main


def _verify_work(n):
    main = _conds(n)
    with counting() as work:
        verify_program(main)
    return work


def test_verify_work_grows_linearly():
    # linear code: ~4x the bytecodes; the per-block copies of the global block's variables gave ~10x
    assert_linear(_verify_work, 20, 80)


def test_sub_block_reads_of_outer_values_still_checked():
    """A sub-block op may read any variable of an ancestor block, but a variable of its own block
    only once an op wrote it (the lookup through the ancestors must not hide that)."""
    main = _conds(2)
    verify_program(main)
    sub = next(b for b in main.blocks if b.idx > 0 and b.ops)
    op = sub.ops[0]
    local = sub.create_var(name="never_written", shape=[3], dtype="float32")
    slot = next(s for s, ns in op.inputs.items() if ns)
    op.inputs[slot] = [local.name]
    with pytest.raises(ProgramVerifyError, match="'never_written' is read before any op writes it"):
        verify_program(main)
