"""PIR op tree (`pir_json.parse_pir`) -> our Program, whose ops are Paddle's legacy op types.

The translator walks the PIR blocks and asks the table `MAPPERS` (op name -> function, filled by
`pir_ops` for plain ops, `pir_rnn`, and the control-flow ops below) to append our ops; an op not
in the table is a `ModelFormatError` naming the op and the file. Values are translated
lazily: ``pd_op.full`` / ``full_int_array`` / ``assign_value_`` become constants that fold into
attributes where the legacy op takes them (``reduce_mean.dim``, ``reshape2.shape``,
``pool2d.ksize``, ``scale.scale`` ...) and become ``fill_constant`` / ``assign_value`` only
where a tensor is needed; ``builtin.combine`` makes a list that ops with list slots take.

Control flow follows our Program's patterns (FORMATS.md §7): ``pd_op.if`` becomes two
``conditional_block`` ops (then / else sub-blocks handing their ``cf.yield`` values out through
final ``assign``s into parent variables), ``logical_not``, ``cast`` and one ``select_input`` per
result; ``pd_op.while`` copies its initial values into loop variables, runs a ``while`` op whose
body binds the region's block arguments to those variables and ends with the assigns of the
yielded values (the condition last).
"""
from __future__ import annotations

import numpy as np

from ..dtype import convert_dtype
from ..ops.registry import all_ops
from ..static.program import Operator, Program, Variable, VarType, ROLE_FORWARD
from .errors import ModelFormatError

__all__ = ["translate", "MAPPERS", "maps"]

_MAX_CONST = 1 << 20    # elements of a constant we fold (a larger full() stays a fill_constant)
_REGION_OPS = ("pd_op.if", "pd_op.while")

MAPPERS = {}            # PIR op name -> fn(translator, block, op)


def maps(*names):
    """Register the decorated function as the translation of the PIR ops ``names``."""
    def deco(fn):
        for n in names:
            MAPPERS[n] = fn
        return fn
    return deco


class _Const:
    """A constant value: ``fill`` (scalar, shape) from pd_op.full, or ``array`` from full_int_array."""

    def __init__(self, dtype, shape, fill=None, array=None):
        self.dtype, self.shape, self.fill, self.array = np.dtype(dtype), list(shape), fill, array

    def values(self):
        if self.array is not None:
            return self.array
        if int(np.prod(self.shape, dtype=np.int64)) > _MAX_CONST:
            return None
        return np.full(self.shape, self.fill, dtype=self.dtype)


class _Vec:
    def __init__(self, items):
        self.items = items


class _Absent:
    def __init__(self, why):
        self.why = why


def _np_dtype(name, where, tr):
    try:
        return convert_dtype(name).np
    except Exception:
        tr.fail(where, f"unsupported dtype '{name:.40}'")


def _proto(dtype):
    return convert_dtype(np.dtype(dtype).name).proto


