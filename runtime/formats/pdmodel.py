"""Program <-> ProgramDesc: our static Programs as Paddle's .pdmodel protobuf, and back.

Writing follows FORMATS.md §3 and the §10 recipe: vars sorted by name with the ``feed``/
``fetch`` holders last, feed ops first in descending ``col``, fetch ops last in ascending
``col``, every attribute written with the AttrType the op's schema declares, op_callstack/
op_role carried as Paddle's common attrs, version 3003001 and the 3.3.1 op_version_map.
Reading is the inverse and is as tolerant as Paddle's own loader (§8): common and unknown
attrs are dropped, missing schema attrs take their defaults, numerically compatible attr
types are converted; the feed/fetch ops become the model's feed and fetch names. Anything
unreadable raises `ModelFormatError` naming the file, the block, the op and the problem.
"""
from __future__ import annotations

import math

import numpy as np

from ..dtype import from_proto
from ..ops.registry import all_ops
from ..static.program import Block, Operator, Parameter, Program, Variable, VarType, ROLE_FORWARD
from .errors import ModelFormatError
from .proto import ATTR_TYPE, ATTR_TYPE_NAME, VAR_TYPE, VAR_TYPE_NAME, BlockDesc, OpDesc, ProgramDesc, Scalar

__all__ = ["program_to_desc", "desc_to_program", "serialize_program", "parse_program", "persistable_specs",
           "OP_VERSION_MAP", "PADDLE_VERSION", "HOLDER_TYPES"]

PADDLE_VERSION = 3003001   # the Paddle release whose layout we write (3.3.1)

# Paddle 3.3.1's op version registry, in its file order (FORMATS.md §9)
OP_VERSION_MAP = [
    ("distribute_fpn_proposals", 2), ("elementwise_add", 1), ("elementwise_sub", 1),
    ("moving_average_abs_max_scale", 2), ("not_equal", 1), ("linspace", 1), ("less_than", 1), ("less_equal", 1),
    ("matrix_nms", 1), ("kldiv_loss", 1), ("truncated_gaussian_random", 1), ("assign_value", 1),
    ("depthwise_conv2d_transpose", 1), ("lstsq", 1), ("quantize", 2), ("global_scatter", 1), ("grid_sampler", 1),
    ("generate_proposals_v2", 1), ("flip", 1), ("global_gather", 1), ("dequantize", 1), ("greater_equal", 1),
    ("depthwise_conv2d", 1), ("instance_norm", 1), ("coalesce_tensor", 2), ("thresholded_relu", 1),
    ("greater_than", 1), ("cumprod", 1), ("weight_quantize", 1), ("matmul", 1), ("for_pybind_test__", 4),
    ("hard_shrink", 1), ("gather", 1), ("max_pool3d_with_index", 1), ("conv2d", 1), ("histogram", 1),
    ("yolo_box", 1), ("affine_grid", 1), ("allclose", 2), ("conv3d_transpose", 1), ("argsort", 1),
    ("fake_channel_wise_quantize_abs_max", 1), ("conv2d_transpose", 2), ("conv3d", 1), ("clip", 1),
    ("fill_constant", 2), ("cumsum", 1), ("collect_fpn_proposals", 1), ("momentum", 1), ("lamb", 1), ("p_norm", 1),
    ("round", 1), ("partial_allgather", 1), ("pixel_shuffle", 1), ("auc", 1), ("roi_align", 3),
    ("lookup_table", 1), ("roi_pool", 2), ("roll", 2), ("elementwise_div", 1), ("max_pool2d_with_index", 1),
    ("leaky_relu", 1), ("trace", 1), ("weight_dequantize", 1), ("softplus", 1), ("print", 1),
    ("unique_consecutive", 1), ("weight_only_linear", 1), ("equal", 1), ("elementwise_mul", 1), ("set_value", 4),
    ("seed", 1), ("requantize", 1), ("generate_proposals", 2), ("elementwise_pow", 1), ("lookup_table_v2", 1),
]

FEED_HOLDER, FETCH_HOLDER = "feed", "fetch"
HOLDER_TYPES = (VAR_TYPE["FEED_MINIBATCH"], VAR_TYPE["FETCH_LIST"])
# persistable vars of these kinds hold no tensor (FORMATS §5)
_NOT_PARAMS = HOLDER_TYPES + (VAR_TYPE["READER"], VAR_TYPE["RAW"])
_DENSE, _ARRAY, _SCOPES = VAR_TYPE["DENSE_TENSOR"], VAR_TYPE["DENSE_TENSOR_ARRAY"], VAR_TYPE["STEP_SCOPES"]
_INT32 = (-2 ** 31, 2 ** 31 - 1)
_INT64 = (-2 ** 63, 2 ** 63 - 1)


