"""The .pdiparams tensor stream (Paddle's save_combine/load_combine layout) and .pdiparams.info.

.pdiparams: the persistable tensors sorted by name, concatenated, each as
``<u32 0><u64 lod_level>[lod levels]<u32 0><i32 len><TensorDesc><raw little-endian data>``
(FORMATS.md §5). .pdiparams.info: a protocol-2 pickle of ``{name: {"stop_gradient": ..,
"structured_name": .., "trainable": ..}}`` (§6), read by `safe_pickle` with no globals at all
and only plain leaf types, so a crafted file can name no callable and runs nothing.

Reading checks every size before it allocates: a tensor's bytes must be in the file
(a shape whose element count is 0 needs none, but its dims must still be sane sizes).
"""
from __future__ import annotations

import pickle
import struct

import numpy as np

from .errors import ModelFormatError, UnsafeInfoError
from .proto import TensorDesc, VAR_TYPE_NAME
from .safe_pickle import SafeUnpickler

__all__ = ["NP_OF_CODE", "code_of_dtype", "dtype_of_code", "tensor_to_bytes", "params_to_bytes", "read_params",
           "info_to_bytes", "read_info"]

# VarType.Type code -> numpy dtype, for the codes numpy can hold
NP_OF_CODE = {0: np.dtype(np.bool_), 1: np.dtype(np.int16), 2: np.dtype(np.int32), 3: np.dtype(np.int64),
              4: np.dtype(np.float16), 5: np.dtype(np.float32), 6: np.dtype(np.float64), 19: np.dtype(np.uint64),
              20: np.dtype(np.uint8), 21: np.dtype(np.int8), 23: np.dtype(np.complex64),
              24: np.dtype(np.complex128), 36: np.dtype(np.uint16), 37: np.dtype(np.uint32),
              38: np.dtype(np.uint64)}
_CODE_OF_NP = {dt: code for code, dt in NP_OF_CODE.items() if code != 19}

_MAX_NDIM = 32          # numpy's limit on array dimensions (64 in numpy 2; Paddle's is 9)
_MAX_DIM = 1 << 40      # larger than any real tensor dimension; keeps every product of dims exact in numpy
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_I32 = struct.Struct("<i")


def code_of_dtype(dtype) -> int:
    """The VarType.Type code of a numpy dtype (or anything with ``.np``/``.proto``)."""
    proto = getattr(dtype, "proto", None)
    if isinstance(proto, int):
        return proto
    dt = np.dtype(getattr(dtype, "np", dtype))
    code = _CODE_OF_NP.get(dt.newbyteorder("=") if dt.byteorder not in "=|" else dt)
    if code is None:
        raise TypeError(f"dtype {dt} has no Paddle VarType code")
    return code


def dtype_of_code(code: int, path=None, what="") -> np.dtype:
    dt = NP_OF_CODE.get(code)
    if dt is None:
        name = VAR_TYPE_NAME.get(code, str(code))
        raise ModelFormatError(f"{what}unsupported data type {name} (VarType code {code})", path)
    return dt


# -- .pdiparams ---------------------------------------------------------------------------------------

def tensor_to_bytes(arr) -> bytes:
    """One tensor in the DenseTensor stream format (no LoD)."""
    arr = np.asarray(arr)
    code = code_of_dtype(arr.dtype)
    desc = TensorDesc(data_type=code, dims=[int(d) for d in arr.shape]).SerializeToString()
    data = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
    return b"".join((_U32.pack(0), _U64.pack(0), _U32.pack(0), _I32.pack(len(desc)), desc, data))


def params_to_bytes(params: dict) -> bytes:
    """Every tensor of ``params`` (name -> array), in sorted-name order (the order every loader expects)."""
    return b"".join(tensor_to_bytes(params[name]) for name in sorted(params))


class _Reader:
    def __init__(self, data, path):
        self.data, self.pos, self.path = memoryview(data), 0, path

    def take(self, n, what):
        if n < 0 or self.pos + n > len(self.data):
            raise ModelFormatError(f"truncated: {what} needs {n} bytes at offset {self.pos}, but only "
                                   f"{len(self.data) - self.pos} remain", self.path)
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, st, what):
        return st.unpack(self.take(st.size, what))[0]


