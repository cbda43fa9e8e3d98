"""Compile a Program's global block to a Python function (like torch.fx's generated code).

Every variable becomes a local of the generated function; each op becomes one call of its
kernel, stored as a global of the function: the kernel itself called with only the attrs that
differ from its defaults (``codegen_patterns.direct_kwargs``), or the ``OpDef.bind`` result for
ops with a ``make_kernel``. Persistable values are loaded from the scope (or the program's eager
bindings) on entry and written back on exit; locals are deleted after their last use so memory
is freed as early as with the interpreter (locals of sub-blocks after the top-level op owning them).

Control flow is compiled inline: ``conditional_block`` becomes ``if``, ``while`` a Python
``while`` and ``select_input`` a conditional expression, their sub-block ops statements of the
same function (names the sub-blocks write are set to ``_UNSET`` first, so a branch not taken
or a loop run zero times leaves them defined, as absent from the interpreter's env). The if/else
op pattern (FORMATS 7.1) becomes ONE ``if c: <true ops>; out = t`` / ``else: <false ops>; out = f``
in any block. A control-flow op whose step scopes something reads (a gradient op) and every other
op with ``OpDef.interpret`` (print, tensor arrays, py_func ...) run their ``interpret`` on a dict
env holding the locals they touch.

What codegen_patterns proves first (its docstring has the rules): constant ops are computed once
at compile time and either shared as read-only globals (no statement: hoisted out of loops) or,
when they could escape (fetched, persistable, read by an op that may hand them out), copied with
``.copy()`` where the op was; ``assign`` ops whose source is a fresh temporary nothing reads
afterwards become plain ``dst = src`` (loop-carried values, branch outputs); elementwise ops that
are one numpy ufunc for float operands of one dtype call it inline behind a dtype guard
(``codegen_patterns.inline_call``); top-level while loops driven by an integer counter keep it in
a Python int (``codegen_loops``). The source is registered in ``linecache`` so tracebacks and
debuggers show it.
"""
from __future__ import annotations

import itertools
import keyword
import linecache
import re
import weakref

import numpy as np

from ..ops.registry import lookup
from .codegen_loops import bool_array, int_array, match_counter, match_init
from .codegen_patterns import (INLINABLE, INLINE_GLOBALS, Uses, direct_kwargs, find_aliases, find_constants,
                                inline_call, literal, match_cond)
from .interpreter import describe_site, run_block
from .passes import optimize
from .partial_grads import partial_kernel
from .program import VarType
from .prune import op_reads_writes, prune_ops


class _Unset:
    """Value of a variable an interpreted op was expected to write but did not."""

    def __repr__(self):
        return "<unset>"


UNSET = _Unset()
_counter = itertools.count()
_RESERVED = {"feed", "S", "B", "_env", "_UNSET", "run_block", "None", "True", "False", "_truth", "_all_true",
             "_nonempty", "_mask", "_no_value", "np", "_int_array", "_bool_array"} | set(INLINE_GLOBALS)


_MAX_IDENT = 48


class CompileError(RuntimeError):
    pass


class _Names:
    """Valid, unique Python identifiers for variable names and kernel globals."""

    def __init__(self):
        self.used = set(_RESERVED)
        self.next_suffix = {}   # identifier base -> suffix of the last name handed out (0: none)
        self.of = {}
        self.consts = {}

    def fresh(self, base):
        # ASCII only: names read from a model file may hold any character, and Python folds
        # non-ASCII identifiers with NFKC (two different names could become one local)
        ident = re.sub(r"[^0-9A-Za-z_]", "_", str(base))[:_MAX_IDENT] or "v"
        if ident[0].isdigit() or keyword.iskeyword(ident) or ident.startswith("__"):
            ident = "v_" + ident
        # the suffix search resumes where the last one for this base ended: every earlier candidate is
        # still taken (``used`` only grows), so the name is the same as a search from 1
        i = self.next_suffix.get(ident, 0)
        cand = ident if i == 0 else f"{ident}_{i}"
        while cand in self.used:
            i += 1
            cand = f"{ident}_{i}"
        self.next_suffix[ident] = i
        self.used.add(cand)
        return cand

    def var(self, name):
        ident = self.of.get(name)
        if ident is None:
            ident = self.of[name] = self.fresh(name)
        return ident

    def const(self, value, glob, hint="k"):
        """A global of the generated function holding ``value``: strings from the Program (variable
        names, attributes) never become source text, they are passed in."""
        key = (type(value), value)
        ident = self.consts.get(key)
        if ident is None:
            ident = self.consts[key] = self.fresh(hint)
            glob[ident] = value
        return ident