# ====================================================================================================
# writing
# ====================================================================================================

def _int(v, lo_hi, what):
    i = int(v)
    if not lo_hi[0] <= i <= lo_hi[1]:
        raise ValueError(f"{what}: {i} does not fit the attribute's {'int32' if lo_hi == _INT32 else 'int64'} "
                         "field")
    return i


def _set_scalar(msg, v, what):
    if isinstance(v, (bool, np.bool_)):
        msg.type, msg.b = Scalar.BOOLEAN, bool(v)
    elif isinstance(v, (int, np.integer)):
        msg.type, msg.i = Scalar.LONG, _int(v, _INT64, what)
    elif isinstance(v, (float, np.floating)):
        msg.type, msg.r = Scalar.FLOAT64, float(v)
    elif isinstance(v, (complex, np.complexfloating)):
        msg.type = Scalar.COMPLEX128
        msg.c.r, msg.c.i = float(v.real), float(v.imag)
    else:
        raise TypeError(f"{what}: cannot store a {type(v).__name__} as a Scalar")


def _guess_type(v):
    """The AttrType for a value of an attr the op's schema does not declare."""
    if isinstance(v, (bool, np.bool_)):
        return "BOOLEAN"
    if isinstance(v, (int, np.integer)):
        return "INT" if _INT32[0] <= v <= _INT32[1] else "LONG"
    if isinstance(v, (float, np.floating)):
        return "FLOAT"
    if isinstance(v, str):
        return "STRING"
    if isinstance(v, (list, tuple)):
        if all(isinstance(x, (bool, np.bool_)) for x in v) and v:
            return "BOOLEANS"
        if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in v):
            return "INTS" if all(_INT32[0] <= x <= _INT32[1] for x in v) else "LONGS"
        if all(isinstance(x, (int, float, np.integer, np.floating)) for x in v):
            return "FLOATS"
        if all(isinstance(x, str) for x in v):
            return "STRINGS"
    raise TypeError(f"cannot store a {type(v).__name__} attribute value {v!r}")


def _set_attr(a, name, typ, v, what):
    """Fill OpDesc.Attr ``a`` with ``v`` in the field of AttrType ``typ``. False when there is nothing to write."""
    what = f"{what}: attribute '{name}' ({typ})"
    a.name = name
    a.type = ATTR_TYPE[typ]
    if typ == "INT":
        a.i = _int(v, _INT32, what)
    elif typ == "LONG":
        a.l = _int(v, _INT64, what)
    elif typ == "FLOAT":
        a.f = float(v)
    elif typ == "FLOAT64":
        a.float64 = float(v)
    elif typ == "STRING":
        a.s = str(v)
    elif typ == "BOOLEAN":
        a.b = bool(v)
    elif typ == "INTS":
        a.ints.extend(_int(x, _INT32, what) for x in v)
    elif typ == "LONGS":
        a.longs.extend(_int(x, _INT64, what) for x in v)
    elif typ == "FLOATS":
        a.floats.extend(float(x) for x in v)
    elif typ == "FLOAT64S":
        a.float64s.extend(float(x) for x in v)
    elif typ == "STRINGS":
        a.strings.extend(str(x) for x in v)
    elif typ == "BOOLEANS":
        a.bools.extend(bool(x) for x in v)
    elif typ == "BLOCK":
        if v is None:
            return False
        a.block_idx = _int(v, _INT32, what)
    elif typ == "BLOCKS":
        a.blocks_idx.extend(_int(x, _INT32, what) for x in v)
    elif typ == "VAR":
        if v is None:
            return False
        a.var_name = str(v)
    elif typ == "VARS":
        a.vars_name.extend(str(x) for x in v)
    elif typ == "SCALAR":
        if v is None:
            return False
        _set_scalar(a.scalar, v, what)
    elif typ == "SCALARS":
        for x in v:
            _set_scalar(a.scalars.add(), x, what)
    else:   # pragma: no cover - ATTR_TYPES is closed
        raise TypeError(f"{what}: unknown attribute type")
    return True


def _add_op(bd, type, inputs, outputs, attrs, what):
    """Append an OpDesc: slots sorted by name, attrs (name -> (AttrType, value)) sorted by name."""
    od = bd.ops.add()
    od.type = type
    for slot in sorted(inputs):
        od.inputs.add(parameter=slot, arguments=list(inputs[slot]))
    for slot in sorted(outputs):
        od.outputs.add(parameter=slot, arguments=list(outputs[slot]))
    for name in sorted(attrs):
        typ, v = attrs[name]
        a = OpDesc.Attr()
        if _set_attr(a, name, typ, v, what):
            od.attrs.append(a)
    return od


