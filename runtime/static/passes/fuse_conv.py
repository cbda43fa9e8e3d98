"""Convolution epilogues.

conv2d / depthwise_conv2d + eval-mode batch_norm [+ residual add] [+ relu / relu6] -> one
``fused_conv2d_bn`` op, whose kernel folds the normalisation into the filter (or the output) and applies
the shift, the shortcut and the activation in place in the convolution's own output buffer
(runtime/ops/conv.py); an eval-mode batch_norm + relu / relu6 that no convolution precedes (DenseNet's
pre-activation) -> one ``fused_bn_eval_act`` op (runtime/ops/norm.py); a convolution + its layer's
bias add [+ relu / relu6] (VGG, AlexNet, GoogLeNet) -> one ``fused_conv2d_bias_act`` op (same bits).

Before::

    tmp_0 = conv2d(x, w)
    tmp_1, mean, var, tmp_2, tmp_3, tmp_4 = batch_norm(tmp_0, scale, bias, mean, var)   # is_test
    tmp_5 = elementwise_add(tmp_1, shortcut)       # optional: a residual block's output
    tmp_6 = relu(tmp_5)

After::

    tmp_6 = fused_conv2d_bn(x, w, scale, bias, mean, var, shortcut, activation="relu")

Only batch_norm ops that normalise with the running statistics (``is_test`` without trainable
statistics, or ``use_global_stats``) qualify: they write back their statistics unchanged, so dropping
MeanOut / VarianceOut changes nothing when they are Mean / Variance themselves. The convolution's
output and the normalised value must each be read only by the next op of the pattern and be free to
remove, and SavedMean / SavedVariance / ReserveSpace must be unread (a training forward fetches what
the backward needs, so it is never fused). The parameters stay inputs of the fused op: they are read
at run time as batch_norm read them, so later parameter updates are seen.
"""
from __future__ import annotations

from ...ops.registry import lookup
from ..program import Operator
from ..prune import op_reads_writes
from .analysis import Uses, remove_ops

_CONV_TYPES = ("conv2d", "depthwise_conv2d")
_ACTIVATIONS = ("relu", "relu6")


def _only_reader(uses, n):
    rs = uses.readers.get(n, [])
    return rs[0] if len(rs) == 1 and uses.free(n) else None


def _running_stats(bn):
    a = bn.attrs
    return bool((a.get("is_test") and not a.get("trainable_statistics")) or a.get("use_global_stats"))


def _bn_side_outputs_unused(uses, bn):
    """MeanOut / VarianceOut write Mean / Variance back (unchanged in eval); the rest are unread."""
    if bn.outputs.get("MeanOut", []) not in ([], bn.inputs.get("Mean")):
        return False
    if bn.outputs.get("VarianceOut", []) not in ([], bn.inputs.get("Variance")):
        return False
    for slot in ("SavedMean", "SavedVariance", "ReserveSpace"):
        for n in bn.outputs.get(slot, []):
            if uses.reads[n] or n in uses.pinned or uses.writes[n] != 1:
                return False
    return True


def _relu6_plain(op):
    # our relu6 kernel clips at 6 whatever the attribute says; fuse only the standard threshold
    return float(op.attrs.get("threshold", 6.0)) == 6.0


def _residual_add(uses, block, y, claimed):
    """(add op, shortcut name) when ``y``'s only reader is ``y + shortcut`` or ``shortcut + y`` (float
    addition commutes exactly) of the same static shape and dtype."""
    add = _only_reader(uses, y)
    if (add is None or id(add) in claimed or add.type != "elementwise_add" or add.block is not block
            or add.attrs.get("axis", -1) != -1
            or len(add.inputs.get("X", [])) != 1 or len(add.inputs.get("Y", [])) != 1):
        return None
    ins = (add.inputs["X"][0], add.inputs["Y"][0])
    if ins.count(y) != 1:
        return None
    shortcut = ins[1] if ins[0] == y else ins[0]
    a, b = block._find_var_recursive(y), block._find_var_recursive(shortcut)
    if a is None or b is None or tuple(a.shape) != tuple(b.shape) or a.dtype != b.dtype:
        return None
    return add, shortcut


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
    dead, claimed, fused = set(), set(), 0
    pos = {id(op): k for k, op in enumerate(block.ops)}
    for i, conv in enumerate(list(block.ops)):
        if conv.type not in _CONV_TYPES or id(conv) in dead:
            continue
        out = conv.outputs["Output"][0]
        if _fuse_bias_act(uses, block, conv, i, pos, dead, claimed):
            fused += 1
            continue
        bn = _only_reader(uses, out)
        if (bn is None or bn.type != "batch_norm" or bn.block is not block or bn.inputs.get("X") != [out]
                or not _running_stats(bn) or not _bn_side_outputs_unused(uses, bn)):
            continue
        layout = "NHWC" if conv.attrs.get("data_format") == "NHWC" else "NCHW"
        if bn.attrs.get("data_layout", "NCHW") != layout:
            continue
        last, y = bn, bn.outputs["Y"][0]
        chain = [bn]                     # the ops the fused one replaces after the conv
        activation = "none"
        residual = _residual_add(uses, block, y, claimed)
        if residual is not None:
            last, y, residual = residual[0], residual[0].outputs["Out"][0], residual[1]
            chain.append(last)
        act = _only_reader(uses, y)
        if (act is not None and id(act) not in claimed and act.block is block and act.type in _ACTIVATIONS
                and act.inputs.get("X") == [y] and (act.type == "relu" or _relu6_plain(act))):
            activation = act.type
            last, y = act, act.outputs["Out"][0]
            chain.append(last)
        ins = {"Input": conv.inputs["Input"], "Filter": conv.inputs["Filter"],
               "Scale": bn.inputs.get("Scale", []), "Bias": bn.inputs.get("Bias", []),
               "Mean": bn.inputs["Mean"], "Variance": bn.inputs["Variance"],
               "ResidualData": [residual] if residual is not None else []}
        # the fused op runs where ``last`` ran: its inputs must hold there what they held at the conv, the
        # batch_norm (whose own write-back of Mean / Variance is the identity in eval) and the add (a
        # downsampling shortcut is often computed between the batch_norm and the add)
        names = [n for k, ns in ins.items() if k != "ResidualData" for n in ns]
        if (not _unchanged_between(uses, block, i, pos[id(bn)], names)
                or not _unchanged_between(uses, block, pos[id(bn)], pos[id(last)], names)
                or any(set(op_reads_writes(o)[1]) & set(names + [residual]) for o in chain[1:])
                or (residual is not None and not _unchanged_between(uses, block, pos[id(chain[1])], pos[id(last)],
                                                                    [residual]))):
            continue
        attrs = {k: v for k, v in conv.attrs.items() if k in lookup("fused_conv2d_bn").attrs}
        attrs.update(epsilon=float(bn.attrs.get("epsilon", 1e-5)), activation=activation)
        op = Operator(block, "fused_conv2d_bn", ins, {"Output": [y]}, lookup("fused_conv2d_bn").full_attrs(attrs),
                      list(conv.callstack), conv.role)
        block.ops[pos[id(last)]] = op
        dead.add(id(conv))
        dead.update(id(o) for o in chain[:-1])
        claimed.update(id(o) for o in chain)     # an add joins one fused op only (ResNet: y + shortcut(x))
        fused += 1
    fused += _fuse_bn_act(uses, block, pos, dead, claimed)
    remove_ops(block, dead)
    return fused


