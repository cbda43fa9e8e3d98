"""Static lowering of converted ``while`` and ``for`` loops whose condition is a Variable.

The loop's state (see `cond_lowering`) is split into loop variables (modified in the body
and live at the loop test) and temporaries. Loop variables enter the ``while`` op as
Variables:

- Python numbers and bools become constants (``i = 0; while i < n: i += 1``);
- eager tensors (captured parameters, buffers) are copied first, so the loop never writes
  them;
- Python lists that the body appends to become tensor arrays (`TensorArrayList`);
- variables first assigned inside the loop (and return values set inside it) have no value
  before it: a trial trace of the body, thrown away afterwards, tells their structure, dtype
  and shape, and they start as zero placeholders.

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
from .cond_lowering import copy_containers, is_number, placeholder_like, same_python_value
from .errors import where_text
from .undefined import UndefinedVar, is_undefined


class TensorArrayList:
    """A Python list that became a tensor array inside a tensor-dependent loop.

    ``append`` writes at the end; ``len``, indexing, ``paddle.stack`` / ``paddle.concat``
    (through the converted call) read it back as tensors."""

    def __init__(self, array):
        self.array = array

    def append(self, x):
        n = tensor_array.array_length(self.array)
        tensor_array.array_write(x, n, self.array)

    def __getitem__(self, i):
        if isinstance(i, (int, np.integer)) and i < 0:
            i = run_op("scale", tensor_array.array_length(self.array), scale=1.0, bias=float(i))
        return tensor_array.array_read(self.array, i)

    def __len__(self):
        raise TypeError("len() of a list built inside a tensor-dependent loop is a tensor; it is converted only "
                        "inside to_static code (use paddle.tensor.array_length)")

    def length(self):
        return tensor_array.array_length(self.array)

    def to_tensor(self, axis=0, use_stack=True):
        return tensor_array.tensor_array_to_tensor(self.array, axis=axis, use_stack=use_stack)[0]


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
    return not isinstance(v, (Variable, Tensor, TensorArrayList, list, tuple, dict, str, bytes)) \
        and not is_number(v) and not is_undefined(v) and v is not None


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


def static_while(cond_fn, body_fn, get, set_, names, loop_mask, where, first_cond=None):
    """``while cond_fn(): body_fn()`` as a while op; ``first_cond`` is cond_fn()'s value already computed."""
    state = list(get())
    idx = [i for i, m in enumerate(loop_mask) if m]
    _lists_to_arrays(body_fn, get, set_, state, idx)
    missing = [i for i in idx if is_undefined(state[i]) or state[i] is None]
    if missing:
        # the trial sees the loop variables as the Variables the real body will see (a Python
        # ``cnt`` becomes a tensor: ``if cnt % 2 == 0`` then stages a cond that may assign more)
        def as_loop_state():
            st = list(state)
            for i in idx:
                if i not in missing and not isinstance(st[i], TensorArrayList):
                    try:
                        st[i] = pack(st[i], [_to_loop_value(x, names[i], where) for x in flatten(st[i])])
                    except TypeError:
                        pass    # reported by the real trace
            return tuple(st)
        trial = _trial(body_fn, get, set_, as_loop_state)
        for i in missing:
            v = trial[i]
            if is_undefined(v) or v is None:
                continue
            state[i] = pack(v, [placeholder_like(x) for x in flatten(v)]) if not isinstance(v, TensorArrayList) \
                else TensorArrayList(tensor_array.create_array(v.array.dtype))
        set_(tuple(state))
    # tensor arrays are written in place by the body's write_to_array ops (the while op lists them
    # as inputs and outputs); as loop variables they would also get a final ``assign``, which the
    # runtime's assign kernel turns into a stacked ndarray
    idx = [i for i in idx if not is_undefined(state[i]) and state[i] is not None
           and not isinstance(state[i], TensorArrayList)]
    # objects only mutated in the body (``self`` whose buffers are assigned: those are state entries
    # of their own) are not loop variables; rebinding one to another object is refused below
    objects = {i: state[i] for i in idx if _is_plain_object(state[i])}
    idx = [i for i in idx if i not in objects]
    originals = {i: state[i] for i in idx}
    loop_vals = [pack(state[i], [_to_loop_value(x, names[i], where) for x in flatten(state[i])])
                 if not isinstance(state[i], TensorArrayList) else state[i].array for i in idx]

    def load(vals):
        cur = list(get())
        for i, v in zip(idx, vals):
            cur[i] = pack(originals[i], [_from_loop_value(o, x) for o, x in
                                         zip(flatten(originals[i]), flatten(v))]) \
                if not isinstance(originals[i], TensorArrayList) else TensorArrayList(v)
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
            leaves = [_to_body_value(x, b, names[i], where) for x, b in
                      zip(_flat_checked(v, originals[i], names[i], where), flatten(before))]
            out.append(pack(before, leaves) if isinstance(before, (list, tuple, dict)) else leaves[0])
        return out

    results = while_loop(cond, body, loop_vals) if idx else _while_no_state(cond, body)
    load(results)


def _lists_to_arrays(body_fn, get, set_, state, idx):
    """Python lists the body appends to in place become tensor arrays (`TensorArrayList`).
    A trial trace on copies tells which lists grow; lists the body rebinds stay Python lists."""
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


def _int64(v):
    if isinstance(v, Variable):
        v = v if v.dtype.name == "int64" else run_op("cast", v, in_dtype=v.dtype.proto, out_dtype=3)
        if v.shape == []:
            v = run_op("reshape2", v, None, None, shape=[1])
        return v
    return as_variable(default_main_program().current_block(), np.array([int(v)], dtype=np.int64))


def static_for(iterable, body_fn, get, set_, names, loop_mask, where, extra_test=None):
    """``for item in iterable: body_fn(item)`` as a while op over a hidden index."""
    enum_start = None
    if isinstance(iterable, StaticEnumerate):
        enum_start, iterable = iterable.start, iterable.inner
    if isinstance(iterable, StaticRange):
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
        if seq is None:
            # a 0-D index, like the Python int it stands for (``x[i]`` drops the dim)
            item = run_op("reshape2", i, None, None, shape=[])
        else:
            item = run_op("squeeze2", run_op("gather", seq, i, None, axis=0), axes=[0])
        if enum_start is not None:
            counter = i if (seq is not None or (isinstance(start, int) and start == 0)) else None
            if counter is None:
                counter = run_op("elementwise_sub", i, _int64(start))
            if enum_start:
                counter = run_op("scale", counter, scale=1.0, bias=float(enum_start))
            item = (counter, item)
        body_fn(item)
        box["i"] = run_op("scale", box["i"], scale=1.0, bias=float(step))

    static_while(cond, body, get2, set2, names, mask, where)