def _op_attrs(op):
    try:
        opdef = all_ops()[op.type]
    except KeyError:
        raise ValueError(f"op '{op.type}' is not registered; cannot write it") from None
    if opdef.internal:
        raise ValueError(f"op '{op.type}' cannot be saved to a model file: it exists only inside dy2st's "
                         "compiled programs")
    schema = opdef.attrs
    out = {}
    for name, v in op.attrs.items():
        typ = schema[name][0] if name in schema else _guess_type(v)
        out[name] = (typ, v)
    # Paddle's common attrs (all optional for loaders, FORMATS §3.3)
    out.setdefault("op_role", ("INT", int(op.role)))
    out.setdefault("op_role_var", ("STRINGS", []))
    out.setdefault("op_namescope", ("STRING", "/"))
    out.setdefault("op_device", ("STRING", ""))
    if op.callstack:
        out.setdefault("op_callstack", ("STRINGS", list(op.callstack)))
    return out


def _fill_var(vd, v, training_info):
    vd.name = v.name
    vd.type.type = int(v.type)
    if v.type == _DENSE:
        t = vd.type.dense_tensor
        t.tensor.data_type = v.dtype.proto
        t.tensor.dims.extend(int(d) for d in v.shape)
        if not v.persistable:
            t.legacy_lod_level = 0   # as Paddle: set on activations, left out on parameters
    elif v.type == _ARRAY:
        t = vd.type.tensor_array
        t.tensor.data_type = v.dtype.proto
        t.tensor.dims.extend(int(d) for d in v.shape)
    elif v.type not in (_SCOPES,) + HOLDER_TYPES:
        raise ValueError(f"variable '{v.name}' has kind {VAR_TYPE_NAME.get(v.type, v.type)}, which cannot be "
                         "written to a .pdmodel")
    if v.persistable:
        vd.persistable = True
    if getattr(v, "need_check_feed", False):
        vd.need_check_feed = True
    if training_info:
        if isinstance(v, Parameter):
            vd.is_parameter = True
        if v.stop_gradient and v.type == _DENSE:
            vd.stop_gradient = True


def program_to_desc(program, feed_names=(), fetch_names=(), *, version=PADDLE_VERSION, op_version_map=True,
                    training_info=True):
    """The ProgramDesc of ``program`` with feed ops for ``feed_names`` and fetch ops for ``fetch_names``.

    ``training_info`` keeps each var's ``stop_gradient`` and ``is_parameter`` (so reading gives the
    same Program back); real jit.save clears them, and every loader accepts either."""
    feed_names, fetch_names = list(feed_names), list(fetch_names)
    gb = program.global_block()
    for n in feed_names:
        if n not in gb.vars:
            raise ValueError(f"feed variable '{n}' is not a variable of the program's global block")
    for n in fetch_names:
        if gb._find_var_recursive(n) is None:
            raise ValueError(f"fetch variable '{n}' is not a variable of the program's global block")
    for blk in program.blocks:
        for n in (FEED_HOLDER, FETCH_HOLDER):
            v = blk.vars.get(n)
            if v is not None and v.type not in HOLDER_TYPES:
                raise ValueError(f"the program has a variable named '{n}', a name Paddle reserves for its "
                                 "feed/fetch holders; rename it")
    pd = ProgramDesc()
    hoisted = []   # persistable vars declared in sub-blocks: Paddle loads parameters from block 0 only
    for blk in program.blocks:
        if blk.idx > 0:
            hoisted.extend(v for n, v in blk.vars.items() if v.persistable and n not in gb.vars)
    for blk in program.blocks:
        bd = pd.blocks.add()
        bd.idx, bd.parent_idx = blk.idx, blk.parent_idx
        if blk.forward_block_idx != -1:
            bd.forward_block_idx = blk.forward_block_idx
        vars_ = {n: v for n, v in blk.vars.items() if n not in (FEED_HOLDER, FETCH_HOLDER)}
        if blk.idx == 0:
            vars_.update((v.name, v) for v in hoisted)
        else:
            vars_ = {n: v for n, v in vars_.items() if not v.persistable or n in gb.vars}
        for name in sorted(vars_):
            _fill_var(bd.vars.add(), vars_[name], training_info)
        where = f"block {blk.idx}"
        if blk.idx == 0:
            for holder, typ in ((FEED_HOLDER, "FEED_MINIBATCH"), (FETCH_HOLDER, "FETCH_LIST")):
                vd = bd.vars.add(name=holder, persistable=True)
                vd.type.type = VAR_TYPE[typ]
            # jit.load reverses the feed ops to get the argument order: feed ops go first, in descending col
            for col in reversed(range(len(feed_names))):
                _add_op(bd, "feed", {"X": [FEED_HOLDER]}, {"Out": [feed_names[col]]},
                        {"col": ("INT", col), "op_role": ("INT", ROLE_FORWARD)}, where)
        for i, op in enumerate(blk.ops):
            _add_op(bd, op.type, op.inputs, op.outputs, _op_attrs(op), f"{where}, op {i} '{op.type}'")
        if blk.idx == 0:
            for col, name in enumerate(fetch_names):
                _add_op(bd, "fetch", {"X": [name]}, {"Out": [FETCH_HOLDER]},
                        {"col": ("INT", col), "op_role": ("INT", ROLE_FORWARD)}, where)
    if version is not None:
        pd.version.version = int(version)
    if op_version_map:
        for name, ver in OP_VERSION_MAP:
            p = pd.op_version_map.pair.add(op_name=name)
            p.op_version.version = ver
    return pd


