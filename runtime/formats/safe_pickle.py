"""A restricted unpickler for Paddle's pickle files (.pdparams, .pdopt, .pdiparams.info).

Only plain containers, numbers, strings, bytes and the numpy globals that rebuild arrays,
dtypes and scalars may be loaded; any other global (``os.system``, a class from some
module ...) raises `UnsafePickleError` naming it, before anything from it is called.
"""
from __future__ import annotations

import codecs
import collections
import io
import os
import pickle

import numpy as np

from ..errors import UnsafePickleError

__all__ = ["SafeUnpickler", "safe_load", "safe_loads", "ALLOWED_GLOBALS"]


def _latin1_encode(obj, encoding="latin1", errors="strict"):
    """``_codecs.encode`` as protocol-2 pickles use it for bytes, limited to latin-1."""
    if encoding.lower().replace("_", "-") not in ("latin1", "latin-1", "iso-8859-1"):
        raise UnsafePickleError(f"refusing _codecs.encode with encoding {encoding!r} in a pickle "
                                "(only latin1 is used to store bytes)")
    return codecs.encode(obj, "latin1", errors)


def _numpy_globals():
    core = getattr(np, "_core", None) or np.core
    mult = core.multiarray
    found = {
        ("numpy", "ndarray"): np.ndarray,
        ("numpy", "dtype"): np.dtype,
    }
    for mod in ("numpy.core.multiarray", "numpy._core.multiarray"):
        found[(mod, "_reconstruct")] = mult._reconstruct
        found[(mod, "scalar")] = mult.scalar
    frombuffer = getattr(core.numeric, "_frombuffer", None)
    if frombuffer is not None:
        for mod in ("numpy.core.numeric", "numpy._core.numeric"):
            found[(mod, "_frombuffer")] = frombuffer
    return found


def _safe_reconstructor(cls, base, state):
    # copyreg._reconstructor(cls, object, state) rebuilds protocol-0/1 objects; cls arrives through
    # find_class, so it is already an allowed type; allow it only for the plain containers
    if cls not in (dict, list, tuple, set, frozenset, collections.OrderedDict) or base is not object:
        raise UnsafePickleError(f"refusing copyreg._reconstructor for {cls!r}")
    return cls.__new__(cls) if state is None else cls(state)


def _safe_bytearray(*args):
    # bytearray(n) would allocate n bytes on the file's say-so; pickles only ever pass the bytes
    if args and not isinstance(args[0], (bytes, str)):
        raise UnsafePickleError(f"refusing bytearray({type(args[0]).__name__}) in a pickle")
    return bytearray(*args)


ALLOWED_GLOBALS = {
    ("builtins", "dict"): dict,
    ("builtins", "list"): list,
    ("builtins", "tuple"): tuple,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "bytearray"): _safe_bytearray,
    ("builtins", "complex"): complex,
    ("builtins", "slice"): slice,
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("_codecs", "encode"): _latin1_encode,
    ("copyreg", "_reconstructor"): _safe_reconstructor,
    **_numpy_globals(),
}
# protocol-2 pickles spell the modules the Python 2 way (pickle's fix_imports)
ALLOWED_GLOBALS.update({("__builtin__", n): f for (m, n), f in list(ALLOWED_GLOBALS.items()) if m == "builtins"})
ALLOWED_GLOBALS[("copy_reg", "_reconstructor")] = _safe_reconstructor


class SafeUnpickler(pickle.Unpickler):
    """An Unpickler that resolves only the globals in `ALLOWED_GLOBALS`."""

    def find_class(self, module, name):
        obj = ALLOWED_GLOBALS.get((module, name))
        if obj is None:
            raise UnsafePickleError(
                f"refusing to load the global '{module}.{name}' from a pickle: only plain containers, "
                "numbers, strings and numpy arrays are allowed (the file may be malicious, or it stores an "
                "object that is not a plain state dict)")
        return obj

    def persistent_load(self, pid):
        raise UnsafePickleError(f"refusing the persistent id {pid!r} in a pickle: persistent references "
                                "are not allowed")


def safe_load(file, encoding="ASCII", errors="strict"):
    """Unpickle from a binary file object (or a path) allowing only plain data and numpy arrays."""
    if isinstance(file, (str, os.PathLike)):
        with open(file, "rb") as f:
            return SafeUnpickler(f, encoding=encoding, errors=errors).load()
    return SafeUnpickler(file, encoding=encoding, errors=errors).load()


def safe_loads(data, encoding="ASCII", errors="strict"):
    """Unpickle ``data`` (bytes) allowing only plain data and numpy arrays."""
    return SafeUnpickler(io.BytesIO(data), encoding=encoding, errors=errors).load()
