"""Static lowering of a converted ``if`` whose predicate is a Variable.

The converted code hands us the two branches as functions that change the enclosing
function's variables (through ``nonlocal``), plus ``get``/``set`` functions over those
variables (the *state*). Both branches are traced into sub-blocks from the same starting
state; then each output variable (state that is live after the ``if``) is reconciled:

- a Variable (or a Python number, or an eager tensor) on both sides: each branch hands its
  value out with a final ``assign`` and one ``select_input`` picks the taken one — Paddle's
  exact pattern (FORMATS.md 7.1: conditional_block, logical_not, conditional_block, cast,
  select_input), so real Paddle loads our files;
- the same Python value on both sides (a flag that did not change, a string, a Layer): kept
  as that Python value, no op;
- a list of tensors the branches leave with different lengths (``out.append(y)`` in one branch):
  a tensor array both branches write (`_plan_as_array`), as Paddle does; tensor arrays a branch
  changes in place are outputs of its conditional_block, so their gradients flow back;
- tensors defined on one side only inside the body of a tensor loop (or already maybe-unbound before
  the if): a `MaybeUnbound` —
  the value merged with a placeholder for the side that does not bind it, and a bool "is bound"
  flag merged the same way; reading it stages a check that fails at run time on a path that did not
  bind it (`convert_ops.read_maybe_unbound`), so it works wherever it is read only where bound;
- other values defined on one side only (tensors too, outside loops: Paddle refuses reading them with
  a TypeError), or conflicting Python values: the variable becomes an
  `UndefinedVar` that explains itself if it is used later (Python would fail there too when
  the other branch runs).

Return values (the ``_dy2st_retval`` variables made by the return transformer) may be unset
on the path that has not returned yet: that side gets a zero placeholder of the same
structure (never observed, the return flag guards it); different structures on the two
sides are an error naming both.
"""
from __future__ import annotations

import contextlib
import threading

import numpy as np

from runtime import unique_name
from runtime.dispatch import run_op
from runtime.static.builder import as_variable
from runtime.static.control_flow import _append_cond_block, _block_io, _scope_var, flatten, pack
from runtime.static.program import Variable, VarType, default_main_program
from runtime.tensor import Tensor

from .errors import ReturnStructureError, where_text
from . import mutation_log
from .undefined import MaybeUnbound, UndefinedVar, is_maybe_unbound, is_undefined, undefined_name, undefined_reason

RETVAL_PREFIX = "_dy2st_retval"


@contextlib.contextmanager
def in_block(program, block):
    """Build ops into ``block`` (an existing sub-block) for a while."""
    saved = program.current_block_idx
    program.current_block_idx = block.idx
    try:
        yield block
    finally:
        program.current_block_idx = saved


def is_tensorish(v):
    return isinstance(v, (Variable, Tensor))


def is_number(v):
    return isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)) and not isinstance(v, np.ndarray)


def same_python_value(a, b):
    if a is b:
        return True
    if is_number(a) and is_number(b):
        return type(a) is type(b) and a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return False


def constant_like(value, like):
    """A constant Variable holding Python number ``value``, in ``like``'s dtype when given."""
    if like is not None:
        return run_op("fill_constant", dtype=like.dtype.proto, shape=[1] if len(like.shape) == 1 else [],
                      value=float(value), str_value=str(value))
    return as_variable(default_main_program().current_block(), value)


def placeholder_like(v):
    """A zero value with ``v``'s dtype and shape (unknown dims as 1): a stand-in never read."""
    if isinstance(v, (Variable, Tensor)):
        shape = [1 if d < 0 else d for d in v.shape]
        return run_op("fill_constant", dtype=v.dtype.proto, shape=shape, value=0.0, str_value="0")
    if is_number(v):
        return type(v)(0)
    return None


