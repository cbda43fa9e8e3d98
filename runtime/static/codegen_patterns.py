"""What the compiled executor (codegen) proves about a Program before it emits cheaper code.

* Constants: an op with no inputs whose attributes fix its value (``fill_constant`` without
  ValueTensor / ShapeTensor / ShapeTensorList, ``assign_value`` without ValuesTensor) is
  evaluated ONCE at compile time by its own kernel. The value is
  *shared* (a read-only global of the generated function, no statement at all, so also hoisted
  out of while bodies) when nothing can hand it out or write it: one writer, not fed / fetched /
  persistable, and every reader is a compiled kernel in ``CONST_READERS`` (their outputs are new
  arrays) or inline control flow (which only tests it), running after the writer. Otherwise it is
  *copied*: ``name = const.copy()`` where the op was (a fresh array per run, as the kernel gives).
* Aliasing assigns: ``dst = assign(src)`` becomes ``dst = src`` when ``src`` is *fresh* — its one
  writer is in the same block, before the assign, and is a kernel in ``FRESH_KERNELS`` (a new
  array, never an input or a view of one: reshape2 / squeeze / unsqueeze / transpose / slice /
  split / cast may return views or the input itself, so they are not in it), a copied constant,
  an aliased assign of a fresh value or a select_input of two fresh values — and the assign is
  its only reader anywhere (no later op, loop iteration or gradient op sees ``src`` again) and it
  is not fed, fetched, persistable or an eager binding. The buffer then has one owner.
* The if/else pattern (FORMATS 7.1): conditional_block(Cond=c) / logical_not(c) /
  conditional_block(Cond=not c) / cast(c -> int32) / [constant initializers] / select_input(Mask=
  cast) ... compiled as one ``if c: ... else: ...``, when c is a bool variable the true branch does
  not write, ``not c`` is read only by the second conditional_block and the int32 mask only by
  these select_inputs (no gradient op reads them) and the initializers' outputs are not touched by
  the branches. Anything else keeps the op-by-op code.
"""
from __future__ import annotations

import collections
import inspect
import keyword
import math

import numpy as np

from ..ops import activation as _activation
from ..ops import zeros as _zeros
from ..ops.meta import normalize_axis
from ..ops.registry import lookup
from ..ops.shape import _slice_index, split_sizes
from .program import VarType
from .prune import op_reads_writes

# kernels whose every output is a new array (never an input, a view of one or a shared value)
FRESH_KERNELS = frozenset({
    "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div", "elementwise_pow",
    "elementwise_max", "elementwise_min", "elementwise_floordiv", "elementwise_mod",
    "less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal",
    "logical_and", "logical_or", "logical_not", "logical_xor", "matmul_v2", "mul", "assign", "scale",
    "relu", "tanh", "sigmoid", "exp", "log", "sqrt", "abs", "square", "concat", "stack",
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "fill_any_like", "fused_gemm_epilogue",
    "gelu", "silu",
})
# kernels that may read a shared constant: they never write an input and their outputs are new
# arrays, so the constant never escapes (``assign`` copies: only an assign of a *fresh* value aliases)
CONST_READERS = FRESH_KERNELS
# folded_constant (the constant_fold pass) is left as it is: its bound kernel already returns one
# precomputed read-only array, it only appears in the global block, and the pass's tests expect it
CONST_OPS = frozenset({"fill_constant", "assign_value"})
MAX_CONST_ELEMENTS = 1 << 16   # larger constants are made by their kernel each run (memory)


