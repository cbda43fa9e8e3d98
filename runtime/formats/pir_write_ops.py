"""PIR writers of plain legacy ops (the table `pir_write.WRITERS`; control flow is in `pir_write`).

Each writer reads its inputs' current PIR values, emits the ``pd_op`` Paddle 3.3.1 writes for
that computation (operands, attribute kinds and result types as in real files: see
tests/fixtures/paddle-3.3.1-pir), and binds the outputs. Attributes that PIR takes as tensors
(a reduction's axes, reshape's shape, scale's factor, concat's axis ...) become ``full`` /
``full_int_array`` values, as Paddle's own programs hold them.
"""
from __future__ import annotations

import numpy as np

from .pir_write import (_UNDEF_PLACE, WRITERS, _in, _out, _scalar_attr, _t_array, _t_dense, _t_vec, a_array, a_bool,
                        a_dtype, a_f32, a_f64, a_i32, a_i64, a_intarray, a_ints32, a_ints64, a_place, a_str, writes)

__all__ = []


def _simple_out(w, op, pir, in_slots, out_slot, attrs=(), where=""):
    operands = [_in(w, op, s, where) for s in in_slots]
    vid = w.emit(pir, operands, [w.out_meta(op.outputs[out_slot][0])], attrs)[0]
    _out(w, op, out_slot, vid)
    return vid


_UNARY = {"relu": "relu", "sigmoid": "sigmoid", "tanh": "tanh", "exp": "exp", "log": "log", "sqrt": "sqrt",
          "rsqrt": "rsqrt", "abs": "abs", "sin": "sin", "cos": "cos", "floor": "floor", "ceil": "ceil",
          "silu": "silu", "square": "square", "reciprocal": "reciprocal", "erf": "erf", "log1p": "log1p",
          "sign": "sign", "logical_not": "logical_not", "hard_swish": "hardswish", "relu6": "relu6",
          "assign": "assign", "softsign": "softsign", "isnan_v2": "isnan", "isinf_v2": "isinf",
          "isfinite_v2": "isfinite", "bitwise_not": "bitwise_not", "round": "round"}
for _leg, _pir in _UNARY.items():
    WRITERS[_leg] = (lambda pir: lambda w, op, where: _simple_out(w, op, f"pd_op.{pir}", ["X"], "Out",
                                                                   where=where))(_pir)

_BINARY = {"elementwise_add": "add", "elementwise_sub": "subtract", "elementwise_mul": "multiply",
           "elementwise_div": "divide", "elementwise_max": "maximum", "elementwise_min": "minimum",
           "elementwise_pow": "elementwise_pow", "elementwise_floordiv": "floor_divide",
           "elementwise_mod": "remainder"}


def _binary(pir):
    def fn(w, op, where):
        x, y = _in(w, op, "X", where), _in(w, op, "Y", where)
        axis = op.attrs.get("axis", -1)
        xr, yr = len(w.types[x][1]), len(w.types[y][1])
        if axis not in (-1, None) and 0 < yr < xr and axis != xr - yr:
            # legacy broadcasting aligns Y at ``axis``: reshape it to numpy broadcasting
            ydims = w.types[y][1]
            shape = [1] * axis + list(ydims) + [1] * (xr - axis - yr)
            y = w.emit("pd_op.reshape", [y, w.int_array(shape)], [(w.types[y][0], shape)])[0]
        vid = w.emit(f"pd_op.{pir}", [x, y], [w.out_meta(op.outputs["Out"][0])])[0]
        _out(w, op, "Out", vid)
    return fn


for _leg, _pir in _BINARY.items():
    WRITERS[_leg] = _binary(_pir)
for _n in ("greater_than", "less_than", "equal", "not_equal", "greater_equal", "less_equal", "logical_and",
           "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"):
    WRITERS[_n] = (lambda n: lambda w, op, where: _simple_out(w, op, f"pd_op.{n}", ["X", "Y"], "Out",
                                                               where=where))(_n)


@writes("where")
def _w_where(w, op, where):
    _simple_out(w, op, "pd_op.where", ["Condition", "X", "Y"], "Out", where=where)


@writes("matmul_v2")
def _w_matmul(w, op, where):
    _simple_out(w, op, "pd_op.matmul", ["X", "Y"], "Out",
                [("transpose_x", a_bool(op.attrs["trans_x"])), ("transpose_y", a_bool(op.attrs["trans_y"]))], where)


@writes("mul")
def _w_mul(w, op, where):
    x, y = _in(w, op, "X", where), _in(w, op, "Y", where)
    xr, yr = len(w.types[x][1]), len(w.types[y][1])
    if yr != 2 or op.attrs.get("y_num_col_dims", 1) != 1 or op.attrs.get("x_num_col_dims", 1) != xr - 1:
        raise ValueError(f"{where}: mul with x_num_col_dims={op.attrs.get('x_num_col_dims')} on a rank-{xr} input "
                         "has no PIR lowering")
    # flattening X to 2-D at x_num_col_dims = rank-1 is what matmul's batching does
    _out(w, op, "Out", w.emit("pd_op.matmul", [x, y], [w.out_meta(op.outputs["Out"][0])],
                              [("transpose_x", a_bool(False)), ("transpose_y", a_bool(False))])[0])


