"""Process-wide framework state: dynamic vs static mode, whether gradients are recorded.

Kept in one small object so the hot path reads two attributes and nothing else.
The static half of the framework installs `state.static_builder` (a callable taking
``(opdef, inputs, attrs)``) when it is imported; `run_op` hands every op to it while
static mode is on.
"""
from __future__ import annotations

import contextlib
import functools


class _State:
    __slots__ = ("static", "grad_enabled", "static_builder", "tracer")

    def __init__(self):
        self.static = False          # True between enable_static() and disable_static()
        self.grad_enabled = True     # False inside no_grad()
        self.static_builder = None   # set by runtime.static: (opdef, inputs, attrs) -> outputs
        self.tracer = None           # optional callable(opdef, inputs, attrs, outputs) observing eager ops (TracedLayer)


state = _State()


def in_dynamic_mode() -> bool:
    return not state.static


in_dygraph_mode = in_dynamic_mode


def enable_static() -> None:
    if state.static_builder is None:
        # Importing the static package installs the builder; the import is lazy so eager
        # users never pay for it.
        import importlib
        importlib.import_module("runtime.static")
    state.static = True


def disable_static(place=None) -> None:
    state.static = False


def is_grad_enabled() -> bool:
    return state.grad_enabled


def set_grad_enabled(mode: bool):
    """Paddle's ``set_grad_enabled``: usable as a call or a context manager."""
    return _GradMode(bool(mode))


class _GradMode(contextlib.ContextDecorator):
    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.prev = state.grad_enabled
        state.grad_enabled = enabled   # set_grad_enabled(False) works as a plain call too

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        state.grad_enabled = self.prev
        return False


class no_grad(contextlib.ContextDecorator):
    """Context manager and decorator that stops gradient recording (``paddle.no_grad``).

    Works as ``with paddle.no_grad():``, ``@paddle.no_grad()`` and ``@paddle.no_grad``.
    """

    def __new__(cls, func=None):
        self = super().__new__(cls)
        if callable(func):
            self.__init__()
            return self(func)
        return self

    def __init__(self, func=None):
        self._prev = []

    def __enter__(self):
        self._prev.append(state.grad_enabled)
        state.grad_enabled = False
        return self

    def __exit__(self, *exc):
        state.grad_enabled = self._prev.pop()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)
        return wrapper


class enable_grad(no_grad):
    """Re-enable gradient recording inside a ``no_grad`` region."""

    def __enter__(self):
        self._prev.append(state.grad_enabled)
        state.grad_enabled = True
        return self
