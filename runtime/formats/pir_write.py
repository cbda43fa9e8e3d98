"""Our Program -> Paddle 3's PIR ``.json`` program (the inverse of `pir_json` + `pir_ops`).

The output has the layout real Paddle 3.3.1 writes (see `pir_json`'s docstring): parameters as
compressed ``p`` ops, ``pd_op.data`` per input in argument order, the computation, then one
``pd_op.fetch`` per output. Legacy variables are re-assigned in place (batch_norm's running
statistics, loop variables), PIR values are not: the writer walks the ops in order keeping the
current value of every variable name (SSA renaming), scoped by region.

Control flow: the ``conditional_block`` / ``logical_not`` / ``conditional_block`` / ``cast`` /
``select_input`` pattern of FORMATS.md §7.1 becomes one ``pd_op.if`` whose two regions end with
``cf.yield`` of the selected values; a ``conditional_block`` alone (no else) becomes an ``if``
whose else region yields the variables' previous values. A ``while`` op becomes ``pd_op.while``:
the condition and the variables the body writes are carried (block arguments of the body),
and the body's final values are yielded. Ops without a PIR lowering raise ``ValueError`` naming
the op, so a save never writes a file Paddle would reject later.
"""
from __future__ import annotations

import json

import numpy as np

from ..static.program import VarType
from .pir_json import DIALECT_IDS, TYPE_OF_DTYPE

__all__ = ["serialize_pir_program", "PIR_VERSION", "WRITABLE_OPS"]

PIR_VERSION = 4      # the serialization version Paddle 3.3.1 writes (and reads)
_CPU = [1, 0, ""]
_UNDEF_PLACE = [0, 0, ""]


# -- JSON pieces ----------------------------------------------------------------------------------------

def _t_dense(dtype, dims):
    return {"#": "0.t_dtensor", "D": [{"#": "0." + TYPE_OF_DTYPE[np.dtype(dtype).name]},
                                      [int(d) for d in dims], "NCHW", [], 0]}


def _t_array(dtype, dims):
    return {"#": "1.t_dense_tensor_array", "D": [{"#": "0." + TYPE_OF_DTYPE[np.dtype(dtype).name]},
                                                 [int(d) for d in dims], "NCHW"]}


def _t_vec(types):
    return {"#": "0.t_vec", "D": list(types)}


def a_bool(v):
    return {"#": "0.a_bool", "D": bool(v)}


def a_i32(v):
    return {"#": "0.a_i32", "D": int(v)}


def a_i64(v):
    return {"#": "0.a_i64", "D": int(v)}


def a_f32(v):
    return {"#": "0.a_f32", "D": float(np.float32(v))}


def a_f64(v):
    return {"#": "0.a_f64", "D": float(v)}


def a_str(v):
    return {"#": "0.a_str", "D": str(v)}


def a_array(items):
    return {"#": "0.a_array", "D": list(items)}


def a_ints32(vs):
    return a_array(a_i32(v) for v in vs)


def a_ints64(vs):
    return a_array(a_i64(v) for v in vs)


def a_intarray(vs):
    return {"#": "1.a_intarray", "D": [int(v) for v in vs]}


def a_dtype(dtype):
    return {"#": "1.a_dtype", "D": np.dtype(dtype).name if dtype is not None else "Undefined(ALL_DTYPE)"}


def a_place(p=_CPU):
    return {"#": "1.a_place", "D": list(p)}


def _scalar_attr(v, dtype):
    kind = np.dtype(dtype).kind
    if kind == "b":
        return a_bool(v)
    if kind in "iu":
        return a_i64(v)
    return a_f64(v)


class _Scope:
    """Variable name -> current PIR value id, falling back to the enclosing region's scope."""

    def __init__(self, parent=None):
        self.parent, self.vals = parent, {}

    def get(self, name):
        s = self
        while s is not None:
            if name in s.vals:
                return s.vals[name]
            s = s.parent
        return None


