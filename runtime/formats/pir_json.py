"""Paddle 3's PIR program files (``prefix.json``): reading them, checked, into a plain op tree.

With default settings Paddle 3.x's ``paddle.jit.save`` / ``save_inference_model`` write the
program as PIR JSON beside the usual ``.pdiparams`` (and no ``.pdiparams.info``)::

    {"base_code": {"magic": "pir", "trainable": true, "version": 4},
     "program": {"regions": [{"#": "region_0", "blocks": [{"#": "block_0", "args": [], "ops": [...]}]}]}}

What the writer (paddle/fluid/pir/serialize_deserialize) puts in an op, learned from files Paddle
3.3.1 writes (see tests/fixtures/paddle-3.3.1-pir):

* ``"#"``: the op name with its dialect compressed to a number: ``0`` builtin, ``1`` pd_op,
  ``2`` cf, ``3`` custom_op, ``4`` dist (``"1.matmul"`` is ``pd_op.matmul``, ``"2.yield"`` is
  ``cf.yield``). ``"p"`` is the compressed ``builtin.parameter``.
* ``"I"``: operands ``[{"%": id}]`` (0 = an absent optional input); ``"O"``: results
  ``[{"%": id, "TT": type}]`` (for ``p`` a single object); ids are unique in the program, block
  arguments have negative ids.
* ``"A"``: attributes ``[{"N": name, "AT": {"#": kind, "D": data}}]``; for ``p`` the list
  ``[is_distributed, is_parameter, need_clip, parameter_name]``. ``"OA"``: the results'
  ``stop_gradient`` / ``persistable`` (for ``p``: ``[persistable, stop_gradient, trainable]``).
* ``"regions"``: for ``pd_op.if`` (then, else) and ``pd_op.while`` (body; its block args are the
  loop-carried values); a region's block ends with ``cf.yield``.
* Types: ``{"#": "0.t_dtensor", "D": [{"#": "0.t_f32"}, dims, layout, lod, offset]}`` (-1 = unknown
  dim), ``{"#": "0.t_vec", "D": [types]}`` for ``builtin.combine`` results, tensor arrays as
  ``1.t_dtensor_array``.

The ``.pdiparams`` beside it is the tensor stream of the legacy format (FORMATS.md §5): the
persistable parameters (``p`` ops whose ``persistable`` flag is set) sorted by name. Checked
on every fixture: the file is consumed exactly in that order.

Hostile input: the file is bounded in size (`MAX_JSON_BYTES`) and in nesting depth
(`MAX_DEPTH`, measured by a linear scan *before* ``json.loads``, whose C parser recurses),
``NaN``/``Infinity`` literals and absurd integers are refused, and every field is type-checked as
it is used. Any problem is one `ModelFormatError` naming the file and where in it. Nothing read
becomes code or an identifier: names are only ever variable names in our Program, which the
executor maps to generated identifiers, and op names only select an entry of a fixed table.
"""
from __future__ import annotations

import json
import re

import numpy as np

from .errors import ModelFormatError

__all__ = ["PirOp", "PirBlock", "PirValue", "load_json", "parse_pir", "parse_pir_program", "MAX_JSON_BYTES", "MAX_DEPTH", "is_pir_json",
           "DIALECTS", "DTYPES"]

MAX_JSON_BYTES = 1 << 30   # 1 GiB: far above any real program (a ResNet-50 program is a few MB)
MAX_DEPTH = 256            # a program nests about 6 levels per control-flow op; real files stay below 60
MAX_NAME = 4096            # longest variable / op / attribute name we accept
MAX_DIM = 1 << 40          # largest tensor dimension we accept (keeps products of dims exact)
MAX_RANK = 32

# compressed dialect numbers (paddle/fluid/pir/serialize_deserialize/src/schema.cc)
DIALECTS = {"0": "builtin", "1": "pd_op", "2": "cf", "3": "custom_op", "4": "dist"}
DIALECT_IDS = {v: k for k, v in DIALECTS.items()}
PARAMETER_OP = "p"

# PIR builtin type names -> numpy dtype names
DTYPES = {"t_f32": "float32", "t_f64": "float64", "t_f16": "float16", "t_bf16": "bfloat16", "t_i8": "int8",
          "t_ui8": "uint8", "t_i16": "int16", "t_i32": "int32", "t_i64": "int64", "t_bool": "bool",
          "t_c64": "complex64", "t_c128": "complex128", "t_ui16": "uint16", "t_ui32": "uint32",
          "t_ui64": "uint64"}
TYPE_OF_DTYPE = {v: k for k, v in DTYPES.items()}


