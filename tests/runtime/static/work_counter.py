"""Count the work code does, without a clock: tests of how building, verifying and compiling a
Program scale with its length compare these counts at two sizes (a quadratic step shows as a
ratio near the square of the size ratio, a linear one near the size ratio itself).

Counted: Python bytecode instructions executed in the project's own code (runtime/ and dy2st/:
loops over ops, variables and blocks), and comparisons of Operators (``ops.index(op)``,
``op in ops``: list scans that run in C and execute no bytecode of ours).
"""
from __future__ import annotations

import contextlib
import os
import sys

from runtime.static.program import Operator

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_OURS = tuple(os.path.join(_ROOT, d) + os.sep for d in ("runtime", "dy2st"))


class Work:
    def __init__(self):
        self.opcodes = 0
        self.op_comparisons = 0

    @property
    def total(self):
        return self.opcodes + self.op_comparisons


@contextlib.contextmanager
def counting():
    """``with counting() as w: ...`` counts into ``w`` (a Work) the work done in the block."""
    work = Work()
    ours = {}

    def local(frame, event, arg):
        if event == "opcode":
            work.opcodes += 1
        return local

    def call(frame, event, arg):
        fn = frame.f_code.co_filename
        mine = ours.get(fn)
        if mine is None:
            mine = ours[fn] = fn.startswith(_OURS)
        if not mine:
            return None
        frame.f_trace_opcodes = True
        return local

    def eq(a, b):
        work.op_comparisons += 1
        return a is b

    had_eq = "__eq__" in Operator.__dict__
    assert not had_eq, "Operator defines __eq__: this counter would replace it"
    Operator.__eq__ = eq      # the type keeps its identity hash; the default __eq__ is identity too
    old = sys.gettrace()
    sys.settrace(call)
    try:
        yield work
    finally:
        sys.settrace(old)
        del Operator.__eq__


def assert_linear(measure, small, large, slack=1.25):
    """Assert that ``measure(n)`` (a Work) grows about linearly from ``n = small`` to ``n = large``:
    each kind of work by at most ``slack`` times the size ratio (linear code stays near the size
    ratio; a quadratic step in it approaches the square of the size ratio). The kinds are checked
    apart: a few thousand op comparisons would vanish in a million bytecodes."""
    a, b = measure(small), measure(large)
    limit = slack * large / small
    for kind in ("opcodes", "op_comparisons"):
        x, y = getattr(a, kind), getattr(b, kind)
        # +1: code that does none of a kind at the small size may do a little at the large one
        assert y <= limit * (x + 1), (f"{large / small:g}x the size cost {y / max(x, 1):.1f}x the {kind} "
                                      f"({x} -> {y}); linear code stays under {limit:g}x")
