"""Control-flow builders: cond, while_loop, case, switch_case, Print, Assert.

In static mode they lower to Paddle's exact op patterns (FORMATS.md 7.1 / 7.2) so real Paddle
can load the Programs; in eager mode they simply run Python control flow.
"""
from __future__ import annotations

import numpy as np

from .. import unique_name
from ..dispatch import run_op
from ..framework import state
from ..ops import control_flow as _cf_ops  # noqa: F401  (registers the ops)
from ..tensor import Tensor
from .builder import as_variable
from .program import Variable, VarType, default_main_program

__all__ = ["cond", "while_loop", "case", "switch_case", "Print", "Assert"]

_BOOL, _INT32 = 0, 2   # VarType codes


# -- nested structures ------------------------------------------------------------------------------------

def flatten(obj):
    """Leaves of nested tuples/lists/dicts (dict keys sorted, as paddle.utils.flatten)."""
    if isinstance(obj, (list, tuple)):
        return [leaf for o in obj for leaf in flatten(o)]
    if isinstance(obj, dict):
        return [leaf for k in sorted(obj) for leaf in flatten(obj[k])]
    return [obj]


def pack(structure, leaves):
    """``structure`` with its leaves replaced, in order, by ``leaves``."""
    it = iter(leaves)

    def rec(o):
        if isinstance(o, (list, tuple)):
            vals = [rec(x) for x in o]
            return type(o)(vals) if not hasattr(o, "_fields") else type(o)(*vals)
        if isinstance(o, dict):
            vals = {k: rec(o[k]) for k in sorted(o)}
            return type(o)((k, vals[k]) for k in o)
        return next(it)
    return rec(structure)


def describe(obj):
    """A short picture of a structure: ``(Variable, {'a': Variable})``."""
    if isinstance(obj, tuple):
        return "(" + ", ".join(describe(o) for o in obj) + ("," if len(obj) == 1 else "") + ")"
    if isinstance(obj, list):
        return "[" + ", ".join(describe(o) for o in obj) + "]"
    if isinstance(obj, dict):
        return "{" + ", ".join(f"{k!r}: {describe(obj[k])}" for k in sorted(obj)) + "}"
    if obj is None:
        return "None"
    if isinstance(obj, (Variable, Tensor)):
        return type(obj).__name__
    return f"{type(obj).__name__}({obj!r})"