@writes("gelu")
def _w_gelu(w, op, where):
    _simple_out(w, op, "pd_op.gelu", ["X"], "Out", [("approximate", a_bool(op.attrs.get("approximate", False)))],
                where)


@writes("leaky_relu")
def _w_leaky(w, op, where):
    _simple_out(w, op, "pd_op.leaky_relu", ["X"], "Out", [("negative_slope", a_f64(op.attrs["alpha"]))], where)


@writes("softmax", "log_softmax")
def _w_softmax(w, op, where):
    _simple_out(w, op, f"pd_op.{op.type}", ["X"], "Out", [("axis", a_i32(op.attrs["axis"]))], where)


@writes("scale")
def _w_scale(w, op, where):
    x = _in(w, op, "X", where)
    s = _in(w, op, "ScaleTensor", where, optional=True)
    if s is None:
        s = w.full([1], op.attrs["scale"], np.float32)
    if op.inputs.get("BiasTensor"):
        raise ValueError(f"{where}: scale with a BiasTensor has no PIR lowering")
    vid = w.emit("pd_op.scale", [x, s], [w.out_meta(op.outputs["Out"][0])],
                 [("bias", a_f32(op.attrs["bias"])), ("bias_after_scale", a_bool(op.attrs["bias_after_scale"]))])[0]
    _out(w, op, "Out", vid)


@writes("fill_constant")
def _w_fill_constant(w, op, where):
    dtype, dims = w.out_meta(op.outputs["Out"][0])
    if any(op.inputs.get(s) for s in ("ValueTensor", "ShapeTensor", "ShapeTensorList")):
        value = _in(w, op, "ValueTensor", where, optional=True)
        if value is None:
            value = w.full([1], op.attrs["value"], dtype)
        if op.inputs.get("ShapeTensor"):
            shape = _in(w, op, "ShapeTensor", where)
        elif op.inputs.get("ShapeTensorList"):
            shape = _int_vector(w, [w.get(n, where) for n in op.inputs["ShapeTensorList"]])
        else:
            shape = w.int_array(op.attrs["shape"])
        vid = w.emit("pd_op.full_with_tensor", [value, shape], [(dtype, dims)], [("dtype", a_dtype(dtype))])[0]
        _out(w, op, "Out", vid)
        return
    value = op.attrs["value"]
    if op.attrs.get("str_value"):
        try:
            value = float(op.attrs["str_value"])
        except ValueError:
            pass
    _out(w, op, "Out", w.full(list(op.attrs["shape"]), value, dtype))


@writes("assign_value")
def _w_assign_value(w, op, where):
    dtype, _ = w.out_meta(op.outputs["Out"][0])
    shape = list(op.attrs["shape"])
    buf = w.full(shape, 0, dtype, _UNDEF_PLACE)
    vid = w.emit("pd_op.assign_value_", [buf], [(dtype, shape)],
                 [("shape", a_ints32(shape)), ("dtype", a_dtype(dtype)),
                  ("values", a_array(_scalar_attr(v, dtype) for v in op.attrs["values"])),
                  ("place", a_place(_UNDEF_PLACE))])[0]
    _out(w, op, "Out", vid)


@writes("cast")
def _w_cast(w, op, where):
    dtype, _ = w.out_meta(op.outputs["Out"][0])
    _simple_out(w, op, "pd_op.cast", ["X"], "Out", [("dtype", a_dtype(dtype))], where)


def _reduce(pir):
    def fn(w, op, where):
        x = _in(w, op, "X", where)
        axes = [] if op.attrs.get("reduce_all") else list(op.attrs.get("dim", []))
        attrs = [("keepdim", a_bool(op.attrs.get("keep_dim", False)))]
        if pir == "sum":
            out_dt = op.attrs.get("out_dtype", -1)
            attrs.insert(0, ("dtype", a_dtype(w.out_meta(op.outputs["Out"][0])[0] if out_dt not in (-1, None)
                                              else None)))
        vid = w.emit(f"pd_op.{pir}", [x, w.int_array(axes)], [w.out_meta(op.outputs["Out"][0])], attrs)[0]
        _out(w, op, "Out", vid)
    return fn


for _leg, _pir in (("reduce_mean", "mean"), ("reduce_sum", "sum"), ("reduce_max", "max"), ("reduce_min", "min")):
    WRITERS[_leg] = _reduce(_pir)


def _int_vector(w, parts):
    """One 1-D int64 tensor from one-element int tensors (0-D or [1]), e.g. a legacy ShapeTensor list."""
    flat = []
    for p in parts:
        dt, dims = w.types[p]
        if dims != [1]:
            p = w.emit("pd_op.reshape", [p, w.int_array([1])], [(dt, [1])])[0]
        if dt != np.int64:
            p = w.emit("pd_op.cast", [p], [(np.int64, [1])], [("dtype", a_dtype(np.int64))])[0]
        flat.append(p)
    axis = w.full([1], 0, np.int32)
    return w.emit("pd_op.concat", [w.combine(flat), axis], [(np.int64, [len(flat)])])[0]