# ops of ours that Paddle's ProgramDesc does not have (tensor-array pop/insert and per-iteration array
# reset, which dy2st stages for Python list methods in tensor loops): files with them load in dy2st only
DY2ST_ONLY_OPS = frozenset({"array_pop", "array_insert", "create_array"})


def serialize_program(program, feed_names=(), fetch_names=(), **kwargs) -> bytes:
    """The .pdmodel bytes of ``program`` (see `program_to_desc`). A program using `DY2ST_ONLY_OPS` is written
    with a warning: dy2st loads the file, real PaddlePaddle does not."""
    found = sorted({op.type for blk in program.blocks for op in blk.ops if op.type in DY2ST_ONLY_OPS})
    if found:
        import warnings
        warnings.warn(f"the saved model uses dy2st's own op(s) {found} (Python list pop/insert or a list created "
                      "inside a tensor loop): dy2st loads it, real PaddlePaddle cannot. Build such lists with "
                      "paddle.stack / paddle.concat of tensors to get a model Paddle loads.", stacklevel=3)
    return program_to_desc(program, feed_names, fetch_names, **kwargs).SerializeToString()


def persistable_specs(program):
    """``[(name, dtype code, dims)]`` of the tensors a .pdiparams for ``program`` holds (sorted by name)."""
    seen = {}
    for blk in program.blocks:
        for n, v in blk.vars.items():
            if v.persistable and v.type not in _NOT_PARAMS and n not in seen:
                seen[n] = (n, v.dtype.proto, list(v.shape))
    return [seen[n] for n in sorted(seen)]


# ====================================================================================================
# reading
# ====================================================================================================

def _text(s, what, path):
    if isinstance(s, bytes):   # proto2 strings are not UTF-8 checked by the parser
        raise ModelFormatError(f"{what} is not valid UTF-8 text", path)
    return s


def _f32(x, default=None):
    """A float read from a float32 field: the schema default when it is that number, else the
    shortest decimal that rounds to the same float32 (what the writer most likely held)."""
    x32 = np.float32(x)
    if isinstance(default, float) and np.float32(default) == x32 and not math.isnan(default):
        return default
    if not np.isfinite(x32):
        return float(x32)
    return float(str(x32))


def _scalar_value(s, what, path):
    if s.type == Scalar.BOOLEAN:
        return bool(s.b)
    if s.type == Scalar.LONG:
        return int(s.i)
    if s.type == Scalar.FLOAT64:
        return float(s.r)
    if s.type == Scalar.COMPLEX128:
        return complex(s.c.r, s.c.i)
    raise ModelFormatError(f"{what}: Scalar of unknown type {s.type}", path)