class _Writer:
    def __init__(self, program):
        self.program = program
        self.next_id = 1
        self.next_arg = -1
        self.types = {}            # value id -> (dtype, dims) or None for a vec
        self.ops_stack = [[]]      # the op lists being filled (innermost last)
        self.scope = _Scope()
        self.region_no = 1         # region / block names: "region_<k>", "block_<k>"
        self.block_no = 1

    # -- values ---------------------------------------------------------------------------------------
    def var(self, name):
        for blk in self.program.blocks:
            v = blk.vars.get(name)
            if v is not None:
                return v
        raise ValueError(f"variable '{name}' is not declared in the program")

    def get(self, name, where):
        vid = self.scope.get(name)
        if vid is None:
            raise ValueError(f"{where}: variable '{name}' is read before any op writes it; the program cannot be "
                             "written as PIR")
        return vid

    def define(self, name, vid):
        self.scope.vals[name] = vid

    def _new(self, dtype, dims):
        vid = self.next_id
        self.next_id += 1
        self.types[vid] = (np.dtype(dtype), list(dims))
        return vid

    def type_json(self, vid):
        dtype, dims = self.types[vid]
        return _t_dense(dtype, dims)

    # -- ops --------------------------------------------------------------------------------------------
    def emit(self, name, operands, results, attrs=(), regions=None):
        """Append op ``name`` (``dialect.op``); ``results``: [(dtype, dims)] or a ready json type
        (a vec). Returns the result ids."""
        dialect, _, base = name.partition(".")
        ids, outs, sgs = [], [], []
        for r in results:
            if isinstance(r, dict):      # a vec type
                vid = self.next_id
                self.next_id += 1
                self.types[vid] = None
                outs.append({"%": vid, "TT": r})
                sgs.append(a_bool(True))
            else:
                vid = self._new(*r)
                outs.append({"%": vid, "TT": self.type_json(vid)})
                sgs.append(a_bool(np.dtype(r[0]).kind not in "fc"))
            ids.append(vid)
        op = {"#": f"{DIALECT_IDS[dialect]}.{base}",
              "A": [{"AT": v, "N": k} for k, v in attrs],
              "I": [{"%": o if o is not None else 0} for o in operands],
              "O": outs,
              "OA": [{"AT": a_array(sgs), "N": "stop_gradient"}] if outs else []}
        if regions is not None:
            op["regions"] = regions
        self.ops_stack[-1].append(op)
        return ids

    def full(self, shape, value, dtype, place=_CPU):
        return self.emit("pd_op.full", [], [(dtype, shape)],
                         [("shape", a_intarray(shape)), ("value", a_f64(value)), ("dtype", a_dtype(dtype)),
                          ("place", a_place(place))])[0]

    def int_array(self, values):
        return self.emit("pd_op.full_int_array", [], [(np.int64, [len(values)])],
                         [("value", a_ints64(values)), ("dtype", a_dtype(np.int64)), ("place", a_place())])[0]

    def combine(self, ids):
        return self.emit("builtin.combine", ids, [_t_vec([self.type_json(i) for i in ids])])[0]

    def out_meta(self, name):
        v = self.var(name)
        return v.dtype.np, v.shape

    def region(self, fill):
        """A region json: ``fill()`` writes its ops in a child scope; returns (region, fill's result)."""
        self.ops_stack.append([])
        self.scope = _Scope(self.scope)
        args = []
        try:
            result = fill(args)
        finally:
            self.scope = self.scope.parent
            ops = self.ops_stack.pop()
        block = {"#": f"block_{self.block_no}", "args": args, "ops": ops}
        self.block_no += 1
        reg = {"#": f"region_{self.region_no}", "blocks": [block]}
        self.region_no += 1
        return reg, result

    def block_arg(self, args, dtype, dims):
        vid = self.next_arg
        self.next_arg -= 1
        self.types[vid] = (np.dtype(dtype), list(dims))
        args.append({"#": vid, "TT": self.type_json(vid)})
        return vid

    # -- blocks -----------------------------------------------------------------------------------------
    def write_ops(self, blk):
        # a tensor array is one object written in place: created where its block starts (a while body
        # writing an outer array changes that array, which the loop does not carry)
        for name, v in blk.vars.items():
            if v.type == VarType.LOD_TENSOR_ARRAY and self.scope.get(name) is None:
                vid = self.emit("pd_op.create_array", [], [_t_array(v.dtype.np, v.shape)],
                                [("dtype", a_dtype(None))])[0]
                self.define(name, vid)
        ops, i = blk.ops, 0
        while i < len(ops):
            op = ops[i]
            where = f"block {blk.idx}, op {i} '{op.type}'"
            if op.type == "conditional_block":
                i = _write_cond(self, blk, i, where)
                continue
            _write_one(self, blk, i)
            i += 1