@writes("reshape2")
def _w_reshape(w, op, where):
    x = _in(w, op, "X", where)
    if op.inputs.get("ShapeTensor"):
        shape = _int_vector(w, [w.get(n, where) for n in op.inputs["ShapeTensor"]])
    elif op.inputs.get("Shape"):
        shape = _in(w, op, "Shape", where)
    else:
        shape = w.int_array(op.attrs["shape"])
    vid = w.emit("pd_op.reshape", [x, shape], [w.out_meta(op.outputs["Out"][0])])[0]
    _out(w, op, "Out", vid)


@writes("transpose2")
def _w_transpose(w, op, where):
    _simple_out(w, op, "pd_op.transpose", ["X"], "Out", [("perm", a_ints32(op.attrs["axis"]))], where)


@writes("flatten_contiguous_range")
def _w_flatten(w, op, where):
    _simple_out(w, op, "pd_op.flatten", ["X"], "Out", [("start_axis", a_i32(op.attrs["start_axis"])),
                                                       ("stop_axis", a_i32(op.attrs["stop_axis"]))], where)


@writes("conv2d", "depthwise_conv2d")
def _w_conv(w, op, where):
    a = op.attrs
    _simple_out(w, op, f"pd_op.{op.type}", ["Input", "Filter"], "Output",
                [("strides", a_ints32(a["strides"])), ("paddings", a_ints32(a["paddings"])),
                 ("padding_algorithm", a_str(a["padding_algorithm"])), ("dilations", a_ints32(a["dilations"])),
                 ("groups", a_i32(a["groups"])), ("data_format", a_str(a["data_format"]))], where)


@writes("pool2d")
def _w_pool(w, op, where):
    a = op.attrs
    x = _in(w, op, "X", where)
    vid = w.emit("pd_op.pool2d", [x, w.int_array(a["ksize"])], [w.out_meta(op.outputs["Out"][0])],
                 [("strides", a_ints64(a["strides"])), ("paddings", a_ints64(a["paddings"])),
                  ("ceil_mode", a_bool(a["ceil_mode"])), ("exclusive", a_bool(a["exclusive"])),
                  ("data_format", a_str(a["data_format"])), ("pooling_type", a_str(a["pooling_type"])),
                  ("global_pooling", a_bool(a["global_pooling"])), ("adaptive", a_bool(a["adaptive"])),
                  ("padding_algorithm", a_str(a["padding_algorithm"]))])[0]
    _out(w, op, "Out", vid)


@writes("batch_norm")
def _w_batch_norm(w, op, where):
    a = op.attrs
    ins = [_in(w, op, s, where, optional=s in ("Scale", "Bias")) for s in ("X", "Mean", "Variance", "Scale", "Bias")]
    y_dt, y_dims = w.out_meta(op.outputs["Y"][0])
    c = w.types[ins[1]][1]
    f32 = np.float32
    ids = w.emit("pd_op.batch_norm_", ins, [(y_dt, y_dims), (f32, c), (f32, c), (f32, c), (f32, c), (np.uint8, [-1])],
                 [("is_test", a_bool(a["is_test"])), ("momentum", a_f32(a["momentum"])),
                  ("epsilon", a_f32(a["epsilon"])), ("data_format", a_str(a["data_layout"])),
                  ("use_global_stats", a_bool(a["use_global_stats"])),
                  ("trainable_statistics", a_bool(a["trainable_statistics"]))])
    for slot, vid in zip(("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance", "ReserveSpace"), ids):
        _out(w, op, slot, vid)


@writes("layer_norm")
def _w_layer_norm(w, op, where):
    ins = [_in(w, op, s, where, optional=s != "X") for s in ("X", "Scale", "Bias")]
    y = w.out_meta(op.outputs["Y"][0])
    rows = list(y[1][:op.attrs["begin_norm_axis"]])
    ids = w.emit("pd_op.layer_norm", ins, [y, (np.float32, rows), (np.float32, rows)],
                 [("epsilon", a_f32(op.attrs["epsilon"])), ("begin_norm_axis", a_i32(op.attrs["begin_norm_axis"]))])
    for slot, vid in zip(("Y", "Mean", "Variance"), ids):
        _out(w, op, slot, vid)


@writes("shape")
def _w_shape(w, op, where):
    x = _in(w, op, "Input", where)
    n = len(w.types[x][1])
    s64 = w.emit("pd_op.shape64", [x], [(np.int64, [n])])[0]
    dtype, dims = w.out_meta(op.outputs["Out"][0])
    vid = w.emit("pd_op.cast", [s64], [(dtype, dims)], [("dtype", a_dtype(dtype))])[0]
    _out(w, op, "Out", vid)


