"""Shared helpers of the pass tests: build a Program, optimize it, run it with passes on and off."""
from __future__ import annotations

import numpy as np

import dy2st as paddle
from runtime.static import Program, program_guard
from runtime.static.codegen import compile_program
from runtime.static.passes import optimize
from runtime.static.scope import Scope


def build(fn):
    """``fn()`` under a fresh program_guard in static mode; returns (main, startup, fn's result)."""
    paddle.enable_static()
    try:
        main, startup = Program(), Program()
        with program_guard(main, startup):
            res = fn()
        main.verify()
        return main, startup, res
    finally:
        paddle.disable_static()


def names(vs):
    return tuple(v if isinstance(v, str) else v.name for v in vs)


def op_types(program):
    return [op.type for op in program.global_block().ops]


def optimized(main, feeds, fetches, passes):
    before = str(main)
    prog = optimize(main, names(feeds), names(fetches), passes=passes)
    assert str(main) == before, "optimize changed the user's Program"
    prog.verify()
    return prog


def run(main, feed, fetches, passes, startup=None, scope=None):
    """Fetched arrays of one compiled run (``passes``: () none, None default)."""
    scope = scope if scope is not None else Scope()
    if startup is not None:
        run(startup, {}, (), (), scope=scope)
    c = compile_program(main, tuple(feed), names(fetches), passes=passes)
    return list(c.fn(feed, scope.vars, main._eager_bindings)), c


def assert_same_on_off(main, feed, fetches, passes, startup=None):
    """Outputs with ``passes`` equal (bit for bit) the outputs with no pass; returns the on-source."""
    scope = Scope()
    if startup is not None:
        run(startup, {}, (), (), scope=scope)
    state = {k: np.array(v, copy=True) for k, v in scope.vars.items()}
    off, _ = run(main, feed, fetches, (), scope=scope)
    scope.vars.update({k: np.array(v, copy=True) for k, v in state.items()})   # same state for both runs
    on, c = run(main, feed, fetches, passes, scope=scope)
    assert len(on) == len(off)
    for a, b in zip(on, off):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    return c.source
