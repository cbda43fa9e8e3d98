"""The reference executor: walk a block's ops one by one, calling each op's kernel.

Slow but obviously right; the compiled executor is tested against it. Values live in
one flat ``env`` dict (variable names are unique within a Program, and sub-blocks read
their parents' variables by name).
"""
from __future__ import annotations

from ..ops.registry import lookup


def op_arguments(op, opdef, env):
    """The kernel's positional inputs for ``op`` from ``env``."""
    args = []
    for slot in opdef.inputs:
        names = op.inputs.get(slot.name, [])
        for n in names:
            if n not in env:
                _empty_array(op, n, env)
        if slot.duplicable:
            args.append([env[n] for n in names])
        else:
            args.append(env[names[0]] if names else None)
    return args


def _empty_array(op, name, env):
    """A tensor array nothing has written yet is empty (Paddle's scope creates it so)."""
    from .program import VarType
    blk = op.block
    v = blk._find_var_recursive(name) if blk is not None else None
    if v is not None and v.type == VarType.LOD_TENSOR_ARRAY:
        env[name] = []


def store_outputs(op, opdef, env, out):
    """Bind a kernel's return value to the op's visible output variables."""
    vis = [s for s in opdef.outputs if not s.intermediate]
    if len(vis) == 1:
        out = (out,)
    for slot, value in zip(vis, out):
        names = op.outputs.get(slot.name, [])
        if not names:
            continue
        if slot.duplicable:
            for n, v in zip(names, value):
                env[n] = v
        else:
            env[names[0]] = value


def run_op(op, env):
    opdef = lookup(op.type)
    try:
        if opdef.interpret is not None:
            for n in op.input_arg_names:
                # as op_arguments does for kernels: a control-flow op (a branch reading an array made
                # from an empty list) sees the empty array, and its saved Scope keeps it for the grad
                if n not in env:
                    _empty_array(op, n, env)
            opdef.interpret(op, env, run_block)
            return
        out = opdef.kernel(*op_arguments(op, opdef, env), **op.attrs)
        store_outputs(op, opdef, env, out)
    except KeyError as e:
        if e.args and isinstance(e.args[0], str) and e.args[0] not in env and e.args[0] in op.input_arg_names:
            raise RuntimeError(f"op '{op.type}' reads variable '{e.args[0]}', which has no value: it is not fed, "
                               f"not computed by an earlier op and not in the scope"
                               f"{describe_site(op)}") from None
        annotate(e, op)
        raise
    except Exception as e:
        annotate(e, op)
        raise


def run_block(block, env):
    for op in block.ops:
        run_op(op, env)


def describe_site(op):
    return f" (built at {op.callstack[0].strip()})" if op.callstack else ""


def annotate(e, op):
    """Add the op, its variables and the user's line that built it to an exception. A failed staged
    unbound-read check (an assert whose message starts with "UnboundLocalError at") is raised from here
    as UnboundLocalError, so callers' ``annotate(e, op); raise`` re-raise eager Python's type."""
    if getattr(e, "_dy2st_annotated", False):
        return
    if op.note and op.type == "assert" and type(e) is ValueError and len(e.args) == 1:
        # a converted ``assert cond, message``: the user's message first, as Python would show it
        e.args = (f"{op.note}\n({e.args[0]})",)
    ins = ", ".join(f"{k}={v}" for k, v in op.inputs.items() if v)
    outs = ", ".join(f"{k}={v}" for k, v in op.outputs.items() if v)
    note = f"while running op '{op.type}' (inputs: {ins}; outputs: {outs})"
    if op.callstack:
        note += "\nthe op was built by user code at:\n" + op.callstack[0]
    if hasattr(e, "add_note"):
        e.add_note(note)
    try:
        e._dy2st_annotated = True
        # the user's line that built the op: the report of a run error points there
        # (dy2st/jit/dy2static/error.py attach_error_data with in_runtime=True)
        e._dy2st_op_callstack = list(op.callstack)
    except Exception:
        pass
    if (op.type == "assert" and type(e) is ValueError and e.args
            and str(e.args[0]).startswith("UnboundLocalError at")):
        # the staged check of a read of a name bound on some paths only (dy2st/convert_ops.py
        # read_maybe_unbound): fail with eager Python's type, same message and notes
        err = UnboundLocalError(*e.args)
        for n in getattr(e, "__notes__", ()):
            err.add_note(n)
        err._dy2st_annotated = True
        err._dy2st_op_callstack = list(op.callstack)
        raise err.with_traceback(e.__traceback__) from None


class InterpretedProgram:
    """The interpreter behind the interface of codegen's ``CompiledProgram``: ``fn(feed, S, B)``
    runs the (pruned) global block op by op and returns the fetched values; persistable values
    come from the eager bindings ``B`` or the scope dict ``S`` and the ones the ops write go back.
    Callers that compile a Program (the to_static runtime) use it when ``DY2ST_EXECUTOR=interpreter``,
    so the reference executor checks the same Programs the compiled one runs."""

    def __init__(self, program, feed_names=(), fetch_names=()):
        from .codegen import UNSET
        from .prune import op_reads_writes, prune_ops
        block = program.global_block()
        self.feed_names = tuple(feed_names)
        self.fetch_names = tuple(fetch_names)
        self.ops = prune_ops(block, self.fetch_names, self.feed_names)
        self.source = "\n".join(str(op) for op in self.ops)
        bindings = program._eager_bindings
        persistable = [n for n, v in block.vars.items() if v.persistable or n in bindings]
        reads, writes = set(), set()
        for op in self.ops:
            r, w = op_reads_writes(op)
            reads.update(r)
            writes.update(w)
        # feeds the run reads (the compiled program reports the same: callers skip unread feeds)
        self.feed_names = tuple(n for n in self.feed_names if n in reads or n in self.fetch_names)
        loads = [n for n in persistable if n in reads or n in writes]
        stores = [n for n in persistable if n in writes]
        ops, fetches = self.ops, self.fetch_names

        def fn(feed, S, B):
            env = {}
            for n in loads:
                if n in B:
                    env[n] = B[n]._data
                elif n in S:
                    env[n] = S[n]
            env.update(feed)
            for op in ops:
                run_op(op, env)
            for n in stores:
                if n in env:
                    if n in B:
                        B[n]._data = env[n]
                    else:
                        S[n] = env[n]
            return tuple(env.get(n, UNSET) for n in fetches)
        self.fn = fn

    def site_of(self, tb):
        return None      # run_op already names the op and the user's line on every error
