"""paddle.save / paddle.load: Paddle-compatible pickles of state dicts and nested containers.

What real Paddle writes, and so what we write:
* a *state dict* (a dict whose values are all Tensors, or dicts holding no Tensor, like an
  optimizer's "LR_Scheduler" entry): Tensors become numpy arrays, plus an entry
  ``"StructuredToParameterName@@": {key: tensor.name}``;
* anything else: each Tensor becomes the tuple ``(tensor.name, ndarray)``; numpy arrays and
  plain values stay as they are.
Loading uses the safe unpickler and turns those forms back into Tensors (``return_numpy=True``:
numpy arrays). Writes go to a temporary file in the target directory, then ``os.replace``.

Every load failure (a missing or unreadable file, a corrupt or hostile pickle, an array a Tensor
cannot hold) is a `ModelFormatError` naming the file; `UnsafePickleError` (a subclass) when the
pickle asks for something `safe_pickle` refuses or breaks one of its limits.
"""
from __future__ import annotations

import collections
import os
import pickle

import numpy as np

from ..utils.atomic_write import write_files_atomically
from .. import dtype as _dt
from ..tensor import Tensor
from .errors import ModelFormatError
from .safe_pickle import SafeUnpickler

__all__ = ["save", "load"]

NAME_TABLE_KEY = "StructuredToParameterName@@"

_PLAIN = (str, bytes, bytearray, int, float, complex, bool, type(None), np.generic, np.ndarray, np.dtype, slice)


# -- save ----------------------------------------------------------------------------------

def _contains_tensor(obj):
    if isinstance(obj, Tensor):
        return True
    if isinstance(obj, dict):
        return any(_contains_tensor(v) for v in obj.values())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return any(_contains_tensor(v) for v in obj)
    return False


def _is_state_dict(obj):
    if not isinstance(obj, dict):
        return False
    for v in obj.values():
        if isinstance(v, dict):
            if _contains_tensor(v):
                return False
        elif not isinstance(v, Tensor):
            return False
    return True


def _check_plain(obj, where):
    if isinstance(obj, _PLAIN):
        if isinstance(obj, np.ndarray) and obj.dtype == object:
            raise TypeError(f"paddle.save: {where} is a numpy array of Python objects, which paddle.load "
                            "refuses to read back (only numeric arrays are stored)")
        return obj
    raise TypeError(f"paddle.save: cannot save {where} of type {type(obj).__module__}.{type(obj).__qualname__}; "
                    "save plain containers (dict, list, tuple), numbers, strings, numpy arrays and Tensors "
                    "(for a Layer or an optimizer, save its state_dict())")


def _tensor_array(t):
    return np.asarray(t._data)


