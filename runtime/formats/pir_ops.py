"""The PIR -> legacy op table for plain ops (control flow: `pir_read`; pd_op.rnn: `pir_rnn`).

Each entry turns one PIR op into our registered (Paddle legacy) ops. Values are translated
lazily: ``pd_op.full`` / ``full_int_array`` / ``assign_value_`` become constants that fold into
attributes where the legacy op takes them (``reduce_mean.dim``, ``reshape2.shape``,
``pool2d.ksize``, ``scale.scale`` ...) and become ``fill_constant`` / ``assign_value`` only
where a tensor is needed; ``builtin.combine`` makes a list that ops with list slots take.
Attribute values are type-checked as they are read (`_Translator.attr`); the program verifier
checks what `_simple` entries pass through against each op's schema.
"""
from __future__ import annotations

import numpy as np

from ..static.program import Parameter, Variable, VarType
from .pir_read import _MAX_CONST, MAPPERS, _Absent, _Const, _Vec, _np_dtype, _proto, maps

__all__ = ["MAPPERS"]

# ===================================================================================================
# the mapping table
# ===================================================================================================

def _simple(pir, legacy, in_slots, out_slots, attr_map=None, fixed=None):
    """Register PIR op ``pir`` as legacy ``legacy``: operands fill ``in_slots`` in order, results
    ``out_slots``; ``attr_map``: PIR attr -> legacy attr (None drops it); ``fixed``: extra legacy attrs."""
    attr_map = attr_map or {}

    def fn(tr, blk, op):
        schema = tr.schema[legacy].attrs
        attrs = dict(fixed or {})
        for k, v in op.attrs.items():
            to = attr_map.get(k, k)
            if to is not None and to in schema:
                attrs[to] = _attr_cast(schema[to][0], v)
        ins = {}
        for i, slot in enumerate(in_slots):
            if i < len(op.operands) and slot is not None:
                n = tr.arg(blk, op, i, optional=True)
                if n is not None:
                    ins[slot] = [n]
        outs = {slot: [tr.result(op, k)] for k, slot in enumerate(out_slots)
                if slot is not None and k < len(op.results)}
        tr.emit(blk, legacy, ins, attrs, outs, op)
    MAPPERS[pir] = fn


def _num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and np.isfinite(x)


def _attr_cast(typ, v):
    """``v`` in the Python type of AttrType ``typ`` when it is a number (list) of another width; anything
    else is returned unchanged, and the program verifier reports the mismatch."""
    if typ in ("INT", "LONG") and _num(v):
        return int(v)
    if typ in ("FLOAT", "FLOAT64") and isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if typ in ("INTS", "LONGS") and isinstance(v, list) and all(_num(x) for x in v):
        return [int(x) for x in v]
    if typ in ("FLOATS", "FLOAT64S") and isinstance(v, list) and all(_num(x) for x in v):
        return [float(x) for x in v]
    return v


for _n in ("relu", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "abs", "sin", "cos", "tan", "floor", "ceil",
           "silu", "softsign", "square", "reciprocal", "erf", "log1p", "log2", "log10", "expm1", "sign", "relu6",
           "sinh", "cosh", "asin", "acos", "atan", "round", "logical_not", "isnan", "isinf", "isfinite"):
    _simple(f"pd_op.{_n}", {"isnan": "isnan_v2", "isinf": "isinf_v2", "isfinite": "isfinite_v2"}.get(_n, _n),
            ["X"], ["Out"])
    _simple(f"pd_op.{_n}_", _n, ["X"], ["Out"])
_simple("pd_op.gelu", "gelu", ["X"], ["Out"])
_simple("pd_op.leaky_relu", "leaky_relu", ["X"], ["Out"], {"negative_slope": "alpha"})
_simple("pd_op.hardswish", "hard_swish", ["X"], ["Out"])
_simple("pd_op.hardsigmoid", "hard_sigmoid", ["X"], ["Out"])
_simple("pd_op.elu", "elu", ["X"], ["Out"])
_simple("pd_op.softplus", "softplus", ["X"], ["Out"])
_simple("pd_op.swish", "swish", ["X"], ["Out"])
for _pir, _leg in (("add", "elementwise_add"), ("subtract", "elementwise_sub"), ("multiply", "elementwise_mul"),
                   ("divide", "elementwise_div"), ("maximum", "elementwise_max"), ("minimum", "elementwise_min"),
                   ("elementwise_pow", "elementwise_pow"), ("floor_divide", "elementwise_floordiv"),
                   ("remainder", "elementwise_mod")):
    _simple(f"pd_op.{_pir}", _leg, ["X", "Y"], ["Out"], fixed={"axis": -1})
    _simple(f"pd_op.{_pir}_", _leg, ["X", "Y"], ["Out"], fixed={"axis": -1})
for _n in ("greater_than", "less_than", "equal", "not_equal", "greater_equal", "less_equal", "logical_and",
           "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"):
    _simple(f"pd_op.{_n}", _n, ["X", "Y"], ["Out"])