class CompiledProgram:
    """The generated function and what the executor needs to call it.

    ``fn(feed, S, B)``: ``feed`` name -> array, ``S`` the scope's dict, ``B`` the program's eager
    bindings (name -> Tensor); returns the fetched values as a tuple."""

    def __init__(self, fn, source, filename, line_ops, ops, feed_names, fetch_names):
        self.fn = fn
        self.source = source
        self.filename = filename
        self.line_ops = line_ops      # line number -> ("op", Operator) | ("load", var name)
        self.ops = ops                # the ops that run (after pruning)
        self.feed_names = feed_names
        self.fetch_names = fetch_names

    def listing(self):
        """The generated source for people to read: each statement that runs an op is followed by a
        comment with the user's file, line and source text that built the op. Display only (the
        text may come from a model file): the compiled source has no such comments, tracebacks find
        the user's line through ``line_ops``; line numbers are the same in both."""
        out, last = [], None
        for i, line in enumerate(self.source.splitlines(), 1):
            site = self.line_ops.get(i)
            loc = _location(site[1]) if site is not None and site[0] == "op" else ""
            if loc and loc != last:
                line = f"{line}  # {_printable(loc)}"
            last = loc or last
            out.append(line)
        return "\n".join(out) + "\n"

    def site_of(self, tb):
        """What the generated code was doing at the innermost traceback entry in its source."""
        found = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                found = self.line_ops.get(tb.tb_lineno)
            tb = tb.tb_next
        return found


