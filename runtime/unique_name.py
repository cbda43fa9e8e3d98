"""Unique names the way Paddle makes them (``linear_0``, ``linear_0.w_0``, ``tmp_3``): one counter per key.

``paddle.utils.unique_name``: `generate(key)` returns ``key_N`` with N counting up per key;
`guard()` runs a block with fresh counters (optionally a name prefix) and restores the old ones.

Threads: the default generator is shared by the whole process (its counters are locked), so
layers and parameters built in different threads never get the same name. `switch` and `guard`
act on the calling thread only: a guard in one thread (fresh counters) must not hand its names
to a Program another thread is tracing, which would then draw ``tmp_0`` twice when the guard
ends and the old counters come back.
"""
from __future__ import annotations

import contextlib
import threading

__all__ = ["UniqueNameGenerator", "generate", "switch", "guard", "generate_with_ignorable_key"]


class UniqueNameGenerator:
    """Counters per key; ``prefix`` is put in front of every generated name."""

    def __init__(self, prefix: str | None = None):
        self.ids: dict[str, int] = {}
        self.prefix = prefix or ""
        self._lock = threading.Lock()

    def __call__(self, key: str) -> str:
        with self._lock:
            n = self.ids.get(key, 0)
            self.ids[key] = n + 1
        return f"{self.prefix}{key}_{n}"


_generator = [UniqueNameGenerator()]     # the process-wide default


class _Local(threading.local):
    def __init__(self):
        self.generator = None    # set by switch/guard in this thread; None: the process default


_local = _Local()


def _current() -> UniqueNameGenerator:
    g = _local.generator
    return _generator[0] if g is None else g


def generate(key: str) -> str:
    """``key`` followed by ``_N``, N counting from 0 per key (``generate("fc")`` -> ``fc_0``, ``fc_1`` ...)."""
    return _current()(key)


# Paddle distinguishes keys whose counters may be reset by the static-graph name scope;
# we keep a single family of counters, so this is `generate`.
generate_with_ignorable_key = generate


def switch(new_generator: UniqueNameGenerator | None = None) -> UniqueNameGenerator:
    """Install ``new_generator`` (fresh counters when None) for the calling thread and return the
    one it replaces."""
    old = _current()
    new = new_generator if new_generator is not None else UniqueNameGenerator()
    # switching back to the process default (what guard does on exit) clears the override, so the
    # thread follows the shared counters again rather than a private reference to them
    _local.generator = None if new is _generator[0] else new
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    """Generate names from fresh counters inside the block.

    ``new_generator`` may be a `UniqueNameGenerator`, a string (used as a name prefix) or None.
    """
    if isinstance(new_generator, bytes):
        new_generator = new_generator.decode()
    if isinstance(new_generator, str):
        new_generator = UniqueNameGenerator(new_generator)
    elif new_generator is not None and not isinstance(new_generator, UniqueNameGenerator):
        raise TypeError("unique_name.guard: new_generator must be a str, a UniqueNameGenerator or None, "
                        f"got {type(new_generator).__name__}")
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
