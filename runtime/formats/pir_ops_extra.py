"""PIR <-> legacy mapping, both directions, of the ops added after the first PIR tables (special functions,
math_extra, linalg, order statistics, cumulative, histogram/unique, tensor_extra, manipulation_extra,
unpool, fractional pooling, nn_rest, losses, creation, indexing, detection, viterbi ...).

Each op is one declarative entry `_op(legacy, pir, ins, outs, attrs)` that registers both the reader
(`pir_read.MAPPERS["pd_op.<pir>"]`) and the writer (`pir_write.WRITERS[legacy]`), so the two
directions cannot drift apart. What an entry says was measured on files real Paddle 3.3.1 writes
(tests/interop/test_pir_new_ops.py saves every op with ``paddle.jit.save`` and loads ours):

* ``ins``: the PIR operands in order. A string is a legacy input slot (optional slots may be absent:
  a null operand); ``"X[]"`` a list slot passed through ``builtin.combine``; ``("ints", attr)`` an
  operand Paddle builds with ``full_int_array`` from the legacy attribute ``attr`` (read back only when
  it is a constant); ``("ints_or", attr, slot)`` the same, or the legacy tensor ``slot`` when the
  program has one; ``("scalar", attr, dtype)`` a one-element ``full`` of ``dtype``, likewise;
  ``("scalar_or", attr, dtype, slot)`` as that with a tensor alternative.
* ``outs``: the PIR results in order: legacy output slots (``"Out[]"`` a list slot, one vector result
  taken apart by ``builtin.split``), or ``None`` for a result we have no slot for (written with the
  type ``out_types`` gives, read as an unusable value).
* ``attrs``: ``(pir name, legacy name, kind)``; kind is one of the ``a_*`` writers of pir_write, or
  ``"dtype"`` (legacy proto int <-> PIR dtype name) or ``"place"`` (written as Paddle's undefined place,
  ignored when read). A legacy name of ``None`` writes the fixed value given as a fourth element.

Not mapped, and why: matrix_exp and householder_product (Paddle has no such PIR op: its to_static
writes composites of if/while, set_value and matmul); rms_norm (no CPU kernel in Paddle 3.3.1, so no
file to measure); as_strided,
fill_any, fill_diagonal (dygraph-only in Paddle); margin_cross_entropy, class_center_sample,
decode_jpeg (GPU-only kernels); truncated_gaussian_random, auc, read_file and the optimizer ops
(initializers, metrics and training steps that jit.save does not keep).
"""
from __future__ import annotations

import numpy as np

from ..dtype import from_proto
from ..ops.registry import lookup
from .pir_read import MAPPERS, _Absent, _np_dtype, _proto, _Vec
from .pir_write import (_UNDEF_PLACE, WRITERS, _in, _out, _t_dense, _t_vec, a_array, a_bool, a_dtype, a_f32, a_f64,
                        a_i32, a_i64, a_intarray, a_ints32, a_ints64, a_place, a_str)

__all__ = ["EXTRA_OPS"]

EXTRA_OPS = {}      # legacy op type -> PIR op name (the ops this module maps)


def a_floats32(vs):
    return a_array(a_f32(v) for v in vs)


_KINDS = {a_bool: bool, a_i32: int, a_i64: int, a_f32: float, a_f64: float, a_str: str}
_LIST_KINDS = {a_ints32: int, a_ints64: int, a_intarray: int, a_floats32: float}


def _read_attr(tr, op, name, kind, v):
    """The PIR attribute value ``v`` in the legacy attribute's Python type (checked)."""
    if kind == "dtype":
        return _proto(_np_dtype(v, op.where, tr))
    if kind in _KINDS:
        want = _KINDS[kind]
        ok = (isinstance(v, bool) if want is bool else
              isinstance(v, str) if want is str else
              isinstance(v, (int, float)) and not isinstance(v, bool) and (want is float or float(v).is_integer()))
        if not ok:
            tr.fail(op.where, f"attribute '{name}' has an invalid value {v!r:.60}")
        return want(v)
    if kind in _LIST_KINDS:
        want = _LIST_KINDS[kind]
        if not (isinstance(v, list) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)):
            tr.fail(op.where, f"attribute '{name}' has an invalid value {v!r:.60}")
        return [want(x) for x in v]
    raise AssertionError(kind)


