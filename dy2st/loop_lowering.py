"""Static lowering of converted ``while`` and ``for`` loops whose condition is a Variable.

The loop's state (see `cond_lowering`) is split into loop variables (modified in the body
and live at the loop test) and temporaries. Loop variables enter the ``while`` op as
Variables:

- Python numbers and bools become constants (``i = 0; while i < n: i += 1``);
- eager tensors (captured parameters, buffers) are copied first, so the loop never writes
  them;
- Python lists of tensors whose ``append`` / ``pop`` / ``insert`` / ``extend`` the body calls (or that
  a trial trace sees grow) become tensor arrays (`TensorArrayList`), changed in place by array ops
  (pop / insert / item assignment included, with gradients; ``for item in arr`` is a while op too);
  so do lists a dict holds under a constant key that the body appends to (``feats['key'].append(v)``;
  the loop rebinds the name to a new dict holding the array);
- variables first assigned inside the loop (and return values set inside it) have no value
  before it: a trial trace of the body, thrown away afterwards, tells their structure, dtype
  and shape. Return values start as zero placeholders (the return flag guards them); the user's
  names become `MaybeUnbound` (a zero placeholder plus a bool "is bound" flag, both loop
  variables), as do names bound in one branch of an if in the body: after the loop, reading one
  the run did not bind fails at run time (``_jst.read_maybe_unbound``) instead of giving zeros;
- a loop variable the body promotes (a Python int or int tensor becoming a float tensor, int32 ->
  int64, float32 -> float64: Paddle 3.3.1 accepts these) enters the loop already promoted: the trace
  is thrown away and done again. (A loop that runs zero times then gives the promoted dtype, where
  eager Python and Paddle keep the original one: a static Variable has one dtype.) Narrowing is refused.

``for`` loops iterate a hidden int64 index: over ``range`` with tensor bounds, a tensor's first dim,
``enumerate`` (its index 0-D, so ``row * (i + 1)`` mixes with float rows like a Python int), a tensor
array, and ``zip`` over tensors of unknown length (up to the shortest, known at run time).

The body function is traced once into the ``while`` op's sub-block (FORMATS.md 7.2 pattern,
built by `runtime.static.control_flow.while_loop`).
"""
from __future__ import annotations

import numpy as np

from runtime.dispatch import run_op
from runtime.static import tensor_array
from runtime.static.builder import as_variable
from runtime.static.control_flow import flatten, pack, while_loop
from runtime.static.program import Variable, VarType, default_main_program
from runtime.tensor import Tensor

from . import mutation_log
from .cond_lowering import all_tensors, copy_containers, flag_constant, is_number, loop_body, placeholder_like, \
    same_python_value
from .errors import where_text
from .tensor_array_list import TensorArrayList
from .undefined import MaybeUnbound, UndefinedVar, is_maybe_unbound, is_undefined


def _to_loop_value(v, name, where):
    """The Variable structure a loop variable enters the while op with."""
    if isinstance(v, TensorArrayList):
        return v.array
    if isinstance(v, Variable):
        # the while op writes its loop variables in place: a copy keeps the value other names
        # still hold (``y = x; while ...: y = y * x`` must not overwrite x)
        if v.type == VarType.LOD_TENSOR_ARRAY:
            return v
        out = run_op("assign", v)
        out.stop_gradient = v.stop_gradient
        return out
    if isinstance(v, Tensor):
        return run_op("assign", v)
    if is_number(v):
        return as_variable(default_main_program().current_block(), v)
    if isinstance(v, list) and all(isinstance(x, (Variable, Tensor)) for x in v):
        dtype = v[0].dtype if v else "float32"
        return tensor_array.create_array(dtype, [as_variable(default_main_program().current_block(), x)
                                                 for x in v])
    raise TypeError(f"variable '{name}' is a {type(v).__name__} that changes inside the tensor-dependent loop at "
                    f"{where_text(where)}; only tensors, numbers, bools and lists of tensors can be loop "
                    "variables of a static while loop")


def _is_plain_object(v):
    """A value that cannot be a loop variable and is carried by identity (a Layer, a module ...)."""
    return not isinstance(v, (Variable, Tensor, TensorArrayList, list, tuple, dict, str, bytes, UndefinedVar)) \
        and not is_number(v) and v is not None