# ==========================================================================================================
# the op writers' registry (plain ops: pir_write_ops; control flow below)
# ==========================================================================================================

WRITERS = {}            # legacy op type -> fn(writer, op, where)


def writes(*types):
    """Register the decorated function as the PIR writer of the legacy op ``types``."""
    def deco(fn):
        for t in types:
            WRITERS[t] = fn
        return fn
    return deco


def _in(w, op, slot, where, k=0, optional=False):
    names = op.inputs.get(slot, [])
    if len(names) <= k:
        if optional:
            return None
        raise ValueError(f"{where}: input slot '{slot}' is empty")
    return w.get(names[k], where)


def _out(w, op, slot, vid, k=0):
    names = op.outputs.get(slot, [])
    if len(names) > k:
        w.define(names[k], vid)


# -- control flow --------------------------------------------------------------------------------------------

def _find(ops, start, pred, limit=8):
    for j in range(start, min(len(ops), start + limit)):
        if pred(ops[j]):
            return j
    return None


def _write_cond(w, blk, i, where):
    """``conditional_block`` at ``blk.ops[i]`` (and its else/select partners): one pd_op.if; returns the
    index of the next op to write."""
    ops = blk.ops
    a = ops[i]
    cond = a.inputs["Cond"][0]
    # the else half of FORMATS §7.1: logical_not(cond) -> nc; conditional_block(Cond=[nc])
    j = _find(ops, i + 1, lambda o: o.type == "logical_not" and o.inputs["X"] == [cond])
    b_idx = None
    if j is not None:
        nc = ops[j].outputs["Out"][0]
        b_idx = _find(ops, j + 1, lambda o: o.type == "conditional_block" and o.inputs["Cond"] == [nc])
    if b_idx is None:
        return _write_bare_cond(w, blk, i, where)
    b = ops[b_idx]
    # the ops between (the logical_not) are written first: they only read values defined before
    for k in range(i + 1, b_idx):
        _write_one(w, blk, k)
    # the select_inputs after it that merge one output of each branch
    t_outs, f_outs = a.outputs.get("Out", []), b.outputs.get("Out", [])
    selects, pending, k = [], [], b_idx + 1
    # FORMATS §7.1: cast(cond) -> mask and initializers of one-branch outputs, then the select_inputs
    while k < len(ops) and ops[k].type in ("cast", "fill_constant", "assign_value"):
        pending.append((k, ops[k]))
        k += 1
    while (k < len(ops) and ops[k].type == "select_input"
           and (ops[k].inputs["X"][1] in t_outs or ops[k].inputs["X"][0] in f_outs)):
        selects.append(ops[k])
        k += 1
    end = k
    c = w.get(cond, where)
    for k2, _ in pending:       # the mask cast / initializers: plain ops reading earlier values, written first
        _write_one(w, blk, k2)

    def branch(sub_idx, picks):
        def fill(args):
            w.write_ops(w.program.blocks[sub_idx])
            w.emit("cf.yield", [w.get(n, f"{where}: yield") for n in picks], [])
        return w.region(fill)[0]

    # values the selects merge: X[1] from the true branch, X[0] from the false one (either may be an outer value)
    t_region = branch(a.attrs["sub_block"], [s.inputs["X"][1] for s in selects])
    f_region = branch(b.attrs["sub_block"], [s.inputs["X"][0] for s in selects])
    results = [w.out_meta(s.outputs["Out"][0]) for s in selects]
    ids = w.emit("pd_op.if", [c], results, regions=[t_region, f_region])
    for s, vid in zip(selects, ids):
        w.define(s.outputs["Out"][0], vid)
    return end


def _write_bare_cond(w, blk, i, where):
    """A conditional_block without an else: the outputs keep their previous values when it does not run."""
    a = blk.ops[i]
    outs = [n for n in a.outputs.get("Out", [])]
    prev = []
    for n in outs:
        vid = w.scope.get(n)
        if vid is None:
            raise ValueError(f"{where}: conditional_block output '{n}' has no value when the branch does not run; "
                             "this program has no PIR form")
        prev.append(vid)
    c = w.get(a.inputs["Cond"][0], where)

    def fill_true(args):
        w.write_ops(w.program.blocks[a.attrs["sub_block"]])
        w.emit("cf.yield", [w.get(n, where) for n in outs], [])

    def fill_false(args):
        w.emit("cf.yield", prev, [])
    t_region, _ = w.region(fill_true)
    f_region, _ = w.region(fill_false)
    ids = w.emit("pd_op.if", [c], [w.out_meta(n) for n in outs], regions=[t_region, f_region])
    for n, vid in zip(outs, ids):
        w.define(n, vid)
    return i + 1


