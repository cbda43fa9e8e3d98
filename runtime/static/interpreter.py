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
    """Add the op, its variables and the user's line that built it to an exception."""
    if getattr(e, "_dy2st_annotated", False):
        return
    ins = ", ".join(f"{k}={v}" for k, v in op.inputs.items() if v)
    outs = ", ".join(f"{k}={v}" for k, v in op.outputs.items() if v)
    note = f"while running op '{op.type}' (inputs: {ins}; outputs: {outs})"
    if op.callstack:
        note += "\nthe op was built by user code at:\n" + op.callstack[0]
    if hasattr(e, "add_note"):
        e.add_note(note)
    try:
        e._dy2st_annotated = True
    except Exception:
        pass