class _Translator:
    def __init__(self, path):
        self.path = path
        self.program = Program()
        self.values = {}          # PIR value id -> Variable name | _Const | _Vec | _Absent
        self.types = {}           # our var name -> PirValue (the file's type, used when infer_meta cannot say)
        self.materialized = {}    # (value id, block idx) -> var name of a materialized constant
        self.taken = set()
        self.feeds, self.fetches = [], []
        self.schema = all_ops()

    def fail(self, where, msg):
        raise ModelFormatError(f"{where}: {msg}", self.path)

    # -- names and values -------------------------------------------------------------------------------
    def fresh(self, base):
        name, k = base, 0
        while name in self.taken:
            k += 1
            name = f"{base}_{k}"
        self.taken.add(name)
        return name

    def value(self, op, i):
        if i >= len(op.operands):
            self.fail(op.where, f"has {len(op.operands)} operands, expected at least {i + 1}")
        vid = op.operands[i]
        if vid == 0:
            return None
        if vid not in self.values:
            self.fail(op.where, f"operand {i} refers to value %{vid}, which is not defined before it (or is out of "
                                "scope)")
        return self.values[vid]

    def arg(self, blk, op, i, optional=False):
        """The variable name of operand ``i``, materializing a constant in ``blk``."""
        v = self.value(op, i)
        if v is None:
            if optional:
                return None
            self.fail(op.where, f"operand {i} is required but absent")
        return self.as_var(blk, v, op, op.operands[i])

    def as_var(self, blk, v, op, vid=None):
        if isinstance(v, str):
            return v
        if isinstance(v, _Const):
            b = blk
            while b is not None:
                name = self.materialized.get((vid, b.idx))
                if name is not None:
                    return name
                b = b.parent_block
            name = self.fresh(f"constant_{vid if vid is not None else 'v'}")
            if v.array is not None and v.array.size <= _MAX_CONST:
                vals = [x.item() for x in v.array.reshape(-1)]
                if v.dtype == np.float32:
                    vals = [float(x) for x in vals]
                self.emit(blk, "assign_value", {}, {"shape": [int(d) for d in v.shape], "dtype": _proto(v.dtype),
                                                    "values": vals}, {"Out": [name]}, op)
            else:
                fill = v.fill if v.array is None else v.array.reshape(-1)[0].item()
                self.emit(blk, "fill_constant", {}, _fill_attrs(v.dtype, v.shape, fill), {"Out": [name]}, op)
            if vid is not None:
                self.materialized[(vid, blk.idx)] = name
            return name
        if isinstance(v, _Vec):
            self.fail(op.where, "a list value (builtin.combine) is used where a tensor is expected")
        self.fail(op.where, f"uses a value that cannot be computed here ({v.why})")

    def const(self, op, i):
        """The constant values of operand ``i`` (np array), or None when it is not a constant."""
        v = self.value(op, i)
        return v.values() if isinstance(v, _Const) else None

    def vec(self, blk, op, i):
        v = self.value(op, i)
        if isinstance(v, _Vec):
            return [self.as_var(blk, x, op) for x in v.items]
        self.fail(op.where, f"operand {i} must be a list (builtin.combine)")

    def result(self, op, k=0, base=None):
        """A new variable name for result ``k`` of ``op``, bound to its value id."""
        if k >= len(op.results):
            self.fail(op.where, f"has {len(op.results)} results, expected at least {k + 1}")
        vid, typ = op.results[k]
        name = self.fresh(base or f"{op.name.split('.')[-1].strip('_')}_{max(vid, 0)}.tmp_{k}")
        self.types[name] = typ
        if vid >= 0:
            self.values[vid] = name
        return name

    def bind(self, op, k, value):
        if k < len(op.results) and op.results[k][0] >= 0:
            self.values[op.results[k][0]] = value

    def attr(self, op, name, default, kind=None):
        """Attribute ``name`` of ``op`` checked against the type of ``default`` (or ``kind``: "numbers")."""
        v = op.attrs.get(name, default)
        kind = kind or type(default).__name__
        ok = {"str": lambda: isinstance(v, str),
              "bool": lambda: isinstance(v, bool),
              "int": lambda: isinstance(v, int) and not isinstance(v, bool) and -2 ** 63 <= v < 2 ** 63,
              "float": lambda: isinstance(v, (int, float)) and not isinstance(v, bool),
              "list": lambda: isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool)
                                                          and -2 ** 63 <= x < 2 ** 63 for x in v),
              "numbers": lambda: isinstance(v, list) and all(isinstance(x, (int, float, bool)) for x in v)}[kind]()
        if not ok:
            self.fail(op.where, f"attribute '{name}' has an invalid value {v!r:.60}")
        return v

    def forget_since(self, mark):
        """Drop the values defined since ``mark`` (a set of ids): a region's values are not visible outside it."""
        for vid in set(self.values) - mark:
            del self.values[vid]

    def scratch(self, base="pir_scratch"):
        return self.fresh(base)

    # -- ops ---------------------------------------------------------------------------------------------
    def emit(self, blk, type_, inputs, attrs, outputs, op):
        """Append op ``type_`` to ``blk``; undeclared output names are declared with inferred meta."""
        opdef = self.schema[type_]
        ins = {s.name: list(inputs.get(s.name, [])) for s in opdef.inputs}
        outs = {s.name: list(outputs.get(s.name, [])) for s in opdef.outputs}
        for s in opdef.outputs:   # intermediate outputs we do not map (XShape, SavedMean ...) get scratch vars
            if not outs[s.name] and s.intermediate:
                outs[s.name] = [self.scratch(f"{type_}.{s.name.lower()}")]
        try:
            full = opdef.full_attrs({k: v for k, v in attrs.items()})
        except TypeError as e:
            self.fail(op.where, f"cannot map onto '{type_}': {e}")
        new = Operator(blk, type_, ins, outs, full, [], ROLE_FORWARD)
        metas = self._infer(blk, opdef, new)
        for s, meta in zip(opdef.outputs, metas):
            for j, n in enumerate(outs[s.name]):
                if blk._find_var_recursive(n) is not None:
                    continue
                m = meta[j] if isinstance(meta, list) and j < len(meta) else (None if isinstance(meta, list) else meta)
                self.declare(blk, n, m, op)
        blk.ops.append(new)
        return new

    def _infer(self, blk, opdef, op):
        if opdef.interpret is not None and opdef.type in ("conditional_block", "while"):
            return [None] * len(opdef.outputs)
        try:
            metas = []
            for s in opdef.inputs:
                vs = [blk._var_recursive(n).meta for n in op.inputs.get(s.name, [])]
                metas.append(vs if s.duplicable else (vs[0] if vs else None))
            res = opdef.infer_meta(*metas, **op.attrs)
        except Exception:
            return [None] * len(opdef.outputs)
        return list(res) if len(opdef.outputs) > 1 else [res]

    def declare(self, blk, name, meta, op, type_=VarType.LOD_TENSOR):
        typ = self.types.get(name)
        if meta is not None:
            shape, dtype = list(meta.shape), np.dtype(meta.dtype)
            if typ is not None and typ.kind == "dense" and len(typ.dims) == len(shape):
                # the file may know a dim our infer_meta leaves open (and vice versa)
                shape = [d if d >= 0 else t for d, t in zip(shape, typ.dims)]
        elif typ is not None and typ.kind in ("dense", "array"):
            shape, dtype = typ.dims, _np_dtype(typ.dtype, op.where, self)
            if typ.kind == "array":
                type_ = VarType.LOD_TENSOR_ARRAY
        else:
            shape, dtype = [], np.dtype(np.float32)
        self.taken.add(name)
        # as a .pdmodel saved by jit.save (which clears stop_gradient): float values can carry gradients
        # when a loaded layer is fine-tuned; the PIR file's own flags describe the tracing, not the model
        blk.vars[name] = Variable(blk, name, shape, dtype.name, type=type_, stop_gradient=dtype.kind not in "fc")
        return blk.vars[name]

    def run_block(self, pir_block, blk):
        for op in pir_block.ops:
            if op.name == "cf.yield":
                return op
            fn = MAPPERS.get(op.name)
            if fn is None:
                self.fail(op.where, f"op '{op.name}' is not supported by dy2st's PIR reader (supported: "
                                    f"{len(MAPPERS)} ops, see runtime/formats/pir_ops.py); the model cannot be "
                                    "loaded")
            if op.regions and op.name not in _REGION_OPS:
                self.fail(op.where, f"op '{op.name}' cannot own regions")
            fn(self, blk, op)
        return None