def _from_loop_value(orig, v):
    if isinstance(v, Variable) and v.type == VarType.LOD_TENSOR_ARRAY:
        return orig if isinstance(orig, TensorArrayList) and orig.array is v else TensorArrayList(v)
    return v


def _trial(body_fn, get, set_, state, copy=True):
    """Trace the body once into a scratch block and throw it away: the values it leaves."""
    program = default_main_program()
    n_blocks = len(program.blocks)
    saved_idx, saved_version = program.current_block_idx, program.version
    program._create_block()
    rec = mutation_log.Recording()
    vals = ()
    try:
        # the trial must leave no trace: it works on copies of the state's containers, and other
        # containers it changes in place are put back
        state = state() if callable(state) else state
        set_(copy_containers(state) if copy else state)
        with rec:
            body_fn()
            vals = tuple(get())
    finally:
        rec.settle(vals)
        program.current_block_idx = saved_idx
        del program.blocks[n_blocks:]
        program.version = saved_version + 1
    return vals


def static_while(cond_fn, body_fn, get, set_, names, loop_mask, where, first_cond=None, push_pop=()):
    """``while cond_fn(): body_fn()`` as a while op; ``first_cond`` is cond_fn()'s value already computed.
    ``push_pop``: names whose list methods (append, pop ...) the body calls."""
    user_body = body_fn

    def body_fn():
        with loop_body():      # names bound in one branch of an if in the body may be unbound after it
            user_body()
    state = list(get())
    idx = [i for i, m in enumerate(loop_mask) if m]
    _lists_to_arrays(body_fn, get, set_, state, idx, [i for i in idx if names[i] in push_pop],
                     _dict_push_pop(names, idx, push_pop))
    missing = [i for i in idx if is_undefined(state[i]) or state[i] is None]
    if missing:
        # the trial sees the loop variables as the Variables the real body will see (a Python
        # ``cnt`` becomes a tensor: ``if cnt % 2 == 0`` then stages a cond that may assign more)
        def as_loop_state():
            st = list(state)
            for i in idx:
                if i not in missing and not isinstance(st[i], TensorArrayList):
                    try:
                        st[i] = pack(st[i], [_from_loop_value(x, _to_loop_value(x, names[i], where))
                                             for x in flatten(st[i])])
                    except TypeError:
                        pass    # reported by the real trace
            return tuple(st)
        metas = [(a, (a.array.dtype, tuple(a.array.shape))) for a in _arrays_of(state)]
        trial = _trial(body_fn, get, set_, as_loop_state)
        if any((a.array.dtype, tuple(a.array.shape)) != m for a, m in metas):
            # an array made from an empty list took its item type and shape from its first write in the
            # body: values the body read from it before that write get them on a second trial
            trial = _trial(body_fn, get, set_, as_loop_state)
        for i in missing:
            v = trial[i]
            if is_undefined(v) or v is None:
                continue
            v = v.value if is_maybe_unbound(v) else v
            if isinstance(v, TensorArrayList):
                state[i] = TensorArrayList(tensor_array.create_array(v.array.dtype))
                continue
            holder = pack(v, [placeholder_like(x) for x in flatten(v)])
            if is_undefined(state[i]) and not names[i].startswith("_dy2st_") and all_tensors(v):
                # a name of the user's first bound in the body: unbound after the loop if the body never
                # binds it (it runs zero times, or binds it in a branch not taken); reads check the flag
                state[i] = MaybeUnbound(names[i], holder, flag_constant(False), (where_text(where),))
            elif state[i] is None and not names[i].startswith("_dy2st_") and all_tensors(v):
                # None before the loop, a tensor after the body: the body's trace cannot see None (an
                # ``if h is None`` inside would take the wrong branch) and a loop that runs zero times would
                # have to return None -- neither can be staged exactly (Paddle refuses it too)
                raise ValueError(
                    f"'{names[i]}' is None before the tensor-dependent loop at {where_text(where)} and the loop "
                    "assigns it a tensor: a static program cannot carry None through the loop (it would be "
                    "returned when the loop runs zero times, and `is None` tests inside the loop cannot be "
                    f"staged). Give '{names[i]}' a tensor initial value before the loop (e.g. paddle.zeros of "
                    "its shape) and keep a separate flag if the first iteration must differ")
            else:
                # return values (the return flag guards them)
                state[i] = holder
        set_(tuple(state))
    # loop variables that may be unbound enter the while op as (value, "is bound" flag) pairs
    flagged = {i: state[i] for i in idx if is_maybe_unbound(state[i])}
    flag_sites = {i: v.sites for i, v in flagged.items()}
    # tensor arrays are written in place by the body's write_to_array ops (the while op lists them
    # as inputs and outputs); as loop variables they would also get a final ``assign``, which the
    # runtime's assign kernel turns into a stacked ndarray
    idx = [i for i in idx if not is_undefined(state[i]) and state[i] is not None
           and not isinstance(state[i], TensorArrayList)]
    # objects only mutated in the body (``self`` whose buffers are assigned: those are state entries
    # of their own) are not loop variables; rebinding one to another object is refused below
    objects = {i: state[i] for i in idx if _is_plain_object(state[i])}
    idx = [i for i in idx if i not in objects]
    # tensor arrays a dict holds are written in place, like those above: taken out of the dict's loop value
    held_arrays = {i: {k: v for k, v in state[i].items() if isinstance(v, TensorArrayList)} for i in idx
                   if type(state[i]) is dict and any(isinstance(v, TensorArrayList) for v in state[i].values())}
    originals = {i: _as_pair(state[i]) if i in flagged else _without_arrays(state[i], held_arrays.get(i))
                 for i in idx}
    widened = {}    # (state index, leaf index) -> the dtype the body gives that loop variable
    reshaped = {}   # (state index, leaf index) -> (shape, dtype) of a Python number the body makes a tensor

    def entry_values():
        out = []
        for i in idx:
            if isinstance(state[i], TensorArrayList):
                out.append(state[i].array)
                continue
            entry = originals[i]
            leaves = [_to_loop_value(x, names[i], where) for x in flatten(entry)]
            for k, v in enumerate(leaves):
                if (i, k) in reshaped:
                    # a Python number the body turns into a tensor of another rank enters with that shape
                    shape, dt = reshaped[(i, k)]
                    leaves[k] = run_op("fill_constant", dtype=dt.proto, shape=shape,
                                       value=float(flatten(entry)[k]), str_value=str(flatten(entry)[k]))
                    v = leaves[k]
                if (i, k) in widened:
                    leaves[k] = run_op("cast", v, in_dtype=v.dtype.proto, out_dtype=widened[(i, k)].proto)
            out.append(pack(entry, leaves))
        return out

    def load(vals):
        cur = list(get())
        for i, v in zip(idx, vals):
            cur[i] = pack(originals[i], [_from_loop_value(o, x) for o, x in
                                         zip(flatten(originals[i]), flatten(v))]) \
                if not isinstance(originals[i], TensorArrayList) else TensorArrayList(v)
            if i in flagged:
                cur[i] = MaybeUnbound(names[i], cur[i][0], cur[i][1], flag_sites[i])
            if i in held_arrays:
                cur[i] = {k: held_arrays[i][k] if k in held_arrays[i] else cur[i][k] for k in state[i]}
        set_(tuple(cur))

    def cond(*vals):
        load(vals)
        c = cond_fn()
        return _as_bool_var(c, where)

    def body(*vals):
        load(vals)
        rec = mutation_log.Recording()
        cur = ()
        try:
            with rec:
                body_fn()
                cur = get()
        finally:
            changed = [c for c, before, after in rec.settle(cur).values()
                       if mutation_log.changed(before, after, same_python_value)]
        if changed:
            raise ValueError(
                f"{mutation_log.describe(changed[0])} that is not a loop variable is changed in place in the body "
                f"of the tensor-dependent loop at {where_text(where)}; the body is traced once for any number of "
                "iterations, so the change cannot be repeated per iteration. Assign the container to a local "
                "variable before the loop (then it is loop state: appended tensors become a tensor array), or "
                "keep Python-side bookkeeping outside the loop")
        for i, obj in objects.items():
            if cur[i] is not obj:
                _to_loop_value(cur[i], names[i], where)     # raises: not a loop value
        out = []
        for i, before in zip(idx, vals):
            v = cur[i]
            if is_undefined(v):
                raise NameError(f"loop variable '{names[i]}' is undefined at the end of an iteration of the "
                                f"tensor-dependent loop at {where_text(where)}")
            if i in held_arrays:
                if type(v) is not dict or any(v.get(k) is not a for k, a in held_arrays[i].items()):
                    raise ValueError(f"the list {names[i]}[{next(iter(held_arrays[i]))!r}] appended to in the "
                                     f"tensor-dependent loop at {where_text(where)} became a tensor array; the body "
                                     f"must not rebind it or '{names[i]}' (append to it, or assign items)")
                v = _without_arrays(v, held_arrays[i])
            if i in flagged:
                if is_maybe_unbound(v):     # the branches in the body that may leave it unbound
                    flag_sites[i] = tuple(dict.fromkeys(flag_sites[i] + v.sites))
                v = _as_pair(v)
            elif is_maybe_unbound(v):
                raise NameError(f"loop variable '{names[i]}' may be unbound at the end of an iteration of the "
                                f"tensor-dependent loop at {where_text(where)} but is bound before the loop")
            leaves = []
            for k, (x, b) in enumerate(zip(_flat_checked(v, originals[i], names[i], where), flatten(before))):
                if isinstance(x, Variable) and x.type == VarType.LOD_TENSOR and isinstance(b, Variable) \
                        and (i, k) not in reshaped and is_number(flatten(originals[i])[k]) \
                        and len(x.shape) != len(b.shape) and all(d >= 0 for d in x.shape):
                    raise _Widen(i, k, x.dtype, list(x.shape))
                if isinstance(x, Variable) and x.type == VarType.LOD_TENSOR and isinstance(b, Variable) \
                        and x.dtype != b.dtype and _widens(b.dtype, x.dtype):
                    raise _Widen(i, k, x.dtype)
                leaves.append(_to_body_value(x, b, names[i], where))
            out.append(pack(before, leaves) if isinstance(before, (list, tuple, dict)) else leaves[0])
        return out

    if not idx:
        load(_while_no_state(cond, body))
        return
    program = default_main_program()
    parent = program.current_block()
    # each retry promotes one leaf one step (at most 4 steps each): this bound is never reached
    for _ in range(8 * sum(len(flatten(state[i])) for i in idx) + 2):
        n_blocks, n_ops, version = len(program.blocks), len(parent.ops), program.version
        try:
            results = while_loop(cond, body, entry_values())
            break
        except _Widen as w:
            # Paddle's rule: a loop variable the body promotes (a Python int or an int tensor becoming a
            # float tensor, int32 -> int64, float32 -> float64) enters the loop already promoted. Throw
            # this attempt away and trace again from the same state
            del program.blocks[n_blocks:]
            del parent.ops[n_ops:]
            program.current_block_idx = parent.idx
            program.version = version + 1
            set_(tuple(state))
            if w.shape is not None:
                reshaped[(w.i, w.k)] = (w.shape, w.dtype)
            else:
                widened[(w.i, w.k)] = w.dtype
    else:
        raise RuntimeError(f"the loop variables of the tensor-dependent loop at {where_text(where)} keep changing "
                           "dtype from one trace of the body to the next")
    load(results)