def _attr_value(a, what, path):
    """(AttrType name, Python value) of an OpDesc.Attr, read from the field its type names."""
    t = a.type
    if not 0 <= t < len(ATTR_TYPE_NAME):
        raise ModelFormatError(f"{what}: unknown attribute type {t}", path)
    typ = ATTR_TYPE_NAME[t]
    if typ == "INT":
        return typ, int(a.i)
    if typ == "LONG":
        return typ, int(a.l)
    if typ == "FLOAT":
        return typ, float(a.f)
    if typ == "FLOAT64":
        return typ, float(a.float64)
    if typ == "STRING":
        return typ, _text(a.s, what, path)
    if typ == "BOOLEAN":
        return typ, bool(a.b)
    if typ == "INTS":
        return typ, [int(x) for x in a.ints]
    if typ == "LONGS":
        return typ, [int(x) for x in a.longs]
    if typ == "FLOATS":
        return typ, [float(x) for x in a.floats]
    if typ == "FLOAT64S":
        return typ, [float(x) for x in a.float64s]
    if typ == "STRINGS":
        return typ, [_text(x, what, path) for x in a.strings]
    if typ == "BOOLEANS":
        return typ, [bool(x) for x in a.bools]
    if typ == "BLOCK":
        if not a.HasField("block_idx"):
            raise ModelFormatError(f"{what}: BLOCK attribute without a block index", path)
        return typ, int(a.block_idx)
    if typ == "BLOCKS":
        return typ, [int(x) for x in a.blocks_idx]
    if typ == "VAR":
        return typ, _text(a.var_name, what, path)
    if typ == "VARS":
        return typ, [_text(x, what, path) for x in a.vars_name]
    if typ == "SCALAR":
        return typ, _scalar_value(a.scalar, what, path) if a.HasField("scalar") else None
    return typ, [_scalar_value(s, what, path) for s in a.scalars]   # SCALARS


_INTLIKE = ("INT", "LONG")
_FLOATLIKE = ("FLOAT", "FLOAT64")
_LISTS = ("INTS", "LONGS", "FLOATS", "FLOAT64S", "BOOLEANS")


def _coerce(value, have, want, default, what, path):
    """``value`` of AttrType ``have`` as the schema's AttrType ``want`` (numerically compatible types only)."""
    if want == "FLOAT" and have in _FLOATLIKE + _INTLIKE:
        return _f32(value, default) if have == "FLOAT" else float(value)
    if want == "FLOATS" and have in ("FLOATS", "FLOAT64S", "INTS", "LONGS"):
        dflt = default if isinstance(default, (list, tuple)) and len(default) == len(value) else [None] * len(value)
        return [_f32(x, d) if have == "FLOATS" else float(x) for x, d in zip(value, dflt)]
    if have == want:
        return value
    if want in _INTLIKE and have in _INTLIKE:
        lo, hi = _INT32 if want == "INT" else _INT64
        if not lo <= value <= hi:
            raise ModelFormatError(f"{what}: value {value} does not fit {want}", path)
        return value
    if want in ("INTS", "LONGS") and have in ("INTS", "LONGS"):
        return list(value)
    if want == "FLOAT64" and have in _FLOATLIKE + _INTLIKE:
        return float(value)
    if want == "FLOAT64S" and have in ("FLOATS", "FLOAT64S", "INTS", "LONGS"):
        return [float(x) for x in value]
    if want == "FLOAT" and have == "SCALAR" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if want == "SCALAR" and have in _INTLIKE + _FLOATLIKE + ("BOOLEAN",):
        return _f32(value) if have == "FLOAT" else value
    if want == "SCALARS" and have in _LISTS:
        return [_f32(x) for x in value] if have == "FLOATS" else list(value)
    raise ModelFormatError(f"{what} has type {have}, but the op declares {want}", path)


# Paddle before 3.x stored assign_value / set_value data in typed list attrs instead of `values`
_LEGACY_VALUES = ("fp32_values", "int32_values", "int64_values", "bool_values", "fp64_values", "fp16_values")


# ops a model file must not hold: what they would run is not described by the file
_INTERNAL = ("it exists only inside dy2st's compiler (graph passes make it on a private copy of a "
             "program) and is never saved; the file was not written by Paddle or dy2st")
_NOT_IN_FILES = {"py_func": "it calls a Python function registered in the process that built the program, "
                            "which a file cannot carry (save the model without paddle.static.py_func)"}