class Uses:
    """Readers and writers of every name over all blocks, and where each op sits.

    Ops owning sub-blocks (conditional_block, while) are not counted as writers: the ops of their
    sub-blocks that really write are. Their input lists do count as readers."""

    def __init__(self, program):
        self.readers = collections.defaultdict(list)    # one entry per occurrence in an input slot
        self.writers = collections.defaultdict(list)
        self.pos = {}       # id(op) -> (block idx, index in the block)
        self.owner = {}     # block idx -> the op owning it (None when several do)
        for blk in program.blocks:
            for i, op in enumerate(blk.ops):
                self.pos[id(op)] = (blk.idx, i)
                subs = op.sub_block_ids()
                for b in subs:
                    self.owner[b] = None if b in self.owner else op
                for n in op.input_arg_names:
                    self.readers[n].append(op)
                if not subs:
                    for n in op.output_arg_names:
                        self.writers[n].append(op)

    def sole_writer(self, n):
        w = self.writers.get(n, ())
        return w[0] if len(w) == 1 else None

    def runs_after(self, reader, writer):
        """Every run of ``reader`` follows a run of ``writer`` in the same pass over the writer's block:
        it is later in that block, or inside the sub-block of an op later in it."""
        wb, wi = self.pos[id(writer)]
        op = reader
        while op is not None:
            b, i = self.pos[id(op)]
            if b == wb:
                return i > wi
            op = self.owner.get(b)
        return False


def _no_inputs(op):
    return not any(op.inputs.get(s) for s in op.inputs)


def constant_value(op):
    """The value of a constant op computed by its own kernel (None: not a constant, too large, or
    the kernel raises — the error then stays at run time)."""
    if op.type not in CONST_OPS or not _no_inputs(op) or list(op.outputs) != ["Out"] or len(op.outputs["Out"]) != 1:
        return None
    opdef = lookup(op.type)
    args = [[] if slot.duplicable else None for slot in opdef.inputs]
    try:
        with np.errstate(all="ignore"):
            value = opdef.bind(op.attrs)(*args)
    except Exception:
        return None
    if type(value) is not np.ndarray or value.dtype.kind not in "biufc" or value.size > MAX_CONST_ELEMENTS:
        return None
    return value


def find_constants(program, kinds, uses, pinned):
    """id(op) -> (shared, value) for the constant ops compiled as kernels (see the module docstring)."""
    found = {}
    for blk in program.blocks:
        for op in blk.ops:
            if kinds.get(id(op)) != "kernel":
                continue
            value = constant_value(op)
            if value is None:
                continue
            n = op.outputs["Out"][0]
            shared = (n not in pinned and uses.sole_writer(n) is op
                      and all(_safe_const_reader(r, op, kinds, uses) for r in uses.readers.get(n, ())))
            if value.flags.writeable:
                value = value.copy()
            value.flags.writeable = False   # a safety net: nothing may write the compile-time value
            found[id(op)] = (shared, value)
    return found


def _safe_const_reader(r, writer, kinds, uses):
    kind = kinds.get(id(r))
    if kind is None:
        # a global-block op that does not run (pruned); anywhere else: run by an interpreted op
        return uses.pos[id(r)][0] == 0
    if kind == "cf" or (kind == "kernel" and r.type in CONST_READERS):
        return uses.runs_after(r, writer)
    return False


def find_aliases(program, kinds, uses, pinned, constants):
    """The ids of the ``assign`` ops that may be compiled as ``dst = src`` (see the module docstring)."""
    memo = {}

    def fresh(n):
        if n in pinned:
            return False
        w = uses.sole_writer(n)
        if w is None:
            return False
        kind = kinds.get(id(w))
        if kind == "kernel":
            if id(w) in constants:
                return not constants[id(w)][0]      # copied per run: fresh; shared: never
            if w.type == "assign":
                return aliased(w)
            return w.type in FRESH_KERNELS and w.type not in CONST_OPS
        if kind == "select":
            return all(len(uses.readers.get(x, ())) == 1 and fresh(x) for x in _unique(w.inputs["X"]))
        return False

    def aliased(op):
        key = id(op)
        if key not in memo:
            memo[key] = False   # cycles (loop-carried names) are not fresh
            memo[key] = _alias_ok(op)
        return memo[key]

    def _alias_ok(op):
        src, dst = op.inputs.get("X", []), op.outputs.get("Out", [])
        if len(src) != 1 or len(dst) != 1 or src[0] == dst[0]:
            return False
        src = src[0]
        w = uses.sole_writer(src)
        if w is None:
            return False
        (wb, wi), (ab, ai) = uses.pos[id(w)], uses.pos[id(op)]
        if wb != ab or wi >= ai:
            return False
        # the assign is the last reader: the others run between the writer and it, in the same block,
        # and make new arrays (so no view of src outlives them)
        rs = uses.readers.get(src, ())
        if sum(r is op for r in rs) != 1:
            return False
        for r in rs:
            if r is not op:
                b, i = uses.pos[id(r)]
                if not (b == wb and wi < i < ai and kinds.get(id(r)) == "kernel" and r.type in FRESH_KERNELS):
                    return False
        return fresh(src)

    return {id(op) for blk in program.blocks for op in blk.ops
            if op.type == "assign" and kinds.get(id(op)) == "kernel" and aliased(op)}