def _activation_after(uses, block, y, claimed):
    """The relu / relu6 that is ``y``'s only reader (None if there is none)."""
    act = _only_reader(uses, y)
    if (act is not None and id(act) not in claimed and act.block is block and act.type in _ACTIVATIONS
            and act.inputs.get("X") == [y] and (act.type == "relu" or _relu6_plain(act))):
        return act
    return None


def _fuse_bias_act(uses, block, conv, i, pos, dead, claimed):
    """conv + the Conv2D layer's bias add [+ relu / relu6] -> fused_conv2d_bias_act; True if fused."""
    out = conv.outputs["Output"][0]
    add = _only_reader(uses, out)
    if (add is None or id(add) in claimed or add.type != "elementwise_add" or add.block is not block
            or add.inputs.get("X") != [out] or len(add.inputs.get("Y", [])) != 1):
        return False
    nhwc = conv.attrs.get("data_format") == "NHWC"
    bias = add.inputs["Y"][0]
    bv = block._find_var_recursive(bias)
    w = block._find_var_recursive(conv.inputs["Filter"][0])
    if bv is None or w is None or len(w.shape) != 4 or tuple(bv.shape) != (w.shape[0],) or w.shape[0] < 0:
        return False
    if add.attrs.get("axis", -1) not in ((3, -1) if nhwc else (1,)):
        return False
    chain, y, activation = [add], add.outputs["Out"][0], "none"
    act = _activation_after(uses, block, y, claimed)
    if act is not None:
        chain.append(act)
        y, activation = act.outputs["Out"][0], act.type
    last = chain[-1]
    names = conv.inputs["Input"] + conv.inputs["Filter"] + [bias]
    if (not _unchanged_between(uses, block, i, pos[id(last)], names)
            or any(set(op_reads_writes(o)[1]) & set(names) for o in chain)):
        return False
    attrs = {k: v for k, v in conv.attrs.items() if k in lookup("fused_conv2d_bias_act").attrs}
    attrs["activation"] = activation
    op = Operator(block, "fused_conv2d_bias_act",
                  {"Input": conv.inputs["Input"], "Filter": conv.inputs["Filter"], "Bias": [bias]}, {"Output": [y]},
                  lookup("fused_conv2d_bias_act").full_attrs(attrs), list(conv.callstack), conv.role)
    block.ops[pos[id(last)]] = op
    dead.add(id(conv))
    dead.update(id(o) for o in chain[:-1])
    claimed.update(id(o) for o in chain)
    return True


def _fuse_bn_act(uses, block, pos, dead, claimed):
    """The eval-mode batch_norm + relu / relu6 pairs left (no convolution before them) ->
    fused_bn_eval_act."""
    fused = 0
    for bn in list(block.ops):
        if bn.type != "batch_norm" or id(bn) in dead or not _running_stats(bn) or not _bn_side_outputs_unused(uses, bn):
            continue
        y = bn.outputs["Y"][0]
        act = _only_reader(uses, y)
        if (act is None or id(act) in claimed or act.block is not block or act.type not in _ACTIVATIONS
                or act.inputs.get("X") != [y] or not (act.type == "relu" or _relu6_plain(act))):
            continue
        ins = {s: bn.inputs.get(s, []) for s in ("X", "Scale", "Bias", "Mean", "Variance")}
        if set(op_reads_writes(act)[1]) & {n for ns in ins.values() for n in ns}:
            continue
        attrs = {"epsilon": float(bn.attrs.get("epsilon", 1e-5)), "data_layout": bn.attrs.get("data_layout", "NCHW"),
                 "activation": act.type}
        op = Operator(block, "fused_bn_eval_act", ins, {"Y": act.outputs["Out"]},
                      lookup("fused_bn_eval_act").full_attrs(attrs), list(bn.callstack), bn.role)
        block.ops[pos[id(act)]] = op
        dead.add(id(bn))
        fused += 1
    return fused