def _arrays_of(state):
    """The tensor arrays among the state's values and the values of its dicts."""
    out = []
    for v in state:
        vals = v.values() if type(v) is dict else (v,)
        out += [x for x in vals if isinstance(x, TensorArrayList)]
    return out


def _dict_push_pop(names, idx, push_pop):
    """(state index, key) of the ``"d['k']"`` entries of ``push_pop``: lists dicts hold."""
    import ast
    out = []
    for entry in push_pop:
        if "[" in entry:
            root, key = entry.split("[", 1)
            if root in names and names.index(root) in idx:
                out.append((names.index(root), ast.literal_eval(key[:-1])))
    return out


def _without_arrays(d, arrays):
    return {k: v for k, v in d.items() if k not in arrays} if arrays else d


def _as_pair(v):
    """A loop variable that may be unbound as the (value, "is bound" flag) pair the while op carries."""
    if is_maybe_unbound(v):
        return (v.value, v.flag)
    return (v, flag_constant(True))


class _Widen(Exception):
    """A loop variable's dtype is promoted by the body: the loop is traced again with it promoted."""

    def __init__(self, i, k, dtype, shape=None):
        super().__init__(i, k, dtype)
        self.i, self.k, self.dtype, self.shape = i, k, dtype, shape


_WIDER = {"bool": 0, "uint8": 1, "int8": 1, "int16": 2, "int32": 3, "int64": 4}
_FLOAT_RANK = {"float16": 1, "bfloat16": 1, "float32": 2, "float64": 3}


