"""Compile a Program's global block to a Python function (like torch.fx's generated code).

Every variable becomes a local of the generated function; each op becomes one call of its
kernel, pre-bound to the op's attributes (``OpDef.bind``) and stored as a global of the
function. Persistable values are loaded from the scope (or the program's eager bindings) on
entry and written back on exit; locals are deleted after their last use so memory is freed
as early as with the interpreter. Ops executed through ``OpDef.interpret`` (control flow)
get a dict env holding the locals they touch and run their sub-blocks through the reference
interpreter (a slow path, to be compiled later). The source is registered in ``linecache``
so tracebacks and debuggers show it.
"""
from __future__ import annotations

import itertools
import keyword
import linecache
import re

from ..ops.registry import lookup
from .interpreter import describe_site, run_block
from .prune import op_reads_writes, prune_ops


class _Unset:
    """Value of a variable an interpreted op was expected to write but did not."""

    def __repr__(self):
        return "<unset>"


UNSET = _Unset()
_counter = itertools.count()
_RESERVED = {"feed", "S", "B", "_env", "_UNSET", "run_block", "None", "True", "False"}


class CompileError(RuntimeError):
    pass


class _Names:
    """Valid, unique Python identifiers for variable names and kernel globals."""

    def __init__(self):
        self.used = set(_RESERVED)
        self.of = {}

    def fresh(self, base):
        ident = re.sub(r"\W", "_", base) or "v"
        if ident[0].isdigit() or keyword.iskeyword(ident) or ident.startswith("__"):
            ident = "v_" + ident
        cand, i = ident, 1
        while cand in self.used:
            cand = f"{ident}_{i}"
            i += 1
        self.used.add(cand)
        return cand

    def var(self, name):
        ident = self.of.get(name)
        if ident is None:
            ident = self.of[name] = self.fresh(name)
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

    def site_of(self, tb):
        """What the generated code was doing at the innermost traceback entry in its source."""
        found = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                found = self.line_ops.get(tb.tb_lineno)
            tb = tb.tb_next
        return found


def compile_program(program, feed_names=(), fetch_names=(), prune=True):
    block = program.global_block()
    feed_names = tuple(feed_names)
    fetch_names = tuple(fetch_names)
    ops = prune_ops(block, fetch_names, feed_names) if prune else list(block.ops)
    bindings = program._eager_bindings

    def persistable(n):
        v = block.vars.get(n)
        return n in bindings or (v is not None and v.persistable)

    names = _Names()
    glob = {"run_block": run_block, "_UNSET": UNSET}
    info = []
    defined = set()
    used_feeds = []
    loads = []
    for n in feed_names:
        defined.add(n)

    def need(n, op):
        if n in defined:
            if n in feed_names and n not in used_feeds:
                used_feeds.append(n)
            return True
        if persistable(n):
            loads.append(n)
            defined.add(n)
            return True
        return False

    for op in ops:
        opdef = lookup(op.type)
        reads, writes = op_reads_writes(op)
        interp = opdef.interpret is not None
        if not interp:
            # intermediate outputs (XShape ...) are never produced by kernels
            writes = [n for slot in opdef.outputs if not slot.intermediate for n in op.outputs.get(slot.name, [])]
        for n in reads:
            if not need(n, op) and not interp:
                raise CompileError(f"op '{op.type}' reads variable '{n}', which has no value: it is not fed, "
                                   f"not computed by an earlier op and not in the scope{describe_site(op)}")
        info.append((op, opdef, reads, writes, interp))
        defined.update(writes)
    for n in fetch_names:
        if not need(n, None):
            if n not in block.vars:
                raise ValueError(f"fetch: variable '{n}' is not in the program")
            raise ValueError(f"fetch: variable '{n}' was not computed by this run of the program: it is not "
                               f"fed, not persistable and no op that runs writes it")
    for n in feed_names:
        if persistable(n) and n not in used_feeds:
            used_feeds.append(n)
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

    fname = f"run_program_{program.id}_v{program.version}"
    filename = f"<dy2st-compiled program {program.id} v{program.version} #{next(_counter)}>"
    lines = [f"def {fname}(feed, S, B):"]
    line_ops = {}

    def emit(text, site=None):
        lines.append("    " + text)
        if site is not None:
            line_ops[len(lines)] = site

    for n in loads:
        src = f"B[{n!r}]._data" if n in bindings else f"S[{n!r}]"
        emit(f"{names.var(n)} = {src}", ("load", n))
    for n in used_feeds:
        emit(f"{names.var(n)} = feed[{n!r}]")
    v = names.var
    avail = set(loads) | set(used_feeds)
    last_loc = None
    for i, (op, opdef, reads, writes, interp) in enumerate(info):
        loc = _location(op)
        if loc and loc != last_loc:
            emit(f"# {loc}")
        last_loc = loc
        site = ("op", op)
        if interp:
            k = names.fresh(f"{op.type}_interpret")
            o = names.fresh(f"op_{op.type}")
            glob[k], glob[o] = opdef.interpret, op
            seen = _unique([n for n in reads + writes if n in avail])
            emit("_env = {" + ", ".join(f"{n!r}: {v(n)}" for n in seen) + "}", site)
            emit(f"{k}({o}, _env, run_block)", site)
            before = set(seen)
            for n in writes:
                emit(f"{v(n)} = _env[{n!r}]" if n in before else f"{v(n)} = _env.get({n!r}, _UNSET)", site)
            emit("del _env")
        else:
            k = names.fresh(op.type)
            glob[k] = opdef.bind(op.attrs)
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
            call = f"{k}({', '.join(args)})"
            if len(targets) == 1 and targets[0] == "_":
                emit(call, site)
            elif len(targets) == 1:
                emit(f"{targets[0]} = {call}", site)
            else:
                emit(f"{', '.join(targets)} = {call}", site)
        avail.update(writes)
        dead = dies_after.get(i)
        if dead:
            emit("del " + ", ".join(v(n) for n in dead))
    for n in stores:
        emit(f"B[{n!r}]._data = {v(n)}" if n in bindings else f"S[{n!r}] = {v(n)}")
    emit("return (" + "".join(f"{v(n)}, " for n in fetch_names).rstrip() + ")")
    source = "\n".join(lines) + "\n"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, "exec")
    exec(code, glob)
    return CompiledProgram(glob[fname], source, filename, line_ops, ops, tuple(used_feeds), fetch_names)


def _location(op):
    """``file:line  source`` of the user code that built ``op`` ('' when unknown)."""
    if not op.callstack:
        return ""
    m = re.match(r'\s*File "(.*)", line (\d+)', op.callstack[0])
    if not m:
        return op.user_location()
    src = op.callstack[0].split("\n", 1)[1].strip() if "\n" in op.callstack[0] else ""
    return f"{m.group(1)}:{m.group(2)}  {src}".rstrip()


def _unique(names):
    seen = set()
    return [n for n in names if not (n in seen or seen.add(n))]