class PirValue:
    """The type of a value: ``kind`` "dense" (dtype name, dims), "array" (dtype, dims), "vec" (elems) or "null"."""

    __slots__ = ("kind", "dtype", "dims", "elems")

    def __init__(self, kind, dtype=None, dims=(), elems=()):
        self.kind, self.dtype, self.dims, self.elems = kind, dtype, list(dims), list(elems)

    def __repr__(self):
        if self.kind == "vec":
            return f"vec{self.elems}"
        return f"{self.kind}<{self.dtype}{self.dims}>"


class PirOp:
    """One op: ``name`` (decompressed, e.g. ``pd_op.matmul``), operand ids, result (id, PirValue) pairs,
    attrs (name -> plain Python value), result flags, regions (each a list of `PirBlock`), ``where``."""

    __slots__ = ("name", "operands", "results", "attrs", "result_attrs", "regions", "where")

    def __init__(self, name, operands, results, attrs, result_attrs, regions, where):
        self.name, self.operands, self.results = name, operands, results
        self.attrs, self.result_attrs, self.regions, self.where = attrs, result_attrs, regions, where

    def __repr__(self):
        return f"<PirOp {self.name} {self.operands} -> {[r[0] for r in self.results]}>"


class PirBlock:
    __slots__ = ("args", "ops", "where")

    def __init__(self, args, ops, where):
        self.args, self.ops, self.where = args, ops, where


# ---------------------------------------------------------------------------------------------------
# bytes -> JSON, bounded
# ---------------------------------------------------------------------------------------------------

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def _max_depth(data: bytes) -> int:
    """Deepest ``[`` / ``{`` nesting of a JSON text, in linear time without recursion."""
    structure = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    if not structure:
        return 0
    arr = np.frombuffer(structure, dtype=np.uint8)
    steps = np.where((arr == ord("[")) | (arr == ord("{")), 1, -1).astype(np.int64)
    return int(np.cumsum(steps).max())


def _no_constant(name):
    raise ValueError(f"the non-standard JSON literal {name} is not allowed")


def _bounded_int(text):
    if len(text) > 40:     # 10**40 is far beyond any int64 a program holds; int() of huge texts is slow
        raise ValueError(f"integer literal with {len(text)} digits")
    return int(text)