@writes("slice")
def _w_slice(w, op, where):
    a = op.attrs
    x = _in(w, op, "Input", where)
    if any(op.inputs.get(s) for s in ("StartsTensorList", "EndsTensorList")):
        raise ValueError(f"{where}: slice with tensor-list bounds has no PIR lowering")
    starts = _in(w, op, "StartsTensor", where, optional=True) or w.int_array(a["starts"])
    ends = _in(w, op, "EndsTensor", where, optional=True) or w.int_array(a["ends"])
    vid = w.emit("pd_op.slice", [x, starts, ends], [w.out_meta(op.outputs["Out"][0])],
                 [("axes", a_ints64(a["axes"])), ("infer_flags", a_ints64(a["infer_flags"] or [1] * len(a["axes"]))),
                  ("decrease_axis", a_ints64(a["decrease_axis"]))])[0]
    _out(w, op, "Out", vid)


@writes("stack")
def _w_stack(w, op, where):
    parts = [w.get(n, where) for n in op.inputs["X"]]
    vid = w.emit("pd_op.stack", [w.combine(parts)], [w.out_meta(op.outputs["Y"][0])],
                 [("axis", a_i32(op.attrs["axis"]))])[0]
    _out(w, op, "Y", vid)


@writes("concat")
def _w_concat(w, op, where):
    if op.inputs.get("AxisTensor"):
        raise ValueError(f"{where}: concat with an AxisTensor has no PIR lowering")
    parts = [w.get(n, where) for n in op.inputs["X"]]
    axis = w.full([1], op.attrs["axis"], np.int32)
    vid = w.emit("pd_op.concat", [w.combine(parts), axis], [w.out_meta(op.outputs["Out"][0])])[0]
    _out(w, op, "Out", vid)


def _write_vec_outputs(w, op, vec_id, slot, where):
    names = op.outputs[slot]
    ids = w.emit("builtin.split", [vec_id], [w.out_meta(n) for n in names])
    for k, vid in enumerate(ids):
        _out(w, op, slot, vid, k)


@writes("split")
def _w_split(w, op, where):
    a = op.attrs
    if op.inputs.get("AxisTensor") or op.inputs.get("SectionsTensorList"):
        raise ValueError(f"{where}: split with tensor inputs has no PIR lowering")
    x = _in(w, op, "X", where)
    names = op.outputs["Out"]
    vec = _t_vec([_t_dense(*w.out_meta(n)) for n in names])
    axis = w.full([1], a["axis"], np.int32)
    if a.get("num"):
        vid = w.emit("pd_op.split_with_num", [x, axis], [vec], [("num", a_i32(a["num"]))])[0]
    else:
        vid = w.emit("pd_op.split", [x, w.int_array(a["sections"]), axis], [vec])[0]
    _write_vec_outputs(w, op, vid, "Out", where)


@writes("unstack")
def _w_unstack(w, op, where):
    x = _in(w, op, "X", where)
    names = op.outputs["Y"]
    vec = _t_vec([_t_dense(*w.out_meta(n)) for n in names])
    vid = w.emit("pd_op.unstack", [x], [vec], [("axis", a_i32(op.attrs["axis"])), ("num", a_i32(len(names)))])[0]
    _write_vec_outputs(w, op, vid, "Y", where)


@writes("unsqueeze2", "squeeze2")
def _w_squeeze(w, op, where):
    if op.inputs.get("AxesTensor") or op.inputs.get("AxesTensorList"):
        raise ValueError(f"{where}: {op.type} with tensor axes has no PIR lowering")
    x = _in(w, op, "X", where)
    pir = "pd_op.unsqueeze" if op.type == "unsqueeze2" else "pd_op.squeeze"
    vid = w.emit(pir, [x, w.int_array(op.attrs["axes"])], [w.out_meta(op.outputs["Out"][0])])[0]
    _out(w, op, "Out", vid)


@writes("lookup_table_v2")
def _w_embedding(w, op, where):
    _simple_out(w, op, "pd_op.embedding", ["Ids", "W"], "Out",
                [("padding_idx", a_i64(op.attrs["padding_idx"])), ("sparse", a_bool(False))], where)


@writes("dropout")
def _w_dropout(w, op, where):
    a = op.attrs
    x = _in(w, op, "X", where)
    p = w.full([1], a["dropout_prob"], np.float32)
    dt, dims = w.out_meta(op.outputs["Out"][0])
    ids = w.emit("pd_op.dropout", [x, None, p], [(dt, dims), (np.uint8, dims)],
                 [("is_test", a_bool(a["is_test"])), ("mode", a_str(a["dropout_implementation"])),
                  ("seed", a_i32(0)), ("fix_seed", a_bool(False))])
    _out(w, op, "Out", ids[0])
    _out(w, op, "Mask", ids[1])


@writes("clip")
def _w_clip(w, op, where):
    if op.inputs.get("Min") or op.inputs.get("Max"):
        raise ValueError(f"{where}: clip with tensor bounds has no PIR lowering")
    x = _in(w, op, "X", where)
    lo, hi = w.full([1], op.attrs["min"], np.float32), w.full([1], op.attrs["max"], np.float32)
    _out(w, op, "Out", w.emit("pd_op.clip", [x, lo, hi], [w.out_meta(op.outputs["Out"][0])])[0])


@writes("pow")
def _w_pow(w, op, where):
    if op.inputs.get("FactorTensor"):
        raise ValueError(f"{where}: pow with a FactorTensor has no PIR lowering")
    _simple_out(w, op, "pd_op.pow", ["X"], "Out", [("y", a_f32(op.attrs["factor"]))], where)


