"""``paddle.utils.deprecated``: mark a function or class as deprecated, as Paddle does.

The docstring gains a ``Warning:`` block; calls warn (``level=1``, a `VisibleDeprecationWarning`, shown
even outside ``__main__``) or raise ``RuntimeError`` (``level=2``); ``level=0`` only edits the
docstring. ``since`` is a Paddle version: the warning fires when the Paddle API this package follows
(``paddle.version.paddle_api_version``) is that version or newer, or when ``since`` is empty.
"""
from __future__ import annotations

import functools
import inspect
import sys
import warnings

__all__ = ["deprecated", "VisibleDeprecationWarning"]


class VisibleDeprecationWarning(UserWarning):
    """A deprecation warning Python shows by default (a ``DeprecationWarning`` is hidden outside ``__main__``)."""


def _version_parts(text):
    parts = [int(p) for p in text.split(".") if p.isdigit()]
    return parts + [0] * (4 - len(parts))


def deprecated(update_to="", since="", reason="", level=0):
    """Decorator: ``@deprecated(update_to="paddle.new_api", since="2.0.0", reason="...", level=1)``."""
    def decorator(func):
        if not isinstance(update_to, str):
            raise AssertionError('type of "update_to" must be str.')
        if not isinstance(since, str):
            raise AssertionError('type of "since" must be str.')
        if not isinstance(reason, str):
            raise AssertionError('type of "reason" must be str.')
        if not (isinstance(level, int) and 0 <= level < 3):
            raise AssertionError(f'type of "level" must be int and must be one of 0, 1, 2. But received: {level}.')
        _since, _update_to, _reason = since.strip(), update_to.strip(), reason.strip()
        msg = f'API "{func.__module__}.{func.__name__}" is deprecated'
        if _since:
            msg += f" since {_since}"
        msg += ", and will be removed in future versions."
        if _update_to:
            if not _update_to.startswith("paddle."):
                raise AssertionError(f'Argument update_to must start with "paddle.", your value is "{update_to}"')
            msg += f' Please use "{_update_to}" instead.'
        if _reason:
            msg += f"\n    Reason: {_reason}"
        if func.__doc__:
            func.__doc__ = "\n\nWarning:\n    " + msg + "\n\n" + inspect.cleandoc(func.__doc__)
        if level == 0:
            return func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(f'API "{func.__module__}.{func.__name__}" has been deprecated.')
            from .. import version
            if not _since or _version_parts(version.paddle_api_version) >= _version_parts(_since):
                # yellow on terminals; plain text on Windows consoles, as Paddle
                text = (f"\nWarning:\n{msg} " if sys.platform.lower() == "win32"
                        else f"\033[93m\nWarning:\n{msg} \033[0m")
                warnings.warn(text, category=VisibleDeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)

        return wrapper

    return decorator
