"""Static gradients of control flow: select_input, conditional_block and while.

conditional_block and while get a grad sub-block holding the backward of their sub-block's ops;
their grad ops (conditional_block_grad, while_grad in runtime/ops/control_flow.py) run it over the
values the forward op saved in its Scope / StepScopes variable (per iteration for while).
Forward values the grad sub-block reads are declared in it as data variables (is_data): their
values come from the saved scope, not from an op of the block.
"""
from __future__ import annotations

from .. import unique_name
from ..dispatch import run_op
from .backward import register_static_grad, sub_block_backward
from .program import VarType

__all__ = []


def _is_float(var):
    return var is not None and var.dtype.np.kind in "fc"


def _is_array(var):
    return var is not None and var.type == VarType.LOD_TENSOR_ARRAY


def _grad_var(block, var):
    return block.create_var(name=unique_name.generate(var.name + "@GRAD"), shape=var.shape, dtype=var.dtype,
                            type=VarType.LOD_TENSOR_ARRAY if _is_array(var) else VarType.LOD_TENSOR,
                            stop_gradient=False)


def _zero_grad(var):
    """A zero gradient for ``var`` (an empty array for a tensor array)."""
    if _is_array(var):
        # an array variable nothing writes is empty when read (Paddle's scope creates it so)
        blk = var.block.program.current_block()
        return blk.create_var(name=unique_name.generate(var.name + "@GRAD@empty"), shape=var.shape,
                              dtype=var.dtype, type=VarType.LOD_TENSOR_ARRAY, is_data=True, stop_gradient=True)
    return run_op("fill_any_like", var, value=0.0, dtype=-1)


def _new_grad_block(program, fwd_block):
    parent = program.current_block()
    g = program._create_block(parent.idx)
    g.forward_block_idx = fwd_block.idx
    return parent, g


def _mirror(gblock, fwd_block):
    """Declare in ``gblock`` the forward variables its ops read that it cannot see (sub-block locals)."""
    for op in gblock.ops:
        for n in op.input_arg_names:
            if gblock._find_var_recursive(n) is None:
                v = fwd_block._find_var_recursive(n)
                if v is None:
                    raise RuntimeError(f"static backward: grad op '{op.type}' reads '{n}', which no block defines")
                gblock.create_var(name=n, shape=v.shape, dtype=v.dtype, type=v.type, is_data=True,
                                  stop_gradient=v.stop_gradient)


# -- select_input ---------------------------------------------------------------------------------------

def _select_input_grad(op, douts, bw):
    dout = douts.get(op.outputs["Out"][0])
    if dout is None:
        return {}
    mask = op.block._var_recursive(op.inputs["Mask"][0])
    zero = run_op("fill_any_like", dout, value=0.0, dtype=-1)
    names = op.inputs["X"]
    res = {}
    for k, n in enumerate(names):
        # X[k] gets dout when Mask == k, zeros otherwise (select_input picks among the candidates)
        cands = [dout if j == k else zero for j in range(len(names))]
        res[n] = run_op("select_input", cands, mask)
    return res


register_static_grad("select_input", _select_input_grad, lambda op: op.inputs.get("X", []))


# -- conditional_block ----------------------------------------------------------------------------------

def _conditional_block_grad(op, douts, bw):
    program = op.block.program
    fwd = program.blocks[op.attrs["sub_block"]]
    seeds = [(op.block._var_recursive(n), douts[n]) for n in op.outputs.get("Out", []) if n in douts]
    if not seeds:
        return {}
    inputs = [n for n in op.inputs.get("Input", []) if _is_float(op.block._find_var_recursive(n))]
    parent, gblock = _new_grad_block(program, fwd)
    try:
        grads = sub_block_backward(fwd, list(fwd.ops), seeds, inputs, bw.no_grad, gblock)
        _mirror(gblock, fwd)
    finally:
        program.current_block_idx = parent.idx
    names = [n for n in inputs if n in grads]
    if not names:
        return {}
    outs = [_grad_var(parent, op.block._var_recursive(n)) for n in names]
    # a tensor array the branch changes in place is an Input and an Out: when the branch does not run,
    # its gradient passes through unchanged (not zero), so the grad op is told which Out@GRAD it is
    seed_names = [v.name for v, _ in seeds]
    passthrough = [seed_names.index(n) if n in seed_names and _is_array(op.block._find_var_recursive(n)) else -1
                   for n in names]
    attrs = {"sub_block": gblock.idx, "grad_vars": [grads[n].name for n in names]}
    if any(k >= 0 for k in passthrough):
        attrs["array_passthrough"] = passthrough
    parent.append_op("conditional_block_grad",
                     {"Input": names, "Out@GRAD": [d for _, d in seeds], "Scope": op.outputs["Scope"]},
                     {"Input@GRAD": outs}, attrs)
    return dict(zip(names, outs))