@writes("expand_v2", "tile")
def _w_expand(w, op, where):
    if any(op.inputs.get(s) for s in ("Shape", "expand_shapes_tensor", "RepeatTimes", "repeat_times_tensor")):
        raise ValueError(f"{where}: {op.type} with tensor sizes has no PIR lowering")
    x = _in(w, op, "X", where)
    sizes = op.attrs["shape"] if op.type == "expand_v2" else op.attrs["repeat_times"]
    pir = "pd_op.expand" if op.type == "expand_v2" else "pd_op.tile"
    _out(w, op, "Out", w.emit(pir, [x, w.int_array(sizes)], [w.out_meta(op.outputs["Out"][0])])[0])


@writes("fill_any_like")
def _w_fill_any_like(w, op, where):
    x = _in(w, op, "X", where)
    dtype, dims = w.out_meta(op.outputs["Out"][0])
    value = w.full([1], op.attrs["value"], np.float32)
    _out(w, op, "Out", w.emit("pd_op.full_like", [x, value], [(dtype, dims)],
                              [("dtype", a_dtype(dtype)), ("place", a_place(_UNDEF_PLACE))])[0])


@writes("hard_sigmoid")
def _w_hard_sigmoid(w, op, where):
    _simple_out(w, op, "pd_op.hardsigmoid", ["X"], "Out", [("slope", a_f32(op.attrs["slope"])),
                                                           ("offset", a_f32(op.attrs["offset"]))], where)


# -- tensor arrays (created by pir_write at the start of their block) ------------------------------------

@writes("write_to_array")
def _w_array_write(w, op, where):
    arr_name = op.outputs["Out"][0]
    arr, x, i = w.get(arr_name, where), _in(w, op, "X", where), _in(w, op, "I", where)
    v = w.var(arr_name)
    w.define(arr_name, w.emit("pd_op.array_write_", [arr, x, i], [_t_array(v.dtype.np, v.shape)])[0])


@writes("read_from_array")
def _w_array_read(w, op, where):
    _simple_out(w, op, "pd_op.array_read", ["X", "I"], "Out", where=where)


@writes("lod_array_length")
def _w_array_length(w, op, where):
    _simple_out(w, op, "pd_op.array_length", ["X"], "Out", where=where)


@writes("tensor_array_to_tensor")
def _w_array_to_tensor(w, op, where):
    x = _in(w, op, "X", where)
    ids = w.emit("pd_op.array_to_tensor", [x], [w.out_meta(op.outputs["Out"][0]), (np.int32, [-1])],
                 [("axis", a_i32(op.attrs["axis"])), ("use_stack", a_bool(op.attrs["use_stack"]))])
    _out(w, op, "Out", ids[0])
    _out(w, op, "OutIndex", ids[1])


# -- ops found by the layer sweep (tests/interop/test_pir_layer_sweep.py): attribute kinds as Paddle writes them
def _attr_writer(pir, in_slots, attrs):
    """A writer for ``pir`` whose attributes are ``(pir name, legacy name, kind, default)``."""
    def fn(w, op, where):
        written = [(name, kind(op.attrs.get(legacy, default))) for name, legacy, kind, default in attrs]
        _simple_out(w, op, f"pd_op.{pir}", in_slots, "Out", written, where)
    return fn


for _leg, _pir, _slots, _attrs in (
        ("elu", "elu", ["X"], [("alpha", "alpha", a_f32, 1.0)]),
        ("swish", "swish", ["X"], []),
        ("softplus", "softplus", ["X"], [("beta", "beta", a_f64, 1.0), ("threshold", "threshold", a_f64, 20.0)]),
        ("selu", "selu", ["X"], [("scale", "scale", a_f32, 1.0507009873554805),
                                 ("alpha", "alpha", a_f32, 1.6732632423543772)]),
        ("celu", "celu", ["X"], [("alpha", "alpha", a_f32, 1.0)]),
        ("hard_shrink", "hardshrink", ["X"], [("threshold", "threshold", a_f32, 0.5)]),
        ("softshrink", "softshrink", ["X"], [("threshold", "lambda", a_f32, 0.5)]),
        ("tanh_shrink", "tanh_shrink", ["X"], []),
        ("mish", "mish", ["X"], [("lambda", "threshold", a_f32, 20.0)]),
        ("logsigmoid", "logsigmoid", ["X"], []),
        ("thresholded_relu", "thresholded_relu", ["X"], [("threshold", "threshold", a_f32, 1.0),
                                                         ("value", "value", a_f32, 0.0)]),
        ("brelu", "hardtanh", ["X"], [("t_min", "t_min", a_f32, 0.0), ("t_max", "t_max", a_f32, 24.0)]),
        ("prelu", "prelu", ["X", "Alpha"], [("data_format", "data_format", a_str, "NCHW"),
                                            ("mode", "mode", a_str, "all")]),
        ("maxout", "maxout", ["X"], [("groups", "groups", a_i32, 2), ("axis", "axis", a_i32, 1)]),
        ("bmm", "bmm", ["X", "Y"], []),
        ("mean", "mean_all", ["X"], []),
        ("flip", "flip", ["X"], [("axis", "axis", a_ints32, [])]),
        ("p_norm", "p_norm", ["X"], [("porder", "porder", a_f32, 2.0), ("axis", "axis", a_i32, -1),
                                     ("epsilon", "epsilon", a_f32, 1e-12), ("keepdim", "keepdim", a_bool, False),
                                     ("asvector", "asvector", a_bool, False)]),
        ("pixel_shuffle", "pixel_shuffle", ["X"], [("upscale_factor", "upscale_factor", a_i32, 1),
                                                   ("data_format", "data_format", a_str, "NCHW")])):
    WRITERS[_leg] = _attr_writer(_pir, _slots, _attrs)