_simple("pd_op.bitwise_not", "bitwise_not", ["X"], ["Out"])
_simple("pd_op.matmul", "matmul_v2", ["X", "Y"], ["Out"], {"transpose_x": "trans_x", "transpose_y": "trans_y"})
_simple("pd_op.softmax", "softmax", ["X"], ["Out"])
_simple("pd_op.log_softmax", "log_softmax", ["X"], ["Out"])
_simple("pd_op.flatten", "flatten_contiguous_range", ["X"], ["Out"])
_simple("pd_op.transpose", "transpose2", ["X"], ["Out"], {"perm": "axis"})
_simple("pd_op.conv2d", "conv2d", ["Input", "Filter"], ["Output"])
_simple("pd_op.depthwise_conv2d", "depthwise_conv2d", ["Input", "Filter"], ["Output"])
_simple("pd_op.layer_norm", "layer_norm", ["X", "Scale", "Bias"], ["Y", "Mean", "Variance"])
_simple("pd_op.where", "where", ["Condition", "X", "Y"], ["Out"])
_simple("pd_op.assign", "assign", ["X"], ["Out"])
_simple("pd_op.embedding", "lookup_table_v2", ["Ids", "W"], ["Out"])
_simple("pd_op.pixel_shuffle", "pixel_shuffle", ["X"], ["Out"])
_simple("pd_op.cumsum", "cumsum", ["X"], ["Out"])
_simple("pd_op.index_select", "index_select", ["X", "Index"], ["Out"], {"axis": "dim"})
_simple("pd_op.gather_nd", "gather_nd", ["X", "Index"], ["Out"])
_simple("pd_op.tril", "tril_triu", ["X"], ["Out"], fixed={"lower": True})
_simple("pd_op.triu", "tril_triu", ["X"], ["Out"], fixed={"lower": False})
_simple("pd_op.group_norm", "group_norm", ["X", "Scale", "Bias"], ["Y", "Mean", "Variance"],
        {"data_format": "data_layout"})
_simple("pd_op.instance_norm", "instance_norm", ["X", "Scale", "Bias"], ["Y", "SavedMean", "SavedVariance"])
_simple("pd_op.expand_as", "expand_as_v2", ["X", "Y"], ["Out"])


@maps("pd_op.data", "pd_op.feed")
def _data(tr, blk, op):
    name = op.attrs.get("name")
    if not isinstance(name, str) or not name or name in ("feed", "fetch") or name in tr.taken:
        tr.fail(op.where, f"invalid or duplicate input name {name!r:.80}")
    if blk.idx != 0:
        tr.fail(op.where, "an input (pd_op.data) outside the top-level block")
    tr.taken.add(name)
    typ = op.results[0][1] if op.results else None
    shape = tr.attr(op, "shape", typ.dims if typ else [])
    if any(d < -1 or d > 1 << 40 for d in shape):
        tr.fail(op.where, f"invalid input shape {shape}")
    if typ is None or typ.kind != "dense":
        tr.fail(op.where, "an input must be a dense tensor")
    v = Variable(blk, name, [d if d >= 0 else -1 for d in shape], _np_dtype(typ.dtype, op.where, tr).name,
                 is_data=True, need_check_feed=True, stop_gradient=True)
    blk.vars[name] = v
    tr.bind(op, 0, name)
    tr.feeds.append(name)


@maps("pd_op.fetch")
def _fetch(tr, blk, op):
    if blk.idx != 0:
        tr.fail(op.where, "an output (pd_op.fetch) outside the top-level block")
    src = tr.arg(blk, op, 0)
    col = tr.attr(op, "col", len(tr.fetches))
    v = blk._find_var_recursive(src)
    if v is None:
        tr.fail(op.where, f"fetches '{src}', which is not visible in the top-level block")
    # fetch a copy of an input, a parameter or a value fetched twice (a loaded layer returns its fetch vars)
    if v.is_data or v.persistable or any(src == n for _, n in tr.fetches):
        copy = tr.result(op, 0)
        tr.emit(blk, "assign", {"X": [src]}, {}, {"Out": [copy]}, op)
        src = copy
    tr.fetches.append((col, src))


@maps("builtin.parameter")
def _parameter(tr, blk, op):
    a = op.attrs
    name = a["parameter_name"]
    if name in tr.taken or name in ("feed", "fetch"):
        tr.fail(op.where, f"parameter name '{name:.80}' is used twice")
    typ = op.results[0][1]
    if typ.kind != "dense":
        tr.fail(op.where, "a parameter must be a dense tensor")
    if not a["persistable"]:
        # e.g. LSTM's dropout state: scratch memory that is not in the .pdiparams
        tr.bind(op, 0, _Absent(f"the non-persistable parameter '{name}' has no stored value"))
        return
    if any(d < 0 for d in typ.dims):
        tr.fail(op.where, f"parameter '{name}' has an unknown dimension {typ.dims}")
    tr.taken.add(name)
    gb = tr.program.global_block()
    p = Parameter(gb, name, typ.dims, _np_dtype(typ.dtype, op.where, tr).name, trainable=a["trainable"])
    p.stop_gradient = a["stop_gradient"] or not a["trainable"]
    gb.vars[name] = p
    tr.bind(op, 0, name)


@maps("builtin.combine")
def _combine(tr, blk, op):
    items = []
    for i, vid in enumerate(op.operands):
        v = tr.value(op, i)
        if v is None:
            tr.fail(op.where, f"combines an absent value (operand {i})")
        items.append(v)
    tr.bind(op, 0, _Vec(items))


@maps("builtin.split")
def _split(tr, blk, op):
    v = tr.value(op, 0)
    if not isinstance(v, _Vec) or len(v.items) != len(op.results):
        tr.fail(op.where, "splits something that is not a list of the same length")
    for k, item in enumerate(v.items):
        tr.bind(op, k, item)