def _reader(legacy, ins, outs, attrs):
    def fn(tr, blk, op):
        schema = tr.schema[legacy]
        slots = {s.name: s for s in schema.inputs}
        a = {}
        for spec in attrs:
            pname, lname, kind = spec[:3]
            if lname is None or kind == "place" or pname not in op.attrs:
                continue
            a[lname] = _read_attr(tr, op, pname, kind, op.attrs[pname])
        inputs = {}
        for i, spec in enumerate(ins):
            if i >= len(op.operands):
                break
            if spec is None:
                if op.operands[i] != 0:
                    tr.fail(op.where, f"operand {i} of {op.name} has no counterpart in the legacy '{legacy}'")
                continue
            if isinstance(spec, str):
                if spec.endswith("[]"):
                    inputs[spec[:-2]] = tr.vec(blk, op, i)
                    continue
                name = tr.arg(blk, op, i, optional=slots[spec].dispensable)
                if name is not None:
                    inputs[spec] = [name]
                continue
            form, attr = spec[0], spec[1]
            alt = spec[-1] if form in ("ints_or", "scalar_or") else None
            c = tr.const(op, i)
            if c is not None:
                c = np.asarray(c).reshape(-1)
                if form.startswith("ints"):
                    a[attr] = [int(x) for x in c]
                    continue
                if c.size == 1:
                    want = schema.attrs[attr][0]
                    a[attr] = int(c[0]) if want in ("INT", "LONG") else float(c[0])
                    continue
            if alt is None:
                tr.fail(op.where, f"operand {i} ('{attr}') must be a constant (pd_op.full / full_int_array) to map "
                                  f"onto the legacy '{legacy}' attribute '{attr}'")
            inputs[alt] = [tr.arg(blk, op, i)]
        out_names, vecs = {}, []
        for k, slot in enumerate(outs):
            if k >= len(op.results):
                break
            if slot is None:
                tr.bind(op, k, _Absent(f"result {k} of {op.name} has no dy2st counterpart"))
            elif slot.endswith("[]"):       # a list result, taken apart by builtin.split
                typ = op.results[k][1]
                if typ.kind != "vec":
                    tr.fail(op.where, f"result {k} of {op.name} must be a list")
                names = [tr.fresh(f"{op.name.split('.')[-1]}_{max(op.results[k][0], 0)}.tmp_{k}_{j}")
                         for j in range(len(typ.elems))]
                for n, t in zip(names, typ.elems):
                    tr.types[n] = t
                out_names[slot[:-2]] = names
                vecs.append((k, names))
            else:
                out_names[slot] = [tr.result(op, k)]
        tr.emit(blk, legacy, inputs, a, out_names, op)
        for k, names in vecs:
            tr.bind(op, k, _Vec(names))
    return fn


def _writer(legacy, pir, ins, outs, attrs, out_types):
    optional = {s.name: s.dispensable for s in lookup(legacy).inputs}

    def fn(w, op, where):
        full = {k: v for k, v in op.attrs.items()}
        operands = []
        for spec in ins:
            if spec is None:
                operands.append(None)
                continue
            if isinstance(spec, str):
                if spec.endswith("[]"):
                    operands.append(w.combine([w.get(n, where) for n in op.inputs.get(spec[:-2], [])]))
                else:
                    operands.append(_in(w, op, spec, where, optional=optional[spec]))
                continue
            form, attr = spec[0], spec[1]
            alt = spec[-1] if form in ("ints_or", "scalar_or") else None
            if alt is not None and op.inputs.get(alt):
                operands.append(_in(w, op, alt, where))
            elif form.startswith("ints"):
                operands.append(w.int_array([int(x) for x in full[attr]]))
            else:
                operands.append(w.full([1], full[attr], spec[2]))
        used = {spec[:-2] if spec.endswith("[]") else spec for spec in ins if isinstance(spec, str)}
        used.update(spec[-1] for spec in ins if isinstance(spec, tuple) and spec[0].endswith("_or"))
        unused = sorted(k for k, v in op.inputs.items() if v and k not in used)
        if unused:
            raise ValueError(f"{where}: '{legacy}' with input(s) {unused} has no PIR lowering (pd_op.{pir} takes "
                             "them as attributes); save this model in the default .pdmodel format instead")
        written = []
        for spec in attrs:
            pname, lname, kind = spec[:3]
            if kind == "place":
                written.append((pname, a_place(_UNDEF_PLACE)))
            elif lname is None:
                written.append((pname, kind(spec[3])))
            elif kind == "dtype":
                written.append((pname, a_dtype(from_proto(int(full[lname])).np)))
            else:
                written.append((pname, kind(full[lname])))
        results = []
        for k, slot in enumerate(outs):
            if slot is not None and slot.endswith("[]"):
                names = op.outputs.get(slot[:-2], [])
                if not names:
                    raise ValueError(f"{where}: '{legacy}' without its '{slot[:-2]}' outputs has no PIR lowering")
                results.append(_t_vec([_t_dense(*w.out_meta(n)) for n in names]))
                continue
            names = op.outputs.get(slot, []) if slot is not None else []
            if names:
                results.append(w.out_meta(names[0]))
            else:
                results.append(out_types(w, op, operands, k))
        ids = w.emit(f"pd_op.{pir}", operands, results, attrs=written)
        for slot, vid in zip(outs, ids):
            if slot is not None and slot.endswith("[]"):
                names = op.outputs[slot[:-2]]
                for j, part in enumerate(w.emit("builtin.split", [vid], [w.out_meta(n) for n in names])):
                    _out(w, op, slot[:-2], part, j)
            elif slot is not None:
                _out(w, op, slot, vid)
    return fn


def _no_type(w, op, operands, k):
    raise ValueError(f"op '{op.type}': PIR result {k} has no dy2st output to take its type from")


def _op(legacy, pir, ins, outs=("Out",), attrs=(), *, read=True, write=True, inplace=False, out_types=_no_type):
    EXTRA_OPS[legacy] = pir
    if read:
        MAPPERS[f"pd_op.{pir}"] = _reader(legacy, ins, outs, attrs)
        if inplace:
            MAPPERS[f"pd_op.{pir}_"] = MAPPERS[f"pd_op.{pir}"]
    if write:
        WRITERS[legacy] = _writer(legacy, pir, ins, outs, attrs, out_types)


# ===================================================================================================
# the table
# ===================================================================================================

