"""Pausing Python's cyclic garbage collector while a large graph is built.

Tracing a function into a Program, planning its backward and compiling it create objects by the
hundred thousand and free almost none, which is the worst case for the generational collector:
each full collection walks every live object, and the number of full collections grows with the
heap, so a trace of 16k ops spent 30-50 % of its time in the collector and grew faster than the
number of ops (measured: benchmarks/tracing.py --no-gc). `gc_paused` switches the collector off
for the duration and restores it afterwards; nested and concurrent uses (threads tracing at once)
share one count, and the collector comes back on only when the last one ends — and only if it was
on when the first one began (a user who disabled it keeps it disabled).
"""
from __future__ import annotations

import contextlib
import gc
import threading

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextlib.contextmanager
def gc_paused():
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