def _widens(before, after):
    """Whether ``after`` is a promotion of ``before`` that Paddle's loops accept."""
    b, a = before.name, after.name
    if b in _WIDER and a in _FLOAT_RANK:
        return True
    if b in _WIDER and a in _WIDER:
        return _WIDER[a] > _WIDER[b]
    if b in _FLOAT_RANK and a in _FLOAT_RANK:
        return _FLOAT_RANK[a] > _FLOAT_RANK[b]
    return False


def _lists_to_arrays(body_fn, get, set_, state, idx, push_pop=(), dict_push_pop=()):
    """Python lists the body appends to in place become tensor arrays (`TensorArrayList`): the lists of
    tensors whose list methods the body calls (``push_pop``, found in the source), and the lists a trial
    trace on copies sees grow; lists the body rebinds stay Python lists."""
    block = default_main_program().current_block()
    for i, key in dict_push_pop:
        d = state[i]
        if type(d) is dict and type(d.get(key)) is list and all(isinstance(x, (Variable, Tensor)) for x in d[key]):
            # a list a dict holds, appended to in the body: a tensor array in a new dict (the loop rebinds the name)
            items = d[key]
            dtype = items[0].dtype if items else "float32"
            d = dict(d)
            d[key] = TensorArrayList(tensor_array.create_array(dtype, [as_variable(block, x) for x in items]))
            state[i] = d
    for i in push_pop:
        if type(state[i]) is list and all(isinstance(x, (Variable, Tensor)) for x in state[i]):
            # an empty list's element type is set by its first write
            dtype = state[i][0].dtype if state[i] else "float32"
            state[i] = TensorArrayList(tensor_array.create_array(dtype, [as_variable(block, x) for x in state[i]]))
    if push_pop or dict_push_pop:
        set_(tuple(state))
    lists = [i for i in idx if type(state[i]) is list
             and all(isinstance(x, (Variable, Tensor)) for x in state[i])]
    if not lists:
        return
    trial_state = list(copy_containers(tuple(state)))     # the trial changes copies only
    trial = _trial(body_fn, get, set_, tuple(trial_state), copy=False)
    for i in lists:
        v = trial[i]
        if v is not trial_state[i] or len(v) == len(state[i]):
            continue
        block = default_main_program().current_block()
        dtype = (state[i] or v)[0].dtype
        state[i] = TensorArrayList(tensor_array.create_array(dtype, [as_variable(block, x) for x in state[i]]))
    set_(tuple(state))