# -- elementwise, no attributes ------------------------------------------------------------------------
for _leg, _pir in (("digamma", "digamma"), ("lgamma", "lgamma"), ("erfinv", "erfinv"), ("asinh", "asinh"),
                   ("acosh", "acosh"), ("atanh", "atanh"), ("trunc", "trunc"), ("asin", "asin"), ("acos", "acos"),
                   ("atan", "atan"), ("tan", "tan"), ("sinh", "sinh"), ("cosh", "cosh"), ("expm1", "expm1"),
                   ("log2", "log2"), ("log10", "log10")):
    # the reader of the last nine is in pir_ops already; only the writer is added for them
    _op(_leg, _pir, ["X"], inplace=True, read=_leg in ("digamma", "lgamma", "erfinv", "asinh", "acosh", "atanh",
                                                       "trunc"))
for _n in ("i0", "i0e", "i1", "i1e", "gammaln"):
    _op(_n, _n, ["x"], ["out"], inplace=_n == "i0")
_op("gammaincc", "gammaincc", ["x", "y"], ["out"])
_op("polygamma", "polygamma", ["x"], ["out"], [("n", "n", a_i32)])
_op("stanh", "stanh", ["X"], attrs=[("scale_a", "scale_a", a_f32), ("scale_b", "scale_b", a_f32)])
_op("logit", "logit", ["X"], attrs=[("eps", "eps", a_f64)])
_op("atan2", "atan2", ["X1", "X2"])
_op("copysign", "copysign", ["x", "y"], ["out"])
_op("nextafter", "nextafter", ["x", "y"], ["out"])
for _leg, _pir in (("elementwise_fmax", "fmax"), ("elementwise_fmin", "fmin"),
                   ("elementwise_heaviside", "heaviside")):
    _op(_leg, _pir, ["X", "Y"])
for _n in ("bitwise_left_shift", "bitwise_right_shift"):
    _op(_n, _n, ["x", "y"], ["out"], [("is_arithmetic", "is_arithmetic", a_bool)])

# -- math / linalg ------------------------------------------------------------------------------------------
_op("cross", "cross", ["X", "Y"], attrs=[("axis", "dim", a_i32)])
_op("dot", "dot", ["X", "Y"])
_op("kron", "kron", ["X", "Y"])
_op("mv", "mv", ["X", "Vec"])
_op("dist", "dist", ["X", "Y"], attrs=[("p", "p", a_f32)])
_op("sum", "add_n", ["X[]"])
_op("cumprod", "cumprod", ["X"], attrs=[("dim", "dim", a_i32), ("exclusive", "exclusive", a_bool),
                                        ("reverse", "reverse", a_bool)], read=False)
_op("logsumexp", "logsumexp", ["X"], attrs=[("axis", "axis", a_ints32), ("keepdim", "keepdim", a_bool),
                                            ("reduce_all", "reduce_all", a_bool)], read=False)
for _n in ("addmm", "baddbmm"):
    _op(_n, _n, ["Input", "X", "Y"], attrs=[("beta", "Beta", a_f32), ("alpha", "Alpha", a_f32)])
_op("trace", "trace", ["Input"], attrs=[("offset", "offset", a_i32), ("axis1", "axis1", a_i32),
                                        ("axis2", "axis2", a_i32)])
_op("inverse", "inverse", ["Input"], ["Output"])
_op("determinant", "det", ["Input"])
_op("solve", "solve", ["X", "Y"])
_op("cholesky", "cholesky", ["X"], attrs=[("upper", "upper", a_bool)])
_op("triangular_solve", "triangular_solve", ["X", "Y"], attrs=[
    ("upper", "upper", a_bool), ("transpose", "transpose", a_bool), ("unitriangular", "unitriangular", a_bool)])
_op("matrix_power", "matrix_power", ["X"], attrs=[("n", "n", a_i32)])
_op("multi_dot", "multi_dot", ["X[]"])
_op("renorm", "renorm", ["X"], attrs=[("p", "p", a_f32), ("axis", "axis", a_i32), ("max_norm", "max_norm", a_f32)])
_op("lerp", "lerp", ["X", "Y", "Weight"])

# -- order statistics, sorting, cumulative -----------------------------------------------------------------
_op("kthvalue", "kthvalue", ["X"], ["Out", "Indices"], [("k", "k", a_i64), ("axis", "axis", a_i32),
                                                        ("keepdim", "keepdim", a_bool)])
_op("nanmedian", "nanmedian", ["X"], ["Out", "MedianIndex"], [("axis", "axis", a_intarray),
                                                              ("keepdim", "keepdim", a_bool), ("mode", "mode", a_str)])
_op("mode", "mode", ["X"], ["Out", "Indices"], [("axis", "axis", a_i32), ("keepdim", "keepdim", a_bool)])
_op("argsort", "argsort", ["X"], ["Out", "Indices"], [("axis", "axis", a_i32), ("descending", "descending", a_bool),
                                                      ("stable", "stable", a_bool)], read=False)
for _n in ("cummax", "cummin"):
    _op(_n, _n, ["x"], ["out", "indices"], [("axis", "axis", a_i32), ("dtype", "dtype", "dtype")])
_op("logcumsumexp", "logcumsumexp", ["X"], attrs=[("axis", "axis", a_i32), ("flatten", "flatten", a_bool),
                                                  ("exclusive", "exclusive", a_bool), ("reverse", "reverse", a_bool)])
_op("searchsorted", "searchsorted", ["SortedSequence", "Values"], attrs=[("out_int32", "out_int32", a_bool),
                                                                          ("right", "right", a_bool)])
_op("histogram", "histogram", ["X", "Weight"], attrs=[("bins", "bins", a_i64), ("min", "min", a_f32),
                                                      ("max", "max", a_f32), ("density", "density", a_bool)])