def _fill_attrs(dtype, shape, value):
    dtype = np.dtype(dtype)
    if dtype.kind in "iub":
        s = str(int(value))
    else:
        s = str(float(value))
    return {"dtype": _proto(dtype), "shape": [int(d) for d in shape], "value": float(value), "str_value": s}


# -- control flow -------------------------------------------------------------------------------------

def _sub_block(tr, parent):
    from ..static.program import Block
    blk = Block(tr.program, len(tr.program.blocks), parent.idx)
    tr.program.blocks.append(blk)
    return blk


def _region_block(tr, op, r):
    if r >= len(op.regions) or len(op.regions[r]) != 1:
        tr.fail(op.where, f"region {r} must hold exactly one block")
    return op.regions[r][0]


def _export_yield(tr, blk, parent, yld, op, what):
    """Names in ``parent`` that the sub-block ``blk`` hands the yielded values out through."""
    if yld is None:
        tr.fail(op.where, f"the {what} block does not end with cf.yield")
    outs = []
    for i in range(len(yld.operands)):
        src = tr.arg(blk, yld, i)
        v = blk._var_recursive(src)
        name = tr.fresh(f"{op.name.split('.')[-1]}_{what}_out")
        parent.vars[name] = Variable(parent, name, v.shape, v.dtype.name, stop_gradient=v.stop_gradient)
        tr.taken.add(name)
        tr.emit(blk, "assign", {"X": [src]}, {}, {"Out": [name]}, op)
        outs.append(name)
    return outs


