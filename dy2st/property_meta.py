"""The ``prefix.meta`` file of ``paddle.jit.save``: values of ``to_static(property=True)`` functions.

Paddle writes it with ``core.Property().serialize_to_string()``: a protobuf ``PropertyVals`` message
(``repeated ValueProto entrys = 1``), one entry per property, each

    name = 1 (string, "ClassName.method")   type = 2 (enum: FLOAT 1, INT 2, STRING 3, FLOATS 6, INTS 7,
    STRINGS 8)   f = 3 (float)   i = 4 (int64)   s = 5 (bytes)   floats = 7   ints = 8   strings = 9

(repeated fields unpacked, as proto2 writes them). Encoded and decoded here by hand; the decoder
treats the file as untrusted (bounds checked, a clear error on anything malformed).
"""
from __future__ import annotations

import struct

__all__ = ["serialize_properties", "parse_properties", "PropertyFormatError", "Property"]

FLOAT, INT, STRING, FLOATS, INTS, STRINGS = 1, 2, 3, 6, 7, 8
_VARINT, _FIXED64, _LEN, _FIXED32 = 0, 1, 2, 5


class PropertyFormatError(ValueError):
    """A ``.meta`` file that is not a PropertyVals message."""


def _varint(n):
    n &= (1 << 64) - 1          # int64: negative numbers take ten bytes, as protobuf writes them
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field, wire):
    return _varint(field << 3 | wire)


def _len_field(field, data):
    return _key(field, _LEN) + _varint(len(data)) + data


def _int64(v):
    if not -(1 << 63) <= v < (1 << 63):
        raise ValueError(f"property value {v} does not fit in int64")
    return v


def _entry(key, val):
    body = _len_field(1, key.encode("utf-8"))
    if isinstance(val, float):
        body += _key(2, _VARINT) + _varint(FLOAT) + _key(3, _FIXED32) + struct.pack("<f", val)
    elif isinstance(val, int):          # bool too (an int), as Paddle's set_int
        body += _key(2, _VARINT) + _varint(INT) + _key(4, _VARINT) + _varint(_int64(int(val)))
    elif isinstance(val, str):
        body += _key(2, _VARINT) + _varint(STRING) + _len_field(5, val.encode("utf-8"))
    elif isinstance(val, (tuple, list)) and val and isinstance(val[0], (float, int, str)):
        first = val[0]
        try:
            if isinstance(first, float):
                body += _key(2, _VARINT) + _varint(FLOATS)
                body += b"".join(_key(7, _FIXED32) + struct.pack("<f", float(v)) for v in val)
            elif isinstance(first, int):
                body += _key(2, _VARINT) + _varint(INTS)
                body += b"".join(_key(8, _VARINT) + _varint(_int64(int(v))) for v in val)
            else:
                body += _key(2, _VARINT) + _varint(STRINGS)
                body += b"".join(_len_field(9, str(v).encode("utf-8")) for v in val)
        except (TypeError, ValueError) as e:
            raise ValueError(f"property '{key}': the list {val!r} mixes types its first element's type "
                             f"({type(first).__name__}) cannot hold: {e}") from None
    else:
        raise ValueError(f"Note support val type: {type(val)} (property '{key}': a to_static(property=True) "
                         "function saved by jit.save must return a float, an int, a str, or a non-empty list of "
                         "one of them)")
    return _len_field(1, body)


def serialize_properties(property_vals):
    """The ``.meta`` bytes for ``[(value, name), ...]`` (Paddle's ``_save_property`` order)."""
    return b"".join(_entry(name, val) for val, name in property_vals)


class _Reader:
    def __init__(self, data, path):
        self.data, self.pos, self.path = memoryview(data), 0, path

    def fail(self, what):
        where = f" in {self.path}" if self.path else ""
        raise PropertyFormatError(f"malformed property file{where}: {what} at byte {self.pos}")

    def varint(self):
        n, shift = 0, 0
        while True:
            if self.pos >= len(self.data):
                self.fail("truncated varint")
            b = self.data[self.pos]
            self.pos += 1
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                return n
            shift += 7
            if shift >= 70:
                self.fail("varint longer than 10 bytes")

    def take(self, n):
        if n < 0 or self.pos + n > len(self.data):
            self.fail(f"field of {n} bytes runs past the end")
        chunk = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        return chunk

    def fields(self):
        while self.pos < len(self.data):
            key = self.varint()
            field, wire = key >> 3, key & 7
            if wire == _VARINT:
                yield field, wire, self.varint()
            elif wire == _FIXED32:
                yield field, wire, self.take(4)
            elif wire == _FIXED64:
                yield field, wire, self.take(8)
            elif wire == _LEN:
                yield field, wire, self.take(self.varint())
            else:
                self.fail(f"unsupported wire type {wire}")


def _signed(n):
    return n - (1 << 64) if n >= 1 << 63 else n