@maps("pd_op.full")
def _full(tr, blk, op):
    shape = tr.attr(op, "shape", [])
    if len(shape) > 32 or any(not 0 <= d <= 1 << 40 for d in shape):
        tr.fail(op.where, f"full() of an invalid shape {shape}")
    dt = _np_dtype(tr.attr(op, "dtype", "float32"), op.where, tr)
    value = tr.attr(op, "value", 0.0)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        tr.fail(op.where, f"full() value must be a number, got {value!r:.40}")
    if dt.kind in "iub":
        info = np.iinfo(dt) if dt.kind != "b" else np.iinfo(np.uint8)
        if not (np.isfinite(value) and info.min <= value <= info.max):
            tr.fail(op.where, f"full() value {value} does not fit {dt}")
    tr.bind(op, 0, _Const(dt, shape, fill=value))


@maps("pd_op.full_int_array")
def _full_int_array(tr, blk, op):
    vals = tr.attr(op, "value", [])
    dt = _np_dtype(tr.attr(op, "dtype", "int64"), op.where, tr)
    if not isinstance(vals, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in vals):
        tr.fail(op.where, "full_int_array values must be integers")
    tr.bind(op, 0, _Const(dt, [len(vals)], array=np.array(vals, dtype=np.int64).astype(dt)))


@maps("pd_op.assign_value_", "pd_op.assign_value")
def _assign_value(tr, blk, op):
    shape = tr.attr(op, "shape", [])
    if len(shape) > 32 or any(not 0 <= d <= _MAX_CONST for d in shape):
        tr.fail(op.where, f"assign_value of an invalid shape {shape}")
    dt = _np_dtype(tr.attr(op, "dtype", "float32"), op.where, tr)
    vals = tr.attr(op, "values", [], "numbers")
    if not isinstance(vals, list) or len(vals) != int(np.prod(shape, dtype=np.int64)) or len(vals) > _MAX_CONST:
        tr.fail(op.where, f"assign_value holds {len(vals) if isinstance(vals, list) else '?'} values for shape {shape}")
    try:
        arr = np.array(vals, dtype=np.float64 if dt.kind in "fc" else None).astype(dt).reshape(shape)
    except (TypeError, ValueError, OverflowError):
        tr.fail(op.where, f"assign_value values do not fit {dt}")
    tr.bind(op, 0, _Const(dt, shape, array=arr))


@maps("pd_op.full_like")
def _full_like(tr, blk, op):
    x = tr.arg(blk, op, 0)
    value = tr.const(op, 1)
    if value is None or value.size != 1:
        tr.fail(op.where, "full_like with a computed fill value is not supported")
    dtype = tr.attr(op, "dtype", "Undefined")
    code = -1 if dtype.startswith("Undefined") else _proto(_np_dtype(dtype, op.where, tr))
    tr.emit(blk, "fill_any_like", {"X": [x]}, {"value": float(value.reshape(-1)[0]), "dtype": code},
            {"Out": [tr.result(op)]}, op)


@maps("pd_op.full_with_tensor")
def _full_with_tensor(tr, blk, op):
    value = tr.arg(blk, op, 0)
    shape = tr.value(op, 1)
    dt = _np_dtype(tr.attr(op, "dtype", "float32"), op.where, tr)
    ins = {"ValueTensor": [value]}
    if isinstance(shape, _Vec):
        ins["ShapeTensorList"] = tr.vec(blk, op, 1)
    else:
        ins["ShapeTensor"] = [tr.arg(blk, op, 1)]
    tr.emit(blk, "fill_constant", ins, {"dtype": _proto(dt)}, {"Out": [tr.result(op)]}, op)


@maps("pd_op.cast", "pd_op.cast_")
def _cast(tr, blk, op):
    x = tr.arg(blk, op, 0)
    src = blk._var_recursive(x).dtype
    dt = _np_dtype(tr.attr(op, "dtype", "float32"), op.where, tr)
    tr.emit(blk, "cast", {"X": [x]}, {"in_dtype": src.proto, "out_dtype": _proto(dt)}, {"Out": [tr.result(op)]},
            op)


def _int_list(tr, op, i, what):
    c = tr.const(op, i)
    if c is None:
        return None
    return [int(x) for x in np.asarray(c).reshape(-1)]


@maps("pd_op.scale", "pd_op.scale_")
def _scale(tr, blk, op):
    x = tr.arg(blk, op, 0)
    attrs = {"bias": float(tr.attr(op, "bias", 0.0)), "bias_after_scale": bool(tr.attr(op, "bias_after_scale", True))}
    ins = {"X": [x]}
    c = tr.const(op, 1) if len(op.operands) > 1 else None
    if c is not None and c.size == 1:
        attrs["scale"] = float(c.reshape(-1)[0])
    elif len(op.operands) > 1 and op.operands[1] != 0:
        ins["ScaleTensor"] = [tr.arg(blk, op, 1)]
    else:
        attrs["scale"] = float(tr.attr(op, "scale", 1.0))
    tr.emit(blk, "scale", ins, attrs, {"Out": [tr.result(op)]}, op)


def _reduce(legacy):
    def fn(tr, blk, op):
        x = tr.arg(blk, op, 0)
        axes = _int_list(tr, op, 1, "axis") if len(op.operands) > 1 else tr.attr(op, "axis", [])
        if axes is None:
            tr.fail(op.where, "a reduction over a computed axis is not supported")
        attrs = {"dim": axes, "keep_dim": bool(tr.attr(op, "keepdim", False)), "reduce_all": len(axes) == 0}
        if legacy == "reduce_sum":
            dt = tr.attr(op, "dtype", "Undefined")
            if isinstance(dt, str) and not dt.startswith("Undefined"):
                attrs["out_dtype"] = _proto(_np_dtype(dt, op.where, tr))
        tr.emit(blk, legacy, {"X": [x]}, attrs, {"Out": [tr.result(op)]}, op)
    return fn


