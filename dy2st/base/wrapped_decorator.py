"""``paddle.base.wrapped_decorator``: decorators that keep the decorated function's name, docstring
and signature (``signature_safe_contextmanager``, ``wrap_decorator``)."""
from __future__ import annotations

import contextlib
import functools

__all__ = ["wrap_decorator", "signature_safe_contextmanager"]


def wrap_decorator(decorator_func):
    """Turn ``decorator_func`` (function -> wrapper) into a decorator whose wrappers carry the
    wrapped function's metadata and ``__signature__`` (``inspect.signature`` shows the original)."""
    def decorator(func):
        wrapped = decorator_func(func)
        functools.update_wrapper(wrapped, func)
        return wrapped
    return decorator


signature_safe_contextmanager = wrap_decorator(contextlib.contextmanager)
