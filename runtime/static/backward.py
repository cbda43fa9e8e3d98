"""Static autograd: `append_backward` and `gradients` append grad ops to a Program.

Each forward op on a path to the loss has its grad rule (``OpDef.grad``, the same rule the
eager tape calls) run with static mode on, over a context of Variables, so the rule's
`run_op` calls append the grad ops. Gradients reaching one variable from several consumers
are summed with a ``sum`` op, and every final gradient is named ``<var>@GRAD`` as in Paddle.
Ops whose gradient only exists inside Programs (conditional_block, select_input, while: their
rules build grad sub-blocks) register a *static grad rule* with `register_static_grad`
(runtime/static/control_flow_grad.py); it is used when the op has no ``OpDef.grad``.
"""
from __future__ import annotations

import collections

import numpy as np

from .. import unique_name
from ..framework import state
from .program import (ROLE_BACKWARD, Variable, VarType, op_role_guard, program_guard)

__all__ = ["append_backward", "gradients"]

# op type -> (rule(op, douts: {output name: grad Variable}, bw) -> {input name: grad Variable},
#             grad_inputs(op) -> names the rule may return gradients for)
STATIC_GRADS = {}


def register_static_grad(op_type, rule, grad_inputs):
    STATIC_GRADS[op_type] = (rule, grad_inputs)


def _ensure_control_flow_grads():
    from . import control_flow_grad  # noqa: F401  (registers the control-flow rules)


def _ensure_static_grads(ops=None):
    """The Program-only gradient rules, and the second-order rules when ``ops`` (the ops the backward walks
    through; None: assume any) hold grad ops (paddle.grad inside to_static): those are differentiated then.
    Installing the second-order rules costs 2-18 ms (their modules' import), so not for every backward."""
    _ensure_control_flow_grads()
    if ops is None or any(op.type.endswith("_grad") for op in ops):
        from ..double_grad import ensure_double_grads
        ensure_double_grads()


def _walked_ops(ops, program):
    """``ops`` and the ops of every sub-block they hold (control flow), depth first."""
    out = []
    stack = list(reversed(ops))
    while stack:
        op = stack.pop()
        out.append(op)
        for sid in op.sub_block_ids():
            stack.extend(reversed(program.blocks[sid].ops))
    return out


def _diff_inputs(op, opdef):
    """Input names gradients may flow to through ``op`` (None: the op has no gradient)."""
    if opdef.grad is not None:
        return [n for s in opdef.inputs if s.name in opdef.differentiable for n in op.inputs.get(s.name, [])]
    entry = STATIC_GRADS.get(op.type)
    return None if entry is None else list(entry[1](op))


class StaticGradContext:
    """What a grad rule sees for one forward Operator (the interface of the eager GradNode)."""

    __slots__ = ("op", "opdef", "inputs", "attrs", "_outputs")

    def __init__(self, op, opdef):
        blk = op.block
        self.op = op
        self.opdef = opdef
        self.attrs = op.attrs
        ins = []
        for slot in opdef.inputs:
            names = op.inputs.get(slot.name, [])
            vs = [blk._var_recursive(n) for n in names]
            ins.append(vs if slot.duplicable else (vs[0] if vs else None))
        self.inputs = tuple(ins)
        self._outputs = [None if n is None else blk._var_recursive(n) for n in _flat_output_names(op, opdef)]

    def output(self, i):
        """Visible output ``i`` (flattened over duplicable slots) as a Variable."""
        return self._outputs[i]

    def attr(self, name):
        if name in self.attrs:
            return self.attrs[name]
        return self.opdef.attrs[name][1]

    def __repr__(self):
        return f"<StaticGradContext {self.op.type}>"


def _flat_output_names(op, opdef):
    """Names of the visible outputs, flattened like the eager tape's outputs (None for an absent one)."""
    res = []
    for slot in opdef.outputs:
        if slot.intermediate:
            continue
        names = op.outputs.get(slot.name, [])
        if slot.duplicable:
            res.extend(names)
        else:
            res.append(names[0] if names else None)
    return res


