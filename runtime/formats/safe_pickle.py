"""A restricted unpickler for Paddle's pickle files (.pdparams, .pdopt, .pdiparams.info).

Python's `pickle.Unpickler` cannot be made safe by overriding ``find_class`` alone. Even with
every global refused but a few, a hostile file can still
* allocate from thin air: ``BINBYTES8``/``BYTEARRAY8``/``FRAME`` lengths are allocated before
  they are read, a ``LONG_BINPUT`` index resizes the memo array to twice that index, and
  ``numpy._reconstruct(ndarray, shape, dtype)`` allocates ``shape`` (uninitialised) at once;
* change the process: ``BUILD`` sets attributes of whatever object is on the stack, including
  an allow-listed function (its ``__defaults__``) or a cached numpy dtype;
* build structures that hang or overflow the stack of every later walk: a list that contains
  itself, nesting a million levels deep, dict keys that all share one hash;
* produce object arrays (elements are arbitrary objects) or arrays without data.

So this module interprets the pickle opcodes itself (protocols 0 to 5, everything Python's
pickler writes for plain data), over the file's bytes already in memory:
* a global is never handed to the pickle: it becomes an opaque token, and calling it runs one
  of our builders below, which checks every argument first. Only plain containers, complex,
  slice, bytes/bytearray and numeric numpy arrays, scalars and dtypes can be built;
* ``BUILD`` is accepted only on an array or dtype the same pickle has just created, with a state
  that we check (no object or structured dtype; exactly as many data bytes as the shape needs)
  and that we apply ourselves. No other object's state or attributes can be set;
* every allocation is charged to a budget proportional to the file's size *before* it happens
  (`MEMORY_FACTOR` x size + `MEMORY_BASE`);
* hashes of non-string keys are counted per container (`MAX_SAME_HASH`), and a tuple/frozenset
  key is checked before it is first hashed: at most `MAX_DEPTH` deep and `MAX_KEY_ITEMS` items
  (Python recomputes a tuple's hash at every insert, so a big key inserted often is quadratic);
* after the last opcode, an iterative walk checks the result: no cycles, at most `MAX_DEPTH`
  levels, a bounded number of nodes even with shared references, only allowed leaf types.

Every failure is a `ModelFormatError` naming the file: `UnsafePickleError` when the pickle asks
for something refused or breaks a limit, the plain `ModelFormatError` when it is malformed.
"""
from __future__ import annotations

import codecs
import collections
import os
import re
import struct
import types

import numpy as np

from .errors import ModelFormatError, UnsafePickleError

__all__ = ["SafeUnpickler", "safe_load", "safe_loads", "ALLOWED_GLOBALS", "MAX_DEPTH", "MEMORY_FACTOR",
           "MEMORY_BASE", "MAX_SAME_HASH", "MAX_KEY_ITEMS", "check_array_dtype", "describe"]

# -- limits -------------------------------------------------------------------------------------------
MAX_DEPTH = 100            # nesting of containers; Paddle's state dicts are 2-4 levels deep
MEMORY_FACTOR = 32         # a pickle may make Python objects of at most this many times its size ...
MEMORY_BASE = 64 << 20     # ... plus this many bytes (small files: Python objects are bigger than opcodes)
MAX_SAME_HASH = 8          # keys with one hash value in one dict/set (equal hashes make inserts quadratic)
MAX_KEY_ITEMS = 1024       # items in a tuple/frozenset used as a key (its hash is recomputed at every insert)
MAX_NODES_FACTOR = 4       # the checking walk visits at most max(2e5, 4 x size) nodes (shared refs count each time)
_MAX_TEXT_NUMBER = 4300    # digits in a protocol-0 INT/LONG/FLOAT line (CPython's own int-string limit)
_MAX_NDIM = 32
_MAX_DIM = 1 << 62
_ALLOWED_KINDS = "biufcSU"  # bool, ints, floats, complex, bytes and unicode strings; never object/void/datetime
# numpy's pickled dtype descriptors for those kinds ('f8', '<U3', ...): nothing structured, no object
_DTYPE_DESCR = re.compile(r"[<>=|]?(?:b1|[iu][1248]|f[248]|c(?:8|16)|[SU][1-9][0-9]{0,6})")


def describe(v, limit=60):
    """A short, safe description of a value for an error message: never a deep or huge repr."""
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, int):
        return repr(v) if v.bit_length() <= 128 else f"<an integer of {v.bit_length()} bits>"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (str, bytes)):
        r = repr(v[:limit])
        return r + (f"... ({len(v)} long)" if len(v) > limit else "")
    if isinstance(v, (list, tuple, dict, set, frozenset)):
        return f"a {type(v).__name__} of {len(v)} item(s)"
    if isinstance(v, _Global):
        return f"the global {v.module}.{v.name}"
    if isinstance(v, np.ndarray):
        return f"an array of shape {v.shape} and dtype {v.dtype}"
    return f"a {type(v).__name__}"


def check_array_dtype(dt, where="an array"):
    """Refuse a dtype an array from a file may not have; returns it. Only plain numbers and fixed-size
    strings: an object dtype holds references (or, unchecked, raw pointer values), a structured or
    subarray dtype can hide one, and datetime/void data is nothing a Tensor holds."""
    if not isinstance(dt, np.dtype):
        raise UnsafePickleError(f"{where} has no numpy dtype (got {describe(dt)})")
    if dt.hasobject or dt.fields is not None or dt.subdtype is not None or dt.kind not in _ALLOWED_KINDS:
        raise UnsafePickleError(f"{where} has dtype {dt.str!r}: only numeric (bool, int, float, complex) and "
                                "fixed-size string dtypes may be loaded; object, structured, void and datetime "
                                "arrays are refused (the file may be malicious)")
    if dt.itemsize <= 0:
        raise UnsafePickleError(f"{where} has the zero-size dtype {dt.str!r}")
    return dt


