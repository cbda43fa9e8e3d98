"""``paddle.jit.dy2static.error``: Paddle's dynamic-to-static error report ("In transformed code:").

An exception raised while to_static converts and traces a function keeps its type; it gets an
``ErrorData`` under the attribute named ``ERROR_DATA`` and, unless the environment variable
``TRANSLATOR_DISABLE_NEW_ERROR`` is 1, its message followed by Paddle's report: ``In transformed code:``,
the user's frames (the innermost one with five lines of source and a ``<--- HERE`` marker), then the
framework frames below them (``ErrorData.create_message`` also ends with the original ``Type: message``,
as Paddle's does). Exception types with their own str() (KeyError, AttributeError, OSError ...) keep
their message and carry the report in the ErrorData and the note; ``ErrorData.create_exception`` makes a
KeyError a ``Dy2StKeyError``, as Paddle (a KeyError's str() would quote the whole report).

Converted code runs under the user's file names and line numbers, so the user's frames are the
traceback entries outside dy2st/ and runtime/ (Paddle looks them up in its origin-info map; ours is
empty). Errors raised while a traced Program runs carry the op and the line that built it as a note,
and (``report_in_place(e, in_runtime=True)``, dy2st/partial_program.py) a report whose innermost frame is
that line.
"""
from __future__ import annotations

import linecache
import os
import re
import traceback

__all__ = []

ERROR_DATA = "Error data about original source code information and traceback."

# 1 (default): runtime error messages are simplified; kept for Paddle's API, compile-time reports ignore it
SIMPLIFY_ERROR_ENV_NAME = "TRANSLATOR_SIMPLIFY_NEW_ERROR"
DEFAULT_SIMPLIFY_NEW_ERROR = 1

# 1: keep the original message (the ErrorData is attached all the same)
DISABLE_ERROR_ENV_NAME = "TRANSLATOR_DISABLE_NEW_ERROR"
DEFAULT_DISABLE_NEW_ERROR = 0

SOURCE_CODE_RANGE = 5
BLANK_COUNT_BEFORE_FILE_STR = 4

HEADER = "In transformed code:"


class Dy2StKeyError(Exception):
    """A KeyError raised in converted code, re-raised with the report as its message."""


def _is_user_file(filename):
    from runtime.static.program import _is_internal
    return not _is_internal(filename) and not filename.startswith("<")


def new_error_disabled():
    try:
        return bool(int(os.getenv(DISABLE_ERROR_ENV_NAME, DEFAULT_DISABLE_NEW_ERROR)))
    except ValueError:
        return False


def _frame_line(frame):
    code = (frame.line or "").strip()
    return (" " * BLANK_COUNT_BEFORE_FILE_STR + f'File "{frame.filename}", line {frame.lineno}, in {frame.name}'
            + (f"\n\t{code}" if code else ""))