@writes("conv2d_transpose", "depthwise_conv2d_transpose")
def _w_conv_transpose(w, op, where):
    a = op.attrs
    x, f = _in(w, op, "Input", where), _in(w, op, "Filter", where)
    vid = w.emit(f"pd_op.{op.type}", [x, f, w.int_array(a.get("output_size") or [])],
                 [w.out_meta(op.outputs["Output"][0])],
                 [("strides", a_ints32(a["strides"])), ("paddings", a_ints32(a["paddings"])),
                  ("output_padding", a_ints32(a.get("output_padding") or [])),
                  ("padding_algorithm", a_str(a["padding_algorithm"])), ("groups", a_i32(a["groups"])),
                  ("dilations", a_ints32(a["dilations"])), ("data_format", a_str(a["data_format"]))])[0]
    _out(w, op, "Output", vid)


def _norm_with_stats(w, op, where, pir, stats, attrs):
    ins = [_in(w, op, s, where, optional=s != "X") for s in ("X", "Scale", "Bias")]
    outs = ("Y",) + stats
    ids = w.emit(pir, ins, [w.out_meta(op.outputs[s][0]) for s in outs], attrs)
    for slot, vid in zip(outs, ids):
        _out(w, op, slot, vid)


@writes("group_norm")
def _w_group_norm(w, op, where):
    a = op.attrs
    _norm_with_stats(w, op, where, "pd_op.group_norm", ("Mean", "Variance"),
                     [("epsilon", a_f64(a["epsilon"])), ("groups", a_i32(a["groups"])),
                      ("data_format", a_str(a["data_layout"]))])


@writes("instance_norm")
def _w_instance_norm(w, op, where):
    _norm_with_stats(w, op, where, "pd_op.instance_norm", ("SavedMean", "SavedVariance"),
                     [("epsilon", a_f32(op.attrs["epsilon"]))])


@writes("max_pool2d_with_index", "max_pool3d_with_index")
def _w_max_pool_index(w, op, where):
    a = op.attrs
    ids = w.emit(f"pd_op.{op.type}", [_in(w, op, "X", where)],
                 [w.out_meta(op.outputs["Out"][0]), w.out_meta(op.outputs["Mask"][0])],
                 [("kernel_size", a_ints32(a["ksize"])), ("strides", a_ints32(a["strides"])),
                  ("paddings", a_ints32(a["paddings"])), ("global_pooling", a_bool(a["global_pooling"])),
                  ("adaptive", a_bool(a["adaptive"])), ("ceil_mode", a_bool(a["ceil_mode"]))])
    _out(w, op, "Out", ids[0])
    _out(w, op, "Mask", ids[1])


@writes("nearest_interp_v2", "linear_interp_v2", "bilinear_interp_v2", "bicubic_interp_v2", "trilinear_interp_v2")
def _w_interp(w, op, where):
    a = op.attrs
    size_list = [w.get(n, where) for n in op.inputs.get("SizeTensor", [])]
    operands = [_in(w, op, "X", where), _in(w, op, "OutSize", where, optional=True),
                w.combine(size_list) if size_list else None, _in(w, op, "Scale", where, optional=True)]
    vid = w.emit(f"pd_op.{op.type[:-3]}", operands, [w.out_meta(op.outputs["Out"][0])],
                 [("data_format", a_str(a["data_layout"])), ("out_d", a_i32(a["out_d"])), ("out_h", a_i32(a["out_h"])),
                  ("out_w", a_i32(a["out_w"])), ("scale", a_array(a_f64(s) for s in a.get("scale") or [])),
                  ("interp_method", a_str(a["interp_method"])), ("align_corners", a_bool(a["align_corners"])),
                  ("align_mode", a_i32(a["align_mode"]))])[0]
    _out(w, op, "Out", vid)


@writes("pad3d")
def _w_pad3d(w, op, where):
    a = op.attrs
    pads = _in(w, op, "Paddings", where, optional=True) or w.int_array(a["paddings"])
    _out(w, op, "Out", w.emit("pd_op.pad3d", [_in(w, op, "X", where), pads], [w.out_meta(op.outputs["Out"][0])],
                              [("mode", a_str(a["mode"])), ("pad_value", a_f64(a["value"])),
                               ("data_format", a_str(a["data_format"]))])[0])