for _pir, _leg in (("mean", "reduce_mean"), ("sum", "reduce_sum"), ("max", "reduce_max"), ("min", "reduce_min"),
                   ("prod", "reduce_prod"), ("all", "reduce_all"), ("any", "reduce_any")):
    MAPPERS[f"pd_op.{_pir}"] = _reduce(_leg)


@maps("pd_op.reshape", "pd_op.reshape_")
def _reshape(tr, blk, op):
    x = tr.arg(blk, op, 0)
    shape_v = tr.value(op, 1)
    ins, attrs = {"X": [x]}, {}
    shape = _int_list(tr, op, 1, "shape")
    if shape is not None:
        attrs["shape"] = shape
    elif isinstance(shape_v, _Vec):
        ins["ShapeTensor"] = tr.vec(blk, op, 1)
    else:
        ins["Shape"] = [tr.arg(blk, op, 1)]
    tr.emit(blk, "reshape2", ins, attrs, {"Out": [tr.result(op)]}, op)


@maps("pd_op.pool2d")
def _pool2d(tr, blk, op):
    x = tr.arg(blk, op, 0)
    ksize = _int_list(tr, op, 1, "kernel_size")
    if ksize is None:
        tr.fail(op.where, "pool2d with a computed kernel size is not supported")
    schema = tr.schema["pool2d"].attrs
    attrs = {k: _attr_cast(schema[k][0], v) for k, v in op.attrs.items() if k in schema}
    attrs["ksize"] = ksize
    tr.emit(blk, "pool2d", {"X": [x]}, attrs, {"Out": [tr.result(op)]}, op)


@maps("pd_op.batch_norm", "pd_op.batch_norm_")
def _batch_norm(tr, blk, op):
    x, mean, var = (tr.arg(blk, op, i) for i in range(3))
    scale, bias = tr.arg(blk, op, 3, optional=True), tr.arg(blk, op, 4, optional=True)
    schema = tr.schema["batch_norm"].attrs
    attrs = {("data_layout" if k == "data_format" else k): v for k, v in op.attrs.items()}
    attrs = {k: _attr_cast(schema[k][0], v) for k, v in attrs.items() if k in schema}
    outs = {"Y": [tr.result(op, 0)], "MeanOut": [mean], "VarianceOut": [var]}
    # the running statistics are updated in place (legacy semantics): results 1, 2 are the stat variables
    tr.bind(op, 1, mean)
    tr.bind(op, 2, var)
    tr.emit(blk, "batch_norm", {"X": [x], "Mean": [mean], "Variance": [var], "Scale": [scale] if scale else [],
                                "Bias": [bias] if bias else []}, attrs, outs, op)


@maps("pd_op.shape", "pd_op.shape64")
def _shape(tr, blk, op):
    x = tr.arg(blk, op, 0)
    if op.name == "pd_op.shape":
        tr.emit(blk, "shape", {"Input": [x]}, {}, {"Out": [tr.result(op)]}, op)
        return
    tmp = tr.scratch(f"shape_{x}")
    tr.emit(blk, "shape", {"Input": [x]}, {}, {"Out": [tmp]}, op)
    tr.emit(blk, "cast", {"X": [tmp]}, {"in_dtype": 2, "out_dtype": 3}, {"Out": [tr.result(op)]}, op)


@maps("pd_op.slice")
def _slice(tr, blk, op):
    x = tr.arg(blk, op, 0)
    ins = {"Input": [x]}
    attrs = {k: tr.attr(op, k, []) for k in ("axes", "infer_flags", "decrease_axis")}
    for i, (attr, tslot, lslot) in ((1, ("starts", "StartsTensor", "StartsTensorList")),
                                    (2, ("ends", "EndsTensor", "EndsTensorList"))):
        vals = _int_list(tr, op, i, attr)
        if vals is not None:
            attrs[attr] = vals
        elif isinstance(tr.value(op, i), _Vec):
            ins[lslot] = tr.vec(blk, op, i)
        else:
            ins[tslot] = [tr.arg(blk, op, i)]
    tr.emit(blk, "slice", ins, attrs, {"Out": [tr.result(op)]}, op)


@maps("pd_op.stack")
def _stack(tr, blk, op):
    tr.emit(blk, "stack", {"X": tr.vec(blk, op, 0)}, {"axis": int(tr.attr(op, "axis", 0))},
            {"Y": [tr.result(op)]}, op)


@maps("pd_op.concat")
def _concat(tr, blk, op):
    axis = _int_list(tr, op, 1, "axis")
    if axis is None or len(axis) != 1:
        tr.fail(op.where, "concat along a computed axis is not supported")
    tr.emit(blk, "concat", {"X": tr.vec(blk, op, 0)}, {"axis": axis[0]}, {"Out": [tr.result(op)]}, op)