def _while_no_state(cond, body):
    # a loop whose state is not needed after it (only side effects): carry a dummy counter
    def c(k):
        return cond()

    def b(k):
        body()
        return [run_op("scale", k, scale=1.0, bias=1.0)]
    while_loop(c, b, [np.array([0], dtype=np.int64)])
    return []


def _flat_checked(v, orig, name, where):
    if isinstance(orig, TensorArrayList):
        return [v.array if isinstance(v, TensorArrayList) else v]
    fv, fo = flatten(v), flatten(orig)
    if len(fv) != len(fo):
        raise ValueError(f"loop variable '{name}' changes structure inside the tensor-dependent loop at "
                         f"{where_text(where)} (before: {len(fo)} leaves, after one iteration: {len(fv)})")
    return fv


def _to_body_value(x, before, name, where):
    if isinstance(x, TensorArrayList):
        return x.array
    if is_number(x):
        return run_op("fill_constant", dtype=before.dtype.proto, shape=list(before.shape) if before.shape else [],
                      value=float(x), str_value=str(x))
    if isinstance(x, Tensor):
        return run_op("assign", x)
    if isinstance(x, Variable):
        if x.dtype != before.dtype and x.type == VarType.LOD_TENSOR:
            raise TypeError(f"loop variable '{name}' is a {before.dtype.name} tensor before the tensor-dependent "
                            f"loop at {where_text(where)} but a {x.dtype.name} tensor after its body; cast it "
                            f"(e.g. {name} = {name}.astype('{before.dtype.name}')) so the type does not change")
        if x.type == VarType.LOD_TENSOR and x.block is not default_main_program().current_block():
            # a value from outside the body (another loop variable, an input): copy it now, before the
            # final assigns overwrite loop variables (``t = s; s = 2 * s``), and so the while
            # gradient sees an op producing it in the body
            return run_op("assign", x)
        return x
    raise TypeError(f"loop variable '{name}' becomes a {type(x).__name__} inside the tensor-dependent loop at "
                    f"{where_text(where)}; it must stay a tensor")