@writes("cumsum")
def _w_cumsum(w, op, where):
    a = op.attrs
    axis = w.full([1], a["axis"], np.int32)
    _out(w, op, "Out", w.emit("pd_op.cumsum", [_in(w, op, "X", where), axis], [w.out_meta(op.outputs["Out"][0])],
                              [("flatten", a_bool(a["flatten"])), ("exclusive", a_bool(a["exclusive"])),
                               ("reverse", a_bool(a["reverse"]))])[0])


@writes("gather")
def _w_gather(w, op, where):
    axis = _in(w, op, "Axis", where, optional=True) or w.full([1], op.attrs["axis"], np.int32)
    _out(w, op, "Out", w.emit("pd_op.gather", [_in(w, op, "X", where), _in(w, op, "Index", where), axis],
                              [w.out_meta(op.outputs["Out"][0])])[0])


@writes("huber_loss")
def _w_huber(w, op, where):
    ids = w.emit("pd_op.huber_loss", [_in(w, op, "X", where), _in(w, op, "Y", where)],
                 [w.out_meta(op.outputs["Out"][0]), w.out_meta(op.outputs["Residual"][0])],
                 [("delta", a_f32(op.attrs["delta"]))])
    _out(w, op, "Out", ids[0])
    _out(w, op, "Residual", ids[1])


@writes("arg_max", "arg_min")
def _w_arg(w, op, where):
    a = op.attrs
    axis = w.full([1], a["axis"], np.int64)
    dtype, dims = w.out_meta(op.outputs["Out"][0])
    _out(w, op, "Out", w.emit(f"pd_op.{op.type.replace('_', '')}", [_in(w, op, "X", where), axis], [(dtype, dims)],
                              [("keepdims", a_bool(a["keepdims"])), ("flatten", a_bool(a["flatten"])),
                               ("dtype", a_dtype(dtype))])[0])


@writes("strided_slice")
def _w_strided_slice(w, op, where):
    a = op.attrs
    if any(op.inputs.get(s) for s in ("StartsTensor", "StartsTensorList", "EndsTensor", "EndsTensorList",
                                      "StridesTensor", "StridesTensorList")):
        raise ValueError(f"{where}: strided_slice with tensor bounds has no PIR lowering")
    if a.get("decrease_axis"):
        raise ValueError(f"{where}: strided_slice with decrease_axis has no PIR lowering")
    vid = w.emit("pd_op.strided_slice", [_in(w, op, "Input", where), w.int_array(a["starts"]), w.int_array(a["ends"]),
                                         w.int_array(a["strides"])],
                 [w.out_meta(op.outputs["Out"][0])], [("axes", a_ints32(a["axes"]))])[0]
    _out(w, op, "Out", vid)


@writes("top_k_v2")
def _w_topk(w, op, where):
    a = op.attrs
    k = _in(w, op, "K", where, optional=True) or w.full([1], a["k"], np.int32)
    ids = w.emit("pd_op.topk", [_in(w, op, "X", where), k],
                 [w.out_meta(op.outputs["Out"][0]), w.out_meta(op.outputs["Indices"][0])],
                 [("axis", a_i32(a["axis"])), ("largest", a_bool(a["largest"])), ("sorted", a_bool(a["sorted"]))])
    _out(w, op, "Out", ids[0])
    _out(w, op, "Indices", ids[1])


@writes("index_select")
def _w_index_select(w, op, where):
    _simple_out(w, op, "pd_op.index_select", ["X", "Index"], "Out", [("axis", a_i32(op.attrs["dim"]))], where)


@writes("softmax_with_cross_entropy")
def _w_softmax_ce(w, op, where):
    a = op.attrs
    ids = w.emit("pd_op.cross_entropy_with_softmax", [_in(w, op, "Logits", where), _in(w, op, "Label", where)],
                 [w.out_meta(op.outputs["Softmax"][0]), w.out_meta(op.outputs["Loss"][0])],
                 [("soft_label", a_bool(a["soft_label"])), ("use_softmax", a_bool(a["use_softmax"])),
                  ("numeric_stable_mode", a_bool(a["numeric_stable_mode"])),
                  ("ignore_index", a_i32(a["ignore_index"])), ("axis", a_i32(a["axis"]))])
    _out(w, op, "Softmax", ids[0])
    _out(w, op, "Loss", ids[1])


@writes("index_put")
def _w_index_put(w, op, where):
    indices = w.combine([w.get(n, where) for n in op.inputs["indices"]])
    vid = w.emit("pd_op.index_put", [_in(w, op, "x", where), indices, _in(w, op, "value", where)],
                 [w.out_meta(op.outputs["out"][0])], [("accumulate", a_bool(op.attrs["accumulate"]))])[0]
    _out(w, op, "out", vid)


@writes("conv3d")
def _w_conv3d(w, op, where):
    a = op.attrs
    _simple_out(w, op, "pd_op.conv3d", ["Input", "Filter"], "Output",
                [("strides", a_ints32(a["strides"])), ("paddings", a_ints32(a["paddings"])),
                 ("padding_algorithm", a_str(a["padding_algorithm"])), ("groups", a_i32(a["groups"])),
                 ("dilations", a_ints32(a["dilations"])), ("data_format", a_str(a["data_format"]))], where)