def load_json(data, path, what="PIR program (.json)"):
    """``data`` (bytes) parsed as JSON with size and depth bounds; errors are `ModelFormatError`."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    data = bytes(data)
    if len(data) > MAX_JSON_BYTES:
        raise ModelFormatError(f"{what} is {len(data)} bytes, more than the {MAX_JSON_BYTES} this reader accepts",
                               path)
    depth = _max_depth(data)
    if depth > MAX_DEPTH:
        raise ModelFormatError(f"{what} nests {depth} levels deep, more than the {MAX_DEPTH} a program needs "
                               "(the file is corrupt or hostile)", path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ModelFormatError(f"{what} is not UTF-8 text (byte {e.start}); is it really a .json model?", path) \
            from None
    try:
        return json.loads(text, parse_constant=_no_constant, parse_int=_bounded_int)
    except RecursionError:   # cannot happen below MAX_DEPTH; kept so no input escapes as RecursionError
        raise ModelFormatError(f"{what} nests too deeply", path) from None
    except ValueError as e:
        raise ModelFormatError(f"{what} is not valid JSON ({e}); the file is truncated or corrupt", path) from None


def is_pir_json(data) -> bool:
    """True when ``data`` starts like a PIR JSON program (used to tell formats apart)."""
    head = bytes(data[:64]).lstrip()
    return head.startswith(b"{")


# ---------------------------------------------------------------------------------------------------
# JSON -> op tree
# ---------------------------------------------------------------------------------------------------

class _Reader:
    def __init__(self, path):
        self.path = path

    def fail(self, where, msg):
        raise ModelFormatError(f"{where}: {msg}" if where else msg, self.path)

    def get(self, obj, key, typ, where, default=KeyError):
        if not isinstance(obj, dict):
            self.fail(where, f"expected a JSON object, got {type(obj).__name__}")
        if key not in obj:
            if default is KeyError:
                self.fail(where, f"missing the key '{key}'")
            return default
        v = obj[key]
        if typ is int:
            if not isinstance(v, int) or isinstance(v, bool):
                self.fail(where, f"'{key}' must be an integer, got {type(v).__name__}")
        elif not isinstance(v, typ):
            self.fail(where, f"'{key}' must be {getattr(typ, '__name__', typ)}, got {type(v).__name__}")
        return v

    def name(self, v, where, what):
        if not isinstance(v, str) or not v or len(v) > MAX_NAME or "\x00" in v:
            self.fail(where, f"{what} must be a non-empty string of at most {MAX_NAME} characters, got {v!r:.80}")
        return v

    # -- types ---------------------------------------------------------------------------------------
    def type_(self, t, where):
        if not isinstance(t, dict):
            self.fail(where, f"a type must be a JSON object, got {type(t).__name__}")
        kind = self.get(t, "#", str, where)
        if kind == "NULL":
            return PirValue("null")
        d = t.get("D")
        if kind in ("0.t_dtensor", "1.t_dense_tensor_array"):
            if not isinstance(d, list) or len(d) < 2 and kind == "0.t_dtensor" or len(d) < 1:
                self.fail(where, f"type {kind} has malformed data {d!r:.80}")
            dtype = self.dtype(d[0], where)
            dims = d[1] if len(d) > 1 else []
            if not isinstance(dims, list) or len(dims) > MAX_RANK:
                self.fail(where, f"type {kind} has malformed dims {dims!r:.80}")
            out = []
            for x in dims:
                if not isinstance(x, int) or isinstance(x, bool) or not -MAX_DIM <= x <= MAX_DIM:
                    self.fail(where, f"type {kind} has an invalid dimension {x!r:.40}")
                out.append(x if x >= 0 else -1)
            return PirValue("dense" if kind == "0.t_dtensor" else "array", dtype, out)
        if kind == "0.t_vec":
            if not isinstance(d, list):
                self.fail(where, "type 0.t_vec must list its element types")
            return PirValue("vec", elems=[self.type_(e, where) for e in d])
        if kind.startswith("0.t_") and kind[2:] in DTYPES:    # a bare scalar type
            return PirValue("dense", DTYPES[kind[2:]], [])
        self.fail(where, f"unsupported value type '{kind:.80}'")

    def dtype(self, d, where):
        k = d.get("#") if isinstance(d, dict) else None
        if not isinstance(k, str) or not k.startswith("0.") or k[2:] not in DTYPES:
            self.fail(where, f"unsupported element type {k if k is not None else d!r:.80}")
        return DTYPES[k[2:]]

    # -- attributes ----------------------------------------------------------------------------------
    def attr(self, a, where):
        if not isinstance(a, dict):
            self.fail(where, f"an attribute value must be a JSON object, got {type(a).__name__}")
        kind = self.get(a, "#", str, where)
        d = a.get("D")
        if kind == "0.a_bool":
            if not isinstance(d, bool):
                self.fail(where, f"{kind} must hold true/false, got {d!r:.40}")
            return d
        if kind in ("0.a_i32", "0.a_i64", "0.a_index"):
            if not isinstance(d, int) or isinstance(d, bool) or not -2 ** 63 <= d < 2 ** 63:
                self.fail(where, f"{kind} must hold a 64-bit integer, got {d!r:.40}")
            return d
        if kind in ("0.a_f32", "0.a_f64"):
            if d is None:        # the writer prints NaN as null
                return float("nan")
            if not isinstance(d, (int, float)) or isinstance(d, bool):
                self.fail(where, f"{kind} must hold a number, got {d!r:.40}")
            return float(d)
        if kind == "0.a_str":
            if not isinstance(d, str):
                self.fail(where, f"{kind} must hold a string")
            return d
        if kind == "0.a_array":
            if not isinstance(d, list):
                self.fail(where, f"{kind} must hold a list")
            return [self.attr(x, where) for x in d]
        if kind == "1.a_intarray":
            if not isinstance(d, list) or not all(isinstance(x, int) and not isinstance(x, bool)
                                                  and -2 ** 63 <= x < 2 ** 63 for x in d):
                self.fail(where, f"{kind} must hold a list of integers")
            return list(d)
        if kind == "1.a_dtype":
            if not isinstance(d, str):
                self.fail(where, f"{kind} must hold a dtype name")
            return d
        if kind in ("1.a_place", "1.a_datalayout"):
            return d
        if kind == "1.a_scalar":
            # [type, value] in the files seen; the value is what matters
            if isinstance(d, list) and len(d) == 2 and isinstance(d[1], (int, float, bool)):
                return d[1]
            if isinstance(d, (int, float)) and not isinstance(d, bool):
                return d
            self.fail(where, f"{kind} has malformed data {d!r:.80}")
        if kind == "0.a_type":
            return self.type_(d, where)
        self.fail(where, f"unsupported attribute kind '{kind:.80}'")

    def attrs(self, lst, where):
        if not isinstance(lst, list):
            self.fail(where, "attributes ('A') must be a list")
        out = {}
        for a in lst:
            n = self.name(self.get(a, "N", str, where), where, "an attribute name")
            if "AT" in a:
                out[n] = self.attr(a["AT"], f"{where}, attribute '{n}'")
        return out

    # -- structure -----------------------------------------------------------------------------------
    def value_id(self, v, where, what):
        if not isinstance(v, int) or isinstance(v, bool) or not -2 ** 62 < v < 2 ** 62:
            self.fail(where, f"{what} id must be an integer, got {v!r:.40}")
        return v

    def op(self, o, where):
        name = self.name(self.get(o, "#", str, where), where, "an op name")
        if name == PARAMETER_OP:
            return self.parameter(o, where)
        dialect, _, base = name.partition(".")
        if dialect not in DIALECTS or not base:
            self.fail(where, f"op name '{name:.80}' does not start with a known dialect number (0-4)")
        full = f"{DIALECTS[dialect]}.{base}"
        where = f"{where} ({full})"
        operands = []
        for x in self.get(o, "I", list, where, default=[]):
            operands.append(self.value_id(self.get(x, "%", int, where), where, "an operand"))
        results = []
        res = self.get(o, "O", list, where, default=[])
        for x in res:
            vid = self.value_id(self.get(x, "%", int, where, default=-1), where, "a result")
            results.append((vid, self.type_(self.get(x, "TT", dict, where), where)))
        attrs = self.attrs(self.get(o, "A", list, where, default=[]), where)
        result_attrs = self.attrs(self.get(o, "OA", list, where, default=[]), where)
        regions = []
        for r, region in enumerate(self.get(o, "regions", list, where, default=[])):
            blocks = self.get(region, "blocks", list, f"{where} region {r}")
            regions.append([self.block(b, f"{where} region {r} block {k}") for k, b in enumerate(blocks)])
        return PirOp(full, operands, results, attrs, result_attrs, regions, where)

    def parameter(self, o, where):
        where = f"{where} (builtin.parameter)"
        a = self.get(o, "A", list, where)
        if len(a) != 4:
            self.fail(where, f"a parameter op has 4 attributes, got {len(a)}")
        name = self.name(a[3], where, "the parameter name")
        res = self.get(o, "O", dict, where)
        vid = self.value_id(self.get(res, "%", int, where), where, "a result")
        typ = self.type_(self.get(res, "TT", dict, where), where)
        flags = self.get(o, "OA", list, where, default=[1, 0, 1])
        if len(flags) != 3 or not all(isinstance(x, (int, bool)) for x in flags):
            self.fail(where, "a parameter op's 'OA' must be [persistable, stop_gradient, trainable]")
        attrs = {"parameter_name": name, "persistable": bool(flags[0]), "stop_gradient": bool(flags[1]),
                 "trainable": bool(flags[2])}
        return PirOp("builtin.parameter", [], [(vid, typ)], attrs, {}, [], f"{where} '{name}'")

    def block(self, b, where):
        args = []
        for x in self.get(b, "args", list, where, default=[]):
            vid = self.value_id(self.get(x, "#", int, where), where, "a block argument")
            args.append((vid, self.type_(self.get(x, "TT", dict, where), where)))
        ops = [self.op(o, f"{where}, op {i}") for i, o in enumerate(self.get(b, "ops", list, where))]
        return PirBlock(args, ops, where)


def parse_pir(data, path):
    """``(top block, base_code dict)`` of the PIR JSON program ``data`` (bytes)."""
    doc = load_json(data, path)
    r = _Reader(path)
    if not isinstance(doc, dict):
        r.fail("", "a PIR program must be a JSON object")
    base = r.get(doc, "base_code", dict, "the top level")
    if base.get("magic") != "pir":
        r.fail("base_code", f"magic is {base.get('magic')!r:.40}, not 'pir': this is not a PIR program")
    version = base.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version < 1000:
        r.fail("base_code", f"invalid version {version!r:.40}")
    program = r.get(doc, "program", dict, "the top level")
    regions = r.get(program, "regions", list, "program")
    if len(regions) != 1:
        r.fail("program", f"a program has one top-level region, got {len(regions)}")
    blocks = r.get(regions[0], "blocks", list, "program region 0")
    if len(blocks) != 1:
        r.fail("program region 0", f"the top-level region has one block, got {len(blocks)}")
    return r.block(blocks[0], "block 0"), base


def parse_pir_program(data, path=None):
    """``(program, feed_names, fetch_names)`` from the bytes of a PIR ``.json`` program."""
    from .pir_read import translate
    top, _ = parse_pir(data, path)
    return translate(top, path)