def _as_bool_var(c, where):
    if isinstance(c, Variable):
        if c.dtype.name != "bool":
            c = run_op("cast", c, in_dtype=c.dtype.proto, out_dtype=0)
        if c.shape and c.shape != [1]:
            raise ValueError(f"the condition of the while loop at {where_text(where)} must hold one element, "
                             f"got shape {c.shape}")
        return c
    if isinstance(c, Tensor):
        return as_variable(default_main_program().current_block(), bool(c))
    return as_variable(default_main_program().current_block(), np.array(bool(c)))


# -- for loops -----------------------------------------------------------------------------------------------

class StaticRange:
    """``range(start, stop, step)`` where a bound is a Variable: iterated with a while op."""

    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step


class StaticEnumerate:
    def __init__(self, inner, start=0):
        self.inner, self.start = inner, start


class StaticZip:
    """``zip(...)`` over a tensor whose first dim is unknown (or a ``range`` with a tensor bound):
    iterated with a while op up to the shortest length, known only when the Program runs."""

    def __init__(self, parts):
        self.parts = parts


def _int64(v):
    if isinstance(v, Variable):
        v = v if v.dtype.name == "int64" else run_op("cast", v, in_dtype=v.dtype.proto, out_dtype=3)
        if v.shape == []:
            v = run_op("reshape2", v, None, None, shape=[1])
        return v
    return as_variable(default_main_program().current_block(), np.array([int(v)], dtype=np.int64))


def _zero_d(v):
    return run_op("reshape2", v, None, None, shape=[])


def _range_length(start, stop, step):
    """How many items ``range(start, stop, step)`` gives (an int64 [1] Variable or a Python int)."""
    if not any(isinstance(v, Variable) for v in (start, stop)):
        return len(range(start, stop, step))
    span = run_op("elementwise_sub", _int64(stop), _int64(start)) if step > 0 else \
        run_op("elementwise_sub", _int64(start), _int64(stop))
    k = abs(step)
    n = run_op("elementwise_floordiv", run_op("scale", span, scale=1.0, bias=float(k - 1)), _int64(k))
    return run_op("elementwise_max", n, _int64(0))


def _zip_part(p, where):
    """(length, item at index i) of one argument of a staged ``zip``."""
    if isinstance(p, StaticRange) or isinstance(p, range):
        start, stop, step = p.start, p.stop, p.step
        if isinstance(step, Variable):
            raise TypeError(f"the step of range() in the zip of the for loop at {where_text(where)} must be a "
                            "Python int")

        def item(i):
            v = run_op("scale", i, scale=float(step), bias=0.0)
            v = run_op("elementwise_add", v, _int64(start)) if isinstance(start, Variable) else \
                run_op("scale", v, scale=1.0, bias=float(start))
            return _zero_d(v)
        return _range_length(start, stop, step), item
    if isinstance(p, Variable):
        if not p.shape:
            raise TypeError(f"zip() argument is a 0-D tensor, which cannot be iterated (the for loop at "
                            f"{where_text(where)})")
        n = p.shape[0] if p.shape[0] >= 0 else run_op("slice", run_op("shape", p), axes=[0], starts=[0], ends=[1],
                                                      infer_flags=[1], decrease_axis=[])
        return n, lambda i: run_op("squeeze2", run_op("gather", p, i, None, axis=0), axes=[0])
    if isinstance(p, Tensor):
        return _zip_part(as_variable(default_main_program().current_block(), p), where)
    if isinstance(p, TensorArrayList):
        arr = p.array
        return tensor_array.array_length(arr), lambda i: tensor_array.array_read(arr, i)
    raise TypeError(f"zip() over a tensor whose length is known only at run time cannot also iterate a "
                    f"{type(p).__name__} (the for loop at {where_text(where)}); iterate tensors and range() only, "
                    "or index the Python sequence with the loop index")


