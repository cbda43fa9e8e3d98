"""A minimal MATLAB level-5 writer for tests, written from the MathWorks format description
independently of the reader (runtime/formats/matfile.py): numeric/char/complex matrices, optional zlib
compression, small-data-element names, either byte order, and a stored type smaller than the class."""
import struct
import zlib

import numpy as np

MI = {"i1": 1, "u1": 2, "i2": 3, "u2": 4, "i4": 5, "u4": 6, "f4": 7, "f8": 9, "i8": 12, "u8": 13}
MX = {"f8": 6, "f4": 7, "i1": 8, "u1": 9, "i2": 10, "u2": 11, "i4": 12, "u4": 13, "i8": 14, "u8": 15}


def element(mtype, payload, e, small_ok=True):
    if small_ok and len(payload) <= 4:
        return struct.pack(e + "I", (len(payload) << 16) | mtype) + payload.ljust(4, b"\0")
    pad = (-len(payload)) % 8
    return struct.pack(e + "II", mtype, len(payload)) + payload + b"\0" * pad


def matrix(name, value, e, store=None, mx_class=None):
    value = np.asarray(value)
    complex_ = np.iscomplexobj(value)
    if value.dtype.kind == "U":                    # char: rows of equal length
        rows = [str(s) for s in value.reshape(-1)]
        codes = np.array([[ord(c) for c in r] for r in rows], dtype="u2").reshape(len(rows), -1)
        dims, cls, real = codes.shape, 4, codes.flatten(order="F").astype(e + "u2")
        store_code = "u2"
    else:
        real_part = value.real if complex_ else value
        code = mx_class or real_part.dtype.str[1:]
        cls = MX[code]
        store_code = store or code
        dims = value.shape if value.ndim >= 2 else (1, value.size)
        real = real_part.reshape(dims).flatten(order="F").astype(np.dtype(store_code).newbyteorder(e))
    flags = cls | (0x0800 if complex_ else 0)
    body = element(MI["u4"], struct.pack(e + "II", flags, 0), e, small_ok=False)
    body += element(MI["i4"], struct.pack(e + f"{len(dims)}i", *dims), e, small_ok=False)
    body += element(MI["i1"], name.encode(), e)
    body += element(MI[store_code], real.tobytes(), e, small_ok=False)
    if complex_:
        imag = value.imag.reshape(dims).flatten(order="F").astype(np.dtype(store_code).newbyteorder(e))
        body += element(MI[store_code], imag.tobytes(), e, small_ok=False)
    return struct.pack(e + "II", 14, len(body)) + body


def write(path, variables, endian="<", compress=False, store=None):
    """``variables``: {name: array}; ``store``: {name: stored dtype code} (e.g. doubles stored as 'u1')."""
    header = b"MATLAB 5.0 MAT-file, written by the dy2st tests".ljust(116, b" ") + b"\0" * 8
    header += struct.pack(endian + "H", 0x0100) + (b"IM" if endian == "<" else b"MI")
    out = header
    for name, value in variables.items():
        m = matrix(name, value, endian, (store or {}).get(name))
        if compress:
            z = zlib.compress(m)
            out += struct.pack(endian + "II", 15, len(z)) + z
        else:
            out += m
    with open(path, "wb") as f:
        f.write(out)
