"""``Variable.desc`` / ``Program.desc``: small views with the methods of Paddle's C++ VarDesc / ProgramDesc
that Python code calls (``x.desc.set_need_check_feed(False)``, ``program.desc.serialize_to_string()`` ...).

The views read and write the Python objects (there is no separate C++ description here); a setter bumps
the program's version, so caches keyed on it (the Executor's feed checks, compiled code) see the change.
"""
from __future__ import annotations


class VarDescView:
    """Paddle's ``VarDesc`` methods over a static `Variable`."""

    __slots__ = ("_var",)

    def __init__(self, var):
        self._var = var

    def _changed(self):
        prog = getattr(self._var.block, "program", None)
        if prog is not None:
            prog._bump()

    def name(self):
        return self._var.name

    def shape(self):
        return list(self._var._shape)

    def dtype(self):
        return self._var.dtype

    def type(self):
        return self._var.type

    def need_check_feed(self):
        return bool(self._var.need_check_feed)

    def set_need_check_feed(self, need_check_feed):
        self._var.need_check_feed = bool(need_check_feed)
        self._changed()

    def persistable(self):
        return bool(self._var.persistable)

    def set_persistable(self, persistable):
        self._var.persistable = bool(persistable)
        self._changed()

    def stop_gradient(self):
        return bool(self._var.stop_gradient)

    def set_stop_gradient(self, stop_gradient):
        self._var.stop_gradient = bool(stop_gradient)
        self._changed()

    def is_parameter(self):
        from .program import Parameter
        return isinstance(self._var, Parameter)

    def __repr__(self):
        return f"<VarDesc {self._var.name}: shape={self.shape()}, dtype={self._var.dtype}>"


class ProgramDescView:
    """Paddle's ``ProgramDesc`` methods over a static `Program`."""

    __slots__ = ("_program",)

    def __init__(self, program):
        self._program = program

    def num_blocks(self):
        return self._program.num_blocks

    def serialize_to_string(self):
        """The program's ProgramDesc protobuf bytes (what a ``.pdmodel`` holds). Its data variables get feed
        ops, so that `Program.parse_from_string` (which checks every input is written) reads it back."""
        from ..formats.pdmodel import serialize_program
        feeds = [n for n, v in self._program.global_block().vars.items() if getattr(v, "is_data", False)]
        data = serialize_program(self._program, feeds)
        self._program._desc_serialized_version = self._program.version
        return data

    def need_update(self):
        """Whether the program changed since the last `serialize_to_string` (True before the first)."""
        return getattr(self._program, "_desc_serialized_version", None) != self._program.version

    def flush(self):
        pass

    def __repr__(self):
        return f"<ProgramDesc of {self._program!r}>"