_op("bincount", "bincount", ["X", "Weights", ("scalar", "minlength", np.int32)])
_op("unique", "unique", ["X"], ["Out", "Indices", "Index", "Counts"], [
    ("return_index", "return_index", a_bool), ("return_inverse", "return_inverse", a_bool),
    ("return_counts", "return_counts", a_bool), ("axis", "axis", a_ints32), ("dtype", "dtype", "dtype"),
    ("is_sorted", "is_sorted", a_bool)],
    out_types=lambda w, op, operands, k: (from_proto(int(op.attrs["dtype"])).np, [-1]))
_op("unique_consecutive", "unique_consecutive", ["X"], ["Out", "Index", "Counts"], [
    ("return_inverse", "return_inverse", a_bool), ("return_counts", "return_counts", a_bool),
    ("axis", "axis", a_ints32), ("dtype", "dtype", "dtype")],
    out_types=lambda w, op, operands, k: (from_proto(int(op.attrs["dtype"])).np, [-1]))

# -- tensor_extra / manipulation_extra ------------------------------------------------------------------------
_op("diag_embed", "diag_embed", ["Input"], attrs=[("offset", "offset", a_i32), ("dim1", "dim1", a_i32),
                                                  ("dim2", "dim2", a_i32)])
_op("index_add", "index_add", ["X", "Index", "AddValue"], attrs=[("axis", "axis", a_i32)], inplace=True)
_op("tril_indices", "tril_indices", [], ["out"], [("rows", "rows", a_i32), ("cols", "cols", a_i32),
                                                  ("offset", "offset", a_i32), ("dtype", "dtype", "dtype"),
                                                  ("place", None, "place")])
_op("triu_indices", "triu_indices", [], ["out"], [("row", "row", a_i32), ("col", "col", a_i32),
                                                  ("offset", "offset", a_i32), ("dtype", "dtype", "dtype"),
                                                  ("place", None, "place")])
_op("crop_tensor", "crop", ["X", ("ints_or", "shape", "Shape"), ("ints_or", "offsets", "Offsets")])
_op("fill_diagonal_tensor", "fill_diagonal_tensor", ["X", "Y"], attrs=[
    ("offset", "offset", a_i64), ("dim1", "dim1", a_i32), ("dim2", "dim2", a_i32)], inplace=True)
_op("multiplex", "multiplex", ["X[]", "Ids"])
_op("shard_index", "shard_index", ["X"], attrs=[("index_num", "index_num", a_i32), ("nshards", "nshards", a_i32),
                                                ("shard_id", "shard_id", a_i32),
                                                ("ignore_value", "ignore_value", a_i32)])
_op("reduce_as", "reduce_as", ["x", "target"], ["out"])
_op("temporal_shift", "temporal_shift", ["X"], attrs=[("seg_num", "seg_num", a_i32),
                                                      ("shift_ratio", "shift_ratio", a_f32),
                                                      ("data_format", "data_format", a_str)])
_op("swiglu", "swiglu", ["x", "y"], ["out"])
_op("gather_tree", "gather_tree", ["Ids", "Parents"])
_op("viterbi_decode", "viterbi_decode", ["Input", "Transition", "Length"], ["Scores", "Path"],
    [("include_bos_eos_tag", "include_bos_eos_tag", a_bool)])

# -- pooling ----------------------------------------------------------------------------------------------------
_op("unpool", "unpool", ["X", "Indices", ("ints", "output_size")], attrs=[
    ("ksize", "ksize", a_ints32), ("strides", "strides", a_ints32), ("padding", "paddings", a_ints32),
    ("data_format", "data_format", a_str)])
_op("fractional_max_pool2d", "fractional_max_pool2d", ["x"], ["out", "mask"], [
    ("output_size", "output_size", a_ints32), ("kernel_size", "kernel_size", a_ints32),
    ("random_u", "random_u", a_f32), ("return_mask", "return_mask", a_bool)])

# -- losses and label ops --------------------------------------------------------------------------------------
_op("bce_loss", "bce_loss", ["X", "Label"], inplace=True)
_op("nll_loss", "nll_loss", ["X", "Label", "Weight"], ["Out", "Total_weight"], [
    ("ignore_index", "ignore_index", a_i64), ("reduction", "reduction", a_str)], read=False)
_op("kldiv_loss", "kldiv_loss", ["X", "Target"], ["Loss"], [("reduction", "reduction", a_str),
                                                            ("log_target", "log_target", a_bool)], read=False)
_op("sigmoid_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits", ["X", "Label", "pos_weight"],
    attrs=[("normalize", "normalize", a_bool), ("ignore_index", "ignore_index", a_i32)], read=False)
_op("label_smooth", "label_smooth", ["X", "PriorDist"], attrs=[("epsilon", "epsilon", a_f32)], read=False)
_op("one_hot_v2", "one_hot", ["X", ("scalar_or", "depth", np.int32, "depth_tensor")], read=False)

# -- creation ------------------------------------------------------------------------------------------------------
_op("eye", "eye", [("scalar", "num_rows", np.float32), ("scalar", "num_columns", np.float32)], attrs=[
    ("dtype", "dtype", "dtype"), ("place", None, "place")])
_op("linspace", "linspace", ["Start", "Stop", "Num"], attrs=[("dtype", "dtype", "dtype"), ("place", None, "place")])
_op("logspace", "logspace", ["Start", "Stop", "Num", "Base"], attrs=[("dtype", "dtype", "dtype"),
                                                                      ("place", None, "place")])
