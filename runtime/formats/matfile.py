"""A reader for MATLAB level-5 ``.mat`` files holding numeric and character arrays (what datasets ship:
Oxford Flowers' ``imagelabels.mat`` / ``setid.mat``), so `paddle.vision.datasets.Flowers` needs no scipy.

Format (MathWorks, "MAT-File Format", level 5): a 128-byte header (116 bytes of text, 8 of subsystem
offset, a version ``0x0100`` and the endian indicator ``'IM'`` little / ``'MI'`` big), then data elements.
Each element has an 8-byte tag ``(type: uint32, nbytes: uint32)`` and its data padded to 8 bytes, or, when
the upper half of the first word is not zero, the 4-byte "small data element" form (``nbytes`` in the upper
half, the type in the lower, the data in the next 4 bytes). A top-level element is ``miMATRIX`` (14) or
``miCOMPRESSED`` (15: zlib data holding one ``miMATRIX``). A matrix holds sub-elements: array flags (the class
in the low byte), dimensions, the name, the real part and, for complex arrays, the imaginary part. Numbers
are stored column-major, possibly in a smaller type than the class (MATLAB compresses doubles holding
integers as uint8): they are cast to the class's dtype.

Cell arrays, structs, objects, sparse and function handles raise `MatFileError` naming the variable:
a dataset that needs them needs a real MATLAB reader. The reader trusts nothing: every length is
checked against the bytes present, decompression is bounded, and nothing read becomes code.

    arrays = loadmat("setid.mat")       # {'trnid': ndarray (1, 1020) float64, ...}
"""
from __future__ import annotations

import struct
import zlib

import numpy as np

__all__ = ["loadmat", "MatFileError"]

_MI_TYPES = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 7: "f4", 9: "f8", 12: "i8", 13: "u8",
             16: "u1", 17: "u2", 18: "u4"}          # 16-18: UTF-8/16/32 text
_MI_MATRIX, _MI_COMPRESSED = 14, 15
_CLASSES = {6: "f8", 7: "f4", 8: "i1", 9: "u1", 10: "i2", 11: "u2", 12: "i4", 13: "u4", 14: "i8", 15: "u8"}
_MX_CHAR = 4
_UNSUPPORTED = {1: "cell array", 2: "struct", 3: "object", 5: "sparse array", 16: "function handle",
                17: "opaque object"}
_MAX_INFLATE = 1 << 30          # one variable never inflates past 1 GiB


class MatFileError(ValueError):
    """A ``.mat`` file this reader cannot read (malformed, or a MATLAB type it does not handle)."""