class CondMatch:
    """One if/else pattern: ops[start:end] of a block compiled as one ``if`` / ``else``."""

    def __init__(self, cond, true_op, false_op, inits, selects, end):
        self.cond = cond
        self.true_op = true_op
        self.false_op = false_op
        self.inits = inits          # constant initializers, emitted before the ``if``
        self.selects = selects      # [(out, false value, true value)]
        self.end = end


def match_cond(program, ops, i, kinds, uses, pinned):
    """The CondMatch starting at ``ops[i]`` (the ops of one block, as compiled), or None."""
    if len(ops) < i + 4:
        return None
    cb1, lnot, cb2, cast = ops[i:i + 4]
    if not (cb1.type == "conditional_block" and lnot.type == "logical_not" and cb2.type == "conditional_block"
            and cast.type == "cast"):
        return None
    if [kinds.get(id(o)) for o in (cb1, lnot, cb2, cast)] != ["cf", "kernel", "cf", "kernel"]:
        return None
    conds = cb1.inputs.get("Cond", [])
    if len(conds) != 1 or not cb1.attrs.get("is_scalar_condition") or not cb2.attrs.get("is_scalar_condition"):
        return None
    c = conds[0]
    if lnot.inputs.get("X") != [c] or cast.inputs.get("X") != [c] or len(lnot.outputs.get("Out", [])) != 1:
        return None
    nc = lnot.outputs["Out"][0]
    ci = cast.outputs.get("Out", [None])[0]
    if cb2.inputs.get("Cond") != [nc] or int(cast.attrs.get("in_dtype", -1)) != 0 or int(cast.attrs.get("out_dtype", -1)) != 2:
        return None
    var = cb1.block._find_var_recursive(c)
    if var is None or var.dtype.np != np.bool_:
        return None     # the cast mask and the truth of a non-bool c may disagree (0.5: true, cast 0)
    if nc in pinned or ci in pinned or uses.sole_writer(nc) is not lnot or uses.sole_writer(ci) is not cast:
        return None
    def runs(r):    # global-block ops that were pruned away do not run
        return kinds.get(id(r)) is not None or uses.pos[id(r)][0] != 0

    if any(r is not cb2 and runs(r) for r in uses.readers.get(nc, ())):
        return None
    r1, w1 = op_reads_writes(cb1)
    r2, w2 = op_reads_writes(cb2)
    if c in w1 or c in w2 or nc in w1 or nc in w2:
        return None
    j = i + 4
    inits = []
    while j < len(ops) and ops[j].type in ("fill_constant", "assign_value") and _no_inputs(ops[j]) \
            and kinds.get(id(ops[j])) == "kernel":
        inits.append(ops[j])
        j += 1
    selects = []
    while (j < len(ops) and ops[j].type == "select_input" and kinds.get(id(ops[j])) == "select"
           and ops[j].inputs.get("Mask") == [ci]):
        sel = ops[j]
        f, t = sel.inputs["X"]
        selects.append((sel.outputs["Out"][0], f, t))
        j += 1
    if not selects:
        inits, j = [], i + 4
    sel_ops = {id(o) for o in ops[j - len(selects):j]}
    if any(id(r) not in sel_ops and runs(r) for r in uses.readers.get(ci, ())):
        return None
    touched = set(r1) | set(w1) | set(r2) | set(w2) | {c}
    for op in inits:
        if any(n in touched for n in op.output_arg_names):
            return None
    if any(out in (c, nc, ci) for out, _, _ in selects):
        return None
    return CondMatch(c, cb1, cb2, inits, selects, j)