_op("diag_v2", "diag", ["X"], attrs=[("offset", "offset", a_i32), ("padding_value", "padding_value", a_f32)])
_op("pad", "pad", ["X", ("scalar", "pad_value", np.float32)], attrs=[("paddings", "paddings", a_ints32)])

# -- indexing / shape ------------------------------------------------------------------------------------------------
_op("gather_nd", "gather_nd", ["X", "Index"], read=False)
_op("take_along_axis", "take_along_axis", ["Input", "Index"], ["Result"], [("axis", "Axis", a_i32)], read=False)
_op("put_along_axis", "put_along_axis", ["Input", "Index", "Value"], ["Result"], [
    ("axis", "Axis", a_i32), ("reduce", "Reduce", a_str), ("include_self", "Include_self", a_bool)], inplace=True)
_op("scatter", "scatter", ["X", "Ids", "Updates"], attrs=[("overwrite", "overwrite", a_bool)], read=False)
_op("scatter_nd_add", "scatter_nd_add", ["X", "Index", "Updates"])
_op("index_sample", "index_sample", ["X", "Index"])
_op("masked_select", "masked_select", ["X", "Mask"], ["Y"])
_op("roll", "roll", ["X", ("ints_or", "shifts", "ShiftsTensor")], attrs=[("axis", "axis", a_ints64)])
_op("size", "numel", ["Input"], read=False)
_op("where_index", "nonzero", ["Condition"])
_op("expand_as_v2", "expand_as", ["X", "Y"], attrs=[("target_shape", "target_shape", a_ints64)], read=False)
_op("affine_grid", "affine_grid", ["Theta", ("ints_or", "output_shape", "OutputShape")], ["Output"],
    [("align_corners", "align_corners", a_bool)])

# -- detection -------------------------------------------------------------------------------------------------------
_op("roi_align", "roi_align", ["X", "ROIs", "RoisNum"], attrs=[
    ("pooled_height", "pooled_height", a_i32), ("pooled_width", "pooled_width", a_i32),
    ("spatial_scale", "spatial_scale", a_f32), ("sampling_ratio", "sampling_ratio", a_i32),
    ("aligned", "aligned", a_bool)])
_op("roi_pool", "roi_pool", ["X", "ROIs", "RoisNum"], ["Out", "Argmax"], [
    ("pooled_height", "pooled_height", a_i32), ("pooled_width", "pooled_width", a_i32),
    ("spatial_scale", "spatial_scale", a_f32)])
_op("box_coder", "box_coder", ["PriorBox", "PriorBoxVar", "TargetBox"], ["OutputBox"], [
    ("code_type", "code_type", a_str), ("box_normalized", "box_normalized", a_bool), ("axis", "axis", a_i32),
    ("variance", "variance", a_floats32)])


# ===================================================================================================
# entries that are not one-to-one
# ===================================================================================================

def _w_tril_triu(w, op, where):
    pir = "pd_op.tril" if op.attrs["lower"] else "pd_op.triu"
    vid = w.emit(pir, [_in(w, op, "X", where)], [w.out_meta(op.outputs["Out"][0])],
                 [("diagonal", a_i32(op.attrs["diagonal"]))])[0]
    _out(w, op, "Out", vid)


def _w_reduce_prod(w, op, where):
    axes = [] if op.attrs.get("reduce_all") else list(op.attrs.get("dim", []))
    vid = w.emit("pd_op.prod", [_in(w, op, "X", where), w.int_array(axes)], [w.out_meta(op.outputs["Out"][0])],
                 [("keepdim", a_bool(op.attrs["keep_dim"])), ("reduce_all", a_bool(op.attrs["reduce_all"]))])[0]
    _out(w, op, "Out", vid)


def _w_reduce_bool(pir):
    def fn(w, op, where):
        if op.inputs.get("AxisTensor") or op.inputs.get("AxisTensorList"):
            raise ValueError(f"{where}: {op.type} over a computed axis has no PIR lowering")
        axes = [] if op.attrs.get("reduce_all") else list(op.attrs.get("dim", []))
        vid = w.emit(pir, [_in(w, op, "X", where)], [w.out_meta(op.outputs["Out"][0])],
                     [("axis", a_ints64(axes)), ("keepdim", a_bool(op.attrs["keep_dim"]))])[0]
        _out(w, op, "Out", vid)
    return fn


def _w_range(w, op, where):
    dtype, dims = w.out_meta(op.outputs["Out"][0])
    vid = w.emit("pd_op.arange", [_in(w, op, s, where) for s in ("Start", "End", "Step")], [(dtype, dims)],
                 [("dtype", a_dtype(dtype)), ("place", a_place(_UNDEF_PLACE))])[0]
    _out(w, op, "Out", vid)


def _w_einsum(w, op, where):
    # pd_op.einsum's results: the output, then two vectors Paddle keeps for its gradient (inner_cache:
    # one 0-d placeholder per operand; xshape: the operands' types)
    ids = [w.get(n, where) for n in op.inputs["Operands"]]
    dtype, dims = w.out_meta(op.outputs["Out"][0])
    cache = _t_vec([_t_dense(dtype, []) for _ in ids])
    shapes = _t_vec([w.type_json(i) for i in ids])
    vid = w.emit("pd_op.einsum", [w.combine(ids)], [(dtype, dims), cache, shapes],
                 [("equation", a_str(op.attrs["equation"]))])[0]
    _out(w, op, "Out", vid)


