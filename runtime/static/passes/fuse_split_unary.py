"""Outputs of one ``split`` each read by the same elementwise unary op -> that op once, on the split's
input (or on the slice covering those outputs), and a second split of its result.

    before                                   after
    i, f, g, o = split(z, num=4, axis=1)     i, f, g, o = split(z, num=4, axis=1)   (g is still read)
    si = sigmoid(i)                          s = sigmoid(z)
    sf = sigmoid(f)                          si, sf, _, so = split(s, num=4, axis=1)
    so = sigmoid(o)

One call on a [4, 512] array instead of three on [4, 128] views (the unrolled LSTM's gates: the
calls' fixed cost is most of their time). The op also runs on the parts nobody reads (g above), so
only ops in ``TOTAL_UNARY`` qualify: elementwise kernels that give every element the value they give
it alone and raise or warn for no input value (NaN, inf, any finite float) under numpy's default
error state. The new split writes the unary ops' own output names, so every reader (gradient ops
included) sees the same values; the old split stays while anything else reads its outputs.

When the grouped outputs do not reach both ends of the split, the op runs on a ``slice`` of the
input covering them, if the split has explicit section sizes (no -1) and stays in the program with a
reader that runs (its own run checks the input's size along the axis); otherwise on the whole input
(always in sub-blocks).

Loop bodies (sub-blocks) too: the split's input must not be written between the split and the last
grouped op, and no op between the first grouped op and another one may read that one's output (it
would read the previous iteration's value there); names the loop op itself writes (its outputs) have
two writers and stay as they are.
"""
from __future__ import annotations

from ...ops.registry import lookup
from ...ops.shape import normalize_axis
from ..program import Operator
from ..prune import op_reads_writes, prune_ops
from .analysis import Uses

# elementwise, no shape-dependent behaviour, no floating-point warning for any input value (their
# kernels apply one ufunc, or clip / errstate around the ones that could overflow)
TOTAL_UNARY = frozenset({"sigmoid", "tanh", "relu", "relu6", "abs", "floor", "ceil", "sign", "atan"})


def _static_split(op, block):
    """(outputs, sections, num, axis) of a split whose sizes come from its attributes only, else None."""
    if op.type != "split" or op.block is not block:
        return None
    if op.inputs.get("AxisTensor") or op.inputs.get("SectionsTensorList"):
        return None
    xs, outs = op.inputs.get("X", []), op.outputs.get("Out", [])
    if len(xs) != 1 or len(outs) < 2 or len(set(outs)) != len(outs) or xs[0] in outs:
        return None
    sections = [int(s) for s in op.attrs.get("sections", [])]
    return outs, sections, int(op.attrs.get("num", 0)), int(op.attrs.get("axis", 0))


def _unary_reader(op, n, block):
    """The output name when ``op`` is a TOTAL_UNARY op of ``block`` reading exactly ``n``, else None."""
    if op.type not in TOTAL_UNARY or op.block is not block:
        return None
    if op.input_arg_names != [n] or list(op.inputs) != ["X"]:
        return None
    outs = op.output_arg_names
    if len(outs) != 1 or list(op.outputs) != ["Out"]:
        return None
    return outs[0]


def _attr_key(op):
    return op.type, tuple(sorted((k, repr(v)) for k, v in op.attrs.items()))


class _Fresh:
    """Names for the new variables, unused in every block of the program."""

    def __init__(self, program):
        self.taken = {n for blk in program.blocks for n in blk.vars}

    def __call__(self, base):
        k = 0
        while f"{base}@fused_{k}" in self.taken:
            k += 1
        name = f"{base}@fused_{k}"
        self.taken.add(name)
        return name


def _new_var(block, name, meta):
    return block.create_var(name=name, shape=list(meta.shape), dtype=meta.dtype)


def _groups(uses, block, outs, pos, once):
    """[(position of the earliest reader, [(output index, unary op)])]: per (type, attrs), two or more
    outputs, the first qualifying reader of each output (``once(n)``: n has one writer and one value)."""
    found = {}
    for k, n in enumerate(outs):
        if not once(n):
            continue
        seen = set()
        for r in uses.readers.get(n, ()):
            y = _unary_reader(r, n, block)
            if y is None or not once(y):
                continue
            key = _attr_key(r)
            if key in seen:
                continue
            seen.add(key)
            found.setdefault(key, []).append((k, r))
    out = []
    for members in found.values():
        if len(members) >= 2:
            out.append((min(pos[id(r)] for _, r in members), members))
    return out


def _covering_slice(split_op, block, x, lo, hi):
    """(axis, start, end) of the slice of ``x`` covering outputs lo..hi of a split with explicit sections,
    or None (x unknown: use the whole input)."""
    xv = block._find_var_recursive(x)
    if xv is None or not xv.shape:
        return None
    try:
        ax = normalize_axis(int(split_op.attrs.get("axis", 0)), len(xv.shape), "split: axis")
    except ValueError:
        return None         # the split raises its own error at run time
    sections = [int(s) for s in split_op.attrs["sections"]]
    start = sum(sections[:lo])
    return ax, start, start + sum(sections[lo:hi + 1])