def compile_program(program, feed_names=(), fetch_names=(), prune=True, inline_control_flow=True, passes=None):
    """``inline_control_flow=False`` runs every control-flow op through its ``interpret`` (the slow
    path; kept for comparisons and benchmarks). ``passes``: graph passes to run first (None: the
    default set / DY2ST_PASSES; () none), on a clone: ``program`` itself is not changed."""
    feed_names = tuple(feed_names)
    fetch_names = tuple(fetch_names)
    program = optimize(program, feed_names, fetch_names, passes)
    block = program.global_block()
    ops = prune_ops(block, fetch_names, feed_names) if prune else list(block.ops)
    bindings = program._eager_bindings
    # step-scope variables something reads (a gradient op, or the caller: a forward run whose
    # backward runs later fetches them): their op keeps the interpreted path, which records them
    scope_readers = {n for blk in program.blocks for op in blk.ops for n in op.input_arg_names}
    scope_readers.update(fetch_names)

    def persistable(n):
        v = block.vars.get(n)
        return n in bindings or (v is not None and v.persistable)

    names = _Names()
    kname = lambda n: names.const(n, glob, "name_" + n)    # noqa: E731  a variable name, as a constant
    glob = {"run_block": run_block, "_UNSET": UNSET, "_truth": _truth, "_all_true": _all_true,
            "_nonempty": _nonempty, "_mask": _mask, "_no_value": _no_value, "_int_array": int_array,
            "_bool_array": bool_array, **INLINE_GLOBALS}
    info = []
    defined = set()
    used_feeds = []
    feed_set, used_set = set(feed_names), set()     # membership tests (the lists keep the order)
    loads = []
    empty_arrays = []
    kinds = {}          # id(op) -> "kernel" | "interp" | "cf" | "select"
    for n in feed_names:
        defined.add(n)
    for n, var in block.vars.items():
        # tensor arrays start empty every run (Paddle's scope creates them so), unless fed
        if var.type == VarType.LOD_TENSOR_ARRAY and n not in defined and not persistable(n):
            empty_arrays.append(n)
            defined.add(n)

    def need(n, op):
        if n in defined:
            if n in feed_set and n not in used_set:
                used_feeds.append(n)
                used_set.add(n)
            return True
        if persistable(n):
            loads.append(n)
            defined.add(n)
            return True
        if _is_array_var(program, n):
            # a tensor array nothing has written yet is empty (Paddle's scope creates it so)
            empty_arrays.append(n)
            defined.add(n)
            return True
        return False

    def require(n, known, strict=True):
        # need() also records which feeds are used, so ask it first for names not set in the walk
        if (n in known and n not in defined) or need(n, None):
            known.add(n)
        elif strict:
            raise _Fallback(n)

    def kernel_writes(op, opdef):
        # intermediate outputs (XShape ...) are never produced by kernels
        return [n for slot in opdef.outputs if not slot.intermediate for n in op.outputs.get(slot.name, [])]

    def scan_cf(op, known, reads, writes):
        """Check that ``op`` (conditional_block / while) and its sub-block can be compiled inline;
        collect every name read and written inside (sub-block locals included)."""
        conds = _cf_conds(op)
        for n in conds:
            require(n, known)
        reads.extend(conds)
        for sop in program.blocks[op.attrs["sub_block"]].ops:
            sdef = lookup(sop.type)
            kind = _classify(sop, sdef, scope_readers)
            if kind == "cf":
                scan_cf(sop, known, reads, writes)
            elif kind == "interp":
                r, w = op_reads_writes(sop)
                for n in r:
                    require(n, known, strict=False)
                reads.extend(r)
                writes.extend(w)
                known.update(w)
            else:
                r = list(sop.input_arg_names)
                for n in r:
                    require(n, known)
                w = sop.output_arg_names if kind == "select" else kernel_writes(sop, sdef)
                reads.extend(r)
                writes.extend(w)
                known.update(w)
            kinds[id(sop)] = kind
        kinds[id(op)] = "cf"

    for op in ops:
        opdef = lookup(op.type)
        kind = _classify(op, opdef, scope_readers)
        if not inline_control_flow and kind in ("cf", "select"):
            kind = "interp"
        if kind in ("cf", "select"):
            try:
                if kind == "cf":
                    reads, writes = [], []
                    scan_cf(op, _Scoped(defined), reads, writes)
                    reads, writes = _unique(reads), _unique(writes)
                else:
                    reads = list(op.input_arg_names)
                    for n in reads:
                        require(n, _Scoped(defined))
                    writes = list(op.output_arg_names)
            except _Fallback:
                kind = "interp"
        if kind in ("kernel", "interp"):
            reads, writes = op_reads_writes(op)
            if kind == "kernel":
                writes = kernel_writes(op, opdef)
            for n in reads:
                if not need(n, op) and kind == "kernel":
                    raise CompileError(f"op '{op.type}' reads variable '{n}', which has no value: it is not fed, "
                                       f"not computed by an earlier op and not in the scope{describe_site(op)}")
        kinds[id(op)] = kind
        info.append((op, opdef, reads, writes, kind))
        defined.update(writes)
    for n in fetch_names:
        if not need(n, None):
            if n not in block.vars:
                raise ValueError(f"fetch: variable '{n}' is not in the program")
            raise ValueError(f"fetch: variable '{n}' was not computed by this run of the program: it is not "
                               f"fed, not persistable and no op that runs writes it")
    for n in feed_names:
        if persistable(n) and n not in used_set:
            used_feeds.append(n)
            used_set.add(n)
    stores = _unique([n for _, _, _, w, _ in info for n in w if persistable(n)]
                     + [n for n in used_feeds if persistable(n)])

    keep_to_end = set(fetch_names) | set(stores)
    last = {}
    for i, (_, _, reads, writes, _) in enumerate(info):
        for n in reads:
            last[n] = i
        for n in writes:
            last[n] = i
    dies_after = {}
    for n, i in last.items():
        if n not in keep_to_end:
            dies_after.setdefault(i, []).append(n)

    # what codegen_patterns proves: constants computed once, assigns that may alias, if/else patterns
    pinned = set(feed_names) | set(fetch_names) | set(bindings)
    pinned.update(n for blk in program.blocks for n, var in blk.vars.items() if var.persistable)
    uses = Uses(program)
    constants = find_constants(program, kinds, uses, pinned)
    aliases = find_aliases(program, kinds, uses, pinned, constants)
    shared = set()      # names bound to a shared constant: a global of the function, never a local
    for blk in program.blocks:
        for op in blk.ops:
            if constants.get(id(op), (False,))[0]:
                n = op.outputs["Out"][0]
                ident = names.of[n] = names.fresh(f"const_{n}")
                glob[ident] = constants[id(op)][1]
                shared.add(n)

    # top-level counted whiles whose counter and first condition are constants: start them as Python values
    shared_values = {n: glob[names.of[n]] for n in shared}
    counters, inits, pre_skip = {}, {}, set()
    top_ops = [entry[0] for entry in info]
    for op, _, _, _, kind in info:
        if op.type == "while" and kind == "cf":
            c = counters[id(op)] = match_counter(program, op, shared_values)
            # fetched values are fine (rebuilt after the loop as it leaves them); feeds, persistables not
            m = None if c is None else match_init(program, op, c, top_ops, kinds, uses, constants,
                                                    pinned - set(fetch_names), shared_values)
            if m is not None:
                inits[id(op)] = m
                pre_skip.update(m[2])

    fname = f"run_program_{program.id}_v{program.version}"
    filename = f"<dy2st-compiled program {program.id} v{program.version} #{next(_counter)}>"
    lines = [f"def {fname}(feed, S, B):"]
    line_ops = {}

    def emit(text, site=None, depth=1):
        lines.append("    " * depth + text)
        if site is not None:
            line_ops[len(lines)] = site

    for n in loads:
        src = f"B[{kname(n)}]._data" if n in bindings else f"S[{kname(n)}]"
        emit(f"{names.var(n)} = {src}", ("load", n))
    for n in used_feeds:
        emit(f"{names.var(n)} = feed[{kname(n)}]")
    for n in empty_arrays:
        emit(f"{names.var(n)} = []")
    v = names.var
    top_live_after = []      # [names read after the top-level while being emitted], else empty
    definite = set(loads) | set(used_feeds) | set(empty_arrays)    # locals that surely hold a value
    maybe = set()                                # locals that may hold _UNSET (not written on every path)

    def emit_interp(op, opdef, site, depth, defs):
        reads, writes = op_reads_writes(op)
        k = names.fresh(f"{op.type}_interpret")
        o = names.fresh(f"op_{op.type}")
        glob[k], glob[o] = opdef.interpret, op
        seen = _unique([n for n in reads + writes if n in defs or n in maybe])
        emit("_env = {" + ", ".join(f"{kname(n)}: {v(n)}" for n in seen if n in defs) + "}", site, depth)
        for n in seen:
            if n not in defs:
                emit(f"if {v(n)} is not _UNSET: _env[{kname(n)}] = {v(n)}", None, depth)
        emit(f"{k}({o}, _env, run_block)", site, depth)
        for n in writes:
            if n in defs:
                emit(f"{v(n)} = _env[{kname(n)}]", site, depth)
            else:
                emit(f"{v(n)} = _env.get({kname(n)}, _UNSET)", site, depth)
                maybe.add(n)
        emit("del _env", None, depth)

    def emit_kernel(op, opdef, site, depth, defs):
        for n in _unique(op.input_arg_names):
            if n not in defs:
                # set only on some paths (after control flow): fail as the interpreter does
                o = names.fresh(f"op_{op.type}")
                glob[o] = op
                emit(f"if {v(n)} is _UNSET: _no_value({o}, {kname(n)})", site, depth)
        writes = kernel_writes(op, opdef)
        if id(op) in constants:
            is_shared, value = constants[id(op)]
            if not is_shared:   # a fresh copy per run, as the kernel would make
                k = names.fresh(f"const_{op.type}")
                glob[k] = value
                emit(f"{v(writes[0])} = {k}.copy()", site, depth)
            defs.update(writes)
            return
        if id(op) in aliases:   # src is a fresh array nothing else reads: hand it over
            emit(f"{v(op.outputs['Out'][0])} = {v(op.inputs['X'][0])}", site, depth)
            defs.update(writes)
            return
        if op.type == "assign" and op.inputs.get("X", [None])[0] in shared and writes:
            # the copy assign's kernel makes (np.array(x, copy=True)) of a C-contiguous constant
            emit(f"{v(writes[0])} = {v(op.inputs['X'][0])}.copy()", site, depth)
            defs.update(writes)
            return
        k = names.fresh(op.type)
        direct = direct_kwargs(opdef, op.attrs)
        kwargs = ""
        if direct is None:
            glob[k] = opdef.bind(op.attrs)
        else:
            glob[k] = opdef.kernel
            for a, val in direct:
                lit = literal(val)
                if lit is None:
                    lit = names.fresh(f"{k}_{a}")
                    glob[lit] = val
                kwargs += f", {a}={lit}"
        args = []
        for slot in opdef.inputs:
            ns = op.inputs.get(slot.name, [])
            if slot.duplicable:
                args.append("[" + ", ".join(v(n) for n in ns) + "]")
            else:
                args.append(v(ns[0]) if ns else "None")
        targets = []
        for slot in opdef.outputs:
            if slot.intermediate:
                continue
            ns = op.outputs.get(slot.name, [])
            if slot.duplicable:
                targets.append("[" + ", ".join(v(n) for n in ns) + "]" if ns else "_")
            else:
                targets.append(v(ns[0]) if ns else "_")
        if "_" in targets and len(targets) > 1:
            # outputs nothing reads (gradients the backward pruned): a kernel that skips them, if any
            part = partial_kernel(op.type, [t != "_" for t in targets], op.attrs)
            if part is not None:
                glob[k], kwargs = part, ""
        call = f"{k}({', '.join(args)}{kwargs if args else kwargs[2:]})"
        if len(targets) == 1 and targets[0] != "_" and op.type in INLINABLE:
            call = inline_call(op, args, call) or call
        if len(targets) == 1 and targets[0] == "_":
            emit(call, site, depth)
        else:
            emit(f"{', '.join(targets)} = {call}", site, depth)
        defs.update(writes)

    def truth(n, what, defs):
        # measured: _truth's ``bool(a.item())`` (~45 ns a test) beats every other function body; an
        # inline ``c.__class__ is _nd and c.size == 1`` guard saves ~10 ns, not worth the noise
        return f"_truth({v(n)}, {what!r})"

    def emit_cf(op, site, depth, defs):
        names_ = _cf_conds(op)
        conds = [v(n) for n in names_]
        counter = None
        if op.type == "while" and depth == 1 and top_live_after:
            counter = counters.get(id(op))
        if counter is not None:
            emit_counted_while(op, counter, site, defs)
            return
        if op.type == "while":
            emit(f"while {truth(names_[0], 'while', defs)}:", site, depth)
        elif not op.attrs.get("is_scalar_condition", False):
            emit("if " + (" and ".join(f"_nonempty({c})" for c in conds) or "True") + ":", site, depth)
        elif len(conds) == 1:
            emit(f"if {truth(names_[0], 'conditional_block', defs)}:", site, depth)
        else:
            emit(f"if _all_true(({', '.join(conds)},), 'conditional_block'):", site, depth)
        inner = _Scoped(defs)   # what the body defines is not sure to exist after it
        emit_ops(program.blocks[op.attrs["sub_block"]].ops, depth + 1, inner)

    def emit_counted_while(op, c, site, defs):
        """A top-level while whose condition a `codegen_loops.Counter` drives: the counter in a Python int."""
        ctr, cv = names.fresh("counter"), v(c.cond)
        init = inits.get(id(op))
        if init is not None:        # match_init: the ops that made the start value and condition are left out
            emit(f"{ctr} = {int(init[0])}", site, 1)
            emit(f"{cv} = {bool(init[1])}", site, 1)
            emit(f"while {cv}:", site, 1)
        else:
            emit(f"{ctr} = int({v(c.var)}.item())", site, 1)
            emit(f"while {cv} is True or ({cv} is not False and _truth({cv}, 'while')):", site, 1)
        inner = _Scoped(defs)
        emit_ops([sop for sop in program.blocks[op.attrs["sub_block"]].ops if id(sop) not in c.skip], 2, inner)
        emit(f"{ctr} += {c.step}", site, 2)
        emit(f"{cv} = {ctr} {c.compare} {c.bound}", site, 2)
        live = top_live_after[0]
        if c.var in live:
            dt, shape = names.fresh("counter_dtype"), names.fresh("counter_shape")
            glob[dt], glob[shape] = c.dtype, c.shape
            emit(f"{v(c.var)} = _int_array({ctr}, {dt}, {shape})", site, 1)
        if c.cond in live:
            shape = names.fresh("cond_shape")
            glob[shape] = c.cond_shape
            emit(f"{cv} = _bool_array({cv}, {shape})", site, 1)

    def emit_cond(m, depth, defs):
        """An if/else pattern (codegen_patterns.match_cond) as one ``if`` / ``else``."""
        for op in m.inits:
            emit_op(op, lookup(op.type), kinds[id(op)], depth, defs)
        branches = []
        for head, op, pick in (("if " + truth(m.cond, "conditional_block", defs) + ":", m.true_op, 2),
                               ("else:", m.false_op, 1)):
            emit(head, ("op", op), depth)
            inner = _Scoped(defs)
            emit_ops(program.blocks[op.attrs["sub_block"]].ops, depth + 1, inner)
            for sel in m.selects:
                out, src = sel[0], sel[pick]
                emit(f"{v(out)} = {v(src)}", None, depth + 1)
                if src in inner:
                    inner.add(out)
                else:
                    inner.discard(out)
            branches.append(inner)
        for out, _, _ in m.selects:
            if out in branches[0] and out in branches[1]:
                defs.add(out)
            else:
                defs.discard(out)
                maybe.add(out)

    def emit_ops(ops, depth, defs):
        start = len(lines)
        i = 0
        while i < len(ops):
            m = match_cond(program, ops, i, kinds, uses, pinned) if ops[i].type == "conditional_block" else None
            if m is not None:
                emit_cond(m, depth, defs)
                i = m.end
                continue
            emit_op(ops[i], lookup(ops[i].type), kinds[id(ops[i])], depth, defs)
            i += 1
        if len(lines) == start:
            emit("pass", None, depth)

    def emit_op(op, opdef, kind, depth, defs):
        site = ("op", op)
        if kind == "cf":
            emit_cf(op, site, depth, defs)
        elif kind == "select":
            x0, x1 = (v(n) for n in op.inputs["X"])
            out = op.outputs["Out"][0]
            emit(f"{v(out)} = {x1} if _mask({v(op.inputs['Mask'][0])}) else {x0}", site, depth)
            if op.inputs["X"][0] in defs and op.inputs["X"][1] in defs:
                defs.add(out)
            else:
                maybe.add(out)
        elif kind == "interp":
            emit_interp(op, opdef, site, depth, defs)
        else:
            emit_kernel(op, opdef, site, depth, defs)

    top = [entry[0] for entry in info]
    i = 0
    while i < len(info):
        op, opdef = info[i][0], info[i][1]
        m = match_cond(program, top, i, kinds, uses, pinned) if op.type == "conditional_block" else None
        end = m.end if m is not None else i + 1
        cf_writes = _unique([n for e in info[i:end] if e[4] == "cf" for n in e[3] if n not in shared])
        # every name the sub-blocks write exists as a local even when a branch is not taken / the
        # loop runs zero times; persistables keep their scope value then, as with the interpreter
        unset = []
        for n in cf_writes:
            if n in definite or n in maybe:
                continue
            if n in bindings:
                emit(f"{v(n)} = B[{kname(n)}]._data")
                definite.add(n)
                continue
            if persistable(n):
                emit(f"{v(n)} = S.get({kname(n)}, _UNSET)")
            else:
                unset.append(v(n))
            maybe.add(n)
        for k in range(0, len(unset), 8):
            emit(" = ".join(unset[k:k + 8]) + " = _UNSET")
        if m is not None:
            emit_cond(m, 1, definite)
        else:
            if op.type == "while" and info[i][4] == "cf":   # what is read after it (codegen_loops)
                top_live_after[:] = [keep_to_end | {n for n, j in last.items() if j >= end}]
            if id(op) not in pre_skip:
                emit_op(op, opdef, info[i][4], 1, definite)
            top_live_after.clear()
        for n in cf_writes:
            if n not in definite:
                maybe.add(n)
        dead = [n for k in range(i, end) for n in dies_after.get(k, ())
                if (n in definite or n in maybe) and n not in shared]
        if dead:
            emit("del " + ", ".join(v(n) for n in _unique(dead)))
        i = end
    for n in stores:
        dst = f"B[{kname(n)}]._data" if n in bindings else f"S[{kname(n)}]"
        if n in definite:
            emit(f"{dst} = {v(n)}")
        else:
            emit(f"if {v(n)} is not _UNSET: {dst} = {v(n)}")
    emit("return (" + "".join(f"{v(n)}, " for n in fetch_names).rstrip() + ")")
    source = "\n".join(lines) + "\n"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, "exec")
    exec(code, glob)
    compiled = CompiledProgram(glob[fname], source, filename, line_ops, ops, tuple(used_feeds), fetch_names)
    # the source stays readable (tracebacks, debuggers) as long as the function lives; then it goes,
    # or every program compiled and dropped (bounded caches evicting) would keep its text for good
    weakref.finalize(compiled, linecache.cache.pop, filename, None)
    return compiled


