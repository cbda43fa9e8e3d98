"""Small static-program helpers for the ``paddle.static`` names built here: persistable state variables
initialised by the startup program, and ops that write their result into an existing variable."""
from __future__ import annotations

from runtime import unique_name
from runtime.dispatch import run_op
from runtime.framework import state
from runtime.static import create_global_var, default_main_program


def require_static(api):
    """Paddle's ``static_only`` check (an AssertionError, as Paddle raises)."""
    if not state.static:
        raise AssertionError(f"'{api}()' is only supported in static graph mode (dynamic graph mode is the "
                             "default): call paddle.enable_static() before using it")


def state_var(prefix, shape, dtype, value=0.0):
    """A persistable variable ``<prefix>_N`` of the main program, set to ``value`` by the startup program."""
    return create_global_var(list(shape), value, dtype, persistable=True, name=unique_name.generate(prefix))


def write_into(target, value):
    """Append ``assign(value) -> target`` to the current block (the op's output is ``target`` itself)."""
    block = default_main_program().current_block()
    out = run_op("assign", value)
    op = block.ops[-1]
    op._rename_output(out.name, target.name)
    block.vars.pop(out.name, None)
    block.program._bump()
    return target


def rename_outputs_to_inputs(op, mapping):
    """Make ``op`` write its inputs in place: output slot -> input slot (e.g. StatPosOut -> StatPos)."""
    block = op.block
    for out_slot, in_slot in mapping.items():
        old, new = op.outputs[out_slot][0], op.inputs[in_slot][0]
        if old != new:   # (the static builder may have done it already from the op's ``inplace`` schema)
            op.outputs[out_slot] = [new]
            block.vars.pop(old, None)
    block.program._bump()