register_static_grad("conditional_block", _conditional_block_grad, lambda op: op.inputs.get("Input", []))


# -- while ----------------------------------------------------------------------------------------------

def _loop_parts(op):
    """(body, loop variables with their new-value names, body ops without the final assigns)."""
    body = op.block.program.blocks[op.attrs["sub_block"]]
    outs = set(op.outputs.get("Out", []))
    new_of, ops = {}, []
    for o in body.ops:
        if o.type == "assign" and o.outputs.get("Out") and o.outputs["Out"][0] in outs:
            new_of[o.outputs["Out"][0]] = o.inputs["X"][0]
        else:
            ops.append(o)
    return body, new_of, ops


def _while_grad_inputs(op):
    outs = [n for n in op.outputs.get("Out", []) if _is_float(op.block._find_var_recursive(n))]
    return list(op.inputs.get("X", [])) + [n for n in outs if n not in op.inputs.get("X", [])]


def _while_grad(op, douts, bw):
    program = op.block.program
    body, new_of, ops = _loop_parts(op)
    blk = op.block
    out_names = op.outputs.get("Out", [])
    # tensor arrays the body writes in place (write_to_array): their gradient is carried across
    # iterations like a loop variable's, the array after the iteration being its own "new value"
    arrays = [n for n in out_names if n not in new_of and _is_array(blk._find_var_recursive(n)) and bw._requires(n)]
    for o in ops:
        for n in o.output_arg_names:
            if n in new_of or (n in out_names and n not in arrays and bw._requires(n)):
                raise NotImplementedError(f"static backward: the while body writes loop variable '{n}' with a "
                                          f"'{o.type}' op; gradients need the final assigns of while_loop")
    loop = [n for n in out_names if (n in new_of or n in arrays) and bw._requires(n)]
    others = [n for n in op.inputs.get("X", []) if n not in new_of and n not in arrays and bw._requires(n)]
    if not loop and not others:
        return {}
    parent, gblock = _new_grad_block(program, body)
    try:
        carry_in = {}
        for n in loop:
            v = blk._var_recursive(n)
            carry_in[n] = gblock.create_var(name=unique_name.generate(n + "@GRAD@carry"), shape=v.shape,
                                            dtype=v.dtype, type=v.type, is_data=True, stop_gradient=False)
        # the seed of a loop variable is its new value; that value may be an outer variable the body's ops
        # never compute (``return i + 1, x``, a loop variable returned unchanged): its gradient then flows
        # straight from the carried gradient, which sub_block_backward gives to the wanted names it seeds
        seeds = [(body._var_recursive(new_of.get(n, n)), carry_in[n]) for n in loop]
        grads = sub_block_backward(body, ops, seeds, loop + others, bw.no_grad, gblock)
        _mirror(gblock, body)
    finally:
        program.current_block_idx = parent.idx
    other_names = [n for n in others if n in grads]
    if not loop and not other_names:
        return {}
    douts_in = []
    for n in loop:
        d = douts.get(n)
        if d is None:
            d = _zero_grad(blk._var_recursive(n))
        douts_in.append(d)
    names = loop + other_names
    outs = [_grad_var(parent, blk._var_recursive(n)) for n in names]
    parent.append_op("while_grad", {"X": names, "Out@GRAD": douts_in, "StepScopes": op.outputs["StepScopes"]},
                     {"X@GRAD": outs},
                     {"sub_block": gblock.idx, "carry_in": [carry_in[n].name for n in loop],
                      "carry_out": [grads[n].name if n in grads else "" for n in loop],
                      "x_grads": [grads[n].name for n in other_names]})
    return dict(zip(names, outs))


register_static_grad("while", _while_grad, _while_grad_inputs)