def static_for(iterable, body_fn, get, set_, names, loop_mask, where, extra_test=None, push_pop=()):
    """``for item in iterable: body_fn(item)`` as a while op over a hidden index."""
    enum_start = None
    if isinstance(iterable, StaticEnumerate):
        enum_start, iterable = iterable.start, iterable.inner
    zip_items = None
    single = isinstance(iterable, TensorArrayList)
    if single:      # ``for item in out`` over a list built in a tensor loop: its items, read one by one
        iterable = StaticZip([iterable])
    if isinstance(iterable, StaticZip):
        parts = [_zip_part(p, where) for p in iterable.parts]
        lengths = [n for n, _ in parts]
        stop = lengths[0]
        for n in lengths[1:]:
            stop = min(stop, n) if not isinstance(stop, Variable) and not isinstance(n, Variable) else \
                run_op("elementwise_min", _int64(stop), _int64(n))
        start, step, seq = 0, 1, None
        zip_items = [f for _, f in parts]
    elif isinstance(iterable, StaticRange):
        start, stop, step = iterable.start, iterable.stop, iterable.step
        seq = None
    else:   # a Variable: its first dimension
        seq = iterable
        if not seq.shape:
            raise TypeError(f"cannot iterate over a 0-D tensor (the for loop at {where_text(where)})")
        start, step = 0, 1
        stop = seq.shape[0] if seq.shape[0] >= 0 else run_op("slice", run_op("shape", seq), axes=[0], starts=[0],
                                                              ends=[1], infer_flags=[1], decrease_axis=[])
    if isinstance(step, Variable):
        raise TypeError(f"the step of range() in the for loop at {where_text(where)} must be a Python int")
    if step == 0:
        raise ValueError(f"range() arg 3 must not be zero (the for loop at {where_text(where)})")
    index = _int64(start)
    stop_v = _int64(stop)
    names = tuple(names) + ("_dy2st_index",)
    mask = tuple(loop_mask) + (True,)
    box = {"i": index}

    def get2():
        return tuple(get()) + (box["i"],)

    def set2(vals):
        set_(tuple(vals[:-1]))
        box["i"] = vals[-1]

    def cond():
        i = box["i"]
        c = run_op("less_than", i, stop_v) if step > 0 else run_op("greater_than", i, stop_v)
        if extra_test is not None:
            e = extra_test()
            if isinstance(e, Variable):
                c = run_op("logical_and", c, _as_bool_var(e, where))
            elif not e:
                c = run_op("logical_and", c, as_variable(default_main_program().current_block(), np.array([False])))
        return c

    def body():
        i = box["i"]
        if zip_items is not None:
            item = tuple(f(i) for f in zip_items) if not single else zip_items[0](i)
        elif seq is None:
            # a 0-D index, like the Python int it stands for (``x[i]`` drops the dim)
            item = _zero_d(i)
        else:
            item = run_op("squeeze2", run_op("gather", seq, i, None, axis=0), axes=[0])
        if enum_start is not None:
            counter = i if (seq is not None or zip_items is not None or (isinstance(start, int) and start == 0)) \
                else None
            if counter is None:
                counter = run_op("elementwise_sub", i, _int64(start))
            if enum_start:
                counter = run_op("scale", counter, scale=1.0, bias=float(enum_start))
            # 0-D like the Python int it stands for: ``row * (i + 1)`` mixes with float rows as a scalar
            item = (_zero_d(counter), item)
        body_fn(item)
        box["i"] = run_op("scale", box["i"], scale=1.0, bias=float(step))

    static_while(cond, body, get2, set2, names, mask, where, push_pop=push_pop)
