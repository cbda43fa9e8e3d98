"""Timing primitives shared by the main process and the workers (same code on every side)."""
from __future__ import annotations

import contextlib
import time


def time_calls(fn, number, ctx=None):
    """Mean ns per call of ``fn`` over ``number`` back-to-back calls, inside ``ctx()`` if given."""
    with (ctx() if ctx is not None else contextlib.nullcontext()):
        t0 = time.perf_counter_ns()
        for _ in range(number):
            fn()
        return (time.perf_counter_ns() - t0) / number


def calibrate(fn, min_time, ctx=None, max_number=1 << 20, tries=3):
    """Calls per timing so that one timing of ``fn`` lasts about ``min_time`` seconds (at least 1).

    Each size is timed ``tries`` times and the fastest counts, so one call slowed by another
    process does not shrink the calibrated count.
    """
    number = 1
    while True:
        per_call = min(time_calls(fn, number, ctx) for _ in range(tries))
        if per_call * number >= min_time * 1e9 / 4 or number >= max_number:
            return max(1, min(max_number, int(min_time * 1e9 / max(per_call, 1.0))))
        number *= 4