def _regroup(opdef, op, douts):
    """Per-output grads back into the visible-slot structure (lists for duplicable slots)."""
    res = []
    k = 0
    for slot in opdef.outputs:
        if slot.intermediate:
            continue
        if slot.duplicable:
            n = len(op.outputs.get(slot.name, []))
            res.append(douts[k:k + n])
            k += n
        else:
            res.append(douts[k])
            k += 1
    return res


def _as_names(vs, what):
    out = set()
    for v in vs or ():
        if isinstance(v, str):
            out.add(v)
        elif isinstance(v, Variable):
            out.add(v.name)
        else:
            raise TypeError(f"{what}: expected Variables or variable names, got {type(v).__name__}")
    return out


class _Backward:
    """One run of static backward over ``block``'s ops up to the targets."""

    def __init__(self, block, no_grad, callbacks=None, grad_block=None):
        # ``block`` holds the forward ops; grad ops go to ``grad_block`` (a grad sub-block when
        # differentiating a control-flow op's sub-block; the same block otherwise)
        self.block = block
        self.gblock = block if grad_block is None else grad_block
        self.program = block.program
        self.no_grad = no_grad
        self.callbacks = callbacks or []
        self.pending = {}     # var name -> list of gradient contributions (Variables)
        self.final = {}       # var name -> its gradient Variable (named <var>@GRAD)
        self.claimed = set()  # ids of Variables already used as some var's final gradient
        self.n_ops0 = len(self.gblock.ops)
        self.n_blocks0 = self.program.num_blocks
        self.names0 = set(self.gblock.vars)
        # name -> {id(op): op}: the ops this run added to ``gblock`` that mention the name, so renaming
        # a gradient touches only those (see _rename); extended lazily up to ``_indexed`` ops
        self._mentions = collections.defaultdict(dict)
        self._indexed = self.n_ops0
        self._renamed = {}      # old name -> new name, still to apply in the blocks this run made

    # -- which ops are on a path ------------------------------------------------------------------
    def _requires(self, name):
        v = self.block._find_var_recursive(name)
        return v is not None and not v.stop_gradient and name not in self.no_grad and \
            np.dtype(v.dtype.np).kind in "fc"

    def plan(self, ops, targets, sources=None):
        """The ops (in forward order) whose grad rules must run; ``sources`` restricts the leaves."""
        from ..ops.registry import lookup
        # forward sweep: which vars depend differentiably on a source
        if sources is None:
            # the leaves: names read before any op writes them (a variable updated in place, like a tensor
            # array a loop body reads and then appends to, is a leaf for the value it enters with)
            written, reach = set(), set()
            for op in ops:
                reach.update(n for n in op.input_arg_names if n not in written and self._requires(n))
                written.update(op.output_arg_names)
        else:
            reach = {n for n in sources if self._requires(n)}
        for op in ops:
            diff = _diff_inputs(op, lookup(op.type))
            if diff is None:
                continue
            if any(n in reach for n in diff):
                reach.update(n for n in op.output_arg_names if self._requires(n))
        self.reach = reach
        # backward sweep: ops that lead to a target
        needed = set(targets)
        on_path = []
        for op in reversed(ops):
            diff = _diff_inputs(op, lookup(op.type))
            if diff is None or not any(n in needed for n in op.output_arg_names):
                continue
            diff_in = [n for n in diff if n in reach]
            if not diff_in:
                continue
            needed.update(diff_in)
            on_path.append(op)
        on_path.reverse()
        self.needed = needed
        return on_path

    # -- gradient bookkeeping ---------------------------------------------------------------------
    def add(self, name, g):
        self.pending.setdefault(name, []).append(g)

    def materialize(self, name):
        """The total gradient of ``name`` (summing contributions), named ``<name>@GRAD``."""
        if name in self.final:
            return self.final[name]
        parts = self.pending.pop(name, None)
        if not parts:
            return None
        from ..dispatch import run_op
        var = self.block._var_recursive(name)
        if var.type == VarType.LOD_TENSOR_ARRAY:
            # the gradient of a tensor array is an array of element gradients (absent = zero); it is
            # passed along as is, never renamed (no ``<array>@GRAD`` is fetched)
            g = parts[0] if len(parts) == 1 else array_grad_sum(self.gblock, parts)
            self.final[name] = g
            return g
        g = parts[0] if len(parts) == 1 else run_op("sum", list(parts))
        if g.dtype != var.dtype:
            g = run_op("cast", g, in_dtype=g.dtype.proto, out_dtype=var.dtype.proto)
        g = self._name_grad(var, g)
        self.final[name] = g
        return g

    def _name_grad(self, var, g):
        target = var.name + "@GRAD"
        # inside a grad sub-block the plain name is left to the enclosing backward
        if (self.gblock is not self.block or target in self.gblock.vars
                or self.gblock._find_var_recursive(target) is not None):
            target = unique_name.generate(target)
        fresh = g.block is self.gblock and g.name not in self.names0 and not g.persistable
        if fresh and id(g) not in self.claimed:
            self._rename(g, target)
        else:
            # the rule returned an existing variable (a shared dout, a user-given target gradient):
            # renaming it would rename that variable too, so copy it
            from ..dispatch import run_op
            g = run_op("assign", g)
            self._rename(g, target)
        self.claimed.add(id(g))
        return g

    def _index_new_ops(self):
        """Add the ops appended to ``gblock`` since the last call to ``_mentions`` (grad rules only
        append ops)."""
        ops = self.gblock.ops
        for i in range(self._indexed, len(ops)):
            op = ops[i]
            for slots in (op.inputs, op.outputs):
                for names in slots.values():
                    for n in names:
                        self._mentions[n][id(op)] = op
        self._indexed = len(ops)

    def _rename(self, g, new):
        """Rename a variable created by this backward run (only backward ops can refer to it)."""
        old = g.name
        blk = g.block
        del blk.vars[old]
        g.name = new
        blk.vars[new] = g
        # only ops this run added can mention it; a gradient is often renamed long after it was made
        # (a parameter's, at the end), so looking them up beats walking back over the ops in between
        self._index_new_ops()
        ops = self._mentions.pop(old, None)
        if ops:
            for op in ops.values():
                op._rename_input(old, new)
                op._rename_output(old, new)
            self._mentions[new].update(ops)
        # the grad sub-blocks this run made get the new name once, at the end (_apply_renames): one pass
        # over them per rename was quadratic in programs with many control-flow ops. Nothing reads
        # their ops in between, and the old name is unique, so no op made later can mean another var
        self._renamed[old] = new
        self.program._bump()

    def _apply_renames(self):
        """Give the ops of the blocks this run made the new names of the variables it renamed."""
        renamed = self._renamed
        if not renamed:
            return
        for b in self.program.blocks[self.n_blocks0:]:
            for op in b.ops:
                for slots in (op.inputs, op.outputs):
                    for names in slots.values():
                        for i, n in enumerate(names):
                            if n in renamed:
                                names[i] = renamed[n]
        self._renamed = {}

    def prune(self):
        """Drop grad-op outputs nobody reads (gradients of stop_gradient inputs), as Paddle leaves
        such ``X@GRAD`` slots empty; the kernels then skip storing them."""
        self._apply_renames()
        ops = self.gblock.ops[self.n_ops0:]
        read = {n for b in self._visible_from_gblock() for op in b.ops for n in op.input_arg_names}
        keep = read | {g.name for g in self.final.values()}
        for op in ops:
            for slot, names in op.outputs.items():
                if not slot.endswith("@GRAD"):
                    continue
                dead = [n for n in names if n not in keep and n not in self.names0 and n in self.gblock.vars]
                if dead and len(dead) == len(names) and any(
                        n in keep for s, ns in op.outputs.items() if s != slot for n in ns):
                    op.outputs[slot] = []
                    for n in dead:
                        del self.gblock.vars[n]
        self.program._bump()

    def _visible_from_gblock(self):
        """``gblock`` and the blocks nested in it: the only ones whose ops can read a variable this run
        made in ``gblock``. (Scanning every block of the program here, once per grad sub-block, made
        the backward of programs with many control-flow ops quadratic.)"""
        gb = self.gblock
        if gb.idx == 0:
            return self.program.blocks
        blocks = self.program.blocks
        inside = {gb.idx}
        res = [gb]
        for b in blocks[gb.idx + 1:]:     # a block's parent always comes before it
            if b.parent_idx in inside:
                inside.add(b.idx)
                res.append(b)
        return res

    def seed(self, target, grad=None):
        """Start from ``target`` with gradient ``grad`` (ones shaped like target when None)."""
        from ..dispatch import run_op
        if grad is None:
            code = target.dtype.proto
            if any(d < 0 for d in target.shape):
                g = run_op("fill_any_like", target, value=1.0, dtype=code)
            else:
                g = run_op("fill_constant", dtype=code, shape=list(target.shape), value=1.0, str_value="1.0")
        else:
            g = grad
        self.add(target.name, g)

    # -- running the grad rules -------------------------------------------------------------------
    def run(self, on_path):
        from ..ops.registry import lookup
        for op in reversed(on_path):
            opdef = lookup(op.type)
            names = _flat_output_names(op, opdef)
            douts = [None if n is None else self.materialize(n) for n in names]
            if all(d is None for d in douts):
                continue
            if opdef.grad is None:
                self._run_static_rule(op, names, douts)
                continue
            ctx = StaticGradContext(op, opdef)
            grads = opdef.grad(ctx, *_regroup(opdef, op, douts))
            if grads is None:
                continue
            for slot, g in zip(opdef.inputs, grads):
                if g is None or slot.name not in opdef.differentiable:
                    continue
                names_in = op.inputs.get(slot.name, [])
                if slot.duplicable:
                    pairs = [(n, gg) for n, gg in zip(names_in, g)]
                else:
                    pairs = [(names_in[0], g)] if names_in else []
                for n, gg in pairs:
                    if gg is None or n not in self.reach or n not in self.needed:
                        continue
                    if not isinstance(gg, Variable):
                        from .builder import as_variable
                        gg = as_variable(self.gblock, gg if not hasattr(gg, "_data") else gg._data)
                    self.add(n, gg)
            for cb in self.callbacks:
                cb(self.block, {"__current_op_desc__": op})

    def _run_static_rule(self, op, names, douts):
        rule, _ = STATIC_GRADS[op.type]
        grads = rule(op, {n: d for n, d in zip(names, douts) if n is not None and d is not None}, self) or {}
        # a name the op both reads and writes (a while loop's carried variable): the gradient
        # gathered so far belongs to the value after the op; what follows is the value before it
        for n in op.output_arg_names:
            if n in grads:
                self.final.pop(n, None)
        for n, g in grads.items():
            if g is not None and n in self.reach and n in self.needed:
                self.add(n, g)
        for cb in self.callbacks:
            cb(self.block, {"__current_op_desc__": op})


