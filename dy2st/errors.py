"""User-facing errors of the compiler, and the notes that point errors at the user's code.

Errors keep their original type (a `TypeError` in the user's code stays a `TypeError`); the
compiler adds a note with the user's file, line and source text with a marker, and a hint
when one is known. `Dy2StaticError` is for what the compiler itself refuses
(unsupported constructs, sources it cannot read).
"""
from __future__ import annotations

import linecache
import os


class Dy2StaticError(Exception):
    """The compiler cannot convert a construct; the message names it and the line."""


def where_text(where):
    """``model.py:42`` for a ``(filename, lineno)`` pair."""
    if not where:
        return "<unknown>"
    fn, line = where[0], where[1]
    return f"{os.path.basename(fn)}:{line}"


def source_excerpt(filename, lineno, col=None):
    """The source line with a marker under it, as Python's tracebacks show."""
    text = linecache.getline(filename, lineno)
    if not text:
        return ""
    stripped = text.rstrip("\n")
    indent = len(stripped) - len(stripped.lstrip())
    body = stripped.strip()
    start = max((col or indent) - indent, 0)
    marker = " " * start + "^" * max(len(body) - start, 1)
    return f"    {body}\n    {marker}"


def user_frame(tb, internal=None):
    """The innermost traceback entry outside runtime/ and dy2st/ (the user's line)."""
    from runtime.static.program import _is_internal
    found = None
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if not _is_internal(fn) and not fn.startswith("<"):
            found = (fn, tb.tb_lineno, tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return found


def add_user_note(exc, what, fallback=None, hint=None):
    """Attach (once) a note naming where in the user's code ``exc`` happened."""
    if getattr(exc, "_dy2st_noted", False):
        return exc
    site = user_frame(exc.__traceback__) or fallback
    lines = [f"{what}"]
    if site is not None:
        fn, line = site[0], site[1]
        lines.append(f'  File "{fn}", line {line}' + (f", in {site[2]}" if len(site) > 2 and site[2] else ""))
        ex = source_excerpt(fn, line)
        if ex:
            lines.append(ex)
    if hint:
        lines.append(f"  hint: {hint}")
    try:
        exc.add_note("\n".join(lines))
        exc._dy2st_noted = True
    except (AttributeError, TypeError):
        pass
    return exc


def hint_for(exc):
    """A fix suggestion for errors users commonly hit in converted code."""
    msg = str(exc)
    if "truth value of static Variable" in msg:
        return ("a tensor is used as a Python bool in code the compiler did not convert (a generator, a lambda, "
                "or a library function); move the control flow into the converted function or use "
                "paddle.static.nn.cond")
    if "has no value at build time" in msg:
        return "inside to_static code tensors have no values; use tensor ops instead of .numpy()/.item() values"
    return None