@writes("pool3d")
def _w_pool3d(w, op, where):
    a = op.attrs
    _simple_out(w, op, "pd_op.pool3d", ["X"], "Out",
                [("kernel_size", a_ints64(a["ksize"])), ("strides", a_ints64(a["strides"])),
                 ("paddings", a_ints64(a["paddings"])), ("ceil_mode", a_bool(a["ceil_mode"])),
                 ("exclusive", a_bool(a["exclusive"])), ("data_format", a_str(a["data_format"])),
                 ("pooling_type", a_str(a["pooling_type"])), ("global_pooling", a_bool(a["global_pooling"])),
                 ("adaptive", a_bool(a["adaptive"])), ("padding_algorithm", a_str(a["padding_algorithm"]))], where)


@writes("conv3d_transpose")
def _w_conv3d_transpose(w, op, where):
    # Paddle 3.3.1's pd_op.conv3d_transpose takes output_size as an attribute (two operands), and records
    # the layout in the 2-D spelling (NCDHW -> NCHW), as its Python API passes it
    a = op.attrs
    fmt = {"NCDHW": "NCHW", "NDHWC": "NHWC"}.get(a["data_format"], a["data_format"])
    _simple_out(w, op, "pd_op.conv3d_transpose", ["Input", "Filter"], "Output",
                [("strides", a_ints32(a["strides"])), ("paddings", a_ints32(a["paddings"])),
                 ("output_padding", a_ints32(a.get("output_padding") or [])),
                 ("output_size", a_ints32(a.get("output_size") or [])),
                 ("padding_algorithm", a_str(a["padding_algorithm"])), ("groups", a_i32(a["groups"])),
                 ("dilations", a_ints32(a["dilations"])), ("data_format", a_str(fmt))], where)


@writes("bilinear_tensor_product")
def _w_bilinear(w, op, where):
    ins = [_in(w, op, s, where, optional=s == "Bias") for s in ("X", "Y", "Weight", "Bias")]
    _out(w, op, "Out", w.emit("pd_op.bilinear", ins, [w.out_meta(op.outputs["Out"][0])])[0])


for _leg, _pir, _slots, _out_slot, _attrs in (
        ("channel_shuffle", "channel_shuffle", ["X"], "Out", [("groups", a_i32), ("data_format", a_str)]),
        ("pixel_unshuffle", "pixel_unshuffle", ["X"], "Out", [("downscale_factor", a_i32), ("data_format", a_str)]),
        ("grid_sampler", "grid_sample", ["X", "Grid"], "Output",
         [("mode", a_str), ("padding_mode", a_str), ("align_corners", a_bool)]),
        ("unfold", "unfold", ["X"], "Y", [("kernel_sizes", a_ints32), ("strides", a_ints32), ("paddings", a_ints32),
                                          ("dilations", a_ints32)]),
        ("fold", "fold", ["X"], "Y", [("output_sizes", a_ints32), ("kernel_sizes", a_ints32), ("strides", a_ints32),
                                      ("paddings", a_ints32), ("dilations", a_ints32)])):
    WRITERS[_leg] = (lambda pir, slots, out_slot, attrs: lambda w, op, where: _simple_out(
        w, op, f"pd_op.{pir}", slots, out_slot, [(n, kind(op.attrs[n])) for n, kind in attrs], where))(
        _pir, _slots, _out_slot, _attrs)


@writes("lp_pool2d")
def _w_lp_pool2d(w, op, where):
    a = op.attrs
    if op.inputs.get("KernelSizeTensor") or op.inputs.get("KernelSizeTensorList"):
        raise ValueError(f"{where}: lp_pool2d with a tensor kernel size has no PIR lowering")
    _simple_out(w, op, "pd_op.lp_pool2d", ["x"], "out",
                [("kernel_size", a_intarray(a["kernel_size"])), ("strides", a_ints64(a["strides"])),
                 ("paddings", a_ints64(a["paddings"])), ("ceil_mode", a_bool(a["ceil_mode"])),
                 ("exclusive", a_bool(a["exclusive"])), ("data_format", a_str(a["data_format"])),
                 ("pooling_type", a_str(a["pooling_type"])), ("global_pooling", a_bool(a["global_pooling"])),
                 ("adaptive", a_bool(a["adaptive"])), ("padding_algorithm", a_str(a["padding_algorithm"])),
                 ("norm_type", a_f32(a["norm_type"]))], where)


@writes("rrelu")
def _w_rrelu(w, op, where):
    a = op.attrs
    ids = w.emit("pd_op.rrelu", [_in(w, op, "X", where)],
                 [w.out_meta(op.outputs["Out"][0]), w.out_meta((op.outputs.get("Noise") or op.outputs["Out"])[0])],
                 [("lower", a_f32(a["lower"])), ("upper", a_f32(a["upper"])), ("is_test", a_bool(a["is_test"]))])
    _out(w, op, "Out", ids[0])
    _out(w, op, "Noise", ids[1])


from . import pir_ops_extra  # noqa: E402,F401  (the ops added later: both directions, one table)