def array_grad_sum(block, parts):
    """One tensor-array gradient from several (element-wise sums; absent elements are zeros)."""
    first = parts[0]
    out = block.create_var(name=unique_name.generate("array@GRAD"), shape=first.shape, dtype=first.dtype,
                           type=VarType.LOD_TENSOR_ARRAY, stop_gradient=True)
    block.append_op("tensor_array_sum", {"X": list(parts)}, {"Out": [out]})
    return out


def sub_block_backward(fwd_block, ops, seeds, wanted, no_grad, grad_block):
    """Append to ``grad_block`` the backward of ``ops`` (of ``fwd_block``) seeded with ``seeds``
    (pairs of forward Variable, gradient Variable); returns {name: grad Variable} for the
    ``wanted`` names that get a gradient. The caller makes ``grad_block`` current."""
    bw = _Backward(fwd_block, no_grad, grad_block=grad_block)
    seeded = {v.name for v, _ in seeds}
    on_path = bw.plan(ops, seeded, None)
    for v, g in seeds:
        bw.seed(v, g)
    bw.run(on_path)
    res = {}
    for n in wanted:
        # a wanted name seeded directly (a while body handing out an outer variable as a loop variable's new
        # value) gets its gradient even when no op of the block reads it
        if n in bw.needed and (n in bw.reach or n in seeded):
            g = bw.materialize(n)
            if g is not None:
                res[n] = g
    bw.prune()
    return res


