"""The ONNX lowering table: op type -> function ``(ctx, op)`` that emits ONNX nodes for one Operator.

``@lowers("relu", ...)`` registers a lowering (and stores it in the op's ``OpDef.onnx``, so the
registry answers "can this op be exported?"). Lowerings read inputs with ``ctx.input(op, slot)``,
emit nodes with ``ctx.node(...)`` and bind results with ``ctx.output(op, slot)``; see export.py.
"""
from __future__ import annotations

import re

LOWERINGS: dict = {}


class UnsupportedOpError(NotImplementedError):
    """An op (or one use of it) that has no ONNX lowering. The message names the op type and the
    user's source line that built it."""

    def __init__(self, op_type, where="", reason=None):
        self.op_type = op_type
        self.where = where
        self.reason = reason
        what = reason or f"op '{op_type}' has no ONNX lowering"
        if reason and f"'{op_type}'" not in reason:
            what = f"op '{op_type}': {reason}"
        msg = f"ONNX export: {what}"
        msg += f" (built at {where})" if where else " (the op carries no user call site)"
        super().__init__(msg)


def lowers(*types):
    """Register the decorated function as the ONNX lowering of each op type in ``types``."""
    def deco(fn):
        from ..ops.registry import all_ops
        ops = all_ops()
        for t in types:
            LOWERINGS[t] = fn
            if t in ops:
                ops[t].onnx = fn
        return fn
    return deco


def lowering_for(op_type):
    return LOWERINGS.get(op_type)


_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<fn>\S+))?')


def user_site(op):
    """``file:line (in fn): source`` of the user code that built ``op``, from its op_callstack."""
    cs = getattr(op, "callstack", None) or (op.attrs.get("op_callstack") if hasattr(op, "attrs") else None)
    if not cs:
        return ""
    first = cs[0]
    m = _FRAME.search(first)
    if not m:
        return first.strip().splitlines()[0]
    site = f"{m.group('file')}:{m.group('line')}"
    if m.group("fn"):
        site += f" in {m.group('fn')}"
    lines = first.strip().splitlines()
    if len(lines) > 1 and lines[-1].strip():
        site += f": {lines[-1].strip()}"
    return site


def unsupported(op, reason=None):
    """The UnsupportedOpError for ``op`` (raise it)."""
    return UnsupportedOpError(op.type, user_site(op), reason)