def _is_array_var(program, name):
    for blk in program.blocks:
        v = blk.vars.get(name)
        if v is not None:
            return v.type == VarType.LOD_TENSOR_ARRAY
    return False


class _Scoped:
    """The names of an enclosing set plus this scope's changes, without copying the enclosing set
    (a copy per control-flow op was quadratic in the program's length). The enclosing set must not
    change while the scope is in use."""

    __slots__ = ("base", "added", "removed")

    def __init__(self, base):
        self.base, self.added, self.removed = base, set(), set()

    def __contains__(self, n):
        return n in self.added or (n in self.base and n not in self.removed)

    def add(self, n):
        self.added.add(n)
        self.removed.discard(n)

    def update(self, names):
        for n in names:
            self.add(n)

    def discard(self, n):
        self.added.discard(n)
        self.removed.add(n)


class _Fallback(Exception):
    """A control-flow op that cannot be compiled inline (it reads a name with no value yet)."""


def _classify(op, opdef, scope_readers):
    """How the generated code runs ``op``: 'cf' (conditional_block / while compiled inline), 'select'
    (select_input inline), 'interp' (``OpDef.interpret`` on a dict env) or 'kernel'."""
    if opdef.interpret is None:
        return "kernel"
    if op.type == "select_input":
        if len(op.inputs.get("X", [])) == 2 and len(op.outputs.get("Out", [])) == 1:
            return "select"
    elif op.type in ("conditional_block", "while"):
        scopes = op.outputs.get("Scope" if op.type == "conditional_block" else "StepScopes", [])
        # a read step scope (a gradient op) needs what the interpreted op records per run/iteration
        if (op.attrs.get("sub_block") is not None and not any(n in scope_readers for n in scopes)
                and (op.type == "conditional_block" or op.inputs.get("Condition"))):
            return "cf"
    return "interp"