def _convert(obj, where="the object"):
    """Tensors -> (name, ndarray) anywhere inside ``obj``; checks the rest is plain data."""
    if isinstance(obj, Tensor):
        return (obj.name, _tensor_array(obj))
    if isinstance(obj, collections.OrderedDict):
        return collections.OrderedDict((k, _convert(v, f"{where}[{k!r}]")) for k, v in obj.items())
    if isinstance(obj, dict):
        return {k: _convert(v, f"{where}[{k!r}]") for k, v in obj.items()}
    if isinstance(obj, list):
        return [_convert(v, f"{where}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, tuple):
        return tuple(_convert(v, f"{where}[{i}]") for i, v in enumerate(obj))
    if isinstance(obj, (set, frozenset)):
        return type(obj)(_convert(v, f"an element of {where}") for v in obj)
    return _check_plain(obj, where)


def _prepare(obj):
    if _is_state_dict(obj):
        out = collections.OrderedDict() if isinstance(obj, collections.OrderedDict) else {}
        names = {}
        for k, v in obj.items():
            if isinstance(v, Tensor):
                out[k] = _tensor_array(v)
                names[k] = v.name
            else:
                out[k] = _convert(v, f"the value of key {k!r}")
        out[NAME_TABLE_KEY] = names
        return out
    return _convert(obj)


def _check_path(path, what):
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        raise TypeError(f"{what}: path must be a str, an os.PathLike or a binary file object, "
                        f"got {type(path).__name__}")
    return path


def save(obj, path, protocol=4, **configs):
    """Save ``obj`` (a state dict, Tensor, or nested containers of them) to ``path`` as a pickle
    real Paddle reads. ``protocol`` is the pickle protocol (2, 3 or 4)."""
    protocol = configs.pop("pickle_protocol", protocol)
    use_binary = configs.pop("use_binary_format", False)
    if configs:
        raise ValueError(f"paddle.save: unsupported config(s) {sorted(configs)}; "
                         "supported: protocol, use_binary_format=False")
    if use_binary:
        raise NotImplementedError("paddle.save: use_binary_format=True (Paddle's raw LoDTensor format) is not "
                                  "supported; save without it to get a pickle")
    if isinstance(protocol, bool) or not isinstance(protocol, int) or not 1 < protocol < 5:
        raise ValueError(f"paddle.save: protocol must be 2, 3 or 4 (1 < protocol < 5), got {protocol!r}")
    data = _prepare(obj)
    if hasattr(path, "write"):
        pickle.dump(data, path, protocol=protocol)
        return
    path = _check_path(path, "paddle.save")
    dirname, filename = os.path.split(path)
    if not filename:
        raise ValueError(f"paddle.save: path {path!r} names a directory; pass dirname/filename")
    if os.path.isdir(path):
        raise ValueError(f"paddle.save: path {path!r} is an existing directory; pass a file name")
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    write_files_atomically([(path, pickle.dumps(data, protocol=protocol))])


# -- load ----------------------------------------------------------------------------------

def _is_tensor_tuple(obj):
    return type(obj) is tuple and len(obj) == 2 and isinstance(obj[0], str) and isinstance(obj[1], np.ndarray)


def _has_tensor_tuple(obj):
    if _is_tensor_tuple(obj):
        return True
    if isinstance(obj, dict):
        return any(_has_tensor_tuple(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(_has_tensor_tuple(v) for v in obj)
    return False


def _to_tensor(arr, name, return_numpy):
    if return_numpy:
        return arr
    if arr.dtype.byteorder not in "=|" and arr.dtype.byteorder != _NATIVE:
        arr = arr.astype(arr.dtype.newbyteorder("="))   # a big-endian file: Tensors hold native order
    try:
        _dt.from_numpy_dtype(arr.dtype)
    except KeyError:
        raise ModelFormatError(f"it holds an array of dtype {arr.dtype}, which a Tensor cannot hold; load it with "
                               "paddle.load(path, return_numpy=True)") from None
    return Tensor(arr, name=name)


_NATIVE = "<" if np.little_endian else ">"


def _map(obj, leaf):
    """Rebuild containers, replacing values for which ``leaf(value)`` is not NotImplemented."""
    r = leaf(obj)
    if r is not NotImplemented:
        return r
    if isinstance(obj, collections.OrderedDict):
        return collections.OrderedDict((k, _map(v, leaf)) for k, v in obj.items())
    if isinstance(obj, dict):
        return {k: _map(v, leaf) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_map(v, leaf) for v in obj]
    if type(obj) is tuple:
        return tuple(_map(v, leaf) for v in obj)
    return obj


def _restore(obj, return_numpy, keep_name_table):
    if isinstance(obj, dict) and NAME_TABLE_KEY in obj:
        out = type(obj)()
        for k, v in obj.items():
            if k == NAME_TABLE_KEY:
                if keep_name_table:
                    out[k] = v
                continue
            out[k] = _to_tensor(v, None, return_numpy) if isinstance(v, np.ndarray) else v
        return out
    if _has_tensor_tuple(obj):
        # Tensors were saved as (name, array); arrays saved as arrays stay arrays
        return _map(obj, lambda v: _to_tensor(v[1], v[0], return_numpy) if _is_tensor_tuple(v) else NotImplemented)
    return _map(obj, lambda v: _to_tensor(v, None, return_numpy) if isinstance(v, np.ndarray) else NotImplemented)


def _read_bytes(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise ModelFormatError(f"paddle.load cannot read the file ({type(e).__name__}: {e.strerror or e})",
                               path) from None


def _unpickle(data, where):
    # safe_pickle raises ModelFormatError (UnsafePickleError for refusals) naming ``where`` for any bytes
    return SafeUnpickler(data, encoding="latin1", path=where).load()


def load(path, **configs):
    """Load what `save` (ours or real Paddle's) wrote. Arrays come back as Tensors unless
    ``return_numpy=True``; ``keep_name_table=True`` keeps the "StructuredToParameterName@@" entry."""
    return_numpy = bool(configs.pop("return_numpy", False))
    keep_name_table = bool(configs.pop("keep_name_table", False))
    configs.pop("model_filename", None)
    configs.pop("params_filename", None)
    if configs:
        raise ValueError(f"paddle.load: unsupported config(s) {sorted(configs)}; "
                         "supported: return_numpy, keep_name_table")
    if hasattr(path, "read"):
        where = str(getattr(path, "name", None) or "<the given file object>")
        try:
            data = path.read()
        except OSError as e:
            raise ModelFormatError(f"paddle.load cannot read the file object ({type(e).__name__}: {e})",
                                   where) from None
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"paddle.load: the file object's read() returned {type(data).__name__}, not bytes; "
                            "open the file in binary mode ('rb')")
    else:
        where = path = _check_path(path, "paddle.load")
        if not os.path.exists(path):
            raise ModelFormatError("paddle.load: the file does not exist", path)
        if os.path.isdir(path):
            raise ModelFormatError("paddle.load: the path is a directory; paddle.load reads one file written by "
                                   "paddle.save (use paddle.jit.load for a saved inference model)", path)
        data = _read_bytes(path)
    obj = _unpickle(data, where)
    try:
        return _restore(obj, return_numpy, keep_name_table)
    except ModelFormatError as e:
        raise ModelFormatError(e.reason, where) from None
    except Exception as e:   # the unpickler checked the structure; this is a last resort, still naming the file
        raise ModelFormatError(f"paddle.load cannot rebuild the saved objects ({type(e).__name__}: {str(e)[:200]})",
                               where) from None