@maps("pd_op.split", "pd_op.split_with_num")
def _split_op(tr, blk, op):
    x = tr.arg(blk, op, 0)
    typ = op.results[0][1]
    if typ.kind != "vec":
        tr.fail(op.where, "split must produce a list")
    if op.name == "pd_op.split":
        sections = _int_list(tr, op, 1, "sections")
        axis = _int_list(tr, op, 2, "axis")
        attrs = {"sections": sections, "num": 0}
    else:
        axis = _int_list(tr, op, 1, "axis")
        attrs = {"num": int(tr.attr(op, "num", len(typ.elems))), "sections": []}
    if axis is None or len(axis) != 1 or attrs["sections"] is None:
        tr.fail(op.where, "split with a computed axis or sections is not supported")
    attrs["axis"] = axis[0]
    names = [tr.fresh(f"split_{op.results[0][0]}.tmp_{k}") for k in range(len(typ.elems))]
    for n, t in zip(names, typ.elems):
        tr.types[n] = t
    tr.emit(blk, "split", {"X": [x]}, attrs, {"Out": names}, op)
    tr.bind(op, 0, _Vec(names))


@maps("pd_op.unstack")
def _unstack(tr, blk, op):
    x = tr.arg(blk, op, 0)
    typ = op.results[0][1] if op.results else None
    if typ is None or typ.kind != "vec":
        tr.fail(op.where, "unstack must produce a list")
    names = [tr.fresh(f"unstack_{op.results[0][0]}.tmp_{k}") for k in range(len(typ.elems))]
    for n, t in zip(names, typ.elems):
        tr.types[n] = t
    tr.emit(blk, "unstack", {"X": [x]}, {"axis": tr.attr(op, "axis", 0), "num": len(names)}, {"Y": names}, op)
    tr.bind(op, 0, _Vec(names))


# -- tensor arrays: one LOD_TENSOR_ARRAY variable per create_array, written in place ---------------------

@maps("pd_op.create_array")
def _create_array(tr, blk, op):
    typ = op.results[0][1] if op.results else None
    if typ is None or typ.kind != "array":
        tr.fail(op.where, "create_array must produce a tensor array")
    name = tr.result(op, 0, base=f"array_{op.results[0][0]}")
    tr.declare(blk, name, None, op, type_=VarType.LOD_TENSOR_ARRAY)


def _array(tr, blk, op, i):
    name = tr.arg(blk, op, i)
    if blk._var_recursive(name).type != VarType.LOD_TENSOR_ARRAY:
        tr.fail(op.where, f"operand {i} must be a tensor array")
    return name


@maps("pd_op.array_write_")
def _array_write(tr, blk, op):
    arr = _array(tr, blk, op, 0)
    tr.emit(blk, "write_to_array", {"X": [tr.arg(blk, op, 1)], "I": [tr.arg(blk, op, 2)]}, {}, {"Out": [arr]}, op)
    tr.bind(op, 0, arr)      # the result is the same array, written in place


@maps("pd_op.array_read")
def _array_read(tr, blk, op):
    arr = _array(tr, blk, op, 0)
    tr.emit(blk, "read_from_array", {"X": [arr], "I": [tr.arg(blk, op, 1)]}, {}, {"Out": [tr.result(op)]}, op)


@maps("pd_op.array_length")
def _array_length(tr, blk, op):
    tr.emit(blk, "lod_array_length", {"X": [_array(tr, blk, op, 0)]}, {}, {"Out": [tr.result(op)]}, op)


@maps("pd_op.array_to_tensor")
def _array_to_tensor(tr, blk, op):
    outs = {"Out": [tr.result(op, 0)]}
    if len(op.results) > 1:
        outs["OutIndex"] = [tr.result(op, 1)]
    tr.emit(blk, "tensor_array_to_tensor", {"X": [_array(tr, blk, op, 0)]},
            {"axis": tr.attr(op, "axis", 0), "use_stack": tr.attr(op, "use_stack", False)}, outs, op)


@maps("pd_op.unsqueeze", "pd_op.unsqueeze_", "pd_op.squeeze", "pd_op.squeeze_")
def _squeeze(tr, blk, op):
    x = tr.arg(blk, op, 0)
    axes = _int_list(tr, op, 1, "axis")
    if axes is None:
        tr.fail(op.where, "(un)squeeze over computed axes is not supported")
    legacy = "unsqueeze2" if "unsqueeze" in op.name else "squeeze2"
    tr.emit(blk, legacy, {"X": [x]}, {"axes": axes}, {"Out": [tr.result(op)]}, op)


@maps("pd_op.expand")
def _expand(tr, blk, op):
    x = tr.arg(blk, op, 0)
    shape = _int_list(tr, op, 1, "shape")
    ins, attrs = {"X": [x]}, {}
    if shape is not None:
        attrs["shape"] = shape
    elif isinstance(tr.value(op, 1), _Vec):
        ins["expand_shapes_tensor"] = tr.vec(blk, op, 1)
    else:
        ins["Shape"] = [tr.arg(blk, op, 1)]
    tr.emit(blk, "expand_v2", ins, attrs, {"Out": [tr.result(op)]}, op)


@maps("pd_op.tile")
def _tile(tr, blk, op):
    x = tr.arg(blk, op, 0)
    reps = _int_list(tr, op, 1, "repeat_times")
    if reps is None:
        tr.fail(op.where, "tile with computed repeat times is not supported")
    tr.emit(blk, "tile", {"X": [x]}, {"repeat_times": reps}, {"Out": [tr.result(op)]}, op)