def parse_properties(data, path=None):
    """``{name: value}`` from ``.meta`` bytes (floats come back as Python floats of float32 precision)."""
    out = {}
    for field, wire, value in _Reader(data, path).fields():
        if field != 1 or wire != _LEN:
            continue
        r = _Reader(value, path)
        name, kind, scalar, items = None, None, None, []
        for f, w, v in r.fields():
            if f == 1 and w == _LEN:
                name = v.decode("utf-8", "replace")
            elif f == 2 and w == _VARINT:
                kind = v
            elif f == 3 and w == _FIXED32:
                scalar = struct.unpack("<f", v)[0]
            elif f == 4 and w == _VARINT:
                scalar = _signed(v)
            elif f == 5 and w == _LEN:
                scalar = v.decode("utf-8", "replace")
            elif f == 7 and w == _FIXED32:
                items.append(struct.unpack("<f", v)[0])
            elif f == 8 and w == _VARINT:
                items.append(_signed(v))
            elif f == 9 and w == _LEN:
                items.append(v.decode("utf-8", "replace"))
        if name is None:
            r.fail("an entry without a name")
        out[name] = items if kind in (FLOATS, INTS, STRINGS) else scalar
    return out


def _f32(v):
    return struct.unpack("<f", struct.pack("<f", float(v)))[0]


class Property:
    """``paddle.framework.core.Property``: an ordered list of named values (a ``PropertyVals`` message),
    written by ``set_*``, read back by ``get_float`` (by name or position) and (de)serialized with
    ``serialize_to_string`` / ``parse_from_string``. Floats are float32, as Paddle stores them."""

    def __init__(self):
        self._entries = []          # [(name, kind, value)]

    def _set(self, name, kind, value):
        if not isinstance(name, str):
            raise TypeError(f"Property: the name must be a str, got {type(name).__name__}")
        self._entries.append((name, kind, value))

    def set_float(self, name, val):
        self._set(name, FLOAT, _f32(val))

    def set_floats(self, name, val):
        self._set(name, FLOATS, [_f32(v) for v in val])

    def set_int(self, name, val):
        self._set(name, INT, _int64(int(val)))

    def set_ints(self, name, val):
        self._set(name, INTS, [_int64(int(v)) for v in val])

    def set_string(self, name, val):
        self._set(name, STRING, str(val))

    def set_strings(self, name, val):
        self._set(name, STRINGS, [str(v) for v in val])

    def size(self):
        return len(self._entries)

    def get_float(self, key):
        """The float stored under name ``key`` (a str) or at position ``key`` (an int)."""
        if isinstance(key, str):
            for name, kind, value in self._entries:
                if name == key:
                    break
            else:
                raise RuntimeError(f"(NotFound) JIT::Property GetFloat: name: {key} not found")
            what = f"name ({key})"
        else:
            idx = int(key)
            if not 0 <= idx < len(self._entries):
                raise IndexError(f"(OutOfRange) JIT::Property GetFloat: idx={idx} out of range {len(self._entries)}")
            name, kind, value = self._entries[idx]
            what = f"idx ({idx})"
        if kind != FLOAT:
            raise ValueError(f"(InvalidArgument) JIT::Property GetFloat: input {what} element is not a float.")
        return value

    def serialize_to_string(self):
        out = b""
        for name, kind, value in self._entries:
            body = _len_field(1, name.encode("utf-8")) + _key(2, _VARINT) + _varint(kind)
            if kind == FLOAT:
                body += _key(3, _FIXED32) + struct.pack("<f", value)
            elif kind == INT:
                body += _key(4, _VARINT) + _varint(value)
            elif kind == STRING:
                body += _len_field(5, value.encode("utf-8"))
            elif kind == FLOATS:
                body += b"".join(_key(7, _FIXED32) + struct.pack("<f", v) for v in value)
            elif kind == INTS:
                body += b"".join(_key(8, _VARINT) + _varint(v) for v in value)
            else:
                body += b"".join(_len_field(9, v.encode("utf-8")) for v in value)
            out += _len_field(1, body)
        return out

    def parse_from_string(self, data):
        """Replace the entries with those of the PropertyVals bytes ``data`` (checked as untrusted)."""
        entries = []
        for field, wire, value in _Reader(bytes(data), None).fields():
            if field != 1 or wire != _LEN:
                continue
            r = _Reader(value, None)
            name, kind, scalar, items = None, None, None, []
            for f, w, v in r.fields():
                if f == 1 and w == _LEN:
                    name = v.decode("utf-8", "replace")
                elif f == 2 and w == _VARINT:
                    kind = v
                elif f == 3 and w == _FIXED32:
                    scalar = struct.unpack("<f", v)[0]
                elif f == 4 and w == _VARINT:
                    scalar = _signed(v)
                elif f == 5 and w == _LEN:
                    scalar = v.decode("utf-8", "replace")
                elif f == 7 and w == _FIXED32:
                    items.append(struct.unpack("<f", v)[0])
                elif f == 8 and w == _VARINT:
                    items.append(_signed(v))
                elif f == 9 and w == _LEN:
                    items.append(v.decode("utf-8", "replace"))
            if name is None or kind not in (FLOAT, INT, STRING, FLOATS, INTS, STRINGS):
                r.fail("an entry without a name or with an unknown type")
            entries.append((name, kind, items if kind in (FLOATS, INTS, STRINGS) else scalar))
        self._entries = entries
