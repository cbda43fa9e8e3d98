"""Errors the runtime raises to users. Each message says what, where, and how to fix."""
from __future__ import annotations

import difflib


class UnknownOpError(KeyError):
    """An op type that is not in the registry (a typo, or an op we do not implement yet)."""

    def __init__(self, type, known):
        close = difflib.get_close_matches(str(type), list(known), n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        super().__init__(f"unknown op type {type!r}: it is not registered in dy2st.{hint}")

    def __str__(self):
        return self.args[0]


class OpError(RuntimeError):
    """Wraps an exception raised inside an op kernel, naming the op and its inputs."""


class GradientError(RuntimeError):
    """Backward cannot proceed (graph freed, non-scalar output without grad, ...)."""


# A pickle asked for something other than plain containers and numeric numpy arrays. It is defined
# with the file-format errors (a subclass of ModelFormatError, so one ``except`` catches every load
# failure) and re-exported here, where it has always been importable from.
from .formats.errors import UnsafePickleError  # noqa: E402,F401