def _run(targets, target_grads, no_grad_set, sources, callbacks=None):
    """Build the backward of ``targets``; returns the _Backward with its ``final`` grads."""
    block = targets[0].block
    program = block.program
    for t in targets:
        if not isinstance(t, Variable):
            raise TypeError(f"static backward: targets must be static Variables, got {type(t).__name__}")
        if t.block is not block:
            raise ValueError("static backward: all targets must be in the same block")
    no_grad = _as_names(no_grad_set, "no_grad_set")
    # the forward part: ops up to the last one writing a target
    target_names = {t.name for t in targets}
    last = -1
    for i, op in enumerate(block.ops):
        if any(n in target_names for n in op.output_arg_names):
            last = i
    ops = list(block.ops[:last + 1])
    _ensure_static_grads(_walked_ops(ops, program))
    bw = _Backward(block, no_grad, callbacks)
    prev_static, prev_idx = state.static, program.current_block_idx
    state.static = True   # grad rules build ops (elementwise rules then use their fast grad ops)
    program.current_block_idx = block.idx
    try:
        with program_guard(program), op_role_guard(program, ROLE_BACKWARD):
            on_path = bw.plan(ops, target_names, sources)
            for i, t in enumerate(targets):
                g = target_grads[i] if target_grads is not None and i < len(target_grads) else None
                if g is not None and not isinstance(g, Variable):
                    raise TypeError(f"static backward: target_gradients[{i}] must be a Variable or None, "
                                    f"got {type(g).__name__}")
                if g is not None and list(g.shape) != list(t.shape):
                    raise ValueError(f"static backward: target_gradients[{i}] has shape {g.shape} but target "
                                     f"'{t.name}' has shape {t.shape}")
                bw.seed(t, g)
            # a target's gradient is named (loss@GRAD) when the op computing it is reached, as any other
            # gradient: a target other ops read (z = f(y) with y and z both targets) first collects those
            # ops' contributions too
            bw.run(on_path)
            for name in list(bw.pending):
                if name in bw.needed:
                    bw.materialize(name)
            bw.prune()
    finally:
        state.static = prev_static
        program.current_block_idx = prev_idx
    return bw


