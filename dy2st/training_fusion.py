"""Rewrites of a converted training step's compiled Programs (dy2st/partial_program.py runs them on the
clone its compiled forward and backward functions come from; the Program users see is left as traced).
"""
from __future__ import annotations

from runtime import unique_name
from runtime.static.passes.analysis import Uses
from runtime.static.program import Operator

__all__ = ["rewrite_training_step", "fuse_cross_entropy_mean", "add_grads_read_no_forward_input"]


def rewrite_training_step(prog, n_fwd, feed_names, fetch_names):
    """Every rewrite below on ``prog``, a clone of a training Program whose first ``n_fwd`` global-block ops
    are the forward (fetching ``fetch_names``: outputs and gradients); returns the new ``n_fwd``. The
    verifier checks the result when DY2ST_VERIFY_PASSES is set (as after the graph passes)."""
    from runtime.static.passes.manager import _verify_on
    n_new = fuse_cross_entropy_mean(prog, n_fwd, feed_names, fetch_names)
    changed = add_grads_read_no_forward_input(prog, n_new) + (n_new != n_fwd)
    if changed:
        prog._bump()
        if _verify_on():
            prog.verify()
    return n_new


def fuse_cross_entropy_mean(prog, n_fwd, feed_names, fetch_names):
    """Fuse, in ``prog`` (a clone the compiled functions run; its first ``n_fwd`` ops are the forward),

        softmax, loss = softmax_with_cross_entropy(logits, label)     # hard labels, classes last
        out = reduce_mean(loss)                                        # every element
        ...
        loss@GRAD = reduce_mean_grad(loss, out@GRAD)
        logits@GRAD = softmax_with_cross_entropy_grad(label, softmax, loss@GRAD)

    into ``softmax, out, index, valid = fused_softmax_ce_mean(logits, label)`` and
    ``logits@GRAD = fused_softmax_ce_mean_grad(softmax, index, valid, out@GRAD)`` (runtime/ops/loss.py:
    the labels are checked once, the backward's two kernels are one, the same bits). Only where each op
    pair is adjacent and ``loss`` / ``loss@GRAD`` are read by nothing else. Returns the new ``n_fwd``."""
    block = prog.global_block()
    ops = block.ops
    if not any(op.type == "softmax_with_cross_entropy" for op in ops[:n_fwd]):
        return n_fwd
    uses = Uses(prog, feed_names, fetch_names)
    pos = {id(op): k for k, op in enumerate(ops)}
    dead = set()
    for i in range(n_fwd - 1):
        a, b = ops[i], ops[i + 1]
        if a.type != "softmax_with_cross_entropy" or b.type != "reduce_mean" or id(a) in dead:
            continue
        at, bt = a.attrs, b.attrs
        logits = block._find_var_recursive(a.inputs["Logits"][0])
        rank = len(logits.shape) if logits is not None else 0
        loss, sm, label = a.outputs["Loss"][0], a.outputs["Softmax"][0], a.inputs["Label"][0]
        if (at["soft_label"] or not at["use_softmax"] or rank < 1 or at["axis"] not in (-1, rank - 1)
                or b.inputs["X"] != [loss] or bt["in_dtype"] != -1 or bt["out_dtype"] != -1
                or not (bt["reduce_all"] or not bt["dim"] or sorted(d % rank for d in bt["dim"]) == list(range(rank)))):
            continue
        readers = uses.readers.get(loss, [])
        if not uses.free(loss) or len(readers) != 2 or readers[0] is not b or readers[1].block is not block:
            continue
        c = readers[1]
        j = pos[id(c)]
        if c.type != "reduce_mean_grad" or c.attrs != bt or j < n_fwd or j + 1 >= len(ops):
            continue
        d, dloss = ops[j + 1], c.outputs["X@GRAD"][0]
        if (d.type != "softmax_with_cross_entropy_grad" or d.attrs != at or d.inputs.get("Loss@GRAD") != [dloss]
                or d.inputs.get("Softmax@GRAD") or d.inputs.get("Softmax") != [sm] or d.inputs.get("Label") != [label]
                or uses.readers.get(dloss) != [d] or not uses.free(dloss) or not uses.stable(sm)
                or not uses.stable(label)):
            continue
        index = block.create_var(name=unique_name.generate("fused_ce_index"), shape=[-1], dtype="int64",
                                 stop_gradient=True)
        valid = block.create_var(name=unique_name.generate("fused_ce_valid"), shape=[-1], dtype="bool",
                                 stop_gradient=True)
        attrs = {"ignore_index": at["ignore_index"], "keep_dim": bt["keep_dim"]}
        ops[i] = Operator(block, "fused_softmax_ce_mean", {"Logits": list(a.inputs["Logits"]), "Label": [label]},
                          {"Softmax": [sm], "Out": list(b.outputs["Out"]), "Index": [index.name],
                           "Valid": [valid.name]}, dict(attrs), list(a.callstack), a.role)
        ops[j] = Operator(block, "fused_softmax_ce_mean_grad",
                          {"Softmax": [sm], "Index": [index.name], "Valid": [valid.name],
                           "Out@GRAD": list(c.inputs["Out@GRAD"]), "Softmax@GRAD": []},
                          {"Logits@GRAD": list(d.outputs["Logits@GRAD"])}, dict(attrs), list(d.callstack), d.role)
        dead.update((id(b), id(d)))
    if not dead:
        return n_fwd
    n_fwd -= sum(1 for op in ops[:n_fwd] if id(op) in dead)
    block.ops = [op for op in ops if id(op) not in dead]
    prog._bump()
    return n_fwd


def add_grads_read_no_forward_input(prog, n_fwd):
    """``elementwise_add_grad`` reads its input X only for X's shape and dtype (the gradient of a sum is the
    output gradient, summed down to each operand's shape). Where X's shape is the sum's own (a bias add
    ``x + b``: each dim of b is 1 or equals x's known dim, so broadcasting never widens x) and X, Y and
    Out@GRAD share a dtype, X is replaced by Out@GRAD, which has that shape and dtype: same results, and
    the forward no longer keeps x for the backward (its matmul/conv can then fuse with the add). Returns
    how many grad ops changed."""
    block = prog.global_block()
    changed = 0
    for op in block.ops[n_fwd:]:
        if op.type != "elementwise_add_grad":
            continue
        x, y, d = op.inputs.get("X", []), op.inputs.get("Y", []), op.inputs.get("Out@GRAD", [])
        if len(x) != 1 or len(y) != 1 or len(d) != 1 or x == d:
            continue
        xv, yv, dv = (block._find_var_recursive(n) for n in (x[0], y[0], d[0]))
        if xv is None or yv is None or dv is None or not xv.dtype == yv.dtype == dv.dtype:
            continue
        xs, ys, axis = list(xv.shape), list(yv.shape), op.attrs.get("axis", -1)
        if len(ys) > len(xs) or len(dv.shape) != len(xs) or axis < -1:
            continue
        off = len(xs) - len(ys) if axis == -1 or len(xs) == len(ys) else axis     # as ops.elementwise.align
        if off + len(ys) > len(xs):
            continue
        if all(b == 1 or (a == b and a >= 0) for a, b in zip(xs[off:off + len(ys)], ys)):
            op.inputs["X"] = list(d)
            changed += 1
    return changed
