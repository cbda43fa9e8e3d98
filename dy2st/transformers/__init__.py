"""The conversion passes, one per file, in the order `PASSES` lists them.

Each pass is ``transform(fn_node, ctx) -> fn_node`` over the gast tree of the function being
converted (see each module's docstring for a before/after example). ``ANALYSE`` marks where
the analyses (dy2st/analysis) run: after the passes that restructure the code with flags,
before the passes that turn control flow into helper calls and read the annotations.
"""
from . import (annotations, assertions, break_continue, calls, decorators, generators, ifelse, inplace_calls,  # noqa: E501
               logical, loops, return_statements, setitem, shapes, super_call, unbound_reads,
               undefined_init)

ANALYSE = "analyse"

PASSES = (
    decorators,          # the function's own decorators already ran
    annotations,         # y: T = v -> y = v (annotated names cannot be nonlocal)
    super_call,          # super() -> super(__class__, self)
    generators,          # generator functions: tensor conditions are refused clearly
    return_statements,   # early return -> flag + value
    break_continue,      # break / continue -> flags
    assertions,          # assert -> convert_assert
    inplace_calls,       # paddle.increment(i) -> i = convert_inplace_call(paddle.increment, i)
    calls,               # f(x) -> _jst.Call(f)(x)
    shapes,              # x.shape -> convert_shape(x)
    logical,             # and / or / not / chained compare -> convert_logical_*
    setitem,             # x[i] = v -> x = convert_setitem(x, i, v)
    ANALYSE,             # CFG, activity, liveness, reaching definitions
    unbound_reads,       # reads of maybe-unbound names -> read_maybe_unbound (checked where bound on some paths)
    ifelse,              # if / ternary -> convert_ifelse / convert_ifexp
    loops,               # while / for -> convert_while_loop / convert_for_loop
    undefined_init,      # possibly-unbound names start as UndefinedVar
)