_SIGNATURES = {}    # kernel -> (its parameters, its **kwargs parameter if any); kernels are module-level


def direct_kwargs(opdef, attrs):
    """The attrs to pass when the generated code calls ``opdef.kernel`` itself (no ``bind`` wrapper):
    those that differ from the kernel's own keyword defaults (equal to the schema's; a test checks)
    or that it reads through ``**kwargs``. None: call the bound kernel (``make_kernel``, no signature,
    an attr name that is no Python identifier, an attr the kernel does not take)."""
    if opdef.make_kernel is not None or not attrs:
        return None
    sig = _SIGNATURES.get(opdef.kernel)
    if sig is None:
        try:
            params = inspect.signature(opdef.kernel).parameters
        except (TypeError, ValueError):
            params = None
        sig = _SIGNATURES[opdef.kernel] = (params, [p for p in (params or {}).values()
                                                    if p.kind is inspect.Parameter.VAR_KEYWORD])
    params, var_kw = sig
    if params is None:
        return None
    out = []
    for name, val in attrs.items():
        if not name.isidentifier() or keyword.iskeyword(name):
            return None
        p = params.get(name)
        if p is None or p.kind is inspect.Parameter.VAR_KEYWORD:
            if not var_kw:
                return None
            if not var_kw[0].name.startswith("_"):   # ``**_`` ignores the rest by convention
                out.append((name, val))
            continue
        if p.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            return None
        if p.default is not inspect.Parameter.empty and type(p.default) is type(val) and p.default == val:
            continue
        out.append((name, val))
    return out


def literal(val):
    """Python source for ``val`` when it is a simple literal that evaluates back to an equal value.

    Never for strings: attribute strings may come from a model file, and nothing read from a
    file becomes source text (the caller passes them in as globals instead)."""
    if val is None or type(val) in (bool, int):
        return repr(val)
    if type(val) is float and math.isfinite(val):
        return repr(val)
    return None


def _unique(names):
    seen = set()
    return [n for n in names if not (n in seen or seen.add(n))]


# -- inline ufunc calls ------------------------------------------------------------------------------
# Ops whose kernel, for operands of one float dtype, is exactly one numpy ufunc call: the generated code
# calls the ufunc itself behind a dtype guard and keeps the kernel call for every other input (dtype
# promotion, integer inputs ...), so results are the kernel's bit for bit. Saves the kernel's Python
# frame (~0.1-0.2 µs a call), which is what small tensors in loops pay most (the control-flow model).
# split / concat / slice of inputs whose shape the Program fixes are written out the same way (the
# kernel's own views or np.concatenate behind a guard on the runtime shape; the unrolled LSTM's steps).
_BINARY_INLINE = {"elementwise_add": np.add, "elementwise_sub": np.subtract, "elementwise_mul": np.multiply}
# unary ops whose kernel is ``f(as_float(x))``: the same ``f`` for float inputs (as_float returns them as
# they are); relu's kernel (zeros.relu, ``np.maximum(x, 0)``) takes every input, so it is called with no guard
_UNARY_INLINE = {"tanh": np.tanh, "sigmoid": _activation.sigmoid}
INLINE_GLOBALS = {"_uf_" + t.split("_")[-1]: f for t, f in {**_BINARY_INLINE, **_UNARY_INLINE}.items()}
# comparisons: ``np.asarray(ufunc(x, y))`` for operands of one dtype (the kernel's asarray keeps 0-D results arrays)
_COMPARE_INLINE = {"less_than": np.less, "less_equal": np.less_equal, "greater_than": np.greater,
                   "greater_equal": np.greater_equal, "equal": np.equal, "not_equal": np.not_equal}