def _r_einsum(tr, blk, op):
    eq = tr.attr(op, "equation", "")
    tr.emit(blk, "einsum", {"Operands": tr.vec(blk, op, 0)}, {"equation": eq}, {"Out": [tr.result(op)]}, op)
    for k in (1, 2):
        tr.bind(op, k, _Absent("an einsum gradient cache (no dy2st counterpart)"))


WRITERS["tril_triu"] = _w_tril_triu
WRITERS["reduce_prod"] = _w_reduce_prod
WRITERS["reduce_all"] = _w_reduce_bool("pd_op.all")
WRITERS["reduce_any"] = _w_reduce_bool("pd_op.any")
WRITERS["range"] = _w_range
WRITERS["einsum"] = _w_einsum
MAPPERS["pd_op.einsum"] = _r_einsum
EXTRA_OPS.update({"tril_triu": "tril/triu", "reduce_prod": "prod", "reduce_all": "all", "reduce_any": "any",
                  "range": "arange", "einsum": "einsum"})


# -- second batch: decompositions, fft, complex, detection, 3-D pools, random ------------------------------------
_op("cholesky_solve", "cholesky_solve", ["X", "Y"], attrs=[("upper", "upper", a_bool)])
_op("diagonal", "diagonal", ["Input"], attrs=[("offset", "offset", a_i32), ("axis1", "axis1", a_i32),
                                              ("axis2", "axis2", a_i32)])
_op("lu", "lu", ["X"], ["Out", "Pivots", "Infos"], [("pivot", "pivots", a_bool)], inplace=True)
_op("lu_unpack", "lu_unpack", ["X", "Pivots"], ["Pmat", "L", "U"], [("unpack_ludata", "unpack_ludata", a_bool),
                                                                     ("unpack_pivots", "unpack_pivots", a_bool)])
_op("lu_solve", "lu_solve", ["b", "lu", "pivots"], ["out"], [("trans", "trans", a_str)])
_op("slogdeterminant", "slogdet", ["Input"])
_op("eigh", "eigh", ["X"], ["Eigenvalues", "Eigenvectors"], [("UPLO", "UPLO", a_str)])
_op("eigvalsh", "eigvalsh", ["X"], ["Eigenvalues", "Eigenvectors"], [("uplo", "UPLO", a_str),
                                                                     ("is_test", "is_test", a_bool)])
_op("eig", "eig", ["X"], ["Eigenvalues", "Eigenvectors"])
_op("eigvals", "eigvals", ["X"])
_op("qr", "qr", ["X"], ["Q", "R"], [("mode", "mode", a_str)])
_op("svd", "svd", ["X"], ["U", "S", "VH"], [("full_matrices", "full_matrices", a_bool)])
_op("svdvals", "svdvals", ["x"], ["s"])
_op("matrix_rank", "matrix_rank", ["X"], attrs=[("tol", "tol", a_f32), ("use_default_tol", "use_default_tol", a_bool),
                                                ("hermitian", "hermitian", a_bool)])
_op("lstsq", "lstsq", ["X", "Y", ("scalar", "rcond", np.float32)], ["Solution", "Residuals", "Rank", "SingularValues"],
    [("driver", "driver", a_str)], out_types=lambda w, op, operands, k: (w.types[operands[0]][0], [-1]))
_op("frobenius_norm", "frobenius_norm", ["X", ("ints", "dim")], attrs=[("keep_dim", "keep_dim", a_bool),
                                                                       ("reduce_all", "reduce_all", a_bool)])
_op("fft_c2c", "fft_c2c", ["X"], attrs=[("axes", "axes", a_ints64), ("normalization", "normalization", a_str),
                                        ("forward", "forward", a_bool)])
_op("fft_r2c", "fft_r2c", ["X"], attrs=[("axes", "axes", a_ints64), ("normalization", "normalization", a_str),
                                        ("forward", "forward", a_bool), ("onesided", "onesided", a_bool)])
_op("fft_c2r", "fft_c2r", ["X"], attrs=[("axes", "axes", a_ints64), ("normalization", "normalization", a_str),
                                        ("forward", "forward", a_bool), ("last_dim_size", "last_dim_size", a_i64)])
_op("frame", "frame", ["X"], attrs=[("frame_length", "frame_length", a_i32), ("hop_length", "hop_length", a_i32),
                                    ("axis", "axis", a_i32)])
_op("overlap_add", "overlap_add", ["X"], attrs=[("hop_length", "hop_length", a_i32), ("axis", "axis", a_i32)])
_op("complex", "complex", ["X", "Y"])
for _n in ("angle", "as_complex", "as_real", "real", "imag", "conj"):
    _op(_n, _n, ["X"])
_op("fractional_max_pool3d", "fractional_max_pool3d", ["x"], ["out", "mask"], [
    ("output_size", "output_size", a_ints32), ("kernel_size", "kernel_size", a_ints32),
    ("random_u", "random_u", a_f32), ("return_mask", "return_mask", a_bool)])
_op("unpool3d", "unpool3d", ["X", "Indices"], attrs=[
    ("ksize", "ksize", a_ints32), ("strides", "strides", a_ints32), ("paddings", "paddings", a_ints32),
    ("output_size", "output_size", a_ints32), ("data_format", "data_format", a_str)])
