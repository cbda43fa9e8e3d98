"""Framework state: dynamic vs static mode, whether gradients are recorded, the eager-op observer.

Per thread, as in Paddle (its ``global_var`` is a ``threading.local`` and its tracer's grad flag
is ``thread_local``): `state` is a `threading.local`, so tracing a to_static function in one
thread (which turns static mode on while it builds) is invisible to every other thread, and a
``no_grad()`` block in one thread does not stop another from recording gradients.

- ``state.static``: a new thread starts in the mode last set by `enable_static` /
  `disable_static` in any thread (the process default), so ``paddle.enable_static()`` in the main
  thread before starting workers is seen by them; a thread that has already run framework code
  keeps its own mode (Paddle initialises its thread-local the same way).
- ``state.grad_enabled``: every thread starts with gradients on (Paddle's ``has_grad_`` and
  PyTorch's grad mode are thread-local with that default).
- ``state.tracer``: an optional callable(opdef, inputs, attrs, outputs) observing the eager ops
  of this thread (TracedLayer).
- ``state.amp``: the ``paddle.amp.auto_cast`` region of this thread, or None; `run_op` casts the inputs
  of eager ops by its rules while it is set (one attribute read when AMP is off).
- ``state.static_builder``: process-wide; the static half of the framework installs it (a
  callable taking ``(opdef, inputs, attrs)``) when imported, and `run_op` hands every op to it
  while static mode is on.

The hot paths read plain attributes of the thread-local (no locks, no Python-level calls).
"""
from __future__ import annotations

import contextlib
import functools
import threading

# what a thread that has not touched `state` yet starts with (the mode enable_static/disable_static
# last set), and the static builder shared by all threads
_process = {"static": False, "static_builder": None}


class _State(threading.local):
    """Per-thread framework flags; `__init__` runs once in each thread, on its first access."""

    def __init__(self):
        self.static = _process["static"]
        self.grad_enabled = True
        self.tracer = None
        self.amp = None       # the active paddle.amp.auto_cast region (runtime.amp.op_rules.AmpState) or None
        self.op_debug = None  # paddle.amp.debugging's eager-op hook (tensor checker / op stats) or None

    # one builder for the whole process: a property, so that installing it from any thread (the
    # import of runtime.static may happen in a worker) is seen by all; read only in static mode
    @property
    def static_builder(self):
        return _process["static_builder"]

    @static_builder.setter
    def static_builder(self, fn):
        _process["static_builder"] = fn


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
    _process["static"] = True      # threads that have not used the framework yet start static too
    state.static = True


def disable_static(place=None) -> None:
    _process["static"] = False
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
