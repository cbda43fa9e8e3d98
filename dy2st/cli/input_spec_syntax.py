"""Parse the command line's input specs: ``"x:float32[None,784]"`` -> ``InputSpec([None, 784], "float32", "x")``.

Form: ``[NAME:]DTYPE[DIM,...]``; a DIM is a non-negative int, or ``None`` / ``-1`` / ``?`` for a
size that may change between calls (a batch size). ``float32[]`` is a scalar.
"""
from __future__ import annotations

import re

__all__ = ["parse_input_spec", "InputSpecSyntaxError", "FORM"]

FORM = "NAME:DTYPE[DIM,...] (DIM an int or None), e.g. x:float32[None,784]"

_SPEC = re.compile(r"^\s*(?:(?P<name>[^:\[\]]*?)\s*:)?\s*(?P<dtype>[A-Za-z_][A-Za-z0-9_]*)?\s*"
                   r"(?P<dims>\[.*)?$", re.S)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


class InputSpecSyntaxError(ValueError):
    """A malformed input spec; the message quotes the text and shows the expected form."""


def _fail(text, why):
    raise InputSpecSyntaxError(f"bad input spec '{text}': {why}; expected {FORM}")


def _dim(text, tok):
    t = tok.strip()
    if t in ("None", "none", "-1", "?"):
        return None
    if re.fullmatch(r"\d+", t):
        return int(t)
    if t == "":
        _fail(text, "empty dimension (two commas in a row, or a trailing comma)")
    _fail(text, f"dimension '{t}' is not a non-negative integer or None")


def parse_input_spec(text):
    """The ``InputSpec`` that ``text`` describes (its name is None when ``text`` gives none)."""
    from runtime.dtype import convert_dtype
    from runtime.static.input_spec import InputSpec
    if not isinstance(text, str) or not text.strip():
        _fail(text, "it is empty")
    m = _SPEC.match(text)
    if m is None:
        _fail(text, "write the shape in square brackets" if "(" in text else "cannot read it")
    name, dtype, dims = m.group("name"), m.group("dtype"), m.group("dims")
    if name is not None and not _NAME.match(name):
        _fail(text, f"input name '{name}' is not an identifier" if name else "the input name before ':' is empty")
    if dtype is None:
        _fail(text, "the dtype is missing")
    if dims is None:
        _fail(text, f"the shape is missing after '{dtype}' (write [] for a scalar)")
    dims = dims.strip()
    if not dims.endswith("]") or dims.count("[") != 1 or dims.count("]") != 1:
        _fail(text, f"the shape '{dims}' must be one [...] list at the end")
    inner = dims[1:-1]
    shape = [] if not inner.strip() else [_dim(text, tok) for tok in inner.split(",")]
    try:
        dt = convert_dtype(dtype)
    except (ValueError, TypeError):
        _fail(text, f"unknown dtype '{dtype}' (e.g. float32, float64, int64, int32, bool)")
    return InputSpec(shape, dt, name or None)


def format_input_spec(spec):
    """The command-line text of ``spec`` (the inverse of `parse_input_spec`)."""
    dims = ",".join("None" if d is None or d < 0 else str(d) for d in spec.shape)
    head = f"{spec.name}:" if spec.name else ""
    return f"{head}{spec.dtype.name}[{dims}]"