# -- tensor arrays --------------------------------------------------------------------------------------
# A write_to_array both reads (in place) and writes its array: the gradient gathered for the array after
# the write passes on to the array before it, and the written element's gradient is read from it.

def _write_to_array_grad(op, douts, bw):
    arr = op.outputs["Out"][0]
    dout = douts.get(arr)
    if dout is None:
        return {}
    x = op.block._var_recursive(op.inputs["X"][0])
    dx = run_op("write_to_array_grad", x, op.block._var_recursive(op.inputs["I"][0]), dout)
    # the array before the write gets the gradient without element I: the write replaced what was there
    # (an overwritten element receives none, as in Paddle)
    blk = program_block(op)
    before = _grad_var(blk, op.block._var_recursive(arr))
    blk.append_op("tensor_array_clear_slot", {"X": [dout], "I": op.inputs["I"]}, {"Out": [before]})
    return {op.inputs["X"][0]: dx, arr: before}


register_static_grad("write_to_array", _write_to_array_grad,
                     lambda op: op.inputs.get("X", []) + op.outputs.get("Out", []))


def _read_from_array_grad(op, douts, bw):
    dout = douts.get(op.outputs["Out"][0])
    if dout is None:
        return {}
    arr = op.block._var_recursive(op.inputs["X"][0])
    g = _grad_var(program_block(op), arr)
    # Paddle's gradient of read_from_array: write Out@GRAD at I of a (fresh) gradient array
    program_block(op).append_op("write_to_array", {"X": [dout], "I": op.inputs["I"]}, {"Out": [g]})
    return {arr.name: g}


def program_block(op):
    return op.block.program.current_block()


register_static_grad("read_from_array", _read_from_array_grad, lambda op: op.inputs.get("X", []))


def _tensor_array_to_tensor_grad(op, douts, bw):
    dout = douts.get(op.outputs["Out"][0])
    if dout is None:
        return {}
    arr = op.block._var_recursive(op.inputs["X"][0])
    g = _grad_var(program_block(op), arr)
    program_block(op).append_op("tensor_array_to_tensor_grad", {"X": [arr], "Out@GRAD": [dout]},
                                {"X@GRAD": [g]},
                                {"axis": op.attrs.get("axis", 0), "use_stack": op.attrs.get("use_stack", False)})
    return {arr.name: g}


register_static_grad("tensor_array_to_tensor", _tensor_array_to_tensor_grad, lambda op: op.inputs.get("X", []))


# list.pop / list.insert on tensor arrays (runtime/ops/control_flow.py): the array is changed in place, so
# the gradient gathered for it after the op belongs to the array after it, and the rule gives the one before
def _array_pop_grad(op, douts, bw):
    arr_name = op.outputs["ArrayOut"][0]
    dout, darr = douts.get(op.outputs["Out"][0]), douts.get(arr_name)
    if dout is None and darr is None:
        return {}
    arr = op.block._var_recursive(op.inputs["X"][0])
    g = _grad_var(program_block(op), arr)
    ins = {"Index": op.outputs["Index"]}
    if dout is not None:
        ins["Out@GRAD"] = [dout.name]
    if darr is not None:
        ins["ArrayOut@GRAD"] = [darr.name]
    program_block(op).append_op("array_pop_grad", ins, {"X@GRAD": [g]})
    return {arr.name: g}


register_static_grad("array_pop", _array_pop_grad, lambda op: op.inputs.get("X", []))


def _array_insert_grad(op, douts, bw):
    arr_name = op.outputs["ArrayOut"][0]
    darr = douts.get(arr_name)
    if darr is None:
        return {}
    arr = op.block._var_recursive(op.inputs["X"][0])
    value = op.block._var_recursive(op.inputs["Value"][0])
    g = _grad_var(program_block(op), arr)
    dv = program_block(op).create_var(name=unique_name.generate(value.name + "@GRAD"), shape=value.shape,
                                      dtype=value.dtype, stop_gradient=False)
    program_block(op).append_op("array_insert_grad", {"Index": op.outputs["Index"], "Value": [value.name],
                                                      "ArrayOut@GRAD": [darr.name]},
                                {"Value@GRAD": [dv], "X@GRAD": [g]})
    return {arr.name: g, value.name: dv}


register_static_grad("array_insert", _array_insert_grad,
                     lambda op: op.inputs.get("X", []) + op.inputs.get("Value", []))