@maps("pd_op.gather")
def _gather(tr, blk, op):
    x, idx = tr.arg(blk, op, 0), tr.arg(blk, op, 1)
    axis = _int_list(tr, op, 2, "axis") if len(op.operands) > 2 else [0]
    if axis is None:
        tr.fail(op.where, "gather along a computed axis is not supported")
    tr.emit(blk, "gather", {"X": [x], "Index": [idx]}, {"axis": axis[0]}, {"Out": [tr.result(op)]}, op)


@maps("pd_op.clip", "pd_op.clip_")
def _clip(tr, blk, op):
    x = tr.arg(blk, op, 0)
    attrs = {}
    for i, k in ((1, "min"), (2, "max")):
        c = tr.const(op, i)
        if c is None:
            tr.fail(op.where, f"clip with a computed {k} is not supported")
        attrs[k] = float(c.reshape(-1)[0])
    tr.emit(blk, "clip", {"X": [x]}, attrs, {"Out": [tr.result(op)]}, op)


@maps("pd_op.pow")
def _pow(tr, blk, op):
    tr.emit(blk, "pow", {"X": [tr.arg(blk, op, 0)]}, {"factor": float(tr.attr(op, "y", 1.0))},
            {"Out": [tr.result(op)]}, op)


@maps("pd_op.dropout")
def _dropout(tr, blk, op):
    x = tr.arg(blk, op, 0)
    p = tr.const(op, 2) if len(op.operands) > 2 else None
    prob = float(p.reshape(-1)[0]) if p is not None else float(tr.attr(op, "p", 0.5))
    tr.emit(blk, "dropout", {"X": [x]}, {"dropout_prob": prob, "is_test": bool(tr.attr(op, "is_test", True)),
                                         "dropout_implementation": tr.attr(op, "mode", "upscale_in_train")},
            {"Out": [tr.result(op)]}, op)


@maps("pd_op.arange")
def _arange(tr, blk, op):
    names = [tr.arg(blk, op, i) for i in range(3)]
    dt = _np_dtype(tr.attr(op, "dtype", "int64"), op.where, tr)
    cast = []
    for n in names:   # range takes Start/End/Step of the output dtype
        if blk._var_recursive(n).dtype.np != dt:
            c = tr.scratch(f"{n}.cast")
            tr.emit(blk, "cast", {"X": [n]}, {"in_dtype": blk._var_recursive(n).dtype.proto, "out_dtype": _proto(dt)},
                    {"Out": [c]}, op)
            n = c
        cast.append(n)
    tr.emit(blk, "range", {"Start": [cast[0]], "End": [cast[1]], "Step": [cast[2]]}, {}, {"Out": [tr.result(op)]}, op)


# -- rnn (LSTM / GRU / simple RNN), unrolled over a known sequence length ---------------------------------

@maps("pd_op.rnn")
def _rnn(tr, blk, op):
    from .pir_rnn import lower_rnn
    lower_rnn(tr, blk, op)


# -- activations and ops found by the layer sweep (tests/interop/test_pir_layer_sweep.py) -------------
_simple("pd_op.selu", "selu", ["X"], ["Out"])
_simple("pd_op.celu", "celu", ["X"], ["Out"])
_simple("pd_op.hardshrink", "hard_shrink", ["X"], ["Out"])
_simple("pd_op.softshrink", "softshrink", ["X"], ["Out"], {"threshold": "lambda"})
_simple("pd_op.tanh_shrink", "tanh_shrink", ["X"], ["Out"])
_simple("pd_op.mish", "mish", ["X"], ["Out"], {"lambda": "threshold"})
_simple("pd_op.logsigmoid", "logsigmoid", ["X"], ["Out"])
_simple("pd_op.thresholded_relu", "thresholded_relu", ["X"], ["Out"])
_simple("pd_op.hardtanh", "brelu", ["X"], ["Out"])
_simple("pd_op.prelu", "prelu", ["X", "Alpha"], ["Out"])
_simple("pd_op.maxout", "maxout", ["X"], ["Out"])
_simple("pd_op.bmm", "bmm", ["X", "Y"], ["Out"])
_simple("pd_op.flip", "flip", ["X"], ["Out"])
_simple("pd_op.p_norm", "p_norm", ["X"], ["Out"])
_simple("pd_op.mean_all", "mean", ["X"], ["Out"])
_simple("pd_op.max_pool2d_with_index", "max_pool2d_with_index", ["X"], ["Out", "Mask"], {"kernel_size": "ksize"})


@maps("pd_op.argmax", "pd_op.argmin")
def _arg_extreme(tr, blk, op):
    x = tr.arg(blk, op, 0)
    axis = _int_list(tr, op, 1, "axis") if len(op.operands) > 1 else None
    if axis is None or len(axis) != 1:
        tr.fail(op.where, f"{op.name} over a computed (non-constant) axis is not supported")
    dt = _np_dtype(tr.attr(op, "dtype", "int64"), op.where, tr)
    attrs = {"axis": axis[0], "keepdims": bool(tr.attr(op, "keepdims", False)),
             "flatten": bool(tr.attr(op, "flatten", False)), "dtype": _proto(dt)}
    tr.emit(blk, "arg_max" if op.name.endswith("argmax") else "arg_min", {"X": [x]}, attrs,
            {"Out": [tr.result(op)]}, op)