def _read_op(od, block, schema_ops, path, where):
    type_ = _text(od.type, f"{where}: op type", path)
    opdef = schema_ops.get(type_)
    if opdef is None:
        raise ModelFormatError(f"{where}: unknown op type '{type_}' (dy2st does not implement it)", path)
    if opdef.internal or type_ in _NOT_IN_FILES:
        raise ModelFormatError(f"{where}: op type '{type_}' cannot be loaded from a file: "
                               f"{_NOT_IN_FILES.get(type_, _INTERNAL)}", path)
    where = f"{where} '{type_}'"
    slots = {}
    for is_out, vars_, known in ((False, od.inputs, opdef.input_names), (True, od.outputs, opdef.output_names)):
        d = {}
        for var in vars_:
            slot = _text(var.parameter, f"{where}: slot name", path)
            names = [_text(n, f"{where}: argument of slot {slot}", path) for n in var.arguments]
            if slot not in known:
                if names:
                    raise ModelFormatError(f"{where}: unknown {'output' if is_out else 'input'} slot '{slot}' "
                                           f"(the op's slots are {list(known)})", path)
                continue
            if slot in d:
                raise ModelFormatError(f"{where}: slot '{slot}' appears twice", path)
            for n in names:
                if block._find_var_recursive(n) is None:
                    raise ModelFormatError(f"{where}: variable '{n}' ({slot}) has no VarDesc in block {block.idx} "
                                           "or its ancestors", path)
            d[slot] = names
        for s in (opdef.outputs if is_out else opdef.inputs):
            n = len(d.get(s.name, []))
            if n > 1 and not s.duplicable:
                raise ModelFormatError(f"{where}: slot '{s.name}' takes one variable, got {n}", path)
            if n == 0 and not s.dispensable and not s.duplicable and not s.intermediate and not is_out:
                raise ModelFormatError(f"{where}: required input slot '{s.name}' is empty", path)
        # schema slot order (what the static builder records), absent slots empty
        slots[is_out] = {s.name: d.get(s.name, []) for s in (opdef.outputs if is_out else opdef.inputs)}
    schema = opdef.attrs
    attrs, raw = {}, {}
    callstack, role = [], ROLE_FORWARD
    for a in od.attrs:
        name = _text(a.name, f"{where}: attribute name", path)
        what = f"{where}: attribute '{name}'"
        typ, value = _attr_value(a, what, path)
        if name in schema:
            want, default = schema[name]
            attrs[name] = _coerce(value, typ, want, default, what, path)
        elif name == "op_callstack" and typ == "STRINGS":
            callstack = value
        elif name == "op_role" and typ in _INTLIKE:
            role = value
        else:
            raw[name] = value   # Paddle's common attrs, EXTRA attrs we do not model: dropped
    if "values" in schema and "values" not in attrs:
        for legacy in _LEGACY_VALUES:
            if raw.get(legacy):
                attrs["values"] = ([_f32(x) for x in raw[legacy]] if legacy in ("fp32_values", "fp16_values")
                                   else [bool(x) for x in raw[legacy]] if legacy == "bool_values"
                                   else list(raw[legacy]))
                break
    for name, (typ, default) in schema.items():
        if name not in attrs and default is None and typ == "BLOCK":
            raise ModelFormatError(f"{where}: required attribute '{name}' is missing", path)
    return Operator(block, type_, slots[False], slots[True], opdef.full_attrs(attrs), callstack, role)


def _read_var(vd, block, path):
    name = _text(vd.name, f"block {block.idx}: variable name", path)
    where = f"block {block.idx}: variable '{name}'"
    t = vd.type.type
    shape, dtype = (), None
    if t in (_DENSE, _ARRAY):
        sub = vd.type.dense_tensor if t == _DENSE else vd.type.tensor_array
        if not sub.HasField("tensor"):
            raise ModelFormatError(f"{where}: {VAR_TYPE_NAME[t]} without a TensorDesc", path)
        # Paddle's infer-shape writes products of unknown dims as they come (instance_norm's SavedMean
        # is [-4] = -1 * 4 channels with an unknown batch): any negative dim means unknown
        shape = [int(d) if d >= -1 else -1 for d in sub.tensor.dims]
        try:
            dtype = from_proto(sub.tensor.data_type)
        except ValueError:
            code = sub.tensor.data_type
            raise ModelFormatError(f"{where}: unsupported data type {VAR_TYPE_NAME.get(code, code)}", path) from None
    elif t not in (_SCOPES,) + HOLDER_TYPES:
        raise ModelFormatError(f"{where}: unsupported variable kind {VAR_TYPE_NAME.get(t, t)}", path)
    if vd.is_parameter and t == _DENSE:
        v = Parameter(block, name, shape, dtype, trainable=not vd.stop_gradient)
    else:
        v = Variable(block, name, shape, dtype, type=t, persistable=bool(vd.persistable),
                     stop_gradient=bool(vd.stop_gradient), need_check_feed=bool(vd.need_check_feed))
    return v