@maps("pd_op.if")
def _if(tr, blk, op):
    from ..static.control_flow import _block_io
    cond = tr.arg(blk, op, 0)
    cv = blk._var_recursive(cond)
    if cv.dtype.name != "bool" or any(d > 1 for d in cv.shape):
        tr.fail(op.where, f"the condition must be one bool, got {cv.dtype.name}{cv.shape}")
    branches = []
    for r, what in ((0, "true"), (1, "false")):
        sub = _sub_block(tr, blk)
        mark = set(tr.values)
        yld = tr.run_block(_region_block(tr, op, r), sub)
        outs = _export_yield(tr, sub, blk, yld, op, what)
        tr.forget_since(mark)
        if len(outs) != len(op.results):
            tr.fail(op.where, f"the {what} branch yields {len(outs)} values for {len(op.results)} results")
        branches.append((sub, outs))
    (t_blk, t_outs), (f_blk, f_outs) = branches
    not_cond = tr.scratch(f"{cond}.not")
    for (sub, outs), c in (((t_blk, t_outs), cond), ((f_blk, f_outs), not_cond)):
        if sub is f_blk:
            tr.emit(blk, "logical_not", {"X": [cond]}, {}, {"Out": [not_cond]}, op)
        reads, _ = _block_io(tr.program, sub)
        scope = tr.scratch("if_scope")
        blk.vars[scope] = Variable(blk, scope, type=VarType.STEP_SCOPES)
        tr.emit(blk, "conditional_block", {"Cond": [c], "Input": reads}, {"sub_block": sub.idx,
                                                                          "is_scalar_condition": True},
                {"Out": outs, "Scope": [scope]}, op)
    if not op.results:
        return
    mask = tr.scratch(f"{cond}.mask")
    tr.emit(blk, "cast", {"X": [cond]}, {"in_dtype": 0, "out_dtype": 2}, {"Out": [mask]}, op)
    for k, (t, f) in enumerate(zip(t_outs, f_outs)):
        tr.emit(blk, "select_input", {"X": [f, t], "Mask": [mask]}, {}, {"Out": [tr.result(op, k)]}, op)


def _values_read(pir_block):
    """Ids of the values the ops of ``pir_block`` (and of their regions) read."""
    out = set()
    for o in pir_block.ops:
        out.update(o.operands)
        for region in o.regions:
            for b in region:
                out |= _values_read(b)
    return out