def _leaves_match(a, b):
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_leaves_match(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return sorted(a) == sorted(b) and all(_leaves_match(a[k], b[k]) for k in a)
    return not isinstance(a, (list, tuple, dict)) and not isinstance(b, (list, tuple, dict))


def describe_structure(v):
    if isinstance(v, tuple):
        return f"{len(v)} values"
    if isinstance(v, list):
        return f"a list of {len(v)}"
    if isinstance(v, dict):
        return f"a dict with keys {sorted(v)}"
    if is_undefined(v):
        return "nothing"
    if hasattr(type(v), "_dy2st_not_an_output"):
        return "a list made a tensor array by a tensor loop (its length known only at run time)"
    return "1 value"


class _Pending:
    """One output leaf that needs select_input: its value in each branch block."""
    __slots__ = ("t", "f", "name")

    def __init__(self, t, f, name):
        self.t, self.f, self.name = t, f, name


def static_ifelse(pred, true_fn, false_fn, get, set_, names, outputs, where):
    program = default_main_program()
    parent = program.current_block()
    init = tuple(get())
    branches, changes = [], []
    for fn in (true_fn, false_fn):
        # each branch works on its own copy of the Python containers it may change in place
        # (``res["a"] = 2``): with one shared dict, the false branch's write would overwrite the
        # true branch's, and the merge would see one value where there are two
        set_(copy_containers(init))
        blk = program._create_block()
        rec = mutation_log.Recording()
        try:
            with rec:
                if fn is not None:
                    fn()
                vals = tuple(get())
        finally:
            program._rollback()
            # containers that are not branch state but were changed in place: back to how they were
            changes.append(rec.settle(vals if "vals" in locals() else ()))
        branches.append((blk, vals))
    (t_blk, t_vals), (f_blk, f_vals) = branches

    final = list(init)
    pending = []
    plans = {}
    for i, name in enumerate(names):
        if not outputs[i]:
            continue
        plans[i] = _plan(program, name, t_vals[i], f_vals[i], t_blk, f_blk, where, pending)
    container_plans = _plan_containers(program, changes, t_blk, f_blk, where, pending)

    # hand results out of each block (final assigns), then the op pattern in the parent
    t_outs, f_outs = [], []
    for p in pending:
        t_outs.append(_export(t_blk, p.t))
        f_outs.append(_export(f_blk, p.f))
    # tensor arrays a branch writes in place (a list appended to in a loop body's if) are outputs of its
    # conditional_block too, as in Paddle: the gradient of what the branch wrote flows back through it
    _append_cond_block(program, parent, pred, t_blk, t_outs + _written_arrays(program, t_blk))
    not_pred = run_op("logical_not", pred)
    _append_cond_block(program, parent, not_pred, f_blk, f_outs + _written_arrays(program, f_blk))
    if pending:
        mask = run_op("cast", pred, in_dtype=0, out_dtype=2)
        for p, tv, fv in zip(pending, t_outs, f_outs):
            out = run_op("select_input", [fv, tv], mask)
            out.stop_gradient = tv.stop_gradient and fv.stop_gradient
            p.name = out   # reuse the slot for the merged Variable
    for i, plan in plans.items():
        final[i] = plan()
    for container, plan in container_plans:
        merged = plan()
        if is_undefined(merged):
            merged._fail()      # NameError saying which item differs and how
            raise ValueError(f"{mutation_log.describe(container)} changed in place in the tensor-dependent if at "
                             f"{where_text(where)} holds items of different structure after the two branches")
        mutation_log.record(container)      # an enclosing branch or loop sees the merged write
        mutation_log.restore(container, merged)
    set_(tuple(final))


def _written_arrays(program, block):
    _, writes = _block_io(program, block)
    parent = block.parent_block
    return [v for v in (parent._find_var_recursive(n) for n in writes)
            if v is not None and v.type == VarType.LOD_TENSOR_ARRAY]


def _plan_containers(program, changes, t_blk, f_blk, where, pending):
    """Merge the containers the branches changed in place (not branch state): item by item like
    branch outputs. Returns ``[(container, thunk giving its merged content)]``."""
    t_changes, f_changes = changes
    plans = []
    for k in list(t_changes) + [k for k in f_changes if k not in t_changes]:
        container, before, t_after = t_changes.get(k, (None, None, None))
        if container is None:
            container, before, f_after = f_changes[k]
            t_after = before
        else:
            f_after = f_changes[k][2] if k in f_changes else before
        if not mutation_log.changed(t_after, f_after, same_python_value):
            plans.append((container, lambda v=t_after: v))
            continue
        shape_t = len(t_after) if type(t_after) is list else list(t_after)
        shape_f = len(f_after) if type(f_after) is list else list(f_after)
        if shape_t != shape_f:
            what = "items" if type(t_after) is list else "keys"
            raise ValueError(
                f"{mutation_log.describe(container)} that is not a variable of the function is changed in place in "
                f"the tensor-dependent if at {where_text(where)}, and the branches leave it with different "
                f"{what} ({shape_t} after the true branch, {shape_f} after the false one); a Program can only choose "
                "between values of the same structure. Assign the container to a local variable before the if "
                "(then it is branch state), or change the same items in both branches")
        name = "an item of a list or dict changed in place"
        # items are merged as one structure (a list or a dict) through the usual output plan
        plans.append((container, _plan(program, name, t_after, f_after, t_blk, f_blk, where, pending)))
    return plans


def copy_containers(value, memo=None):
    """``value`` with every plain list / dict / tuple inside it copied (leaves shared), keeping
    aliasing: a container reached twice is copied once."""
    memo = {} if memo is None else memo
    t = type(value)
    if t not in (list, dict, tuple):
        return value
    got = memo.get(id(value))
    if got is not None:
        return got
    if t is list:
        out = memo[id(value)] = []
        out.extend(copy_containers(v, memo) for v in value)
    elif t is dict:
        out = memo[id(value)] = {}
        for k, v in value.items():
            out[k] = copy_containers(v, memo)
    else:   # tuples cannot hold themselves; rebuilt only when something inside was copied
        items = [copy_containers(v, memo) for v in value]
        out = value if all(a is b for a, b in zip(items, value)) else tuple(items)
        memo[id(value)] = out
    return out


def _export(block, v):
    o = block.parent_block.create_var(name=unique_name.generate("_generated_var"), shape=v.shape, dtype=v.dtype,
                                      stop_gradient=v.stop_gradient)
    block.append_op("assign", {"X": [v]}, {"Out": [o]})
    return o


def _plan(program, name, tv, fv, t_blk, f_blk, where, pending):
    """Decide how output ``name`` merges; returns a thunk giving its value after the if."""
    is_ret = name.startswith(RETVAL_PREFIX)
    t_undef, f_undef = is_undefined(tv), is_undefined(fv)
    if t_undef and f_undef:
        return lambda: tv
    if not is_ret and (is_maybe_unbound(tv) or is_maybe_unbound(fv) or (t_undef != f_undef and in_loop_body())):
        merged = _plan_maybe_unbound(program, name, tv, fv, t_blk, f_blk, where, pending)
        if merged is not None:
            return merged
    if t_undef or f_undef:
        if is_ret:
            # a branch that returned a variable of the user's that is undefined there (bound only under
            # another tensor if) has not "not returned yet": its value is missing. Fail naming it; a
            # placeholder would return zeros
            # so does a return value that an earlier tensor if could not merge (it carries the reason)
            for v in (tv, fv):
                if is_undefined(v) and (not undefined_name(v).startswith(RETVAL_PREFIX) or undefined_reason(v)):
                    v._fail()
            # the path that has not returned yet: a placeholder of the other side's structure
            if t_undef:
                with in_block(program, t_blk):
                    tv = _placeholder_structure(fv)
            else:
                with in_block(program, f_blk):
                    fv = _placeholder_structure(tv)
        else:
            side = "true" if f_undef else "false"
            other = "false" if f_undef else "true"
            return lambda: UndefinedVar(name, f"it is assigned only in the {side} branch of the tensor-dependent "
                                              f"if at {where_text(where)}: after the if it is undefined when the "
                                              f"{other} branch runs. Assign it before the if or in both branches")
    if type(tv) is list and type(fv) is list and not is_ret \
            and all(is_tensorish(x) for x in tv + fv) \
            and (len(tv) != len(fv) or any(len(a.shape) != len(b.shape) for a, b in zip(tv, fv))):
        # lists whose lengths, or whose items' ranks, differ between the branches: a tensor array
        return _plan_as_array(program, tv, fv, t_blk, f_blk)
    for arr_side, list_side, arr_blk, list_blk in ((tv, fv, t_blk, f_blk), (fv, tv, f_blk, t_blk)):
        if hasattr(type(arr_side), "_dy2st_not_an_output") and type(list_side) is list and not is_ret \
                and all(is_tensorish(x) for x in list_side) and arr_side.array.block is arr_blk:
            return _plan_array_and_list(program, arr_side, list_side, arr_blk, list_blk)
    if not _leaves_match(tv, fv):
        if is_ret:
            raise ReturnStructureError(f"Your if/else have different number of return value: "
                             f"the function returns {describe_structure(tv)} on one path and "
                             f"{describe_structure(fv)} on another, and the paths meet under a tensor condition at "
                             f"{where_text(where)}; every return under a tensor condition must return the same "
                             "structure (pad with placeholder tensors, or return a tuple of the same length)")
        return lambda: UndefinedVar(name, f"it holds {describe_structure(tv)} in the true branch but "
                                          f"{describe_structure(fv)} in the false branch of the tensor-dependent if "
                                          f"at {where_text(where)}")
    t_leaves, f_leaves = flatten(tv), flatten(fv)
    results = []
    for a, b in zip(t_leaves, f_leaves):
        if not is_tensorish(a) and not is_tensorish(b):
            if same_python_value(a, b):
                results.append(a)
                continue
            if is_ret and not (is_number(a) and is_number(b)):
                raise ReturnStructureError(f"the function returns {_pyval(a)} on one path and {_pyval(b)} on "
                                           f"another, and the paths meet under a tensor condition at "
                                           f"{where_text(where)}; a Program can only return tensors (or numbers) "
                                           "from such paths")
            if is_number(a) and is_number(b):
                with in_block(program, t_blk):
                    a = as_variable(t_blk, a)
                with in_block(program, f_blk):
                    b = as_variable(f_blk, b)
            else:
                bad = (f"it is {_pyval(a)} in the true branch but {_pyval(b)} in the false branch of the "
                       f"tensor-dependent if at {where_text(where)}; a Program can only choose between tensors")
                results.append(UndefinedVar(name, bad))
                continue
        if isinstance(a, Tensor) and isinstance(b, Tensor) and a is b:
            results.append(a)
            continue
        if a is None or b is None or is_undefined(a) or is_undefined(b):
            results.append(UndefinedVar(name, f"it is {_pyval(a)} in the true branch but {_pyval(b)} in the false "
                                              f"branch of the tensor-dependent if at {where_text(where)}"))
            continue
        if is_ret and not (is_tensorish(a) or is_number(a)) or is_ret and not (is_tensorish(b) or is_number(b)):
            raise ReturnStructureError(f"the function returns {_pyval(a)} on one path and {_pyval(b)} on another, "
                                       f"and the paths meet under a tensor condition at {where_text(where)}; a "
                                       "Program can only return tensors (or numbers) from such paths")
        like = a if is_tensorish(a) else b
        with in_block(program, t_blk):
            a = constant_like(a, like) if is_number(a) else as_variable(t_blk, a)
        with in_block(program, f_blk):
            b = constant_like(b, like) if is_number(b) else as_variable(f_blk, b)
        if a.dtype != b.dtype:
            raise TypeError(f"variable '{_user_name(name)}' is a {a.dtype.name} tensor in the true branch but a "
                            f"{b.dtype.name} tensor in the false branch of the tensor-dependent if at "
                            f"{where_text(where)}; cast one side (e.g. x.astype('{a.dtype.name}'))")
        p = _Pending(a, b, name)
        pending.append(p)
        results.append(p)
    return lambda: pack(tv, [r.name if isinstance(r, _Pending) else r for r in results])


_tracing = threading.local()


@contextlib.contextmanager
def loop_body():
    """While the body of a tensor-dependent loop is traced: names bound in one branch of an if there become
    `MaybeUnbound`. (Outside loops they stay an `UndefinedVar` that fails when read, with Paddle's
    TypeError, as Paddle's own tests require of ``if t: y = ... else: tmp = ...; return tmp``.)"""
    _tracing.loop_depth = getattr(_tracing, "loop_depth", 0) + 1
    try:
        yield
    finally:
        _tracing.loop_depth -= 1


def in_loop_body():
    return getattr(_tracing, "loop_depth", 0) > 0


def flag_constant(value):
    """A bool [1] Variable holding ``value``: the "is bound" flag of a `MaybeUnbound` on a path that
    binds the name (True) or does not (False)."""
    return run_op("fill_constant", dtype=0, shape=[1], value=float(bool(value)), str_value=str(bool(value)).lower())


def all_tensors(v):
    """Whether ``v`` is a non-empty structure of tensors only (what a `MaybeUnbound` can carry)."""
    leaves = flatten(v)
    return bool(leaves) and all(is_tensorish(x) for x in leaves)


def _bound_parts(v):
    """(value or None, flag, sites) of a branch's value of a name that may be unbound."""
    if is_maybe_unbound(v):
        return v.value, v.flag, v.sites
    if is_undefined(v):
        return None, False, ()
    return v, True, ()


def _plan_maybe_unbound(program, name, tv, fv, t_blk, f_blk, where, pending):
    """A name bound on only some paths through the if (one branch, or a branch where it was already
    maybe-unbound): a `MaybeUnbound` whose value and "is bound" flag are merged like branch outputs,
    with a placeholder value where the branch does not bind it. ``None`` when the bound value is not
    made of tensors (the caller then makes it an `UndefinedVar` that explains itself if used)."""
    (t_val, t_flag, t_sites), (f_val, f_flag, f_sites) = _bound_parts(tv), _bound_parts(fv)
    if not all(all_tensors(v) for v in (t_val, f_val) if v is not None):
        if is_maybe_unbound(tv) or is_maybe_unbound(fv):
            return lambda: UndefinedVar(name, f"it holds {_pyval_structure(tv)} in the true branch but "
                                              f"{_pyval_structure(fv)} in the false branch of the tensor-dependent "
                                              f"if at {where_text(where)}; a name assigned on some paths only "
                                              "must hold tensors on each of them")
        return None
    if t_val is not None and f_val is not None and not _leaves_match(t_val, f_val):
        return None
    for blk, side in ((t_blk, "t"), (f_blk, "f")):
        with in_block(program, blk):
            if side == "t":
                t_val = _placeholder_structure(f_val) if t_val is None else t_val
                t_flag = flag_constant(t_flag) if isinstance(t_flag, bool) else t_flag
            else:
                f_val = _placeholder_structure(t_val) if f_val is None else f_val
                f_flag = flag_constant(f_flag) if isinstance(f_flag, bool) else f_flag
    value_plan = _plan(program, name, t_val, f_val, t_blk, f_blk, where, pending)
    flag_plan = _plan(program, name, t_flag, f_flag, t_blk, f_blk, where, pending)
    sites = tuple(dict.fromkeys(t_sites + f_sites + (where_text(where),)))

    def merged():
        value = value_plan()
        if any(is_undefined(x) for x in flatten(value)):
            return next(x for x in flatten(value) if is_undefined(x))
        return MaybeUnbound(name, value, flag_plan(), sites)
    return merged


def _pyval_structure(v):
    if is_maybe_unbound(v):
        return "a tensor value that may be unbound"
    return _pyval(v) if not isinstance(v, (list, tuple, dict)) else describe_structure(v)


def _plan_as_array(program, tv, fv, t_blk, f_blk):
    """A list of tensors the branches leave with different lengths (``out.append(y)`` in one branch):
    a tensor array, as Paddle makes of lists appended to under a tensor condition. Each branch writes
    its items into the one array, which after the if holds the taken branch's list."""
    from runtime.static import tensor_array
    from .loop_lowering import TensorArrayList
    arr = tensor_array.create_array((tv or fv)[0].dtype)
    for blk, items in ((t_blk, tv), (f_blk, fv)):
        with in_block(program, blk):
            for k, x in enumerate(items):
                tensor_array.array_write(x, k, arr)
    return lambda: TensorArrayList(arr)


def _plan_array_and_list(program, tal, items, arr_blk, list_blk):
    """A list one branch made a tensor array (a tensor loop appended to it there) and the other left a
    list: the array is declared in the enclosing block instead, and the other branch fills it with its
    list (emptied first, as creating it in the first branch does), so after the if it holds the taken
    branch's items."""
    from runtime.static import tensor_array
    arr = tal.array
    parent = arr_blk.parent_block
    del arr_blk.vars[arr.name]
    parent.vars[arr.name] = arr
    arr.block = parent
    with in_block(program, list_blk):
        list_blk.append_op("create_array", {}, {"Out": [arr]}, {"dtype": int(arr.dtype.proto)})
        for k, x in enumerate(items):
            tensor_array.array_write(x, k, arr)
    return lambda: tal


def _placeholder_structure(v):
    leaves = flatten(v)
    return pack(v, [placeholder_like(x) for x in leaves])


def _pyval(v):
    if v is None:
        return "None"
    if is_undefined(v):
        return "undefined"
    if is_tensorish(v):
        return "a Tensor"
    r = repr(v)
    return f"{type(v).__name__} {r if len(r) < 40 else r[:37] + '...'}"


def _user_name(name):
    return "the return value" if name.startswith(RETVAL_PREFIX) else name