def _frame_range(frame):
    """The frame's header and SOURCE_CODE_RANGE lines of source around it, the failing one marked."""
    begin = max(1, frame.lineno - SOURCE_CODE_RANGE // 2)
    rows = []                      # (indent or -1 for a blank line, stripped text)
    for i in range(begin, begin + SOURCE_CODE_RANGE):
        line = linecache.getline(frame.filename, i).rstrip("\n")
        text = line.lstrip()
        rows.append((len(line) - len(text) if text else -1, text))
        if i == frame.lineno:
            rows.append((rows[-1][0], "~" * len(text) + " <--- HERE"))
    while rows and not rows[0][1]:
        rows.pop(0)
    while rows and not rows[-1][1]:
        rows.pop()
    indents = [n for n, _ in rows if n >= 0]
    base = min(indents) if indents else 0
    body = [(" " * (n - base + 2 * BLANK_COUNT_BEFORE_FILE_STR) + t) if t else "" for n, t in rows]
    head = " " * BLANK_COUNT_BEFORE_FILE_STR + f'File "{frame.filename}", line {frame.lineno}, in {frame.name}'
    return "\n".join([head] + body)


class ErrorData:
    """What a to_static error report is made of: the original type, value and traceback frames."""

    def __init__(self, error_type, error_value, origin_traceback, origin_info_map=None):
        self.error_type = error_type
        self.error_value = error_value
        self.origin_traceback = list(origin_traceback)
        self.origin_info_map = origin_info_map if origin_info_map is not None else {}
        self.in_runtime = False

    def _exception_lines(self):
        # format_exception_only: "Type: message" (several lines for a SyntaxError), then any notes
        text = "".join(traceback.format_exception_only(self.error_type, self.error_value))
        return [" " * BLANK_COUNT_BEFORE_FILE_STR + line for line in text.splitlines()]

    def create_message(self, with_error=True):
        """The report: header, the user's frames, the framework frames under them, the original error
        (left out with ``with_error=False``, for a message that already starts with it)."""
        lines = [HEADER, ""]
        tb = self.origin_traceback
        user = [i for i, f in enumerate(tb) if _is_user_file(f.filename)]
        for i in user:
            lines.append(_frame_range(tb[i]) if i == user[-1] else _frame_line(tb[i]))
        lines.append("")
        for frame in tb[(user[-1] + 1) if user else 0:]:
            lines.append(_frame_line(frame))
        if with_error:
            lines.append("")
            lines.extend(self._exception_lines())
        return "\n".join(lines).rstrip("\n")

    def create_exception(self):
        """A new exception of the original type (Dy2StKeyError for a KeyError) carrying the report."""
        message = self.create_message()
        if self.error_type is KeyError:
            new = Dy2StKeyError(message)
        else:
            try:
                new = self.error_type(message)
            except Exception:       # an exception class with an unusual constructor
                new = RuntimeError(message)
        setattr(new, ERROR_DATA, self)
        return new


_CALLSTACK_ENTRY = re.compile(r'\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<name>[^\n]*)')


def _op_site_frames(callstack):
    """Traceback frames (outermost first) from an op's Paddle-style callstack entries (innermost first),
    as ``runtime.static.program.user_callstack`` writes them; entries of another form are skipped."""
    frames = []
    for entry in reversed(list(callstack)):
        m = _CALLSTACK_ENTRY.match(entry) if isinstance(entry, str) else None
        if m is not None:
            frames.append(traceback.FrameSummary(m["file"], int(m["line"]), m["name"].strip(),
                                                 lookup_line=False, line=entry.split("\n", 1)[1].strip()
                                                 if "\n" in entry else None))
    return frames


def attach_error_data(error, in_runtime=False):
    """Attach an ``ErrorData`` built from ``error``'s traceback to ``error`` (once) and return it."""
    data = getattr(error, ERROR_DATA, None)
    if isinstance(data, ErrorData):
        return error
    frames = traceback.extract_tb(error.__traceback__) if error.__traceback__ is not None else []
    if in_runtime:
        # raised by an op of a running Program: the user's line that built the op (the executor's
        # annotation, runtime/static/interpreter.py annotate) is the innermost frame of the report
        frames = list(frames) + _op_site_frames(getattr(error, "_dy2st_op_callstack", None) or ())
    data = ErrorData(type(error), error, frames)
    data.in_runtime = in_runtime
    try:
        setattr(error, ERROR_DATA, data)
    except (AttributeError, TypeError):
        pass
    return error


def _replace_message(error, message):
    """Make ``message`` the str() of ``error`` through its args, for the exception types that print their
    one argument with BaseException's str (TypeError, ValueError, RuntimeError ...): True if it worked,
    else the args are left as they were. Types with their own str (KeyError quotes it; AttributeError,
    OSError ...) keep their message: the ErrorData and the note carry the report for them. SyntaxError
    and its subclasses (IndentationError ...) print their ``msg``: the report goes there (and in args[0]),
    filename and lineno stay as they are, as in Paddle's ``IndentationError(message)``."""
    if isinstance(error, SyntaxError):
        if not isinstance(error.msg, str):
            return False
        error.msg = message
        if error.args:
            error.args = (message,) + tuple(error.args[1:])
        return True
    if type(error).__str__ is not BaseException.__str__:
        return False
    if len(error.args) != 1 or not isinstance(error.args[0], str):
        return False
    old = error.args
    try:
        error.args = (message,)
        if str(error) == message:
            return True
    except Exception:       # an exception type whose args cannot be set or printed
        pass
    error.args = old
    return False


def report_in_place(error, in_runtime=False):
    """Attach the ErrorData and, unless TRANSLATOR_DISABLE_NEW_ERROR=1, follow ``error``'s message with
    the report (see `_replace_message` for the types that keep theirs). The original message stays first:
    it says what went wrong; the report says where."""
    if isinstance(getattr(error, ERROR_DATA, None), ErrorData):
        return error
    attach_error_data(error, in_runtime)
    if not new_error_disabled() and error.args and isinstance(error.args[0], str):
        report = getattr(error, ERROR_DATA).create_message(with_error=False)
        _replace_message(error, f"{error.args[0]}\n\n{report}")
    return error