@maps("pd_op.while")
def _while(tr, blk, op):
    from ..static.control_flow import _block_io
    body_pir = _region_block(tr, op, 0)
    carried = op.operands[1:]
    if len(body_pir.args) != len(carried) or len(op.results) != len(carried):
        tr.fail(op.where, f"carries {len(carried)} values but its body takes {len(body_pir.args)} and it returns "
                          f"{len(op.results)}")
    cond = tr.arg(blk, op, 0)
    # loop variables: copies of the initial values (the while op overwrites them; PIR values are immutable)
    cond_var = tr.fresh("while_cond")
    tr.emit(blk, "assign", {"X": [cond]}, {}, {"Out": [cond_var]}, op)
    loop_vars = []
    read_in_body = _values_read(body_pir)
    for i in range(len(carried)):
        init = tr.arg(blk, op, 1 + i)
        lv = tr.fresh(f"while_var_{i}")
        arg_id, arg_t = body_pir.args[i]
        tr.types[lv] = arg_t
        init_rank = len(blk._var_recursive(init).shape)
        if arg_t.kind == "dense" and init_rank != len(arg_t.dims) and arg_id not in read_in_body:
            # Paddle's placeholder for a variable first assigned inside the loop: a 0-D `full` typed as the
            # body's value. The body never reads it, so start from an empty tensor of the body's type (after
            # zero iterations eager Python would not have the variable at all)
            dims = [0 if d < 0 else int(d) for d in arg_t.dims]
            tr.emit(blk, "fill_constant", {}, _fill_attrs(_np_dtype(arg_t.dtype, op.where, tr), dims, 0.0),
                    {"Out": [lv]}, op)
        else:
            tr.emit(blk, "assign", {"X": [init]}, {}, {"Out": [lv]}, op)
        # the loop may change a dim the initial value fixes (a growing sequence): trust the body's type
        v = blk.vars[lv]
        arg_t = body_pir.args[i][1]
        if arg_t.kind == "dense" and len(arg_t.dims) == len(v.shape):
            v._shape = tuple(a if a == b else -1 for a, b in zip(v.shape, arg_t.dims))
        loop_vars.append(lv)
    body = _sub_block(tr, blk)
    mark = set(tr.values)
    for (vid, _), lv in zip(body_pir.args, loop_vars):
        tr.values[vid] = lv
    yld = tr.run_block(body_pir, body)
    if yld is None or len(yld.operands) != len(carried) + 1:
        tr.fail(op.where, "the body must end with cf.yield of the condition and every carried value")
    news = [tr.arg(body, yld, i) for i in range(len(yld.operands))]
    # values computed outside the body, or loop variables themselves, are copied first: the assigns
    # below overwrite loop variables one by one (a body that swaps two of them must see the old values)
    protected = set(loop_vars) | {cond_var}
    for i, n in enumerate(news):
        if n in protected or body.vars.get(n) is None:
            c = tr.scratch(f"{n}.next")
            tr.emit(body, "assign", {"X": [n]}, {}, {"Out": [c]}, op)
            news[i] = c
    for lv, n in zip(loop_vars, news[1:]):
        tr.emit(body, "assign", {"X": [n]}, {}, {"Out": [lv]}, op)
    tr.emit(body, "assign", {"X": [news[0]]}, {}, {"Out": [cond_var]}, op)
    tr.forget_since(mark)
    reads, writes = _block_io(tr.program, body)
    scope = tr.scratch("while_scope")
    blk.vars[scope] = Variable(blk, scope, type=VarType.STEP_SCOPES)
    tr.emit(blk, "while", {"X": reads, "Condition": [cond_var]}, {"sub_block": body.idx, "is_test": True},
            {"Out": writes, "StepScopes": [scope]}, op)
    for k, lv in enumerate(loop_vars):
        tr.bind(op, k, lv)


def translate(top, path):
    """``(program, feed_names, fetch_names)`` from the top `PirBlock` of a parsed PIR program."""
    tr = _Translator(path)
    gb = tr.program.global_block()
    yld = tr.run_block(top, gb)
    if yld is not None:
        tr.fail(yld.where, "cf.yield outside a control-flow region")
    cols = [c for c, _ in tr.fetches]
    if sorted(cols) != list(range(len(cols))):
        tr.fail("block 0", f"the fetch ops' col attributes {sorted(cols)} are not 0..{len(cols) - 1}")
    fetch_names = [n for _, n in sorted(tr.fetches)]
    if not fetch_names:
        tr.fail("block 0", "the program has no outputs (pd_op.fetch)")
    tr.program._bump()
    try:
        tr.program.verify()
    except ValueError as e:
        raise ModelFormatError(f"the translated program is inconsistent: {e}", path) from None
    return tr.program, list(tr.feeds), fetch_names


# the plain ops' and rnn's table entries register themselves on import
from . import pir_ops, pir_rnn  # noqa: E402,F401
