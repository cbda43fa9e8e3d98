"""matmul_v2 (or a 2-D ``mul``) + elementwise_add of a bias [+ relu / exact gelu] -> one
``fused_gemm_epilogue`` op, whose kernel adds the bias and applies the activation in the
product's own buffer (no temporaries).

The product and the sum must each be read only by the next op of the pattern and be free to
remove (not fetched, persistable or used by control flow: in a training forward run the values
the backward needs are fetched, so they are never fused away).
"""
from __future__ import annotations

from ...ops.registry import lookup
from ..program import Operator
from ..prune import op_reads_writes
from .analysis import Uses, remove_ops


def _only_reader(uses, n):
    rs = uses.readers.get(n, [])
    return rs[0] if len(rs) == 1 and uses.free(n) else None


def _gemm_attrs(mm, block):
    if mm.type == "matmul_v2":
        return {"trans_x": bool(mm.attrs["trans_x"]), "trans_y": bool(mm.attrs["trans_y"])}
    x = block._find_var_recursive(mm.inputs["X"][0])
    y = block._find_var_recursive(mm.inputs["Y"][0])
    if (x is not None and y is not None and len(x.shape) == 2 and len(y.shape) == 2
            and mm.attrs["x_num_col_dims"] == 1 and mm.attrs["y_num_col_dims"] == 1):
        return {"trans_x": False, "trans_y": False}
    return None


def _unchanged_between(uses, block, i, j, names):
    """No op strictly between positions ``i`` and ``j`` of ``block`` writes one of ``names``."""
    if all(uses.stable(n) for n in names):
        return True
    for op in block.ops[i + 1:j]:
        if set(op_reads_writes(op)[1]) & set(names):
            return False
    return True


def run(program, feed_names, fetch_names):
    uses = Uses(program, feed_names, fetch_names)
    block = program.global_block()
    dead, fused = set(), 0
    # where each original op sits: a fused op replaces its last op in place and the dead ones go only
    # at the end, so positions never shift while the loop runs (``ops.index`` per match was quadratic)
    pos = {id(op): k for k, op in enumerate(block.ops)}
    for i, mm in enumerate(list(block.ops)):
        if mm.type not in ("matmul_v2", "mul") or id(mm) in dead:
            continue
        attrs = _gemm_attrs(mm, block)
        x, w = mm.inputs["X"][0], mm.inputs["Y"][0]
        prod = mm.outputs["Out"][0]
        add = _only_reader(uses, prod)
        if (attrs is None or add is None or add.type != "elementwise_add" or add.block is not block
                or add.inputs["X"] != [prod] or add.inputs["Y"] == [prod]):
            continue
        pv = block._find_var_recursive(prod)
        bias = add.inputs["Y"][0]
        bv = block._find_var_recursive(bias)
        if pv is None or bv is None or len(pv.shape) < 1:
            continue
        axis = add.attrs["axis"]
        if not (axis == -1 or len(bv.shape) == len(pv.shape)
                or (len(bv.shape) == 1 and axis == len(pv.shape) - 1)):
            continue
        last, out = add, add.outputs["Out"][0]
        attrs["activation"] = "none"
        act = _only_reader(uses, out)
        if act is not None and act.block is block and act.inputs.get("X") == [out] and (
                act.type == "relu" or (act.type == "gelu" and not act.attrs.get("approximate", False))):
            attrs["activation"] = act.type
            last, out = act, act.outputs["Out"][0]
        # the fused op runs where ``last`` ran: its inputs must hold there what they held at the
        # matmul and the add (never rewritten, or at least not by any op in between: a loop
        # variable written by an earlier while op still qualifies)
        if not _unchanged_between(uses, block, i, pos[id(last)], (x, w, bias)):
            continue
        op = Operator(block, "fused_gemm_epilogue", {"X": [x], "Y": [w], "Bias": [bias]}, {"Out": [out]},
                      lookup("fused_gemm_epilogue").full_attrs(attrs), list(mm.callstack), mm.role)
        block.ops[pos[id(last)]] = op
        dead.add(id(mm))
        if last is not add:
            dead.add(id(add))
        fused += 1
    remove_ops(block, dead)
    return fused