def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None, checkpoints=None):
    """``paddle.static.append_backward``: append the backward of ``loss`` to its block.

    Returns ``[(param, grad_var), ...]`` for the trainable parameters (or ``parameter_list``)
    that ``loss`` depends on. ``checkpoints`` (recompute) is accepted and ignored.
    """
    if not isinstance(loss, Variable):
        raise TypeError(f"append_backward: loss must be a static Variable, got {type(loss).__name__}")
    program = loss.block.program
    gb = program.global_block()
    if parameter_list is not None:
        params = []
        for p in parameter_list:
            if isinstance(p, str):
                # a name the program never uses (an eager parameter the loss does not read, so it was
                # never bound into the program) simply has no gradient
                v = gb._find_var_recursive(p)
                if v is not None:
                    params.append(v)
            elif isinstance(p, Variable):
                params.append(p)
            else:
                raise TypeError(f"append_backward: parameter_list entries must be Variables or names, got "
                                f"{type(p).__name__}")
    else:
        params = [p for p in program.all_parameters() if p.trainable]
    if callbacks is not None and not isinstance(callbacks, (list, tuple)):
        callbacks = [callbacks]
    no_grad = _as_names(no_grad_set, "append_backward: no_grad_set")
    bw = _run([loss], None, no_grad, None, callbacks)
    return [(p, bw.final[p.name]) for p in params if p.name in bw.final]


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """``paddle.static.gradients``: gradient Variables of sum(targets) w.r.t. ``inputs`` (None if unused)."""
    single = isinstance(inputs, Variable)
    targets = [targets] if isinstance(targets, Variable) else list(targets)
    inputs = [inputs] if single else list(inputs)
    if isinstance(target_gradients, Variable):
        target_gradients = [target_gradients]
    if target_gradients is not None and len(target_gradients) != len(targets):
        raise ValueError(f"gradients: target_gradients has {len(target_gradients)} entries but there are "
                         f"{len(targets)} targets")
    for i, x in enumerate(inputs):
        if not isinstance(x, Variable):
            raise TypeError(f"gradients: inputs[{i}] must be a static Variable, got {type(x).__name__}")
    no_grad = _as_names(no_grad_set, "gradients: no_grad_set")
    bw = _run(targets, target_gradients, no_grad, {x.name for x in inputs})
    return [bw.final.get(x.name) for x in inputs]