class _Global:
    """A global the pickle named. Only the unpickler can call it (through its builder); it has no
    state the pickle could change, and it may not appear in the loaded result."""
    __slots__ = ("module", "name", "kind")

    def __init__(self, module, name, kind):
        object.__setattr__(self, "module", module)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "kind", kind)

    def __setattr__(self, name, value):
        raise AttributeError("a pickle global token is read-only")

    def __repr__(self):
        return f"<pickle global {self.module}.{self.name}>"


def _names(kind, *pairs):
    return {pair: kind for pair in pairs}


# (module, name) -> the builder that runs when the pickle calls that global. Both module spellings:
# protocol-2 pickles name Python 2 modules (``__builtin__``), numpy 2 moved ``numpy.core`` to ``numpy._core``.
ALLOWED_GLOBALS = types.MappingProxyType({
    **_names("dict", ("builtins", "dict"), ("__builtin__", "dict")),
    **_names("list", ("builtins", "list"), ("__builtin__", "list")),
    **_names("tuple", ("builtins", "tuple"), ("__builtin__", "tuple")),
    **_names("set", ("builtins", "set"), ("__builtin__", "set")),
    **_names("frozenset", ("builtins", "frozenset"), ("__builtin__", "frozenset")),
    **_names("bytearray", ("builtins", "bytearray"), ("__builtin__", "bytearray")),
    **_names("complex", ("builtins", "complex"), ("__builtin__", "complex")),
    **_names("slice", ("builtins", "slice"), ("__builtin__", "slice")),
    **_names("OrderedDict", ("collections", "OrderedDict")),
    **_names("encode", ("_codecs", "encode")),
    **_names("ndarray", ("numpy", "ndarray")),
    **_names("dtype", ("numpy", "dtype")),
    **_names("_reconstruct", ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct")),
    **_names("scalar", ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar")),
    **_names("_frombuffer", ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer")),
})

_numpy_scalar = (getattr(np, "_core", None) or np.core).multiarray.scalar
_LATIN1 = ("latin1", "latin-1", "iso-8859-1", "iso8859-1", "l1")
_CONTAINERS = (list, tuple, dict, collections.OrderedDict, set, frozenset)
_SEQUENCES = (list, tuple, set, frozenset)
_STRINGY = (str, bytes)


class _Limits:
    """How much a load of ``size`` bytes may allocate, and how many nodes the final walk may visit."""

    def __init__(self, size):
        self.memory = MEMORY_BASE + MEMORY_FACTOR * size
        self.nodes = max(200_000, MAX_NODES_FACTOR * size)


class SafeUnpickler:
    """Unpickle plain data and numeric numpy arrays from ``file`` (a binary file object, bytes, or a
    path). ``allowed_globals``: the (module, name) pairs the pickle may call (default `ALLOWED_GLOBALS`;
    an empty mapping for pure data). ``leaf_types``: if given, the only non-container types the
    result may hold. ``path``: the file name errors carry."""

    def __init__(self, file, *, encoding="ASCII", errors="strict", allowed_globals=None, leaf_types=None,
                 path=None, error=None):
        if isinstance(file, (bytes, bytearray, memoryview)):
            data = bytes(file)
        elif isinstance(file, (str, os.PathLike)):
            path = path if path is not None else os.fspath(file)
            with open(file, "rb") as f:
                data = f.read()
        else:
            # read it all first: file.read(n) with a hostile n would allocate n bytes up front
            data = file.read()
            if not isinstance(data, (bytes, bytearray)):
                raise TypeError(f"the file object's read() returned {type(data).__name__}, not bytes; open the "
                                "file in binary mode ('rb')")
            data = bytes(data)
        self.data = data
        self.path = path
        self.encoding, self.errors = encoding, errors
        self.allowed = ALLOWED_GLOBALS if allowed_globals is None else allowed_globals
        self.leaf_types = leaf_types
        self.unsafe = error or UnsafePickleError
        self.limits = _Limits(len(data))
        self.pos = 0

    # -- errors --------------------------------------------------------------------------------------
    def _bad(self, message):
        """The pickle is malformed (truncated, bad opcode, stack misuse ...)."""
        return ModelFormatError(f"not a valid pickle: {message} (at byte {self.pos} of {len(self.data)}); the file "
                                "is truncated or corrupt", self.path)

    def _refuse(self, message):
        """The pickle asks for something we do not do, or breaks a limit."""
        return self.unsafe(message, self.path)

    # -- entry point ---------------------------------------------------------------------------------
    def load(self):
        self.pos = 0
        self.stack, self.marks, self.floor = [], [], 0
        self.memo, self.sparse_memo = [], {}
        self.used = 0
        self.proto = 0
        self.pending_arrays, self.pending_dtypes = {}, {}
        self.hash_counts = {}
        self.checked_keys = {}
        try:
            value = self._run()
            self._check_result(value)
        except ModelFormatError as e:
            if e.path is None and self.path is not None:   # raised by a helper that does not know the file
                raise type(e)(e.reason, self.path) from None
            raise
        except RecursionError:   # cannot happen by design (no step recurses on file data); still ours
            raise self._refuse(f"the pickle is nested more than {MAX_DEPTH} levels deep") from None
        except Exception as e:   # whatever numpy or a codec raised on bad bytes: still one error type of ours
            raise self._bad(f"{type(e).__name__}: {str(e)[:200]}") from None
        finally:
            # drop the references the run kept, so a failed load frees its memory at once
            self.stack = self.memo = self.sparse_memo = None
            self.pending_arrays = self.pending_dtypes = self.hash_counts = self.checked_keys = None
        return value

    def _run(self):
        dispatch = _DISPATCH
        data = self.data
        n = len(data)
        while True:
            if self.pos >= n:
                raise self._bad("the data ends before the STOP opcode")
            op = data[self.pos]
            self.pos += 1
            handler = dispatch.get(op)
            if handler is None:
                raise self._bad(f"unknown opcode 0x{op:02x}")
            if handler is _STOP:
                return self._pop()
            handler(self)

    # -- reading -------------------------------------------------------------------------------------
    def _read(self, k):
        if k < 0 or k > len(self.data) - self.pos:
            raise self._bad(f"an item of {k} bytes is longer than the {len(self.data) - self.pos} bytes left")
        b = self.data[self.pos:self.pos + k]
        self.pos += k
        return b

    def _unpack(self, fmt):
        st = _STRUCTS[fmt]
        p = self.pos
        if st.size > len(self.data) - p:
            raise self._bad(f"an item of {st.size} bytes is longer than the {len(self.data) - p} bytes left")
        self.pos = p + st.size
        return st.unpack_from(self.data, p)[0]

    def _readline(self):
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            raise self._bad("a text argument has no end of line")
        line = self.data[self.pos:end]
        self.pos = end + 1
        return line

    def _number_line(self):
        line = self._readline()
        if len(line) > _MAX_TEXT_NUMBER:
            raise self._refuse(f"a number written with {len(line)} digits")
        return line

    # -- accounting ----------------------------------------------------------------------------------
    def _charge(self, nbytes):
        self.used += nbytes
        if self.used > self.limits.memory:
            raise self._refuse(f"unpacking it would take more than {self.limits.memory >> 20} MiB for a "
                               f"{len(self.data)}-byte file (a real file needs about as much memory as its "
                               "size); it is corrupt or hostile")

    # -- the stack -----------------------------------------------------------------------------------
    def _push(self, v, cost=8):
        self.used += cost   # _charge, inlined: this runs once per opcode
        if self.used > self.limits.memory:
            self._charge(0)
        self.stack.append(v)

    def _pop(self):
        if len(self.stack) <= self.floor:
            raise self._bad("stack underflow")
        return self.stack.pop()

    def _top(self):
        if len(self.stack) <= self.floor:
            raise self._bad("stack underflow")
        return self.stack[-1]

    def _mark(self):
        self._charge(48)
        self.marks.append(len(self.stack))
        self.floor = len(self.stack)

    def _pop_mark(self):
        if not self.marks:
            raise self._bad("MARK missing")
        k = self.marks.pop()
        items = self.stack[k:]
        del self.stack[k:]
        self.floor = self.marks[-1] if self.marks else 0
        return items

    # -- memo ----------------------------------------------------------------------------------------
    def _memo_put(self, idx, v):
        if idx < 0:
            raise self._bad(f"negative memo index {idx}")
        if idx == len(self.memo):
            self._charge(8)
            self.memo.append(v)
        elif idx < len(self.memo):
            self.memo[idx] = v
        else:   # sparse: a dict, so a hostile index allocates nothing in proportion to it
            self._charge(100)
            self.sparse_memo[idx] = v

    def _memo_get(self, idx):
        if 0 <= idx < len(self.memo):
            return self.memo[idx]
        try:
            return self.sparse_memo[idx]
        except KeyError:
            raise self._bad(f"memo index {describe(idx)} was never stored") from None

    # -- keys ----------------------------------------------------------------------------------------
    def _check_hashable(self, key, container):
        """Before ``key`` goes into ``container`` (a dict or set): its nesting is bounded (hashing a
        tuple recurses) and the container does not collect too many keys of one hash value."""
        t = type(key)
        if t is str or t is bytes:
            return   # randomized hashes: a file cannot make them collide
        if (t is tuple or t is frozenset) and id(key) not in self.checked_keys:
            self._check_key_shape(key)
            self.checked_keys[id(key)] = key   # keeps it alive, so the id stays its own
        if key in container:   # an update adds no entry (and the lookup's chain is already bounded)
            return
        h = hash(key)
        counts = self.hash_counts.get(id(container))
        if counts is None:
            counts = self.hash_counts[id(container)] = {}
        c = counts.get(h, 0) + 1
        if c > MAX_SAME_HASH:
            raise self._refuse(f"more than {MAX_SAME_HASH} keys of one dict or set share a hash value (a hash "
                               "flooding attack: inserting them would take quadratic time)")
        if c == 1:
            self._charge(100)
        counts[h] = c

    def _check_key_shape(self, key):
        todo = [(key, 1)]
        items = 0
        while todo:
            o, d = todo.pop()
            if d > MAX_DEPTH:
                raise self._refuse(f"a dict key or set element is nested more than {MAX_DEPTH} levels deep")
            items += len(o)
            if items > MAX_KEY_ITEMS:
                raise self._refuse(f"a dict key or set element holds more than {MAX_KEY_ITEMS} items")
            for x in o:
                if type(x) is tuple or type(x) is frozenset:
                    todo.append((x, d + 1))

    def _dict_setitem(self, d, k, v):
        if not isinstance(d, dict):
            raise self._refuse(f"refusing to set an item of {describe(d)}: only dicts the pickle built take items")
        self._check_hashable(k, d)
        self._charge(48 if d else 240)   # the first key allocates the dict's hash table
        d[k] = v

    # -- calls ---------------------------------------------------------------------------------------
    def _find_class(self, module, name):
        kind = self.allowed.get((module, name))
        if kind is None:
            if not self.allowed:
                raise self._refuse(f"refusing to load the global '{module}.{name}': this pickle holds only plain "
                                   "dicts, lists, strings, numbers and booleans (the file may be malicious)")
            raise self._refuse(
                f"refusing to load the global '{module}.{name}' from a pickle: only plain containers, numbers, "
                "strings and numeric numpy arrays are allowed (the file may be malicious, or it stores an object "
                "that is not a plain state dict)")
        self._charge(64)
        return _Global(module, name, kind)

    def _call(self, func, args, how="call"):
        if not isinstance(func, _Global):
            raise self._refuse(f"refusing to call {describe(func)}: a pickle may call only allowed globals")
        if type(args) is not tuple:
            raise self._bad(f"the arguments of {func.module}.{func.name} are {describe(args)}, not a tuple")
        builder = _BUILDERS[func.kind]
        return builder(self, func, args)

    # -- the result ----------------------------------------------------------------------------------
    def _check_result(self, root):
        """Iterative, cycle-aware walk: bounded depth and node count, only allowed types, no array left
        without data."""
        leaf_types = self.leaf_types
        budget = self.limits.nodes
        on_path = set()
        todo = [(root, 0)]
        nodes = 0
        while todo:
            obj, depth = todo.pop()
            if depth < 0:                  # leaving a container
                on_path.discard(id(obj))
                continue
            nodes += 1
            if nodes > budget:
                raise self._refuse(f"the pickle's structure has more than {budget} nodes (counting shared "
                                   "references each time they are used); it is corrupt or hostile")
            t = type(obj)
            if t in _CONTAINER_TYPES:
                if id(obj) in on_path:
                    raise self._refuse(f"the pickle holds a {t.__name__} that contains itself (a reference cycle)")
                if depth >= MAX_DEPTH:
                    raise self._refuse(f"the pickle is nested more than {MAX_DEPTH} levels deep")
                on_path.add(id(obj))
                todo.append((obj, -1))
                if t is dict or t is collections.OrderedDict:
                    children = (*obj.keys(), *obj.values())
                else:
                    children = obj
                plain = _PLAIN_LEAVES if leaf_types is None else leaf_types
                for c in children:
                    tc = type(c)
                    if tc in plain:          # the common leaves, checked inline (this loop is the hot one)
                        nodes += 1
                    elif tc in _CONTAINER_TYPES:
                        if c or depth + 1 >= MAX_DEPTH:
                            todo.append((c, depth + 1))
                        else:                # an empty container holds no cycle and nothing deeper
                            nodes += 1
                    else:
                        nodes += 1
                        self._check_leaf(c, leaf_types)
                continue
            self._check_leaf(obj, leaf_types)

    def _check_leaf(self, obj, leaf_types):
        t = type(obj)
        if leaf_types is not None:
            if t not in leaf_types:
                raise self._refuse(f"the pickle holds {describe(obj)}; this file may hold only "
                                   f"{', '.join(sorted(x.__name__ for x in leaf_types))} values and containers")
            return
        if t in _PLAIN_LEAVES:
            return
        if t is np.ndarray:
            if id(obj) in self.pending_arrays:
                raise self._refuse("the pickle makes an array but never gives its data (its content would be "
                                   "uninitialised memory)")
            check_array_dtype(obj.dtype)
            return
        if isinstance(obj, np.generic):
            check_array_dtype(obj.dtype, "a numpy scalar")
            return
        if t is np.dtype or isinstance(obj, np.dtype):
            check_array_dtype(obj, "a dtype")
            return
        if t is slice:
            for x in (obj.start, obj.stop, obj.step):
                if x is not None and type(x) is not int:
                    raise self._refuse(f"a slice holds {describe(x)}; only integers and None")
            return
        if t is _Global:
            raise self._refuse(f"the pickle stores {describe(obj)} itself, not data built from it")
        raise self._refuse(f"the pickle holds {describe(obj)}, which is not plain data")

    # -- arrays and dtypes ---------------------------------------------------------------------------
    def _shape(self, shape, what):
        if type(shape) is not tuple or len(shape) > _MAX_NDIM:
            raise self._refuse(f"{what}: the shape is {describe(shape)}, not a tuple of at most {_MAX_NDIM} sizes")
        numel = 1
        for d in shape:
            if type(d) is not int or not 0 <= d <= _MAX_DIM:
                raise self._refuse(f"{what}: the shape holds {describe(d)}, not a size between 0 and 2**62")
            numel *= d
        return numel

    def _data_bytes(self, raw, what):
        if type(raw) is str:   # a Python 2 str decoded as latin-1 (paddle.load's encoding): the same bytes
            self._charge(len(raw) + 40)
            try:
                return raw.encode("latin1")
            except UnicodeEncodeError:
                raise self._bad(f"{what}: the data is text that is not latin-1 bytes") from None
        if type(raw) not in (bytes, bytearray):
            raise self._refuse(f"{what}: the data is {describe(raw)}, not bytes (object arrays are refused)")
        return raw

    def _build_array(self, arr, state):
        what = "an array"
        if type(state) is not tuple or len(state) not in (4, 5):
            raise self._refuse(f"{what}: its state is {describe(state)}, not numpy's (version, shape, dtype, "
                               "fortran, data)")
        if len(state) == 5:
            if type(state[0]) is not int or state[0] != 1:
                raise self._refuse(f"{what}: unsupported state version {describe(state[0])}")
            state = state[1:]
        shape, dt, fortran, raw = state
        numel = self._shape(shape, what)
        check_array_dtype(dt, what)
        if type(fortran) not in (bool, int) or fortran not in (0, 1):
            raise self._refuse(f"{what}: the Fortran-order flag is {describe(fortran)}")
        raw = self._data_bytes(raw, what)
        need = numel * dt.itemsize
        if len(raw) != need:
            raise self._refuse(f"{what} of shape {list(shape)} and dtype {dt.str} needs {need} bytes of data, but "
                               f"the file holds {len(raw)} for it")
        self._charge(need + 112)
        arr.__setstate__((1, shape, dt, bool(fortran), bytes(raw)))
        _check_bools(arr, self._refuse)
        del self.pending_arrays[id(arr)]

    def _build_dtype(self, dt, state):
        expected = dt.__reduce__()[2]
        if type(state) is not tuple or len(state) != len(expected) or any(
                type(a) is not type(b) or a != b for i, (a, b) in enumerate(zip(state, expected)) if i != 1):
            raise self._refuse(f"the dtype {dt.str!r} has the state {describe(state)}, not that of a plain numeric "
                               "or string dtype (structured, object and metadata dtypes are refused)")
        order = state[1]
        if expected[1] == "|":
            ok = order == "|"
        else:
            ok = order in ("<", ">", "=")
        if not ok:
            raise self._refuse(f"the dtype {dt.str!r} has the byte order {describe(order)}")
        dt.__setstate__((expected[0], order) + tuple(expected[2:]))
        del self.pending_dtypes[id(dt)]


def _check_bools(arr, error):
    """A bool array's bytes must be 0 or 1: numpy reads other values back inconsistently."""
    if arr.dtype.kind == "b" and arr.size and arr.view(np.uint8).max(initial=0) > 1:
        raise error("a bool array holds bytes other than 0 and 1")


_PLAIN_LEAVES = frozenset({str, bytes, bytearray, int, float, complex, bool, type(None)})
_CONTAINER_TYPES = frozenset({list, tuple, dict, collections.OrderedDict, set, frozenset})
_STRUCTS = {f: struct.Struct(f) for f in ("<i", "<I", "<H", "<Q", ">d", "<B")}


# -- builders: what calling an allowed global does ------------------------------------------------

def _no_args(u, g, args):
    if args:
        raise u._refuse(f"{g.module}.{g.name} called with {len(args)} argument(s); a plain pickle passes none here")


def _items_of(u, g, x):
    if type(x) not in _SEQUENCES:
        raise u._refuse(f"{g.module}.{g.name}() of {describe(x)}: only a list, tuple or set is accepted")
    return x


def _b_sequence(u, g, args):
    ctor = {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[g.kind]
    if not args:
        u._charge(64)
        return ctor()
    if len(args) != 1:
        raise u._refuse(f"{g.module}.{g.name} called with {len(args)} arguments")
    items = _items_of(u, g, args[0])
    u._charge(64 + 8 * len(items) + (80 * len(items) if ctor in (set, frozenset) else 0))   # sets: + the probe
    if ctor in (set, frozenset):
        probe = set()   # the hash counts are kept under this stand-in's id while the items are checked
        for x in items:
            u._check_hashable(x, probe)
            probe.add(x)
        u.hash_counts.pop(id(probe), None)
    return ctor(items)


def _b_dict(u, g, args):
    ctor = collections.OrderedDict if g.kind == "OrderedDict" else dict
    u._charge(64)
    out = ctor()
    if not args:
        return out
    if len(args) != 1:
        raise u._refuse(f"{g.module}.{g.name} called with {len(args)} arguments")
    x = args[0]
    if isinstance(x, dict):
        pairs = list(x.items())
    elif type(x) in (list, tuple):
        pairs = []
        for p in x:
            if type(p) not in (list, tuple) or len(p) != 2:
                raise u._refuse(f"{g.module}.{g.name}() of a sequence holding {describe(p)}, not (key, value)")
            pairs.append(p)
    else:
        raise u._refuse(f"{g.module}.{g.name}() of {describe(x)}")
    for k, v in pairs:
        u._dict_setitem(out, k, v)
    return out


def _b_bytearray(u, g, args):
    if not args:
        u._charge(64)
        return bytearray()
    src = args[0]
    if type(src) is bytes and len(args) == 1:
        u._charge(len(src) + 64)
        return bytearray(src)
    if type(src) is str and 2 <= len(args) <= 3 and all(type(a) is str for a in args[1:]):
        # protocol 2 writes bytearray(text, 'latin-1'); no other codec, and never a size
        if args[1].lower().replace("_", "-") not in _LATIN1 or args[2:] not in ((), ("strict",)):
            raise u._refuse(f"refusing bytearray(text, {describe(args[1])}): only latin-1 text stores bytes")
        u._charge(len(src) + 64)
        return bytearray(src, "latin1")
    raise u._refuse(f"refusing bytearray({', '.join(describe(a) for a in args)}): a pickle passes the bytes "
                    "themselves, never a size")


def _b_encode(u, g, args):
    # protocol 2 writes bytes as _codecs.encode(text, 'latin1')
    if not 1 <= len(args) <= 3 or type(args[0]) is not str or not all(type(a) is str for a in args[1:]):
        raise u._refuse(f"refusing _codecs.encode({', '.join(describe(a) for a in args)}): only "
                        "_codecs.encode(text, 'latin1') is used to store bytes")
    enc = args[1] if len(args) > 1 else "utf-8"
    if enc.lower().replace("_", "-") not in _LATIN1 or args[2:] not in ((), ("strict",)):
        raise u._refuse(f"refusing _codecs.encode with encoding {describe(enc)} in a pickle (only latin1 is used "
                        "to store bytes)")
    u._charge(len(args[0]) + 40)
    return codecs.encode(args[0], "latin1")


def _small_number(u, x, what):
    if type(x) is float or (type(x) is int and x.bit_length() <= 1024):
        return x
    raise u._refuse(f"{what} is {describe(x)}, not a number")


def _b_complex(u, g, args):
    if len(args) > 2:
        raise u._refuse(f"complex() with {len(args)} arguments")
    parts = [_small_number(u, x, "a part of a complex number") for x in args]
    u._charge(48)
    return complex(*parts)


def _b_slice(u, g, args):
    if not 1 <= len(args) <= 3 or any(x is not None and type(x) is not int for x in args):
        raise u._refuse(f"slice({', '.join(describe(a) for a in args)}): only integers and None")
    u._charge(64)
    return slice(*args)


def _b_ndarray(u, g, args):
    raise u._refuse("refusing to call numpy.ndarray directly: arrays are rebuilt only through "
                    "numpy's _reconstruct/_frombuffer with their data")


def _b_reconstruct(u, g, args):
    # numpy pickles an array as _reconstruct(ndarray, (0,), b'b') followed by BUILD with the real
    # state; numpy's own _reconstruct would allocate (uninitialised) whatever shape it is given
    if len(args) != 3:
        raise u._refuse(f"numpy _reconstruct with {len(args)} arguments")
    cls, shape, code = args
    if not (isinstance(cls, _Global) and cls.kind == "ndarray"):
        raise u._refuse(f"numpy _reconstruct of {describe(cls)}: only numpy.ndarray (no subclasses)")
    if u._shape(shape, "an array") != 0 or code not in (b"b", "b"):
        raise u._refuse(f"numpy _reconstruct with the shape {describe(shape)} and dtype {describe(code)}: numpy "
                        "writes an empty placeholder ((0,), 'b') and the data in the state that follows")
    u._charge(112)
    arr = np.ndarray((0,), np.int8)
    u.pending_arrays[id(arr)] = arr   # keeps it alive, so the id stays its own until BUILD
    return arr


def _b_dtype(u, g, args):
    if not 1 <= len(args) <= 3:
        raise u._refuse(f"numpy.dtype with {len(args)} arguments")
    descr = args[0]
    if type(descr) is bytes:
        descr = descr.decode("latin1")
    if type(descr) is not str or not _DTYPE_DESCR.fullmatch(descr):
        raise u._refuse(f"refusing numpy.dtype({describe(args[0])}): only numeric (bool, int, float, complex) and "
                        "fixed-size string dtypes may be loaded; object, structured, void and datetime dtypes are "
                        "refused (the file may be malicious)")
    if any(type(a) not in (bool, int) or a not in (0, 1) for a in args[1:]) or (len(args) > 1 and args[1]):
        raise u._refuse(f"numpy.dtype({describe(descr)}) with the flags {[describe(a) for a in args[1:]]}")
    u._charge(200)
    dt = np.dtype(descr, align=False, copy=True)   # our own copy: BUILD may set its byte order
    check_array_dtype(dt)
    u.pending_dtypes[id(dt)] = dt
    return dt


def _b_scalar(u, g, args):
    if len(args) != 2:
        raise u._refuse(f"numpy scalar with {len(args)} arguments")
    dt, raw = args
    check_array_dtype(dt, "a numpy scalar")
    raw = u._data_bytes(raw, "a numpy scalar")
    if len(raw) != dt.itemsize:
        raise u._refuse(f"a numpy scalar of dtype {dt.str} needs {dt.itemsize} bytes, the file holds {len(raw)}")
    u._charge(64 + dt.itemsize)
    v = _numpy_scalar(dt, bytes(raw))
    if dt.kind == "b" and raw[0] > 1:
        raise u._refuse("a bool scalar holds a byte other than 0 and 1")
    return v


def _b_frombuffer(u, g, args):
    # protocol 5: _frombuffer(buffer, dtype, shape, order)
    if len(args) != 4:
        raise u._refuse(f"numpy _frombuffer with {len(args)} arguments")
    buf, dt, shape, order = args
    what = "an array"
    check_array_dtype(dt, what)
    numel = u._shape(shape, what)
    if type(buf) not in (bytes, bytearray):
        raise u._refuse(f"{what}: the buffer is {describe(buf)}, not bytes")
    if order not in ("C", "F"):
        raise u._refuse(f"{what}: the memory order is {describe(order)}, not 'C' or 'F'")
    need = numel * dt.itemsize
    if len(buf) != need:
        raise u._refuse(f"{what} of shape {list(shape)} and dtype {dt.str} needs {need} bytes of data, but the file "
                        f"holds {len(buf)} for it")
    u._charge(112)
    arr = np.frombuffer(buf, dtype=dt).reshape(shape, order=order)
    _check_bools(arr, u._refuse)
    return arr


_BUILDERS = {
    "list": _b_sequence, "tuple": _b_sequence, "set": _b_sequence, "frozenset": _b_sequence,
    "dict": _b_dict, "OrderedDict": _b_dict, "bytearray": _b_bytearray, "encode": _b_encode,
    "complex": _b_complex, "slice": _b_slice, "ndarray": _b_ndarray, "dtype": _b_dtype,
    "_reconstruct": _b_reconstruct, "scalar": _b_scalar, "_frombuffer": _b_frombuffer,
}


# -- opcodes --------------------------------------------------------------------------------------------

def _decode_str(u, b):
    """A Python 2 str (STRING/BINSTRING): decoded with the caller's encoding, as pickle does."""
    u._charge(len(b) * (4 if u.encoding.lower() not in _LATIN1 + ("ascii", "bytes") else 1) + 50)
    if u.encoding == "bytes":
        return b
    return b.decode(u.encoding, u.errors)


def _op_proto(u):
    p = u._read(1)[0]
    if p > 5:
        raise u._bad(f"unsupported pickle protocol {p}")
    u.proto = p


def _op_frame(u):
    n = u._unpack("<Q")
    if n > len(u.data) - u.pos:   # a frame is only a read-ahead hint; its length must still be real
        raise u._bad(f"a frame of {n} bytes is longer than the {len(u.data) - u.pos} bytes left")


def _op_int(u):
    line = u._number_line()
    if line == b"00":
        u._push(False)
    elif line == b"01":
        u._push(True)
    else:
        u._push(int(line, 0), 40)


def _op_long(u):
    line = u._number_line()
    if line[-1:] == b"L":
        line = line[:-1]
    u._push(int(line, 0), 40 + len(line))


def _op_long1(u):
    n = u._read(1)[0]
    u._push(int.from_bytes(u._read(n), "little", signed=True), 40 + n)


def _op_long4(u):
    n = u._unpack("<i")
    if n < 0:
        raise u._bad("LONG4 with a negative byte count")
    u._push(int.from_bytes(u._read(n), "little", signed=True), 40 + n)


def _op_string(u):
    line = u._readline().rstrip(b"\r")
    if len(line) >= 2 and line[0] == line[-1] and line[:1] in (b"'", b'"'):
        line = line[1:-1]
    else:
        raise u._bad("the STRING opcode argument must be quoted")
    u._push(_decode_str(u, codecs.escape_decode(line)[0]))


def _op_binstring(u):
    n = u._unpack("<i")
    if n < 0:
        raise u._bad("BINSTRING with a negative length")
    u._push(_decode_str(u, u._read(n)))


def _op_bytes(fmt):
    def op(u):
        n = u._unpack(fmt)
        b = u._read(n)
        u._push(b, 40 + n)
    return op


def _op_bytearray8(u):
    n = u._unpack("<Q")
    b = u._read(n)
    u._push(bytearray(b), 64 + n)


def _op_unicode(u):
    line = u._readline()
    s = str(line, "raw-unicode-escape")
    u._push(s, 50 + 4 * len(s))


def _op_binunicode(fmt):
    def op(u):
        n = u._unpack(fmt)
        s = str(u._read(n), "utf-8", "surrogatepass")
        u._push(s, 50 + (4 * len(s) if not s.isascii() else len(s)))
    return op


def _op_short_binunicode(u):
    n = u._read(1)[0]
    s = str(u._read(n), "utf-8", "surrogatepass")
    u._push(s, 50 + 4 * len(s))


def _op_short_binstring(u):
    n = u._read(1)[0]
    u._push(_decode_str(u, u._read(n)))


def _op_float(u):
    u._push(float(u._number_line()), 32)


def _op_binfloat(u):
    u._push(u._unpack(">d"), 32)


def _op_const(v):
    def op(u):
        u._push(v)
    return op


def _op_fixed_int(fmt):
    def op(u):
        u._push(u._unpack(fmt), 40)
    return op


def _op_binint1(u):
    u._push(u._read(1)[0])


def _tuple_of(u, items):
    u._charge(64 + 8 * len(items))
    return tuple(items)


def _op_tuple(u):
    u._push(_tuple_of(u, u._pop_mark()))


def _op_tuple_n(n):
    def op(u):
        if len(u.stack) - u.floor < n:
            raise u._bad("stack underflow")
        items = u.stack[-n:]
        del u.stack[-n:]
        u._push(_tuple_of(u, items))
    return op


def _op_empty_tuple(u):
    u._push(())


def _op_empty_list(u):
    u._push([], 88)


def _op_list(u):
    items = u._pop_mark()
    u._push(items, 64 + 8 * len(items))


def _op_empty_dict(u):
    u._push({}, 96)


def _op_dict(u):
    items = u._pop_mark()
    if len(items) % 2:
        raise u._bad("DICT with an odd number of items")
    d = {}
    u._charge(72)
    for i in range(0, len(items), 2):
        u._dict_setitem(d, items[i], items[i + 1])
    u._push(d)


def _op_empty_set(u):
    u._push(set(), 240)


def _op_append(u):
    v = u._pop()
    lst = u._top()
    if type(lst) is not list:
        raise u._refuse(f"refusing to append to {describe(lst)}: only lists the pickle built take items")
    u._charge(8 if lst else 48)
    lst.append(v)


def _op_appends(u):
    items = u._pop_mark()
    lst = u._top()
    if type(lst) is not list:
        raise u._refuse(f"refusing to extend {describe(lst)}: only lists the pickle built take items")
    u._charge(8 * len(items))
    lst.extend(items)


def _op_setitem(u):
    v = u._pop()
    k = u._pop()
    u._dict_setitem(u._top(), k, v)


def _op_setitems(u):
    items = u._pop_mark()
    if len(items) % 2:
        raise u._bad("SETITEMS with an odd number of items")
    d = u._top()
    for i in range(0, len(items), 2):
        u._dict_setitem(d, items[i], items[i + 1])


def _op_additems(u):
    items = u._pop_mark()
    s = u._top()
    if type(s) is not set:
        raise u._refuse(f"refusing to add items to {describe(s)}: only sets the pickle built take items")
    u._charge(40 * len(items))
    for x in items:
        u._check_hashable(x, s)
        s.add(x)


def _op_frozenset(u):
    items = u._pop_mark()
    probe = set()
    for x in items:
        u._check_hashable(x, probe)
        probe.add(x)
    u.hash_counts.pop(id(probe), None)
    u._charge(216 + 80 * len(items))   # the frozenset and the probe
    u._push(frozenset(items))


def _op_pop(u):
    if len(u.stack) > u.floor:
        u.stack.pop()
    else:
        u._pop_mark()   # pickle's own rule: POP with nothing above the mark drops the mark


def _op_pop_mark(u):
    u._pop_mark()


def _op_dup(u):
    u._push(u._top())


def _op_mark(u):
    u._mark()


def _op_get(u):
    u._push(u._memo_get(int(u._number_line())))


def _op_binget(u):
    u._push(u._memo_get(u._read(1)[0]))


def _op_long_binget(u):
    u._push(u._memo_get(u._unpack("<I")))


def _op_put(u):
    u._memo_put(int(u._number_line()), u._top())


def _op_binput(u):
    u._memo_put(u._read(1)[0], u._top())


def _op_long_binput(u):
    u._memo_put(u._unpack("<I"), u._top())


def _op_memoize(u):
    u._memo_put(len(u.memo) + len(u.sparse_memo), u._top())


def _global_name(u, b):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        raise u._bad("a global's name is not UTF-8") from None


def _op_global(u):
    module = _global_name(u, u._readline())
    name = _global_name(u, u._readline())
    u._push(u._find_class(module, name))


def _op_stack_global(u):
    name = u._pop()
    module = u._pop()
    if type(name) is not str or type(module) is not str:
        raise u._bad("STACK_GLOBAL needs two strings")
    u._push(u._find_class(module, name))


def _op_reduce(u):
    args = u._pop()
    func = u._pop()
    u._push(u._call(func, args))


def _op_newobj(u):
    args = u._pop()
    cls = u._pop()
    u._push(_newobj(u, cls, args))


def _op_newobj_ex(u):
    kwargs = u._pop()
    args = u._pop()
    cls = u._pop()
    if kwargs != {}:
        raise u._refuse(f"refusing NEWOBJ_EX with keyword arguments ({describe(kwargs)})")
    u._push(_newobj(u, cls, args))


def _newobj(u, cls, args):
    # cls.__new__(cls, *args): the same object as calling cls() for the containers, and for complex
    if not isinstance(cls, _Global) or cls.kind not in ("list", "tuple", "set", "frozenset", "dict", "OrderedDict",
                                                        "complex", "bytearray"):
        raise u._refuse(f"refusing to create an instance of {describe(cls)}")
    if cls.kind != "complex" and args != ():
        raise u._refuse(f"refusing {cls.module}.{cls.name}.__new__ with arguments")
    return u._call(cls, args)


def _op_obj(u):
    items = u._pop_mark()
    if not items:
        raise u._bad("OBJ without a class")
    u._push(u._call(items[0], tuple(items[1:])))


def _op_inst(u):
    module = _global_name(u, u._readline())
    name = _global_name(u, u._readline())
    args = tuple(u._pop_mark())
    u._push(u._call(u._find_class(module, name), args))


def _op_build(u):
    state = u._pop()
    inst = u._top()
    if type(inst) is np.ndarray and id(inst) in u.pending_arrays:
        u._build_array(inst, state)
    elif isinstance(inst, np.dtype):
        if id(inst) not in u.pending_dtypes:
            raise u._refuse(f"refusing to set the state of the dtype {inst.str!r} a second time")
        u._build_dtype(inst, state)
    else:
        raise u._refuse(f"refusing BUILD (setting the state or attributes) of {describe(inst)}: a pickle may only "
                        "fill in the numpy arrays and dtypes it has just created")


def _op_persid(u):
    raise u._refuse("refusing a persistent id in a pickle: persistent references are not allowed")


def _op_ext(u):
    raise u._refuse("refusing an extension-registry reference (EXT1/2/4) in a pickle")


def _op_next_buffer(u):
    raise u._refuse("refusing an out-of-band buffer (pickle protocol 5 NEXT_BUFFER): the data must be in the file")


def _op_readonly_buffer(u):
    u._top()   # in-band data is already an immutable bytes object, or a bytearray of our own


_STOP = object()

_DISPATCH = {
    ord("("): _op_mark, ord("."): _STOP, ord("0"): _op_pop, ord("1"): _op_pop_mark, ord("2"): _op_dup,
    ord("F"): _op_float, ord("I"): _op_int, ord("J"): _op_fixed_int("<i"), ord("K"): _op_binint1,
    ord("L"): _op_long, ord("M"): _op_fixed_int("<H"), ord("N"): _op_const(None), ord("P"): _op_persid,
    ord("Q"): _op_persid, ord("R"): _op_reduce, ord("S"): _op_string, ord("T"): _op_binstring,
    ord("U"): _op_short_binstring, ord("V"): _op_unicode, ord("X"): _op_binunicode("<I"), ord("a"): _op_append,
    ord("b"): _op_build, ord("c"): _op_global, ord("d"): _op_dict, ord("}"): _op_empty_dict,
    ord("e"): _op_appends, ord("g"): _op_get, ord("h"): _op_binget, ord("i"): _op_inst, ord("j"): _op_long_binget,
    ord("l"): _op_list, ord("]"): _op_empty_list, ord("o"): _op_obj, ord("p"): _op_put, ord("q"): _op_binput,
    ord("r"): _op_long_binput, ord("s"): _op_setitem, ord("t"): _op_tuple, ord(")"): _op_empty_tuple,
    ord("u"): _op_setitems, ord("G"): _op_binfloat,
    # protocol 2
    0x80: _op_proto, 0x81: _op_newobj, 0x82: _op_ext, 0x83: _op_ext, 0x84: _op_ext, 0x85: _op_tuple_n(1),
    0x86: _op_tuple_n(2), 0x87: _op_tuple_n(3), 0x88: _op_const(True), 0x89: _op_const(False), 0x8A: _op_long1,
    0x8B: _op_long4,
    # protocol 3
    ord("B"): _op_bytes("<I"), ord("C"): _op_bytes("<B"),
    # protocol 4
    0x8C: _op_short_binunicode, 0x8D: _op_binunicode("<Q"), 0x8E: _op_bytes("<Q"), 0x8F: _op_empty_set,
    0x90: _op_additems, 0x91: _op_frozenset, 0x92: _op_newobj_ex, 0x93: _op_stack_global, 0x94: _op_memoize,
    0x95: _op_frame,
    # protocol 5
    0x96: _op_bytearray8, 0x97: _op_next_buffer, 0x98: _op_readonly_buffer,
}


def safe_load(file, encoding="ASCII", errors="strict", **kwargs):
    """Unpickle from a binary file object (or a path) allowing only plain data and numeric numpy arrays."""
    return SafeUnpickler(file, encoding=encoding, errors=errors, **kwargs).load()


def safe_loads(data, encoding="ASCII", errors="strict", **kwargs):
    """Unpickle ``data`` (bytes) allowing only plain data and numeric numpy arrays."""
    return SafeUnpickler(bytes(data), encoding=encoding, errors=errors, **kwargs).load()