INLINE_GLOBALS.update({"_uf_" + t: f for t, f in _COMPARE_INLINE.items()})
INLINE_GLOBALS["_uf_asarray"] = np.asarray
INLINE_GLOBALS["_uf_concatenate"] = np.concatenate
INLINE_GLOBALS["_uf_relu"] = _zeros.relu
INLINABLE = (frozenset(_BINARY_INLINE) | frozenset(_UNARY_INLINE) | frozenset(_COMPARE_INLINE)
             | {"scale", "relu", "split", "concat", "slice"})


def _split_views(op, args, fallback):
    """``split`` with sizes fixed by its attributes and an input of known rank and size along the axis:
    the kernel's basic-slicing views written out, behind a guard on that rank and size (the kernel keeps
    every other input and its errors). ~0.45 µs for 4 pieces against ~1.3 µs for the kernel's call."""
    if len(args) != 3 or args[1:] != ["None", "[]"]:
        return None
    xv = op.block._find_var_recursive(op.inputs["X"][0])
    if xv is None or xv.type != VarType.LOD_TENSOR or len(xv.shape) < 1:
        return None
    nd = len(xv.shape)
    try:
        ax = normalize_axis(int(op.attrs.get("axis", 0)), nd, "split: axis")
        dim = int(xv.shape[ax])
        if dim < 0:
            return None
        sizes = split_sizes(dim, int(op.attrs.get("num", 0)), op.attrs.get("sections", []), ax, xv.shape)
    except (ValueError, TypeError):
        return None         # the kernel raises its error at run time
    if len(sizes) != len(op.outputs.get("Out", ())) or any(type(n) is not int or n < 0 for n in sizes):
        return None
    x, lead, start, views = args[0], ":, " * ax, 0, []
    for n in sizes:
        views.append(f"{x}[{lead}{start}:{start + n}]")
        start += n
    return f"({', '.join(views)},) if {x}.ndim == {nd} and {x}.shape[{ax}] == {dim} else {fallback}"


def _concat_known(op, args, fallback):
    """``concat`` of inputs whose shapes and dtype the Program fixes: ``np.concatenate`` (the kernel's
    own call) behind a guard on every input's exact shape and one dtype, under which it cannot fail
    (other inputs take the kernel and its errors). ~0.8 µs for two inputs against ~1.3 µs."""
    if len(args) != 2 or args[1] != "None" or not (args[0].startswith("[") and args[0].endswith("]")):
        return None
    srcs = args[0][1:-1].split(", ")
    names = op.inputs.get("X", [])
    if not names or len(srcs) != len(names) or not all(a.isidentifier() for a in srcs):
        return None
    vs = [op.block._find_var_recursive(n) for n in names]
    if any(v is None or v.type != VarType.LOD_TENSOR for v in vs):
        return None
    shapes = [tuple(int(d) for d in v.shape) for v in vs]
    nd = len(shapes[0])
    if nd == 0 or any(len(s) != nd or min(s, default=0) < 0 for s in shapes):
        return None
    if any(v.dtype.np != vs[0].dtype.np for v in vs):
        return None
    try:
        ax = normalize_axis(int(op.attrs.get("axis", 0)), nd, "concat: axis")
    except (ValueError, TypeError):
        return None
    if any(s[:ax] + s[ax + 1:] != shapes[0][:ax] + shapes[0][ax + 1:] for s in shapes):
        return None
    guard = [f"{a}.shape == {s!r}" for a, s in zip(srcs, shapes)]
    guard[1:1] = [f"{a}.dtype is {srcs[0]}.dtype" for a in srcs[1:]]
    return f"_uf_concatenate({args[0]}, {ax}) if {' and '.join(guard)} else {fallback}"