def desc_to_program(pd, path=None):
    """``(program, feed_names, fetch_names)`` from a parsed ProgramDesc; the program passes ``verify()``."""
    if not pd.IsInitialized():
        missing = ", ".join(pd.FindInitializationErrors()[:5])
        raise ModelFormatError(f"the ProgramDesc lacks required fields ({missing})", path)
    if len(pd.blocks) == 0:
        raise ModelFormatError("the ProgramDesc has no blocks", path)
    program = Program()
    program.blocks = []
    for i, bd in enumerate(pd.blocks):
        if bd.idx != i:
            raise ModelFormatError(f"block {i} says it is block {bd.idx}", path)
        if i > 0 and not 0 <= bd.parent_idx < i:
            raise ModelFormatError(f"block {i} has an invalid parent_idx {bd.parent_idx}", path)
        blk = Block(program, i, bd.parent_idx if i > 0 else -1)
        blk.forward_block_idx = bd.forward_block_idx
        program.blocks.append(blk)
    schema_ops = all_ops()
    feeds, fetches = [], []
    for bd, blk in zip(pd.blocks, program.blocks):
        for vd in bd.vars:
            v = _read_var(vd, blk, path)
            if v.name in blk.vars:
                raise ModelFormatError(f"block {blk.idx}: variable '{v.name}' is declared twice", path)
            if v.type in HOLDER_TYPES:
                continue
            if v.name in (FEED_HOLDER, FETCH_HOLDER):
                raise ModelFormatError(f"block {blk.idx}: variable '{v.name}' must be a feed/fetch holder", path)
            blk.vars[v.name] = v
    for bd, blk in zip(pd.blocks, program.blocks):
        for i, od in enumerate(bd.ops):
            where = f"block {blk.idx}, op {i}"
            if od.type in ("feed", "fetch"):
                if blk.idx != 0:
                    raise ModelFormatError(f"{where}: {od.type} op outside the global block", path)
                feeds_or_fetches = feeds if od.type == "feed" else fetches
                feeds_or_fetches.append(_read_feed_fetch(od, blk, where, path))
                continue
            blk.ops.append(_read_op(od, blk, schema_ops, path, where))
    for blk in program.blocks:
        for op in blk.ops:
            for sid in op.sub_block_ids():
                if not (isinstance(sid, int) and 0 < sid < len(program.blocks)):
                    raise ModelFormatError(f"block {blk.idx}: op '{op.type}' refers to sub-block {sid}, which "
                                           "does not exist", path)
                if program.blocks[sid].parent_idx != blk.idx:
                    raise ModelFormatError(f"block {blk.idx}: op '{op.type}' owns sub-block {sid}, whose parent is "
                                           f"block {program.blocks[sid].parent_idx}", path)
    feed_names = _order(feeds, "feed", path, reverse=True)
    fetch_names = _order(fetches, "fetch", path, reverse=False)
    gb = program.global_block()
    for n in feed_names:
        v = gb.vars[n]
        v.is_data = True
        v.need_check_feed = True
    _mark_free_inputs(program)
    _reconcile_scratch_outputs(program)
    _reconcile_misdeclared_outputs(program)
    program._bump()
    try:
        program.verify()
    except ValueError as e:
        raise ModelFormatError(f"the program is inconsistent: {e}", path) from None
    return program, feed_names, fetch_names


def _reconcile_scratch_outputs(program):
    """Give intermediate outputs nobody reads (batch_norm's SavedMean, XShape ...) the meta our
    infer_meta gives: Paddle records some of them differently (0-D SavedMean in inference files)."""
    read = {n for blk in program.blocks for op in blk.ops for n in op.input_arg_names}
    for blk in program.blocks:
        for op in blk.ops:
            opdef = op.opdef
            if opdef.interpret is not None or not any(s.intermediate for s in opdef.outputs):
                continue
            try:
                metas = []
                for s in opdef.inputs:
                    vs = [blk._var_recursive(n).meta for n in op.inputs.get(s.name, [])]
                    metas.append(vs if s.duplicable else (vs[0] if vs else None))
                res = opdef.infer_meta(*metas, **op.attrs)
            except Exception:   # verify() reports it
                continue
            res = res if len(opdef.outputs) > 1 else (res,)
            for s, m in zip(opdef.outputs, res):
                names = op.outputs.get(s.name, [])
                if not s.intermediate or m is None or isinstance(m, list) or len(names) != 1 or names[0] in read:
                    continue
                v = blk._find_var_recursive(names[0])
                if v is not None and v.type == _DENSE:
                    v._set_meta(m.shape, m.dtype)


def _mark_free_inputs(program):
    """A program with no feed ops (``program.desc.serialize_to_string()``) is fed by ``Executor.run``'s
    ``feed``: its inputs are the global dense variables declared by ``paddle.static.data``
    (``need_check_feed``) and those some op reads but no op writes. Paddle parses and runs such programs, so
    they are data here; a variable read before an op writes it later stays an error (verify reports it)."""
    gb = program.global_block()
    written = {n for blk in program.blocks for op in blk.ops for n in op.output_arg_names}
    read = {n for blk in program.blocks for op in blk.ops for n in op.input_arg_names}
    for v in gb.vars.values():
        if v.type == _DENSE and not v.persistable and (v.need_check_feed or (v.name in read
                                                                            and v.name not in written)):
            v.is_data = True