@writes("while")
def _w_while(w, op, where):
    cond = op.inputs["Condition"][0]
    carried = [n for n in op.outputs.get("Out", []) if n != cond and w.var(n).type != VarType.LOD_TENSOR_ARRAY]
    c = w.get(cond, where)
    inits = [w.get(n, where) for n in carried]
    metas = [w.out_meta(n) for n in carried]

    def fill(args):
        for n, (dt, dims) in zip(carried, metas):
            w.define(n, w.block_arg(args, dt, dims))
        w.write_ops(w.program.blocks[op.attrs["sub_block"]])
        w.emit("cf.yield", [w.get(cond, where)] + [w.get(n, where) for n in carried], [])
    region, _ = w.region(fill)
    ids = w.emit("pd_op.while", [c] + inits, metas, regions=[region])
    for n, vid in zip(carried, ids):
        w.define(n, vid)


def _write_one(w, blk, k):
    op = blk.ops[k]
    where = f"block {blk.idx}, op {k} '{op.type}'"
    fn = WRITERS.get(op.type)
    if fn is None:
        raise ValueError(f"{where}: op '{op.type}' has no PIR lowering in dy2st yet; save this model in the "
                         "default .pdmodel format instead (paddle.jit.save without the PIR option)")
    fn(w, op, where)


WRITABLE_OPS = WRITERS


# ==========================================================================================================

def program_to_pir(program, feed_names, fetch_names):
    """The PIR JSON document (a dict) of ``program`` with inputs ``feed_names`` and outputs ``fetch_names``."""
    w = _Writer(program)
    gb = program.global_block()
    params = {}
    for blk in program.blocks:
        for n, v in blk.vars.items():
            if v.persistable and v.type == VarType.LOD_TENSOR and n not in params:
                params[n] = v
    for n in sorted(params):
        v = params[n]
        vid = w._new(v.dtype.np, v.shape)
        trainable = bool(getattr(v, "trainable", False))
        w.ops_stack[0].append({"#": "p", "A": [0, 1, 1, n], "DA": [], "O": {"%": vid, "TT": w.type_json(vid)},
                               "OA": [1, int(bool(v.stop_gradient) or not trainable), int(trainable)], "QA": []})
        w.define(n, vid)
    for n in feed_names:
        v = gb.vars[n]
        vid = w.emit("pd_op.data", [], [(v.dtype.np, v.shape)],
                     [("name", a_str(n)), ("shape", a_intarray(v.shape)), ("dtype", a_dtype(v.dtype.np)),
                      ("place", a_place(_UNDEF_PLACE))])[0]
        w.define(n, vid)
    w.write_ops(gb)
    for col, n in enumerate(fetch_names):
        src = w.get(n, f"output '{n}'")
        dt, dims = w.types[src]
        vid = w.emit("pd_op.fetch", [src], [(dt, dims)], [("name", a_str(f"fetch_name_{col}")), ("col", a_i32(col))])[0]
        # a fetch result is persistable (real files mark it so)
        w.ops_stack[0][-1]["OA"].insert(0, {"AT": a_array([a_bool(True)]), "N": "persistable"})
    return {"base_code": {"magic": "pir", "trainable": True, "version": PIR_VERSION},
            "program": {"regions": [{"#": "region_0", "blocks": [{"#": "block_0", "args": [],
                                                                   "ops": w.ops_stack[0]}]}]}}


def serialize_pir_program(program, feed_names, fetch_names) -> bytes:
    """The ``.json`` bytes Paddle 3 loads (``paddle.jit.load``, ``paddle.inference``) for ``program``."""
    return json.dumps(program_to_pir(program, list(feed_names), list(fetch_names)),
                      separators=(",", ":")).encode("utf-8")


# the plain ops' writers register themselves on import
from . import pir_write_ops  # noqa: E402,F401