_op("prior_box", "prior_box", ["Input", "Image"], ["Boxes", "Variances"], [
    ("min_sizes", "min_sizes", a_floats32), ("max_sizes", "max_sizes", a_floats32),
    ("aspect_ratios", "aspect_ratios", a_floats32), ("variances", "variances", a_floats32), ("flip", "flip", a_bool),
    ("clip", "clip", a_bool), ("step_w", "step_w", a_f32), ("step_h", "step_h", a_f32), ("offset", "offset", a_f32),
    ("min_max_aspect_ratios_order", "min_max_aspect_ratios_order", a_bool)])
_op("yolo_box", "yolo_box", ["X", "ImgSize"], ["Boxes", "Scores"], [
    ("anchors", "anchors", a_ints32), ("class_num", "class_num", a_i32), ("conf_thresh", "conf_thresh", a_f32),
    ("downsample_ratio", "downsample_ratio", a_i32), ("clip_bbox", "clip_bbox", a_bool),
    ("scale_x_y", "scale_x_y", a_f32), ("iou_aware", "iou_aware", a_bool),
    ("iou_aware_factor", "iou_aware_factor", a_f32)])
_op("psroi_pool", "psroi_pool", ["X", "ROIs", "RoisNum"], attrs=[
    ("pooled_height", "pooled_height", a_i32), ("pooled_width", "pooled_width", a_i32),
    ("output_channels", "output_channels", a_i32), ("spatial_scale", "spatial_scale", a_f32)])
_op("nms", "nms", ["Boxes"], ["KeepBoxesIdxs"], [("threshold", "iou_threshold", a_f32)])
# pd_op.deformable_conv with a mask is deformable_conv, with a null mask (DeformConv2D v1) deformable_conv_v1
_DEFORM_ATTRS = [("strides", "strides", a_ints32), ("paddings", "paddings", a_ints32),
                 ("dilations", "dilations", a_ints32), ("deformable_groups", "deformable_groups", a_i32),
                 ("groups", "groups", a_i32), ("im2col_step", "im2col_step", a_i32)]
_op("deformable_conv", "deformable_conv", ["Input", "Offset", "Filter", "Mask"], ["Output"], _DEFORM_ATTRS, read=False)
_op("deformable_conv_v1", "deformable_conv", ["Input", "Offset", "Filter", None], ["Output"], _DEFORM_ATTRS,
    read=False)
_deform_v2 = _reader("deformable_conv", ["Input", "Offset", "Filter", "Mask"], ["Output"], _DEFORM_ATTRS)
_deform_v1 = _reader("deformable_conv_v1", ["Input", "Offset", "Filter", None], ["Output"], _DEFORM_ATTRS)
MAPPERS["pd_op.deformable_conv"] = lambda tr, blk, op: (
    _deform_v1 if len(op.operands) > 3 and op.operands[3] == 0 else _deform_v2)(tr, blk, op)
_op("accuracy", "accuracy", ["Out", "Indices", "Label"], ["Accuracy", "Correct", "Total"])
_op("uniform_random", "uniform", [("ints_or", "shape", "ShapeTensor"), ("scalar", "min", np.float32),
                                  ("scalar", "max", np.float32)],
    attrs=[("dtype", "dtype", "dtype"), ("seed", "seed", a_i32), ("place", None, "place")])
_op("gaussian_random", "gaussian", [("ints_or", "shape", "ShapeTensor")], attrs=[
    ("mean", "mean", a_f32), ("std", "std", a_f32), ("seed", "seed", a_i32), ("dtype", "dtype", "dtype"),
    ("place", None, "place")])
_op("randint", "randint", [("ints_or", "shape", "ShapeTensor")], attrs=[
    ("low", "low", a_i32), ("high", "high", a_i32), ("dtype", "dtype", "dtype"), ("place", None, "place")])
_op("randperm", "randperm", [], attrs=[("n", "n", a_i32), ("dtype", "dtype", "dtype"), ("place", None, "place")])
_op("bernoulli", "bernoulli", ["X"])
_op("multinomial", "multinomial", ["X", ("scalar", "num_samples", np.int32)],
    attrs=[("replacement", "replacement", a_bool)])


# -- third batch: detection post-processing, sequence losses, random draws -----------------------------------
_op("generate_proposals_v2", "generate_proposals", ["Scores", "BboxDeltas", "ImShape", "Anchors", "Variances"],
    ["RpnRois", "RpnRoiProbs", "RpnRoisNum"], [
        ("pre_nms_top_n", "pre_nms_topN", a_i32), ("post_nms_top_n", "post_nms_topN", a_i32),
        ("nms_thresh", "nms_thresh", a_f32), ("min_size", "min_size", a_f32), ("eta", "eta", a_f32),
        ("pixel_offset", "pixel_offset", a_bool)],
    out_types=lambda w, op, operands, k: (np.int32, [-1]))
_op("distribute_fpn_proposals", "distribute_fpn_proposals", ["FpnRois", "RoisNum"],
    ["MultiFpnRois[]", "MultiLevelRoIsNum[]", "RestoreIndex"], [
        ("min_level", "min_level", a_i32), ("max_level", "max_level", a_i32), ("refer_level", "refer_level", a_i32),
        ("refer_scale", "refer_scale", a_i32), ("pixel_offset", "pixel_offset", a_bool)])