def _same_structure(a, b):
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same_structure(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return sorted(a) == sorted(b) and all(_same_structure(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple, dict)) or isinstance(b, (list, tuple, dict)):
        return False
    return (a is None) == (b is None)


# -- sub-block helpers ----------------------------------------------------------------------------------

def _block_io(program, block):
    """Outer variables read and written by ``block`` and its nested sub-blocks (first-use order)."""
    reads, writes, local = [], [], set()

    def visit(blk):
        for op in blk.ops:
            for n in op.input_arg_names:
                if n not in local and n not in reads and n not in writes:
                    reads.append(n)
            for sid in op.sub_block_ids():
                visit(program.blocks[sid])
            for n in op.output_arg_names:
                if n in block.vars or any(n in program.blocks[s].vars for s in op.sub_block_ids()):
                    local.add(n)
                elif n not in writes:
                    writes.append(n)
        local.update(blk.vars)

    visit(block)
    parent = block.parent_block
    reads = [n for n in reads if n not in block.vars and parent._find_var_recursive(n) is not None]
    writes = [n for n in writes if n not in block.vars and parent._find_var_recursive(n) is not None]
    return reads, writes


def _scope_var(block):
    return block.create_var(name=unique_name.generate("_generated_var"), type=VarType.STEP_SCOPES)


def _check_pred(pred, api):
    if not isinstance(pred, Variable):
        raise TypeError(f"{api}: pred must be a boolean Variable (or a Python bool), got {type(pred).__name__}")
    if pred.dtype.name != "bool":
        raise TypeError(f"{api}: pred must have dtype bool, got {pred.dtype.name}")
    if any(d > 1 for d in pred.shape):
        raise TypeError(f"{api}: pred must hold one element (shape [] or [1]), got shape {pred.shape}")


# -- cond ------------------------------------------------------------------------------------------------

def _build_branch(program, fn, pred_for_block):
    """Run ``fn`` inside a new sub-block; returns (block, structure, branch leaf Variables)."""
    block = program._create_block()
    try:
        out = fn() if fn is not None else None
        leaves = flatten(out)
        vars_ = [None if leaf is None else as_variable(block, leaf) for leaf in leaves]
    finally:
        program._rollback()
    return block, out, vars_


def _export(program, block, leaves):
    """Parent-block variables the branch hands its results out through (final assigns in the sub-block)."""
    parent = block.parent_block
    outs = []
    for v in leaves:
        if v is None:
            outs.append(None)
            continue
        o = parent.create_var(name=unique_name.generate("_generated_var"), shape=v.shape, dtype=v.dtype,
                              stop_gradient=v.stop_gradient or not state.grad_enabled)
        block.append_op("assign", {"X": [v]}, {"Out": [o]})
        outs.append(o)
    return outs


def _append_cond_block(program, parent, cond_var, block, outs):
    reads, _ = _block_io(program, block)
    parent.append_op("conditional_block", {"Cond": [cond_var], "Input": reads},
                     {"Out": [o for o in outs if o is not None], "Scope": [_scope_var(parent)]},
                     {"sub_block": block.idx, "is_scalar_condition": True})


def cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
    """``paddle.static.nn.cond``: ``true_fn()`` if ``pred`` else ``false_fn()``.

    Static mode builds both branches as sub-blocks of two conditional_block ops and merges
    their results with select_input; a Python bool or an eager tensor just picks the branch.
    """
    for fn, what in ((true_fn, "true_fn"), (false_fn, "false_fn")):
        if fn is not None and not callable(fn):
            raise TypeError(f"cond: {what} must be callable or None, got {type(fn).__name__}")
    if isinstance(pred, (bool, np.bool_)) or isinstance(pred, Tensor) or not state.static:
        if isinstance(pred, Tensor):
            if pred._data.size != 1:
                raise TypeError(f"cond: pred must hold one element, got shape {list(pred._data.shape)}")
            pred = bool(pred._data.reshape(-1)[0])
        fn = true_fn if pred else false_fn
        return fn() if fn is not None else None
    _check_pred(pred, "cond")
    program = default_main_program()
    parent = program.current_block()

    t_out = f_out = None
    t_block, t_out, t_leaves = _build_branch(program, true_fn, pred)
    t_vars = _export(program, t_block, t_leaves)
    if true_fn is not None:
        _append_cond_block(program, parent, pred, t_block, t_vars)
    if false_fn is None:
        if t_out is not None:
            raise ValueError(f"cond: false_fn is None but true_fn returns {describe(t_out)}; "
                             "give a false_fn returning the same structure")
        return None
    not_pred = run_op("logical_not", pred)
    f_block, f_out, f_leaves = _build_branch(program, false_fn, not_pred)
    if true_fn is None and f_out is not None:
        raise ValueError(f"cond: true_fn is None but false_fn returns {describe(f_out)}; "
                         "give a true_fn returning the same structure")
    if not _same_structure(t_out, f_out):
        raise ValueError(f"cond: true_fn and false_fn must return the same structure, but true_fn returns "
                         f"{describe(t_out)} and false_fn returns {describe(f_out)}")
    for i, (a, b) in enumerate(zip(t_leaves, f_leaves)):
        if a is not None and a.dtype != b.dtype:
            raise TypeError(f"cond: output {i} has dtype {a.dtype.name} in true_fn but {b.dtype.name} in false_fn")
    f_vars = _export(program, f_block, f_leaves)
    _append_cond_block(program, parent, not_pred, f_block, f_vars)
    if t_out is None:
        return None
    mask = run_op("cast", pred, in_dtype=_BOOL, out_dtype=_INT32)
    results = []
    for tv, fv in zip(t_vars, f_vars):
        if tv is None:
            results.append(None)
            continue
        out = run_op("select_input", [fv, tv], mask)
        out.stop_gradient = (tv.stop_gradient and fv.stop_gradient) or not state.grad_enabled
        out._built_sg = out.stop_gradient   # derived (select_input itself has no OpDef.grad)
        results.append(out)
    return pack(t_out, results)


# -- while_loop ------------------------------------------------------------------------------------------

def _check_loop_cond(c, api):
    if not isinstance(c, Variable) or c.dtype.name != "bool" or any(d > 1 for d in c.shape):
        raise TypeError(f"{api}: cond must return a boolean Variable with one element, got {describe(c)}"
                        + (f" of dtype {c.dtype.name} and shape {c.shape}" if isinstance(c, Variable) else ""))


def _truth(c):
    a = c._data if isinstance(c, Tensor) else np.asarray(c)
    if a.size != 1:
        raise TypeError(f"while_loop: cond must return one boolean element, got shape {list(a.shape)}")
    return bool(a.reshape(-1)[0])


def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """``paddle.static.nn.while_loop``: ``while cond(*vars): vars = body(*vars)``; returns the final vars."""
    if not callable(cond):
        raise TypeError(f"while_loop: cond must be callable, got {type(cond).__name__}")
    if not callable(body):
        raise TypeError(f"while_loop: body must be callable, got {type(body).__name__}")
    if not isinstance(loop_vars, (list, tuple)) or len(loop_vars) == 0:
        raise ValueError(f"while_loop: loop_vars must be a non-empty list or tuple, got {describe(loop_vars)}")
    if not state.static:
        vars_ = list(loop_vars)
        while _truth(cond(*vars_)):
            out = body(*vars_)
            out = list(out) if isinstance(out, (list, tuple)) else [out]
            if len(out) != len(vars_):
                raise ValueError(f"while_loop: body returned {len(out)} values for {len(vars_)} loop_vars")
            vars_ = out
        return vars_
    program = default_main_program()
    parent = program.current_block()
    flat = [as_variable(parent, v) for v in flatten(list(loop_vars))]
    structured = pack(list(loop_vars), flat)
    pre_cond = cond(*structured)
    _check_loop_cond(pre_cond, "while_loop")
    before = _outer_flags(parent)
    if state.grad_enabled:
        # whether a loop variable needs gradients is only known after the body (s = s + x makes s
        # need them): build the body as if every float loop variable did, so the flags the body's
        # ops derive are the widest ones and a cut the body makes (detach, no_grad) is visible as
        # such; _refresh_stop_gradient then narrows them to the fixpoint
        for lv in flat:
            if _is_diff(lv) and not lv.persistable:
                lv.stop_gradient = False
    block = program._create_block()
    try:
        out = body(*structured)
        if len(loop_vars) == 1 and not isinstance(out, (list, tuple)):
            out = [out]
        if not isinstance(out, (list, tuple)) or not _same_structure(list(out), structured):
            raise ValueError(f"while_loop: body must return the same structure as loop_vars; loop_vars is "
                             f"{describe(list(loop_vars))} but body returned {describe(out)}")
        new = [as_variable(block, v) for v in flatten(list(out))]
        new_cond = cond(*pack(list(out), new))
        # a new value computed outside the body (a loop variable or an outer input returned as is):
        # copy it before the final assigns overwrite loop variables (``return t, s`` swaps them)
        new = [run_op("assign", v) if v.block is not block and v.type == VarType.LOD_TENSOR else v for v in new]
        _check_loop_cond(new_cond, "while_loop")
        for lv, nv in zip(flat, new):
            if nv.dtype != lv.dtype:
                raise TypeError(f"while_loop: loop var '{lv.name}' has dtype {lv.dtype.name} before the loop but "
                                f"{nv.dtype.name} after the body")
            if len(nv.shape) != len(lv.shape):
                raise ValueError(f"while_loop: loop var '{lv.name}' has shape {lv.shape} before the loop but "
                                 f"{nv.shape} after the body (the rank must not change)")
            if nv.shape != lv.shape:
                lv._shape = tuple(a if a == b else -1 for a, b in zip(lv.shape, nv.shape))
            if nv is lv:
                # a tensor array the body wrote in place (arr = array_write(v, i, array=arr)): it already is
                # its new value; a self-assign would make it look like a carried value to the gradient
                continue
            block.append_op("assign", {"X": [nv]}, {"Out": [lv]})
        block.append_op("assign", {"X": [new_cond]}, {"Out": [pre_cond]})
    finally:
        program._rollback()
    reads, writes = _block_io(program, block)
    # every loop variable is an input, also one the body overwrites before reading it: Paddle's while op
    # (its jit.load / run_program path) takes the loop state from X and fails on an uninitialised one
    reads += [v.name for v in flat if v.name not in reads and v.type == VarType.LOD_TENSOR]
    _refresh_stop_gradient(program, block, writes, before)
    parent.append_op("while", {"X": reads, "Condition": [pre_cond]},
                     {"Out": writes, "StepScopes": [_scope_var(parent)]},
                     {"sub_block": block.idx, "is_test": bool(is_test)})
    return structured


def _is_diff(v):
    return v is not None and v.type in (VarType.LOD_TENSOR, VarType.LOD_TENSOR_ARRAY) and v.dtype.np.kind in "fc"


def _outer_flags(block):
    """stop_gradient of every variable ``block`` can see (a loop body may write any of them)."""
    flags = {}
    b = block
    while b is not None:
        for n, v in b.vars.items():
            flags.setdefault(n, v.stop_gradient)
        b = b.parent_block
    return flags


def _body_ops(program, block):
    """The ops of ``block`` and its nested sub-blocks in execution order (ops owning a sub-block are
    replaced by its ops: the values they hand out are written by the sub-block's final assigns)."""
    for op in block.ops:
        ids = op.sub_block_ids()
        if ids:
            for bid in ids:
                yield from _body_ops(program, program.blocks[bid])
        else:
            yield op


def _refresh_stop_gradient(program, body, carried, before):
    """Recompute the stop_gradient flags of a while body's values and of the outer variables it writes
    (``carried``: loop variables, tensor arrays written in place) as a fixpoint over iterations: a
    value needs gradients when an op with a gradient computes it from one that does, including values
    from the previous iteration. Cuts made while building (detach, ``stop_gradient = True``, no_grad)
    are kept; ``before`` holds the outer flags from before the body was built."""
    from ..ops.registry import lookup
    from .backward import _diff_inputs, _ensure_control_flow_grads, _ensure_static_grads
    ops = list(_body_ops(program, body))
    if any(op.type.endswith("_grad") for op in ops):
        _ensure_static_grads()          # grad ops in the body: their second-order rules
    else:
        _ensure_control_flow_grads()
    carried = set(carried)
    written = {}
    for op in ops:
        for n in op.output_arg_names:
            if n not in written:
                v = op.block._find_var_recursive(n)
                # persistable state updated in place (batch_norm statistics) keeps its own flag
                if v is None or not v.persistable:
                    written[n] = v

    def cut(n, v):
        if n in carried:
            return False
        return getattr(v, "_no_grad", False) or (getattr(v, "_built_sg", None) is False and v.stop_gradient)

    live = set()
    for n, v in written.items():
        if not _is_diff(v):
            continue
        if n in carried:
            if not before.get(n, True):
                live.add(n)
        elif getattr(v, "_built_sg", None) is True and not v.stop_gradient:
            live.add(n)     # set by the user on a value the builder derived as not needing gradients

    def is_live(n):
        if n in written:
            return n in live
        v = body._find_var_recursive(n)
        return v is not None and not v.stop_gradient

    plans = []
    for op in ops:
        diff = _diff_inputs(op, lookup(op.type))
        if diff is None:
            continue
        outs = [n for n in op.output_arg_names if _is_diff(written.get(n)) and not cut(n, written[n])]
        if outs:
            plans.append((diff, outs))
    changed = True
    while changed:
        changed = False
        for diff, outs in plans:
            if any(is_live(n) for n in diff):
                for n in outs:
                    if n not in live:
                        live.add(n)
                        changed = True
    for n, v in written.items():
        if v is None or cut(n, v):
            continue
        v.stop_gradient = n not in live
        if n not in carried:
            v._built_sg = v.stop_gradient


# -- case / switch_case ---------------------------------------------------------------------------------

def case(pred_fn_pairs, default=None, name=None):
    """``paddle.static.nn.case``: the fn of the first true pred, else ``default`` (nested conds)."""
    if not isinstance(pred_fn_pairs, (list, tuple)) or not pred_fn_pairs:
        raise TypeError(f"case: pred_fn_pairs must be a non-empty list or tuple, got {describe(pred_fn_pairs)}")
    for p in pred_fn_pairs:
        if not isinstance(p, (list, tuple)) or len(p) != 2 or not callable(p[1]):
            raise TypeError(f"case: each element of pred_fn_pairs must be a (pred, fn) pair with a callable fn, "
                            f"got {describe(p)}")
    if default is not None and not callable(default):
        raise TypeError(f"case: default must be callable or None, got {type(default).__name__}")
    pairs = list(pred_fn_pairs)
    if default is None:
        default = pairs[-1][1]
        pairs = pairs[:-1]

    def chain(k):
        if k == len(pairs):
            return default()
        return cond(pairs[k][0], pairs[k][1], lambda: chain(k + 1))
    return chain(0)


def switch_case(branch_index, branch_fns, default=None, name=None):
    """``paddle.static.nn.switch_case``: ``branch_fns[branch_index]()``, else ``default``."""
    if isinstance(branch_fns, dict):
        items = list(branch_fns.items())
    elif isinstance(branch_fns, (list, tuple)):
        items = [(i, f) if callable(f) else tuple(f) for i, f in enumerate(branch_fns)]
    else:
        raise TypeError(f"switch_case: branch_fns must be a dict, list or tuple, got {type(branch_fns).__name__}")
    keys = set()
    for item in items:
        if len(item) != 2 or not isinstance(item[0], (int, np.integer)) or not callable(item[1]):
            raise TypeError(f"switch_case: each branch must be an (int, callable) pair, got {describe(item)}")
        if item[0] in keys:
            raise ValueError(f"switch_case: branch index {item[0]} appears twice")
        keys.add(item[0])
    if isinstance(branch_index, int):
        fn = dict(items).get(branch_index, default)
        return (fn or max(items)[1])()
    items.sort(key=lambda kv: kv[0])
    if default is None:
        default = items[-1][1]
    dtype = branch_index.dtype.np if isinstance(branch_index, (Variable, Tensor)) else np.int64
    if np.dtype(dtype).kind not in "iu":
        raise TypeError(f"switch_case: branch_index must be an integer tensor, got dtype {np.dtype(dtype).name}")
    pairs = [(run_op("equal", branch_index, np.array(k, dtype=dtype)), fn) for k, fn in items]
    if not state.static:
        pairs = [(bool(p._data.reshape(-1)[0]), fn) for p, fn in pairs]
    return case(pairs, default)


# -- Print / Assert -------------------------------------------------------------------------------------

def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True, print_tensor_type=True,
          print_tensor_shape=True, print_tensor_lod=True, print_phase="both"):
    """``paddle.static.Print``: print ``input`` when the op runs; returns it (an op output)."""
    phase = str(print_phase).upper()
    if phase not in ("FORWARD", "BACKWARD", "BOTH"):
        raise ValueError(f"Print: print_phase must be 'forward', 'backward' or 'both', got {print_phase!r}")
    return run_op("print", input, first_n=int(first_n), message=message or "", summarize=int(summarize),
                  print_tensor_name=bool(print_tensor_name), print_tensor_type=bool(print_tensor_type),
                  print_tensor_shape=bool(print_tensor_shape), print_tensor_layout=True,
                  print_tensor_lod=bool(print_tensor_lod), print_phase=phase, is_forward=True)


def Assert(cond, data=None, summarize=20, name=None):
    """``paddle.static.nn.control_flow.Assert``: raise ValueError when ``cond`` (bool, one element) is false."""
    data = [] if data is None else (list(data) if isinstance(data, (list, tuple)) else [data])
    if not state.static:
        c = cond._data if isinstance(cond, Tensor) else np.asarray(cond)
        if c.dtype != np.bool_ or c.size != 1:
            raise TypeError(f"Assert: cond must be a bool tensor with one element, got {c.dtype}{list(c.shape)}")
        if not bool(c.reshape(-1)[0]):
            from ..ops.control_flow import assert_message
            arrays = [d._data if isinstance(d, Tensor) else np.asarray(d) for d in data]
            raise ValueError(assert_message(getattr(cond, "name", "cond"), arrays,
                                            [getattr(d, "name", f"data[{i}]") for i, d in enumerate(data)],
                                            summarize))
        return None
    _check_pred(cond, "Assert")
    return run_op("assert", cond, data, summarize=int(summarize))