def _cf_conds(op):
    if op.type == "while":
        return op.inputs["Condition"][:1]
    return list(op.inputs.get("Cond", []))


def _scalar_true(a, what):
    a = np.asarray(a)
    if a.size != 1:
        raise ValueError(f"{what}: the condition must hold exactly one element, got shape {list(a.shape)}")
    return bool(a.reshape(-1)[0])


def _truth(a, what):
    """The truth of a one-element condition (same checks and errors as the interpreted op)."""
    try:
        return bool(a.item())
    except (AttributeError, ValueError):
        return _scalar_true(a, what)


def _all_true(conds, what):
    return all([_scalar_true(c, what) for c in conds])


def _no_value(op, name):
    raise RuntimeError(f"op '{op.type}' reads variable '{name}', which has no value: it is not fed, "
                       f"not computed by an earlier op and not in the scope{describe_site(op)}")


def _nonempty(c):
    return np.asarray(c).size > 0


def _mask(m):
    """select_input's Mask as 0 / 1 (other values are an error, as in the interpreted op)."""
    try:
        k = int(m.item())
    except (AttributeError, ValueError):
        k = int(np.asarray(m).reshape(-1)[0])
    if not 0 <= k < 2:
        raise IndexError(f"select_input: Mask is {k} but there are 2 inputs")
    return k


def _location(op):
    """``file:line  source`` of the user code that built ``op`` ('' when unknown)."""
    if not op.callstack:
        return ""
    m = re.match(r'\s*File "(.*)", line (\d+)', op.callstack[0])
    if not m:
        return op.user_location()
    src = op.callstack[0].split("\n", 1)[1].strip() if "\n" in op.callstack[0] else ""
    return f"{m.group(1)}:{m.group(2)}  {src}".rstrip()


def _printable(text, limit=200):
    """``text`` on one line of printable characters (newlines, NULs, controls escaped), shortened."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _unique(names):
    seen = set()
    return [n for n in names if not (n in seen or seen.add(n))]