_op("matrix_nms", "matrix_nms", ["BBoxes", "Scores"], ["Out", "Index", "RoisNum"], [
    ("score_threshold", "score_threshold", a_f32), ("nms_top_k", "nms_top_k", a_i32),
    ("keep_top_k", "keep_top_k", a_i32), ("post_threshold", "post_threshold", a_f32),
    ("use_gaussian", "use_gaussian", a_bool), ("gaussian_sigma", "gaussian_sigma", a_f32),
    ("background_label", "background_label", a_i32), ("normalized", "normalized", a_bool)],
    out_types=lambda w, op, operands, k: (np.int32, [-1]))
_op("yolov3_loss", "yolo_loss", ["X", "GTBox", "GTLabel", "GTScore"], ["Loss", "ObjectnessMask", "GTMatchMask"], [
    ("anchors", "anchors", a_ints32), ("anchor_mask", "anchor_mask", a_ints32), ("class_num", "class_num", a_i32),
    ("ignore_thresh", "ignore_thresh", a_f32), ("downsample_ratio", "downsample_ratio", a_i32),
    ("use_label_smooth", "use_label_smooth", a_bool), ("scale_x_y", "scale_x_y", a_f32)])
_op("warpctc", "warpctc", ["Logits", "Label", "LogitsLength", "LabelLength"], ["Loss", "WarpCTCGrad"], [
    ("blank", "blank", a_i32), ("norm_by_times", "norm_by_times", a_bool)])
_op("warprnnt", "warprnnt", ["input", "label", "input_lengths", "label_lengths"], ["loss", "warprnntgrad"], [
    ("blank", "blank", a_i32), ("fastemit_lambda", "fastemit_lambda", a_f32)])
_op("hierarchical_sigmoid", "hsigmoid_loss", ["X", "Label", "W", "Bias", "PathTable", "PathCode"],
    ["Out", "PreOut", "W_Out"], [("num_classes", "num_classes", a_i32), ("is_sparse", "is_sparse", a_bool)])
_op("poisson", "poisson", ["X"])
_op("exponential", "exponential_", ["X"], attrs=[("lam", "lambda", a_f32)])
_op("print", "print", ["In"], attrs=[
    ("first_n", "first_n", a_i32), ("message", "message", a_str), ("summarize", "summarize", a_i32),
    ("print_tensor_name", "print_tensor_name", a_bool), ("print_tensor_type", "print_tensor_type", a_bool),
    ("print_tensor_shape", "print_tensor_shape", a_bool), ("print_tensor_layout", "print_tensor_layout", a_bool),
    ("print_tensor_lod", "print_tensor_lod", a_bool), ("print_phase", "print_phase", a_str),
    ("is_forward", "is_forward", a_bool)])
# the legacy reverse op (older models) is flip
_op("reverse", "flip", ["X"], attrs=[("axis", "axis", a_ints32)], read=False)
_op("standard_gamma", "standard_gamma", ["x"], ["out"])
_op("binomial", "binomial", ["count", "prob"], ["out"], write=False)
_op("spectral_norm", "spectral_norm", ["Weight", "U", "V"],
    attrs=[("dim", "dim", a_i32), ("power_iters", "power_iters", a_i32), ("eps", "eps", a_f32)])
_op("gumbel_softmax", "gumbel_softmax", ["X"], attrs=[("temperature", "temperature", a_f32), ("hard", "hard", a_bool),
                                                      ("axis", "axis", a_i32)])
_op("matrix_rank_atol_rtol", "matrix_rank_atol_rtol", ["x", "atol", "rtol"], ["out"],
    [("hermitian", "hermitian", a_bool)])


def _w_binomial(w, op, where):
    # Paddle's binomial kernel reads count in prob's dtype (its API casts count first): so does the file
    count, prob = _in(w, op, "count", where), _in(w, op, "prob", where)
    cdt, dims = w.types[count]
    pdt = w.types[prob][0]
    if cdt != pdt:
        count = w.emit("pd_op.cast", [count], [(pdt, dims)], [("dtype", a_dtype(pdt))])[0]
    _out(w, op, "out", w.emit("pd_op.binomial", [count, prob], [w.out_meta(op.outputs["out"][0])])[0])


def _r_broadcast_tensors(tr, blk, op):
    """pd_op.broadcast_tensors (a list in, a list out): one expand_v2 per tensor to the common shape, which
    must be known wherever a tensor has to grow (a dim of -1 in expand_v2 keeps the tensor's own size)."""
    names = tr.vec(blk, op, 0)
    shapes = [list(blk._var_recursive(n).shape) for n in names]
    rank = max(len(sh) for sh in shapes)
    shapes = [[1] * (rank - len(sh)) + sh for sh in shapes]
    target = []
    for dims in zip(*shapes):
        known = {d for d in dims if d not in (1, -1)}
        if len(known) > 1:
            tr.fail(op.where, f"broadcast_tensors of incompatible shapes {shapes}")
        target.append(known.pop() if known else (-1 if -1 in dims else 1))
    outs = []
    for n, sh in zip(names, shapes):
        if any(t == -1 and d == 1 for t, d in zip(target, sh)):
            tr.fail(op.where, f"broadcast_tensors growing a size-1 dim to an unknown size (shapes {shapes})")
        out = tr.fresh(f"{n}.broadcast")
        tr.emit(blk, "expand_v2", {"X": [n]}, {"shape": [t if t != -1 else -1 for t in target]}, {"Out": [out]}, op)
        outs.append(out)
    tr.bind(op, 0, _Vec(outs))


WRITERS["binomial"] = _w_binomial
MAPPERS["pd_op.broadcast_tensors"] = _r_broadcast_tensors
EXTRA_OPS["binomial"] = "binomial"