def loadmat(path):
    """``{name: ndarray}`` of the numeric and character variables of a level-5 MAT file."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        return _parse(data, path)
    except MatFileError:
        raise
    except (struct.error, zlib.error, ValueError, OverflowError, MemoryError) as e:
        raise MatFileError(f"{path}: not a readable MATLAB level-5 file ({type(e).__name__}: {e})") from None


def _parse(data, path):
    if len(data) < 128:
        raise MatFileError(f"{path}: too short for a MATLAB level-5 header (128 bytes), {len(data)} bytes")
    if data[:4] == b"\x89HDF" or data[512:516] == b"\x89HDF":
        raise MatFileError(f"{path}: a MATLAB v7.3 (HDF5) file; save it with -v7 (or read it with h5py)")
    endian = {b"IM": "<", b"MI": ">"}.get(data[126:128])
    if endian is None or data[:6] in (b"\x00\x00\x00\x00\x00\x00",):
        raise MatFileError(f"{path}: no MATLAB level-5 header (endian indicator {data[126:128]!r})")
    out = {}
    pos = 128
    while pos < len(data):
        mtype, body, pos = _element(data, pos, endian, path)
        if mtype == _MI_COMPRESSED:
            inflater = zlib.decompressobj()
            raw = inflater.decompress(body, _MAX_INFLATE)
            if inflater.unconsumed_tail:
                raise MatFileError(f"{path}: a compressed variable inflates past {_MAX_INFLATE} bytes")
            mtype, body, _ = _element(raw, 0, endian, path)
        if mtype != _MI_MATRIX:
            continue                  # other top-level elements carry no variables
        name, value = _matrix(body, endian, path)
        if name is not None:
            out[name] = value
    return out


def _element(buf, pos, endian, path):
    """``(type, body bytes, next position)`` of the data element at ``pos``."""
    if pos + 8 > len(buf):
        raise MatFileError(f"{path}: truncated data element tag at byte {pos}")
    word, = struct.unpack_from(endian + "I", buf, pos)
    if word >> 16:                                    # small data element: 4 bytes of data in the tag
        nbytes, mtype = word >> 16, word & 0xFFFF
        if nbytes > 4:
            raise MatFileError(f"{path}: small data element of {nbytes} bytes at byte {pos} (at most 4)")
        return mtype, buf[pos + 4:pos + 4 + nbytes], pos + 8
    mtype = word
    nbytes, = struct.unpack_from(endian + "I", buf, pos + 4)
    start = pos + 8
    if start + nbytes > len(buf):
        raise MatFileError(f"{path}: data element at byte {pos} claims {nbytes} bytes, "
                           f"{len(buf) - start} remain")
    end = start + nbytes
    if mtype != _MI_COMPRESSED:
        end = start + ((nbytes + 7) // 8) * 8          # padded to 8 bytes (compressed data is not)
    return mtype, buf[start:start + nbytes], min(end, len(buf))


def _numbers(mtype, body, endian, path, what):
    code = _MI_TYPES.get(mtype)
    if code is None:
        raise MatFileError(f"{path}: {what} has data type {mtype}, not a numeric MATLAB type")
    dt = np.dtype(code).newbyteorder(endian)
    if len(body) % dt.itemsize:
        raise MatFileError(f"{path}: {what}: {len(body)} bytes is not a whole number of {dt.name} values")
    return np.frombuffer(body, dtype=dt)


def _matrix(body, endian, path):
    if not body:                                       # an empty miMATRIX element (allowed in cells)
        return None, None
    pos = 0
    ftype, flags, pos = _element(body, pos, endian, path)
    flag_words = _numbers(ftype, flags, endian, path, "array flags")
    if flag_words.size < 1:
        raise MatFileError(f"{path}: array flags are empty")
    word = int(flag_words[0])
    mx_class, is_complex = word & 0xFF, bool(word & 0x0800)
    dtype_, dims_raw, pos = _element(body, pos, endian, path)
    dims = [int(d) for d in _numbers(dtype_, dims_raw, endian, path, "dimensions")]
    if len(dims) < 2 or any(d < 0 for d in dims):
        raise MatFileError(f"{path}: bad dimensions {dims}")
    ntype, name_raw, pos = _element(body, pos, endian, path)
    name = bytes(name_raw).decode("ascii", "replace")
    if mx_class in _UNSUPPORTED:
        raise MatFileError(f"{path}: variable {name!r} is a {_UNSUPPORTED[mx_class]}: only numeric and character "
                           "arrays can be read without scipy (pip install scipy and use scipy.io.loadmat)")
    count = int(np.prod(dims, dtype=np.int64))
    rtype, real_raw, pos = _element(body, pos, endian, path)
    real = _numbers(rtype, real_raw, endian, path, f"variable {name!r}")
    if real.size != count:
        raise MatFileError(f"{path}: variable {name!r} has {real.size} values for dimensions {dims}")
    if mx_class == _MX_CHAR:       # as scipy gives it: one string per row of the character matrix
        grid = real.astype(np.int64).reshape(dims[0], -1, order="F") if count else np.zeros((dims[0], 0), int)
        return name, np.array(["".join(chr(c) for c in row) for row in grid])
    code = _CLASSES.get(mx_class)
    if code is None:
        raise MatFileError(f"{path}: variable {name!r} has MATLAB class {mx_class}, which this reader does not know")
    values = real.astype(code)
    if is_complex:
        itype, imag_raw, pos = _element(body, pos, endian, path)
        imag = _numbers(itype, imag_raw, endian, path, f"variable {name!r} (imaginary part)")
        if imag.size != count:
            raise MatFileError(f"{path}: variable {name!r}: imaginary part has {imag.size} values, want {count}")
        values = values.astype(np.complex128 if code == "f8" else np.complex64) + 1j * imag.astype(code)
    return name, values.reshape(dims, order="F")