def _index_source(idx):
    """Python source for a basic index tuple of ints, int slices and Ellipsis (None: anything else)."""
    parts = []
    for e in idx:
        if e is Ellipsis:
            parts.append("...")
        elif type(e) is int:
            parts.append(repr(e))
        elif type(e) is slice and all(p is None or type(p) is int for p in (e.start, e.stop, e.step)):
            b = lambda p: "" if p is None else repr(p)      # noqa: E731
            parts.append(f"{b(e.start)}:{b(e.stop)}" + ("" if e.step is None else f":{e.step!r}"))
        else:
            return None
    return ", ".join(parts)


def _slice_known(op, args, fallback):
    """``slice`` with attribute starts / ends of an input whose shape the Program fixes: the index the
    kernel would build for that shape, written out, behind a guard on the exact shape (~0.1 µs against
    ~0.25 µs; other shapes take the kernel and its errors)."""
    if args[1:] != ["None", "None", "[]", "[]"]:
        return None
    xv = op.block._find_var_recursive(op.inputs["Input"][0])
    if xv is None or xv.type != VarType.LOD_TENSOR:
        return None
    shape = tuple(int(d) for d in xv.shape)
    if not shape or min(shape) < 0:
        return None
    a = op.attrs
    try:
        idx = _slice_index(shape, [int(v) for v in a.get("axes", ())], [int(v) for v in a.get("starts", ())],
                           [int(v) for v in a.get("ends", ())], None, [int(v) for v in a.get("decrease_axis", ())])
    except (ValueError, TypeError, IndexError):
        return None
    src = _index_source(idx)
    if src is None:
        return None
    return f"{args[0]}[{src}] if {args[0]}.shape == {shape!r} else {fallback}"


def inline_call(op, args, fallback):
    """Source of the guarded expression for ``op`` (its argument sources ``args``; ``fallback``: the source
    of the kernel call it replaces, kept for the inputs the guard sends back), or None when the op has no
    exact inline form. The ufuncs are the ``INLINE_GLOBALS``."""
    t = op.type
    if t == "split":
        return _split_views(op, args, fallback)
    if t == "concat":
        return _concat_known(op, args, fallback)
    if t == "slice" and len(args) == 5:
        return _slice_known(op, args, fallback)
    if t in _BINARY_INLINE:
        if op.attrs.get("axis", -1) != -1 or len(args) != 2:
            return None
        a, b = args
        return f"_uf_{t.split('_')[-1]}({a}, {b}) if {a}.dtype is {b}.dtype else {fallback}"
    if t in _COMPARE_INLINE:
        if op.attrs.get("axis", -1) != -1 or len(args) != 2:
            return None
        a, b = args
        return f"_uf_asarray(_uf_{t}({a}, {b})) if {a}.dtype is {b}.dtype else {fallback}"
    if t == "relu" and len(args) == 1:
        return f"_uf_relu({args[0]})"       # the kernel's own function (np.maximum against a zero array)
    if t in _UNARY_INLINE and len(args) == 1:
        # the kernel casts integer / bool inputs to float32 first (as_float); floats go as they are
        return f"_uf_{t}({args[0]}) if {args[0]}.dtype.kind == 'f' else {fallback}"
    if t == "scale" and args[1:] == ["None", "None"] and op.attrs.get("bias_after_scale", True):
        s, b = op.attrs.get("scale", 1.0), op.attrs.get("bias", 0.0)
        if type(s) is not float or type(b) is not float or not (math.isfinite(s) and math.isfinite(b)):
            return None
        if b == 0:
            # the scale kernel of float tensors: np.multiply(x, scale) with the attribute as a Python float
            return f"_uf_mul({args[0]}, {s!r}) if {args[0]}.dtype.kind in 'fc' else {fallback}"
        if s == 1.0:
            # ``x + b`` / ``x - b``: the kernel's ``x * 1.0`` is x itself (exact), then ``+= bias``
            return f"_uf_add({args[0]}, {b!r}) if {args[0]}.dtype.kind in 'fc' else {fallback}"
        return None
    return None