@maps("pd_op.pad3d")
def _pad3d(tr, blk, op):
    x = tr.arg(blk, op, 0)
    ins, attrs = {"X": [x]}, {"mode": tr.attr(op, "mode", "constant"), "value": float(tr.attr(op, "pad_value", 0.0)),
                              "data_format": tr.attr(op, "data_format", "NCDHW")}
    pads = _int_list(tr, op, 1, "paddings")
    if pads is not None:
        attrs["paddings"] = pads
    else:
        attrs["paddings"] = [0] * 6
        ins["Paddings"] = [tr.arg(blk, op, 1)]
    tr.emit(blk, "pad3d", ins, attrs, {"Out": [tr.result(op)]}, op)


@maps("pd_op.conv2d_transpose", "pd_op.depthwise_conv2d_transpose")
def _conv2d_transpose(tr, blk, op):
    legacy = op.name.split(".")[-1]
    x, w = tr.arg(blk, op, 0), tr.arg(blk, op, 1)
    schema = tr.schema[legacy].attrs
    attrs = {k: _attr_cast(schema[k][0], v) for k, v in op.attrs.items() if k in schema}
    if len(op.operands) > 2 and op.operands[2] != 0:
        size = _int_list(tr, op, 2, "output_size")
        if size is None:
            tr.fail(op.where, f"{op.name} with a computed output_size is not supported")
        attrs["output_size"] = size
    tr.emit(blk, legacy, {"Input": [x], "Filter": [w]}, attrs, {"Output": [tr.result(op)]}, op)


def _interp(legacy):
    def fn(tr, blk, op):
        ins = {"X": [tr.arg(blk, op, 0)]}
        for i, slot in ((1, "OutSize"), (3, "Scale")):
            if i < len(op.operands) and op.operands[i] != 0:
                ins[slot] = [tr.arg(blk, op, i)]
        if len(op.operands) > 2 and op.operands[2] != 0:
            ins["SizeTensor"] = tr.vec(blk, op, 2)
        schema = tr.schema[legacy].attrs
        attrs = {}
        for k, v in op.attrs.items():
            k = "data_layout" if k == "data_format" else k
            if k in schema:
                attrs[k] = _attr_cast(schema[k][0], v)
        tr.emit(blk, legacy, ins, attrs, {"Out": [tr.result(op)]}, op)
    return fn


for _mode in ("nearest", "linear", "bilinear", "bicubic", "trilinear"):
    MAPPERS[f"pd_op.{_mode}_interp"] = _interp(f"{_mode}_interp_v2")
_simple("pd_op.huber_loss", "huber_loss", ["X", "Y"], ["Out", "Residual"])
_simple("pd_op.cross_entropy_with_softmax", "softmax_with_cross_entropy", ["Logits", "Label"], ["Softmax", "Loss"])
_simple("pd_op.cross_entropy_with_softmax_", "softmax_with_cross_entropy", ["Logits", "Label"], ["Softmax", "Loss"])


@maps("pd_op.topk")
def _topk(tr, blk, op):
    x = tr.arg(blk, op, 0)
    ins = {"X": [x]}
    attrs = {"axis": int(tr.attr(op, "axis", -1)), "largest": bool(tr.attr(op, "largest", True)),
             "sorted": bool(tr.attr(op, "sorted", True))}
    k = tr.const(op, 1) if len(op.operands) > 1 else None
    if k is not None and k.size == 1:
        attrs["k"] = int(k.reshape(-1)[0])
    elif len(op.operands) > 1 and op.operands[1] != 0:
        ins["K"] = [tr.arg(blk, op, 1)]
    else:
        attrs["k"] = int(tr.attr(op, "k", 1))
    tr.emit(blk, "top_k_v2", ins, attrs, {"Out": [tr.result(op, 0)], "Indices": [tr.result(op, 1)]}, op)


# -- ops found by loading real Paddle 3.3.1 PIR files of the model zoo (tests/interop/test_zoo.py) ----------
_simple("pd_op.scatter", "scatter", ["X", "Ids", "Updates"], ["Out"])
_simple("pd_op.scatter_", "scatter", ["X", "Ids", "Updates"], ["Out"])
_simple("pd_op.nll_loss", "nll_loss", ["X", "Label", "Weight"], ["Out", "Total_weight"])
_simple("pd_op.take_along_axis", "take_along_axis", ["Input", "Index"], ["Result"], {"axis": "Axis"})
_simple("pd_op.numel", "size", ["Input"], ["Out"])
MAPPERS["pd_op.unbind"] = _unstack        # unbind(x, axis) is unstack with num = the dim's size


@maps("pd_op.one_hot")
def _one_hot(tr, blk, op):
    ins = {"X": [tr.arg(blk, op, 0)]}
    depth = tr.const(op, 1)
    attrs = {"allow_out_of_range": False}
    if depth is not None and depth.size == 1:
        attrs["depth"] = int(depth.reshape(-1)[0])
    else:
        ins["depth_tensor"] = [tr.arg(blk, op, 1)]
    tr.emit(blk, "one_hot_v2", ins, attrs, {"Out": [tr.result(op)]}, op)


@maps("pd_op.masked_fill", "pd_op.masked_fill_")
def _masked_fill(tr, blk, op):
    # masked_fill(x, mask, value) = where(mask, value, x), value broadcast as Paddle does
    x, mask, value = (tr.arg(blk, op, i) for i in range(3))
    tr.emit(blk, "where", {"Condition": [mask], "X": [value], "Y": [x]}, {}, {"Out": [tr.result(op)]}, op)
_simple("pd_op.logsumexp", "logsumexp", ["X"], ["Out"])
_simple("pd_op.sigmoid_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits", ["X", "Label", "pos_weight"],
        ["Out"])
