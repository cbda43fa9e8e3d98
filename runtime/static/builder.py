"""Static-mode `run_op`: append an Operator to the current block and infer its outputs.

Installed as ``framework.state.static_builder`` when `runtime.static` is imported. The
same functional API and layer code that computes eagerly builds Programs through here:
inputs become variable names, outputs are new Variables whose shape and dtype come from
the op's ``infer_meta``.
"""
from __future__ import annotations

import numpy as np

from .. import unique_name
from ..framework import state
from ..tensor import Tensor, Parameter as EagerParameter
from .program import Parameter, Variable, default_main_program, user_callstack, Operator


def build_op(opdef, inputs, attrs):
    program = default_main_program()
    block = program.current_block()
    in_slots = {}
    metas = []
    needs_grad = False
    if opdef.grad is None and opdef.type.endswith("_grad") and not getattr(state, "first_order_backward", False):
        # a grad op in the Program (paddle.grad inside to_static): its own gradient rule (second order) is
        # installed on first need, not while tracing every forward (importing the rules costs ~30 ms), nor
        # while to_static builds the backward of a training call, which nothing differentiates again
        from ..double_grad import ensure_double_grads
        ensure_double_grads()
    static_grad = opdef.grad is None and _has_static_grad(opdef.type)
    # an op whose gradient exists only in Programs declares no differentiable slots: any float input counts
    diff_slots = {s.name for s in opdef.inputs} if static_grad else opdef.differentiable
    for slot, x in zip(opdef.inputs, inputs):
        if x is None:
            in_slots[slot.name] = []
            metas.append(None)
            continue
        if isinstance(x, (list, tuple)):
            vs = [as_variable(block, t) for t in x]
            in_slots[slot.name] = [v.name for v in vs]
            metas.append([v.meta for v in vs])
            if slot.name in diff_slots and any(not v.stop_gradient for v in vs):
                needs_grad = True
        else:
            v = as_variable(block, x)
            in_slots[slot.name] = [v.name]
            metas.append(v.meta)
            if slot.name in diff_slots and not v.stop_gradient:
                needs_grad = True
    full = opdef.full_attrs(attrs)
    res = opdef.infer_meta(*metas, **full)
    if len(opdef.outputs) == 1:
        res = (res,)
    elif not isinstance(res, tuple) or len(res) != len(opdef.outputs):
        raise TypeError(f"infer_meta of {opdef.type} must return one meta per output slot "
                        f"({len(opdef.outputs)}), got {res!r}")
    inplace = getattr(opdef, "inplace", None) or {}
    out_slots = {}
    visible = []

    grad_on = state.grad_enabled
    has_grad = opdef.grad is not None or static_grad

    def new_var(meta):
        v = block.create_var(name=unique_name.generate("tmp"), shape=meta.shape, dtype=meta.dtype)
        v.stop_gradient = not (needs_grad and np.dtype(meta.dtype).kind in "fc") or not has_grad
        if not grad_on:
            # paddle.no_grad() in a Program: what is built under it is cut from the graph
            v.stop_gradient = True
            v._no_grad = True
        # the flag as the builder derived it; a later change (detach, stop_gradient = ...) is the
        # user's choice, which control-flow builders keep when they recompute derived flags
        v._built_sg = v.stop_gradient
        return v

    for slot, meta in zip(opdef.outputs, res):
        if meta is None:
            out_slots[slot.name] = []
            out = None
        elif isinstance(meta, list):
            out = [new_var(m) for m in meta]
            out_slots[slot.name] = [v.name for v in out]
        elif slot.name in inplace and in_slots.get(inplace[slot.name]):
            # the op updates one of its inputs (batch_norm's MeanOut is its Mean)
            out = block._var_recursive(in_slots[inplace[slot.name]][0])
            out_slots[slot.name] = [out.name]
        else:
            out = new_var(meta)
            out_slots[slot.name] = [out.name]
        if not slot.intermediate:
            visible.append(out)
    block.ops.append(Operator(block, opdef.type, in_slots, out_slots, full, user_callstack(), program._role))
    program._bump()
    if opdef.list_output:
        return visible[0]
    return visible[0] if len(visible) == 1 else tuple(visible)


def _has_static_grad(op_type):
    """Whether ``op_type`` has a gradient only inside Programs (read_from_array, select_input ...)."""
    from .backward import STATIC_GRADS, _ensure_control_flow_grads
    _ensure_control_flow_grads()
    return op_type in STATIC_GRADS


def as_variable(block, x):
    """The Variable for an op input: Variables pass through; eager tensors are bound by name
    (their values are read from them at run time); numpy/Python constants become ops."""
    if isinstance(x, Variable):
        if x.block.program is not block.program:
            raise ValueError(f"variable '{x.name}' belongs to another Program than the one being built; "
                             "build every op of a Program inside the same program_guard")
        return x
    if isinstance(x, Tensor):
        return bind_eager_tensor(block.program, x)
    return constant(x)


def bind_eager_tensor(program, t):
    """A persistable global-block Variable standing for eager tensor ``t`` (a Parameter, buffer or
    captured constant); the executor reads ``t``'s current value when it runs the program."""
    gb = program.global_block()
    name = t.name
    v = gb.vars.get(name)
    if v is None:
        if isinstance(t, EagerParameter):
            v = Parameter(gb, name, t.shape, t.dtype, trainable=t.trainable, optimize_attr=t.optimize_attr,
                          regularizer=t.regularizer, need_clip=t.need_clip)
        else:
            v = Variable(gb, name, t.shape, t.dtype, persistable=True, stop_gradient=t.stop_gradient)
        gb.vars[name] = v
        program._bump()
    program._eager_bindings[name] = t
    return v


def constant(value):
    """A Variable holding a numpy/Python constant (fill_constant for one element, else assign_value)."""
    from ..dispatch import run_op
    arr = np.asarray(value)
    if arr.dtype == np.float64 and not isinstance(value, np.ndarray) and not isinstance(value, np.generic):
        arr = arr.astype(np.float32)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"cannot use a {type(value).__name__} of dtype {arr.dtype} as a tensor in a Program")
    from ..dtype import from_numpy_dtype
    code = from_numpy_dtype(arr.dtype).proto
    if arr.size == 1:
        v = arr.reshape(-1)[0].item()
        str_value = str(int(v)) if arr.dtype.kind in "biu" else str(float(v))
        return run_op("fill_constant", dtype=code, shape=list(arr.shape), value=float(v), str_value=str_value)
    return run_op("assign_value", shape=list(arr.shape), dtype=code, values=arr.reshape(-1).tolist())


def install():
    state.static_builder = build_op