# Ops whose compile-time InferMeta in Paddle 3.3.1 declares outputs unlike what its kernel produces: Paddle
# re-infers at run time, so its files hold these declarations. viterbi_decode's gives Scores Length's dims and
# dtype (int64, where the kernel writes Input's float dtype) and leaves Path's shape unset ([]).
_MISDECLARED_BY_PADDLE = frozenset({"viterbi_decode"})


def _infer_outputs(blk, op):
    """``[(slot, meta or [metas] or None)]`` from the op's infer_meta over its inputs' declared metas."""
    opdef = op.opdef
    metas = []
    for s in opdef.inputs:
        vs = [blk._var_recursive(n).meta for n in op.inputs.get(s.name, [])]
        metas.append(vs if s.duplicable else (vs[0] if vs else None))
    res = opdef.infer_meta(*metas, **op.attrs)
    return list(zip(opdef.outputs, res if len(opdef.outputs) > 1 else (res,)))


def _reconcile_misdeclared_outputs(program):
    """Give the outputs of `_MISDECLARED_BY_PADDLE` ops the meta our infer_meta gives (the kernel's), then
    carry the change to the ops that read them, whose declarations Paddle derived from the wrong ones
    (a declared meta compatible with the new inference is kept: it may know more dims)."""
    changed = set()
    for blk in program.blocks:
        for op in blk.ops:
            own = op.type in _MISDECLARED_BY_PADDLE
            if op.opdef.interpret is not None or not (own or changed & set(op.input_arg_names)):
                continue
            try:
                res = _infer_outputs(blk, op)
            except Exception:   # verify() reports it
                continue
            for s, m in res:
                for n, mm in zip(op.outputs.get(s.name, []), m if isinstance(m, list) else [m]):
                    v = blk._find_var_recursive(n)
                    if mm is None or v is None or v.type != _DENSE:
                        continue
                    shape = tuple(v.shape)
                    fits = len(shape) == len(mm.shape) and all(a == b or a == -1 or b == -1
                                                               for a, b in zip(shape, mm.shape))
                    if own or not fits or v.dtype.np != np.dtype(mm.dtype):
                        v._set_meta(mm.shape, mm.dtype)
                        changed.add(n)


def _read_feed_fetch(od, blk, where, path):
    is_feed = od.type == "feed"
    slot = "Out" if is_feed else "X"
    names = [list(v.arguments) for v in (od.outputs if is_feed else od.inputs) if v.parameter == slot]
    if len(names) != 1 or len(names[0]) != 1:
        raise ModelFormatError(f"{where}: {od.type} op must have exactly one {slot} variable", path)
    name = _text(names[0][0], f"{where}: {od.type} target", path)
    if name not in blk.vars:
        raise ModelFormatError(f"{where}: {od.type} target '{name}' has no VarDesc in the global block", path)
    if blk.vars[name].type != _DENSE:
        raise ModelFormatError(f"{where}: {od.type} target '{name}' is not a dense tensor", path)
    col = None
    for a in od.attrs:
        if a.name == "col":
            if a.type not in (ATTR_TYPE["INT"], ATTR_TYPE["LONG"]):
                raise ModelFormatError(f"{where}: {od.type} attribute 'col' must be INT", path)
            col = int(a.i if a.type == ATTR_TYPE["INT"] else a.l)
    return name, col


def _order(items, kind, path, reverse):
    """Target names by ``col`` when the cols are 0..n-1; else in op order (feeds reversed, as jit.load does)."""
    names = [n for n, _ in items]
    if len(set(names)) != len(names):
        raise ModelFormatError(f"a variable is the target of two {kind} ops", path)
    cols = [c for _, c in items]
    if all(c is not None for c in cols):
        if sorted(cols) != list(range(len(cols))):
            raise ModelFormatError(f"the {kind} ops' col attributes {sorted(cols)} are not 0..{len(cols) - 1}", path)
        return [n for _, n in sorted(zip(cols, names))]
    return names[::-1] if reverse else names


def parse_program(data, path=None):
    """``(program, feed_names, fetch_names)`` from .pdmodel bytes."""
    pd = ProgramDesc()
    try:
        pd.ParseFromString(bytes(data))
    except Exception as e:
        raise ModelFormatError(f"not a valid ProgramDesc protobuf ({type(e).__name__}: {e})", path) from None
    return desc_to_program(pd, path)