def _movable(block, pos, sp, members, x):
    """In a loop body (a sub-block runs once per iteration), the fused op runs at the earliest member:
    ``x`` must hold there what it held at the split, and no op between it and a member may read that
    member's output (it would see this iteration's value instead of the last one's)."""
    ops = block.ops
    last = max(pos[id(r)] for _, r in members)
    first = min(pos[id(r)] for _, r in members)
    for op in ops[pos[id(sp)] + 1:last]:
        if x in op_reads_writes(op)[1]:
            return False
    for _, r in members:
        y = r.outputs["Out"][0]
        for op in ops[first:pos[id(r)]]:
            if y in op_reads_writes(op)[0]:
                return False
    return True


def run(program, feed_names, fetch_names):
    if not any(op.type == "split" for blk in program.blocks for op in blk.ops):
        return 0            # most programs: no def/use analysis needed
    uses = Uses(program, feed_names, fetch_names)
    fresh = _Fresh(program)
    state = {"live": None}   # ids of the global block's ops that run (computed when first needed)
    fused = 0
    for block in program.blocks:
        if any(op.type == "split" for op in block.ops):
            fused += _fuse_block(block, uses, fresh, state, feed_names, fetch_names)
    return fused


def _fuse_block(block, uses, fresh, state, feed_names, fetch_names):
    top = block.idx == 0
    if top:
        once = uses.stable
    else:
        def once(n):
            return uses.writes[n] == 1 and n not in uses.feeds and n not in uses.persist
    pos = {id(op): k for k, op in enumerate(block.ops)}
    replace = {}        # id(op) -> the ops that run in its place
    dead, fused = set(), 0
    for sp in list(block.ops):
        info = _static_split(sp, block)
        if info is None:
            continue
        outs, sections, num, _ = info
        x = sp.inputs["X"][0]
        if top and not uses.stable(x):
            continue
        sizes_known = top and num <= 0 and bool(sections) and all(s >= 0 for s in sections)
        groups = sorted(_groups(uses, block, outs, pos, once), key=lambda g: g[0])
        grouped = {id(r) for _, members in groups for _, r in members}
        for first, members in groups:
            if not top and not _movable(block, pos, sp, members, x):
                continue
            idx = sorted(k for k, _ in members)
            lo, hi = idx[0], idx[-1]
            unary = members[0][1]
            opdef = lookup(unary.type)
            cover = None
            if sizes_known and not (lo == 0 and hi == len(outs) - 1):
                # does the old split keep a reader that runs (pruning keeps it) once the grouped ops go?
                if state["live"] is None:
                    state["live"] = {id(op) for op in prune_ops(block, fetch_names, feed_names)}
                live = state["live"]
                if any(id(r) not in grouped and (r.block is not block or id(r) in live)
                       for n in outs for r in uses.readers.get(n, ())):
                    cover = _covering_slice(sp, block, x, lo, hi)
            new_ops, src = [], x
            if cover is not None:
                ax, start, end = cover
                sl = lookup("slice")
                attrs = sl.full_attrs({"axes": [ax], "starts": [start], "ends": [end], "infer_flags": [1],
                                       "decrease_axis": []})
                meta = sl.infer_meta(block._var_recursive(x).meta, None, None, [], [], **attrs)
                src = _new_var(block, fresh(x + "@slice"), meta).name
                new_ops.append(Operator(block, "slice", {"Input": [x]}, {"Out": [src]}, attrs,
                                        list(unary.callstack), unary.role))
                split_attrs = lookup("split").full_attrs({"sections": sections[lo:hi + 1], "num": 0, "axis": ax})
                first_out = lo
                n_new = hi - lo + 1
            else:
                split_attrs = dict(sp.attrs)
                first_out, n_new = 0, len(outs)
            meta = opdef.infer_meta(block._var_recursive(src).meta, **unary.attrs)
            act = _new_var(block, fresh(f"{x}@{unary.type}"), meta).name
            new_ops.append(Operator(block, unary.type, {"X": [src]}, {"Out": [act]}, dict(unary.attrs),
                                    list(unary.callstack), unary.role))
            by_index = {k: r.outputs["Out"][0] for k, r in members}
            split_metas = lookup("split").infer_meta(meta, None, None, **split_attrs)
            names = []
            for j in range(n_new):
                y = by_index.get(first_out + j)
                names.append(y if y is not None else _new_var(block, fresh(act), split_metas[j]).name)
            new_ops.append(Operator(block, "split", {"X": [act]}, {"Out": names}, split_attrs,
                                    list(unary.callstack), unary.role))
            first_op = block.ops[first]
            replace[id(first_op)] = new_ops
            dead.update(id(r) for _, r in members if r is not first_op)
            fused += 1
    if replace:
        ops = []
        for op in block.ops:
            if id(op) in dead:
                continue
            ops.extend(replace.get(id(op), (op,)))
        block.ops = ops
        block.program._bump()
    return fused


__all__ = ["run", "TOTAL_UNARY"]
