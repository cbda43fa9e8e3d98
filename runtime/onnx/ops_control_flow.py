"""ONNX lowerings of control flow: the if/else pattern (FORMATS 7.1) -> If, while (7.2) -> Loop."""
from __future__ import annotations

import numpy as np

from .export import _prune, _value_info
from .lowering import lowers, unsupported


@lowers("conditional_block")
def _conditional_block(ctx, op):
    # Nothing is emitted here: the select_input ops that merge the branches emit one If for the
    # pair of conditional_blocks (their Out vars wait in ``pending`` until then).
    for n in op.outputs.get("Out", []):
        ctx.pending[n] = op


def _producer(ctx, name):
    for o in reversed(ctx.ops[:ctx.index]):
        if name in o.output_arg_names:
            return o
    return None


def _branch_block(ctx, group, k):
    """The pending conditional_block computing the X[k] values of ``group`` (None: all outer values)."""
    cbs = {id(ctx.pending[s.inputs["X"][k]]): ctx.pending[s.inputs["X"][k]] for s in group
           if s.inputs["X"][k] in ctx.pending}
    if len(cbs) > 1:
        raise unsupported(group[0], "select_input merges values of several conditional_blocks on one side")
    return next(iter(cbs.values()), None)


def _build_branch(ctx, group, k, cb, name):
    sub = ctx.subgraph()
    wanted = [s.inputs["X"][k] for s in group]
    if cb is not None:
        block = ctx.program.blocks[cb.attrs["sub_block"]]
        needed = [n for n in wanted if n in cb.outputs.get("Out", [])]
        sub.lower_ops(_prune(block.ops, needed), needed)
    outs = []
    for s, n in zip(group, wanted):
        v = ctx.var(s.outputs["Out"][0], s)
        outs.append((n, v.dtype.np, v.shape))
    return sub.finish_subgraph(outs, name)


@lowers("select_input")
def _select_input(ctx, op):
    if len(op.inputs.get("X", [])) != 2:
        raise unsupported(op, "select_input with other than two inputs")
    mask = op.inputs["Mask"][0]
    group = [op]
    for later in ctx.ops[ctx.index + 1:]:
        if later.type != "select_input" or later.inputs.get("Mask", [None])[0] != mask:
            break
        group.append(later)
    t_cb, f_cb = _branch_block(ctx, group, 1), _branch_block(ctx, group, 0)
    # the pattern's consistency: Mask = cast(c), true branch runs on c, false branch on logical_not(c)
    cast = _producer(ctx, mask)
    if cast is not None and cast.type == "cast":
        c = cast.inputs["X"][0]
        if t_cb is not None and t_cb.inputs["Cond"][0] != c:
            raise unsupported(t_cb, "conditional_block feeding select_input's true value does not run on its mask")
        if f_cb is not None:
            ln = _producer(ctx, f_cb.inputs["Cond"][0])
            if ln is None or ln.type != "logical_not" or ln.inputs["X"][0] != c:
                raise unsupported(f_cb, "conditional_block feeding select_input's false value does not run on "
                                        "the negated mask")
    cond = ctx.to_scalar(ctx.cast(ctx.input(op, "Mask"), np.bool_, ctx.in_dtype(op, "Mask")))
    then_g = _build_branch(ctx, group, 1, t_cb, ctx.fresh("then_branch"))
    else_g = _build_branch(ctx, group, 0, f_cb, ctx.fresh("else_branch"))
    outs = [ctx.output(s) for s in group]
    ctx.node("If", [cond], outs, then_branch=then_g, else_branch=else_g)
    for s in group[1:]:
        ctx.skip.add(id(s))
    for s in group:
        for n in s.inputs["X"]:
            ctx.pending.pop(n, None)


@lowers("while")
def _while(ctx, op):
    import onnx
    cond_name = op.inputs["Condition"][0]
    block = ctx.program.blocks[op.attrs["sub_block"]]
    carried = list(op.outputs.get("Out", []))
    if cond_name not in carried:
        carried.append(cond_name)
    for n in carried:
        if not ctx.has(n):
            raise unsupported(op, f"loop variable '{n}' has no value before the while loop")
    init = [ctx.value(n, op) for n in carried]
    cond_dt = ctx.var(cond_name, op).dtype.np
    sub = ctx.subgraph()
    it, cin = sub.fresh("iter"), sub.fresh("cond_in")
    in_infos = [_value_info(it, np.int64, []), _value_info(cin, np.bool_, [])]
    for n in carried:
        v = ctx.var(n, op)
        bn = sub.fresh(f"{n}_in")
        sub.bind(n, bn)
        sub.local.add(bn)
        in_infos.append(_value_info(bn, v.dtype.np, v.shape))
    sub.lower_ops(_prune(block.ops, carried), carried)
    cond_out = sub.to_scalar(sub.cast(sub.value(cond_name), np.bool_, cond_dt))
    outputs = [_value_info(cond_out, np.bool_, [])]
    seen = {cond_out}
    for n in carried:
        v = ctx.var(n, op)
        val = sub.value(n)
        if val not in sub.local or val in seen or val in [i.name for i in in_infos]:
            val = sub.node("Identity", [val], [sub.fresh(f"{n}_next")])
        seen.add(val)
        outputs.append(_value_info(val, v.dtype.np, v.shape))
    body = onnx.helper.make_graph(sub.nodes, ctx.fresh("loop_body"), in_infos, outputs)
    cond0 = ctx.to_scalar(ctx.cast(ctx.value(cond_name, op), np.bool_, cond_dt))
    outs = []
    for n in carried:
        name = ctx.fresh(n)
        outs.append(name)
    ctx.node("Loop", ["", cond0] + init, outs, body=body)
    for n, name in zip(carried, outs):
        ctx.bind(n, name)
