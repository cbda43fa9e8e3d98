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


class ReturnStructureError(Dy2StaticError, ValueError):
    """Returns that meet under a tensor condition disagree in structure (Paddle: "Your if/else have
    different number of return value."), or one of them is a Python value no Program can select."""


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
    # Paddle's report: ErrorData attached, message "In transformed code: ..." (paddle.jit.dy2static.error)
    from .jit.dy2static.error import report_in_place
    report_in_place(exc)
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


# -- calls with arguments that are not tensors -----------------------------------------------------------
# to_static passes arguments that are not tensors into the function as Python values (part of the cache
# key, as in Paddle), so None, a list or a str is accepted by the call and fails only where the function
# uses it as a tensor, with Python's message about the value ("'NoneType' object has no attribute
# 'shape'"). These helpers turn that into a message naming the argument.

def describe_value(value):
    """A short description of a Python value for messages: ``None``, ``a list of 3 floats``, ``a str ('ab')``."""
    if value is None:
        return "None"
    tname = type(value).__name__
    if isinstance(value, (list, tuple)):
        if not value:
            return f"an empty {tname}"
        kinds = sorted({type(v).__name__ for v in value})
        what = kinds[0] if len(kinds) == 1 else "values"
        return f"a {tname} of {len(value)} {what}{'s' if len(value) != 1 and what != 'values' else ''}"
    if isinstance(value, dict):
        keys = list(value)[:4]
        return f"a dict with keys {keys}" + (" ..." if len(value) > 4 else "")
    if isinstance(value, (str, bytes)):
        shown = value if len(value) <= 20 else value[:17] + "..."
        return f"a {tname} ({shown!r})"
    return f"{'an' if tname[:1].lower() in 'aeiou' else 'a'} {tname}"


def _is_number(value):
    import numbers
    return isinstance(value, (numbers.Number,)) or type(value).__module__ == "numpy" and hasattr(value, "dtype")


def _holds_tensors(value):
    from runtime.tensor import Tensor
    from runtime.static.program import Variable
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, (Tensor, Variable)) for v in value)


def _fix_for(name, value):
    if value is None:
        return (f"pass a paddle.Tensor for '{name}', or, if '{name}' is optional, test `if {name} is not None:` "
                f"in the function before using it")
    if _holds_tensors(value):
        return (f"pass one tensor for '{name}' (paddle.stack or paddle.concat the {type(value).__name__} first), "
                f"or index the {type(value).__name__} inside the function")
    if isinstance(value, (list, tuple)) and all(_is_number(v) for v in value):
        return f"pass paddle.to_tensor({name}) instead of the {type(value).__name__}"
    return f"pass a paddle.Tensor for '{name}'"


def bad_argument_error(exc, where, arguments):
    """A clearer exception (same type) for ``exc`` raised while tracing ``where`` when an argument that is
    not a tensor was used as one, or None when ``exc`` does not name such an argument's type.

    ``arguments``: ``(name, value)`` pairs of the call's arguments that are not tensors. Numbers are left
    out: they are ordinary Python values in tensor expressions and an error naming 'int' is rarely theirs.
    """
    if type(exc) not in (TypeError, AttributeError, ValueError):
        return None
    msg = str(exc)
    hits = []
    for name, value in arguments:
        if _is_number(value):
            continue
        tname = type(value).__name__
        if f"'{tname}'" in msg or f"a {tname} of dtype" in msg or f"got {tname}" in msg:
            hits.append((name, value))
    if not hits:
        return None
    if len(hits) == 1:
        name, value = hits[0]
        head = f"argument '{name}' is {describe_value(value)}, but the function uses it as a tensor"
        fix = _fix_for(name, value)
    else:
        names = ", ".join(f"'{n}' ({describe_value(v)})" for n, v in hits)
        head = f"one of the arguments {names} is used as a tensor but is not one"
        fix = "; or ".join(_fix_for(n, v) for n, v in hits)
    text = (f"{where}: {head} ({msg}). to_static passes arguments that are not tensors into the function as "
            f"Python values (each distinct value traces its own Program); {fix}")
    try:
        return type(exc)(text)
    except Exception:   # an exception class with an unusual constructor: keep the original
        return None