def read_params(data, specs, path=None) -> dict:
    """Read the tensors of ``specs`` — ``[(name, dtype code, dims)]`` — from a .pdiparams stream.

    Tensors are read in sorted-name order; each stored dtype must equal the declared one and
    each stored shape must agree with the declared dims (-1 matches anything); the stream
    must be consumed exactly. Raises `ModelFormatError` naming ``path`` and the variable."""
    r = _Reader(data, path)
    out = {}
    for name, code, dims in sorted(specs, key=lambda s: s[0]):
        where = f"parameter '{name}'"
        if r.unpack(_U32, f"{where} version") != 0:
            raise ModelFormatError(f"{where}: unsupported DenseTensor version (expected 0) at offset "
                                   f"{r.pos - 4}", path)
        lod_level = r.unpack(_U64, f"{where} lod level")
        if lod_level * 8 > len(r.data) - r.pos:
            raise ModelFormatError(f"{where}: lod level {lod_level} is larger than the rest of the file", path)
        for _ in range(lod_level):
            n = r.unpack(_U64, f"{where} lod")
            if n % 8:
                raise ModelFormatError(f"{where}: lod level of {n} bytes is not a multiple of 8", path)
            r.take(n, f"{where} lod")
        if r.unpack(_U32, f"{where} tensor version") != 0:
            raise ModelFormatError(f"{where}: unsupported tensor version (expected 0) at offset {r.pos - 4}", path)
        n = r.unpack(_I32, f"{where} TensorDesc size")
        if n < 0:
            raise ModelFormatError(f"{where}: negative TensorDesc size {n}", path)
        desc = TensorDesc()
        try:
            desc.ParseFromString(bytes(r.take(n, f"{where} TensorDesc")))
            if not desc.IsInitialized():
                raise ValueError("missing required fields")
        except ModelFormatError:
            raise
        except Exception as e:
            raise ModelFormatError(f"{where}: bad TensorDesc ({e})", path) from None
        if desc.data_type != code:
            raise ModelFormatError(f"{where}: stored data type {VAR_TYPE_NAME.get(desc.data_type, desc.data_type)} "
                                   f"does not match the program's {VAR_TYPE_NAME.get(code, code)}", path)
        shape = list(desc.dims)
        if any(d < 0 for d in shape):
            raise ModelFormatError(f"{where}: stored shape {shape} has a negative dimension", path)
        if len(shape) > _MAX_NDIM or any(d > _MAX_DIM for d in shape):
            # numpy cannot make such an array even with no elements (and a 0 among the dims would make
            # the element count, and so the bytes the file must hold, 0)
            raise ModelFormatError(f"{where}: stored shape {shape} has more than {_MAX_NDIM} dimensions or a "
                                   "dimension above 2**40", path)
        if len(shape) != len(dims) or any(d >= 0 and d != s for d, s in zip(dims, shape)):
            raise ModelFormatError(f"{where}: stored shape {shape} does not match the program's {list(dims)}", path)
        dt = dtype_of_code(code, path, f"{where}: ")
        numel = 1
        for d in shape:
            numel *= d
        raw = r.take(numel * dt.itemsize, f"{where} data ({numel} x {dt.name})")
        arr = np.frombuffer(raw, dtype=dt.newbyteorder("<"), count=numel).astype(dt, copy=True)
        if dt.kind == "b" and numel and arr.view(np.uint8).max() > 1:
            raise ModelFormatError(f"{where}: a bool tensor holds bytes other than 0 and 1", path)
        out[name] = arr.reshape(shape)
    if r.pos != len(r.data):
        raise ModelFormatError(f"{len(r.data) - r.pos} unexpected trailing bytes after the last parameter "
                               f"(the file holds more tensors than the program's {len(out)} persistable "
                               "variables)", path)
    return out


# -- .pdiparams.info ----------------------------------------------------------------------------------

def info_to_bytes(info: dict) -> bytes:
    return pickle.dumps(info, protocol=2)


# the leaf types a .pdiparams.info may hold (containers: dict, list, tuple); no bytes, no numpy
_PLAIN = frozenset({str, int, float, bool, type(None)})
# the keys paddle.jit.load reads, and the type each must have
_ENTRY_TYPES = {"stop_gradient": bool, "trainable": bool, "structured_name": str}


def read_info(data, path=None) -> dict:
    """Unpickle and check a .pdiparams.info: ``{name: {key: plain value}}``.

    The unpickler (`safe_pickle`) resolves no global, bounds memory, depth and node count and
    refuses reference cycles, so any bytes give a dict or a `ModelFormatError` naming ``path``
    (`UnsafeInfoError` for what a plain info file never holds)."""
    try:
        obj = SafeUnpickler(bytes(data), allowed_globals={}, leaf_types=_PLAIN, path=path,
                            error=UnsafeInfoError).load()
    except UnsafeInfoError:
        raise
    except ModelFormatError as e:
        raise ModelFormatError(f"not a valid .pdiparams.info pickle ({e.reason})", path) from None
    if not isinstance(obj, dict):
        raise ModelFormatError(f"a .pdiparams.info pickle must hold a dict, got {type(obj).__name__}", path)
    for k, v in obj.items():
        if not isinstance(k, str) or not isinstance(v, dict):
            raise ModelFormatError(f"a .pdiparams.info entry must map a variable name to a dict, got "
                                   f"{type(k).__name__} -> {type(v).__name__}", path)
        for key, want in _ENTRY_TYPES.items():
            if key in v and type(v[key]) is not want:
                raise ModelFormatError(f"the entry of '{k[:200]}' has {key} of type {type(v[key]).__name__}, not "
                                       f"{want.__name__}", path)
    return obj