_simple("pd_op.label_smooth", "label_smooth", ["X", "PriorDist"], ["Out"])
_simple("pd_op.kldiv_loss", "kldiv_loss", ["X", "Target"], ["Loss"])
# amax/amin: the same forward as max/min, and our reduce_max/min gradient already splits ties evenly, as
# Paddle's amax does (paddle.amax builds reduce_max here too)
MAPPERS["pd_op.amax"] = _reduce("reduce_max")
MAPPERS["pd_op.amin"] = _reduce("reduce_min")
_simple("pd_op.cumprod", "cumprod", ["X"], ["Out"])


@maps("pd_op.index_put", "pd_op.index_put_")
def _index_put(tr, blk, op):
    x, value = tr.arg(blk, op, 0), tr.arg(blk, op, 2)
    tr.emit(blk, "index_put", {"x": [x], "indices": tr.vec(blk, op, 1), "value": [value]},
            {"accumulate": bool(tr.attr(op, "accumulate", False))}, {"out": [tr.result(op)]}, op)


@maps("pd_op.set_value_with_tensor", "pd_op.set_value_with_tensor_", "pd_op.set_value", "pd_op.set_value_")
def _set_value(tr, blk, op):
    with_tensor = "with_tensor" in op.name
    x = tr.arg(blk, op, 0)
    first = 2 if with_tensor else 1          # starts, ends, steps follow x (and the value tensor)
    ins = {"Input": [x]}
    attrs = {"axes": tr.attr(op, "axes", []), "decrease_axes": tr.attr(op, "decrease_axes", []),
             "none_axes": tr.attr(op, "none_axes", [])}
    for k, (key, slot) in enumerate((("starts", "StartsTensorList"), ("ends", "EndsTensorList"),
                                     ("steps", "StepsTensorList"))):
        vals = _int_list(tr, op, first + k, key)
        if vals is not None:
            attrs[key] = vals
        elif isinstance(tr.value(op, first + k), _Vec):
            ins[slot] = tr.vec(blk, op, first + k)
        else:
            tr.fail(op.where, f"{op.name} with a computed {key} tensor is not supported")
    attrs["dtype"] = _proto(blk._var_recursive(x).dtype.np)
    if with_tensor:
        ins["ValueTensor"] = [tr.arg(blk, op, 1)]
    else:
        attrs["values"] = tr.attr(op, "values", [], kind="numbers")
        attrs["shape"] = tr.attr(op, "shape", [])
    tr.emit(blk, "set_value", ins, attrs, {"Out": [tr.result(op)]}, op)
_simple("pd_op.argsort", "argsort", ["X"], ["Out", "Indices"])


@maps("pd_op.strided_slice")
def _strided_slice(tr, blk, op):
    ins, attrs = {"Input": [tr.arg(blk, op, 0)]}, {"axes": tr.attr(op, "axes", []), "infer_flags": [],
                                                    "decrease_axis": []}
    for k, (key, slot) in enumerate((("starts", "StartsTensor"), ("ends", "EndsTensor"), ("strides", "StridesTensor"))):
        vals = _int_list(tr, op, 1 + k, key)
        if vals is not None:
            attrs[key] = vals
        elif isinstance(tr.value(op, 1 + k), _Vec):
            ins[slot + "List"] = tr.vec(blk, op, 1 + k)
        else:
            ins[slot] = [tr.arg(blk, op, 1 + k)]
    attrs["infer_flags"] = [1] * len(attrs["axes"])
    tr.emit(blk, "strided_slice", ins, attrs, {"Out": [tr.result(op)]}, op)
_simple("pd_op.conv3d", "conv3d", ["Input", "Filter"], ["Output"])
_simple("pd_op.max_pool3d_with_index", "max_pool3d_with_index", ["X"], ["Out", "Mask"], {"kernel_size": "ksize"})
MAPPERS["pd_op.conv3d_transpose"] = _conv2d_transpose      # same operands (input, filter, output_size)


@maps("pd_op.pool3d")
def _pool3d(tr, blk, op):
    x = tr.arg(blk, op, 0)
    schema = tr.schema["pool3d"].attrs
    attrs = {k: _attr_cast(schema[k][0], v) for k, v in op.attrs.items() if k in schema}
    ksize = _int_list(tr, op, 1, "kernel_size") if len(op.operands) > 1 else tr.attr(op, "kernel_size", [])
    if not ksize:
        tr.fail(op.where, "pool3d without a constant kernel size is not supported")
    attrs["ksize"] = ksize
    tr.emit(blk, "pool3d", {"X": [x]}, attrs, {"Out": [tr.result(op)]}, op)
_simple("pd_op.bilinear", "bilinear_tensor_product", ["X", "Y", "Weight", "Bias"], ["Out"])
_simple("pd_op.channel_shuffle", "channel_shuffle", ["X"], ["Out"])
_simple("pd_op.pixel_unshuffle", "pixel_unshuffle", ["X"], ["Out"])
_simple("pd_op.grid_sample", "grid_sampler", ["X", "Grid"], ["Output"])
_simple("pd_op.lp_pool2d", "lp_pool2d", ["x"], ["out"])
_simple("pd_op.rrelu", "rrelu", ["X"], ["Out", "Noise"])
_simple("pd_op.unfold", "unfold", ["X"], ["Y"])
_simple("pd_op.fold", "fold", ["X"], ["Y"])


from . import pir_ops_extra  # noqa: E402,F401  (the ops added later: both directions, one table)
