"""Control-flow ops (conditional_block, while, select_input), tensor-array ops, print, assert, py_func.

Ops that run sub-blocks or need variable names (conditional_block, while, select_input,
write_to_array, print, assert, py_func) are executed in Programs by ``interpret(op, env,
run_block)``; their kernels give the eager/one-op meaning (a block-less conditional_block
or a while whose condition is false does nothing). Tensor arrays are Python lists of
arrays at run time.
"""
from __future__ import annotations

import threading
import weakref
from collections import ChainMap

import numpy as np

from .registry import Meta, register

__all__ = []


def _scalar_true(arr, what):
    a = np.asarray(arr)
    if a.size != 1:
        raise ValueError(f"{what}: the condition must hold exactly one element, got shape {list(a.shape)}")
    return bool(a.reshape(-1)[0])


def _sub_block(op):
    return op.block.program.blocks[op.attrs["sub_block"]]


# -- conditional_block ---------------------------------------------------------------------------------

def _conditional_block(Cond, Input, sub_block=None, is_scalar_condition=False, **_):
    # without a Program there is no sub-block to run: the op produces nothing
    return [], None


def _conditional_block_meta(cond, inputs, **_):
    return [], Meta((0,), np.dtype("float32"))


def _conditional_block_run(op, env, run_block):
    conds = [env[n] for n in op.inputs.get("Cond", [])]
    if op.attrs.get("is_scalar_condition", False):
        go = all(_scalar_true(c, "conditional_block") for c in conds)
    else:
        go = all(np.asarray(c).size > 0 for c in conds)
    if go:
        run_block(_sub_block(op), env)
    # what the gradient (conditional_block_grad) needs: whether the branch ran, the inputs and
    # every value the branch computed (the compiled executor keeps no sub-block values)
    scope = op.outputs.get("Scope")
    if scope:
        env[scope[0]] = SavedScope(go, _snapshot(env, op.inputs.get("Input", []), _sub_block(op) if go else None))


class SavedScope:
    """The Scope of a conditional_block run: ``ran`` and the values its gradient reads."""
    __slots__ = ("ran", "values")

    def __init__(self, ran, values):
        self.ran = ran
        self.values = values

    def __repr__(self):
        return f"<SavedScope ran={self.ran} {len(self.values)} values>"


def _block_writes(block):
    names = []
    for o in block.ops:
        names.extend(o.output_arg_names)
    return names


def _snapshot(env, inputs, block):
    vals = {n: env[n] for n in inputs if n in env}
    if block is not None:
        for n in _block_writes(block):
            if n in env:
                vals[n] = env[n]
    return vals


def _zeros_like(v):
    if isinstance(v, list):
        return []   # a tensor array's zero gradient: no element has one
    return np.zeros_like(np.asarray(v))


def _accumulate(a, b):
    """a + b for gradients (tensor arrays element-wise, absent elements being zeros)."""
    if a is None:
        return b
    if isinstance(a, list) or isinstance(b, list):
        return sum_arrays([a, b])
    return a + b


def _conditional_block_grad(Input, OutGrad, Scope, sub_block=None, grad_vars=(), **_):
    raise RuntimeError("conditional_block_grad: runs a grad sub-block, which only exists inside a Program")


def _conditional_block_grad_run(op, env, run_block):
    saved = env[op.inputs["Scope"][0]]
    outs = op.outputs.get("Input@GRAD", [])
    if saved.ran:
        local = ChainMap({}, saved.values, env)
        run_block(_sub_block(op), local)
        for o, g in zip(outs, op.attrs["grad_vars"]):
            env[o] = local[g]
    else:
        passthrough = op.attrs.get("array_passthrough") or [-1] * len(outs)
        douts = op.inputs.get("Out@GRAD", [])
        for o, n, k in zip(outs, op.inputs["Input"], passthrough):
            # an array the branch would have changed in place: untouched, its gradient passes through
            env[o] = list(env.get(douts[k]) or []) if k >= 0 else _zeros_like(saved.values[n])


register("conditional_block", ["Cond[]", "Input[]"], ["Out[]", "Scope"],
         {"sub_block": ("BLOCK", None), "is_scalar_condition": ("BOOLEAN", False)},
         kernel=_conditional_block, infer_meta=_conditional_block_meta, interpret=_conditional_block_run,
         differentiable=())

# the gradient of a conditional_block (training Programs only; never saved): runs the grad
# sub-block over the saved Scope when the branch ran, else gives zero gradients.
# grad_vars[i] names Input@GRAD[i]'s value inside the grad sub-block.
register("conditional_block_grad", ["Input[]", "Out@GRAD[]", "Scope"], ["Input@GRAD[]"],
         {"sub_block": ("BLOCK", None), "grad_vars": ("STRINGS", []), "array_passthrough": ("INTS", [])},
         kernel=_conditional_block_grad, infer_meta=lambda xs, douts, scope, **_: list(xs),
         interpret=_conditional_block_grad_run, differentiable=())


# -- select_input ------------------------------------------------------------------------------------

def _select_input(X, Mask, **_):
    k = int(np.asarray(Mask).reshape(-1)[0])
    if not 0 <= k < len(X):
        raise IndexError(f"select_input: Mask is {k} but there are {len(X)} inputs")
    return X[k]


def merge_meta(metas):
    """The meta of a value that is one of ``metas``: dims that differ become -1."""
    first = metas[0]
    shape = list(first.shape)
    for m in metas[1:]:
        if len(m.shape) != len(shape):
            raise ValueError(f"select_input: inputs have different ranks ({list(first.shape)} vs {list(m.shape)})")
        shape = [a if a == b else -1 for a, b in zip(shape, m.shape)]
    return Meta(tuple(shape), first.dtype)


def _select_input_meta(xs, mask, **_):
    return merge_meta(xs)


def _select_input_run(op, env, run_block):
    k = int(np.asarray(env[op.inputs["Mask"][0]]).reshape(-1)[0])
    names = op.inputs["X"]
    if not 0 <= k < len(names):
        raise IndexError(f"select_input: Mask is {k} but there are {len(names)} inputs")
    env[op.outputs["Out"][0]] = env[names[k]]   # only the selected branch has run


register("select_input", ["X[]", "Mask"], ["Out"], kernel=_select_input, infer_meta=_select_input_meta,
         interpret=_select_input_run, differentiable=())


# -- while ---------------------------------------------------------------------------------------------

def _while(X, Condition, sub_block=None, is_test=False, **_):
    if any(_scalar_true(c, "while") for c in Condition):
        raise RuntimeError("while: the loop body is a sub-block, which only exists inside a Program")
    return [], None


def _while_meta(xs, conds, **_):
    return [], Meta((0,), np.dtype("float32"))


def _while_run(op, env, run_block):
    cond = op.inputs["Condition"][0]
    body = _sub_block(op)
    steps = op.outputs.get("StepScopes")
    record = bool(steps) and not op.attrs.get("is_test", False)
    if record:
        xs = op.inputs.get("X", [])
        writes = _block_writes(body)
        saved = []
    while _scalar_true(env[cond], "while"):
        if record:
            # per iteration: the outside values at its start and every value the body computes,
            # which while_grad restores to run the body's backward
            snap = {n: env[n] for n in xs if n in env}
        run_block(body, env)
        if record:
            for n in writes:
                if n in env and n not in snap:
                    snap[n] = env[n]
            saved.append(snap)
    if record:
        env[steps[0]] = saved


def _while_grad(X, OutGrad, StepScopes, sub_block=None, carry_in=(), carry_out=(), x_grads=(), **_):
    raise RuntimeError("while_grad: runs a grad sub-block, which only exists inside a Program")


def _while_grad_run(op, env, run_block):
    steps = op.inputs["StepScopes"][0]
    if steps not in env or not isinstance(env[steps], list):
        raise RuntimeError("while_grad: the forward while op saved no iterations; build the loop with "
                           "is_test=False to take gradients through it")
    saved = env[steps]
    block = _sub_block(op)
    carry_in, carry_out = op.attrs["carry_in"], op.attrs["carry_out"]
    x_grads = op.attrs["x_grads"]
    # a tensor array nothing gave a gradient to yet is empty (all its element gradients are zero)
    carry = [env[n] if n in env or not _is_array_var(op, n) else [] for n in op.inputs["Out@GRAD"]]
    acc = [None] * len(x_grads)
    for snap in reversed(saved):
        local = ChainMap(dict(zip(carry_in, carry)), snap, env)
        run_block(block, local)
        for k, g in enumerate(x_grads):
            if g:
                acc[k] = _accumulate(acc[k], local[g])
        carry = [local[co] if co else _zeros_like(c) for co, c in zip(carry_out, carry)]
    # X@GRAD: the loop variables first (their gradient at loop entry), then the other inputs
    xs, outs = op.inputs["X"], op.outputs.get("X@GRAD", [])
    n_loop = len(carry_in)
    for k, o in enumerate(outs):
        if k < n_loop:
            env[o] = carry[k]
        else:
            a = acc[k - n_loop]
            env[o] = a if a is not None else _zeros_like(env[xs[k]] if xs[k] in env else saved[0][xs[k]])


register("while", ["X[]", "Condition[]"], ["Out[]", "StepScopes"],
         {"sub_block": ("BLOCK", None), "is_test": ("BOOLEAN", False)},
         kernel=_while, infer_meta=_while_meta, interpret=_while_run, differentiable=())

# the gradient of a while (training Programs only; never saved). X = the loop variables (Out@GRAD
# aligned with them) then the other differentiable inputs. Per saved iteration, last first, the grad
# sub-block runs with the carried gradients in ``carry_in`` and leaves the gradients at the
# iteration's start in ``carry_out`` ("" = zero) and the inputs' contributions in ``x_grads``
# (aligned with the inputs after the loop variables; "" = none).
register("while_grad", ["X[]", "Out@GRAD[]", "StepScopes"], ["X@GRAD[]"],
         {"sub_block": ("BLOCK", None), "carry_in": ("STRINGS", []), "carry_out": ("STRINGS", []),
          "x_grads": ("STRINGS", [])},
         kernel=_while_grad, infer_meta=lambda xs, douts, steps, **_: list(xs),
         interpret=_while_grad_run, differentiable=())


def _is_array_var(op, name):
    v = op.block._find_var_recursive(name)
    return v is not None and int(v.type) == 13   # VarType.LOD_TENSOR_ARRAY


# -- increment -----------------------------------------------------------------------------------------

def _increment(X, step=1.0, **_):
    return (X + np.asarray(step).astype(X.dtype)).astype(X.dtype, copy=False)


register("increment", ["X"], ["Out"], {"step": ("FLOAT", 1.0)}, kernel=_increment,
         infer_meta=lambda x, **_: x, differentiable=())


# -- tensor arrays (Python lists at run time) -------------------------------------------------------------

def _index(i, what):
    a = np.asarray(i)
    if a.size != 1 or a.dtype.kind not in "iu":
        raise TypeError(f"{what}: the index I must be an integer tensor with one element, got "
                        f"{a.dtype}{list(a.shape)}")
    k = int(a.reshape(-1)[0])
    if k < 0:
        raise IndexError(f"{what}: index {k} is negative")
    return k


def write_list(array, x, i):
    """A copy of ``array`` with ``x`` at position ``i`` (grown with None gaps as Paddle grows arrays)."""
    k = _index(i, "write_to_array")
    out = list(array or [])
    if k >= len(out):
        out.extend([None] * (k + 1 - len(out)))
    out[k] = x
    return out


def _write_to_array(X, I, **_):
    return write_list([], X, I)


def _array_meta(x, i, **_):
    # the eager result is a one-op list (seen by run_op as a stacked array); Programs use the
    # LOD_TENSOR_ARRAY variable created by create_array, whose meta describes the elements
    return Meta((-1,) + tuple(x.shape), x.dtype)


def _write_to_array_run(op, env, run_block):
    name = op.outputs["Out"][0]
    env[name] = write_list(env.get(name), env[op.inputs["X"][0]], env[op.inputs["I"][0]])


register("write_to_array", ["X", "I"], ["Out"], kernel=_write_to_array, infer_meta=_array_meta,
         interpret=_write_to_array_run, differentiable=())


def _read_from_array(X, I, X_W=None, **_):
    k = _index(I, "read_from_array")
    if k >= len(X) or X[k] is None:
        raise IndexError(f"read_from_array: index {k} was never written (the array has {len(X)} slots)")
    return X[k]


def _element_meta(x):
    return x[0] if isinstance(x, list) else x


register("read_from_array", ["X", "I", "X_W?"], ["Out"], kernel=_read_from_array,
         infer_meta=lambda x, i, xw=None, **_: _element_meta(x), differentiable=())


register("lod_array_length", ["X"], ["Out"], kernel=lambda X, **_: np.array([len(X)], dtype=np.int64),
         infer_meta=lambda x, **_: Meta((1,), np.dtype("int64")), differentiable=())


def _tensor_array_to_tensor(X, axis=0, use_stack=False, **_):
    if not X:
        raise ValueError("tensor_array_to_tensor: the array is empty")
    if use_stack:
        out = np.stack(X, axis=axis)
        index = np.ones(len(X), dtype=np.int32)
    else:
        out = np.concatenate(X, axis=axis)
        index = np.array([x.shape[axis] for x in X], dtype=np.int32)
    return out, index


def _tensor_array_to_tensor_meta(x, axis=0, use_stack=False, **_):
    e = _element_meta(x)
    shape = list(e.shape)
    if use_stack:
        ax = axis if axis >= 0 else axis + len(shape) + 1
        shape.insert(ax, -1)
    else:
        shape[axis] = -1
    return Meta(tuple(shape), e.dtype), Meta((-1,), np.dtype("int32"))


register("tensor_array_to_tensor", ["X"], ["Out", "OutIndex"], {"axis": ("INT", 0), "use_stack": ("BOOLEAN", False)},
         kernel=_tensor_array_to_tensor, infer_meta=_tensor_array_to_tensor_meta, differentiable=())


# -- create_array inside a loop or branch body -------------------------------------------------------------
# Paddle runs each sub-block execution in a fresh scope, so an array created in a while body starts empty
# every iteration; our executors keep one environment, so an array created in a sub-block is emptied by
# this op when the creation runs (Paddle's PIR op of the same name; not a legacy ProgramDesc op).

def _create_array_run(op, env, run_block):
    env[op.outputs["Out"][0]] = []


def _create_array(dtype=5, **_):
    # a one-op eager call sees arrays stacked (see write_to_array): an empty one is an empty tensor
    from ..dtype import from_proto
    return np.zeros((0,), dtype=from_proto(dtype).np)


def _create_array_meta(dtype=5, **_):
    from ..dtype import from_proto
    return Meta((-1,), np.dtype(from_proto(dtype).np))


register("create_array", [], ["Out"], {"dtype": ("INT", 5)}, kernel=_create_array,
         infer_meta=_create_array_meta, interpret=_create_array_run,
         differentiable=())


# -- list.pop / list.insert on tensor arrays (to_static lists changed in tensor loops) ----------------------
# Python's list semantics: pop(i) removes and returns item i (negative from the end, IndexError when out
# of range); insert(i, v) puts v before item i (clamped to [0, len], negative from the end). ArrayOut is the
# array variable X itself (changed in place, as write_to_array's Out); Index is the position actually used,
# which the gradients read. Paddle's PIR has array_pop; its legacy ProgramDesc has neither op, so a Program
# holding them trains and runs here but is not one real Paddle can load.

def _pop_position(arr, i):
    k = int(np.asarray(i).reshape(-1)[0])
    n = len(arr)
    if n == 0:
        raise IndexError("array_pop: pop from an empty tensor array (list.pop on a list built in a tensor loop)")
    j = k + n if k < 0 else k
    if not 0 <= j < n:
        raise IndexError(f"array_pop: pop index {k} out of range for a tensor array of length {n}")
    return j


def _array_pop_run(op, env, run_block):
    arr = list(env.get(op.inputs["X"][0]) or [])
    j = _pop_position(arr, env[op.inputs["I"][0]])
    item = arr.pop(j)
    if item is None:
        raise IndexError(f"array_pop: element {j} of the tensor array was never written")
    env[op.outputs["Out"][0]] = item
    env[op.outputs["ArrayOut"][0]] = arr
    env[op.outputs["Index"][0]] = np.array([j], dtype=np.int64)


def _array_pop(X, I, **_):
    arr = list(X)
    j = _pop_position(arr, I)
    item = arr.pop(j)
    return item, arr, np.array([j], dtype=np.int64)


register("array_pop", ["X", "I"], ["Out", "ArrayOut", "Index"], kernel=_array_pop,
         infer_meta=lambda x, i, **_: (_element_meta(x), x[:-1] if isinstance(x, list) else x,
                                       Meta((1,), np.dtype("int64"))),
         interpret=_array_pop_run, differentiable=())


def _insert_position(arr, i):
    k = int(np.asarray(i).reshape(-1)[0])
    n = len(arr)
    j = k + n if k < 0 else k
    return min(max(j, 0), n)


def _array_insert_run(op, env, run_block):
    arr = list(env.get(op.inputs["X"][0]) or [])
    j = _insert_position(arr, env[op.inputs["I"][0]])
    arr.insert(j, env[op.inputs["Value"][0]])
    env[op.outputs["ArrayOut"][0]] = arr
    env[op.outputs["Index"][0]] = np.array([j], dtype=np.int64)


def _array_insert(X, I, Value, **_):
    arr = list(X)
    j = _insert_position(arr, I)
    arr.insert(j, Value)
    return arr, np.array([j], dtype=np.int64)


register("array_insert", ["X", "I", "Value"], ["ArrayOut", "Index"], kernel=_array_insert,
         infer_meta=lambda x, i, v, **_: (x + [v] if isinstance(x, list) else x, Meta((1,), np.dtype("int64"))),
         interpret=_array_insert_run, differentiable=())


def _array_pop_grad_run(op, env, run_block):
    # the array before the pop had the popped element at Index: its gradient goes back there
    j = int(np.asarray(env[op.inputs["Index"][0]]).reshape(-1)[0])
    darr = _elements(env.get(op.inputs["ArrayOut@GRAD"][0])) if op.inputs.get("ArrayOut@GRAD") else []
    dout = env.get(op.inputs["Out@GRAD"][0]) if op.inputs.get("Out@GRAD") else None
    if len(darr) < j:
        darr.extend([None] * (j - len(darr)))
    darr.insert(j, dout)
    env[op.outputs["X@GRAD"][0]] = darr


def _array_pop_grad(Index, OutGrad=None, ArrayOutGrad=None, **_):
    j = int(np.asarray(Index).reshape(-1)[0])
    darr = _elements(ArrayOutGrad)
    if len(darr) < j:
        darr.extend([None] * (j - len(darr)))
    darr.insert(j, OutGrad)
    return darr


def _array_insert_grad(Index, Value, ArrayOutGrad, **_):
    j = int(np.asarray(Index).reshape(-1)[0])
    darr = _elements(ArrayOutGrad)
    g = darr.pop(j) if j < len(darr) else None
    value = np.asarray(Value)
    return (np.zeros_like(value) if g is None else np.asarray(g).astype(value.dtype, copy=False)), darr


def _array_pop_grad_meta(i, dout=None, darr=None, **_):
    # an array output: (one-op eager calls see it stacked) a leading unknown dim over the element meta
    e = _element_meta(darr) if darr is not None and not (isinstance(darr, list) and not darr) else dout
    if e is None:
        return Meta((-1,), np.dtype("float32"))
    return Meta((-1,) + tuple(e.shape), e.dtype)


register("array_pop_grad", ["Index", "Out@GRAD?", "ArrayOut@GRAD?"], ["X@GRAD"],
         kernel=_array_pop_grad,
         infer_meta=_array_pop_grad_meta,
         interpret=_array_pop_grad_run, differentiable=())


def _array_insert_grad_run(op, env, run_block):
    # the inserted value's gradient is the element at Index; the rest shift back by one
    j = int(np.asarray(env[op.inputs["Index"][0]]).reshape(-1)[0])
    darr = _elements(env.get(op.inputs["ArrayOut@GRAD"][0]))
    value = np.asarray(env[op.inputs["Value"][0]])
    g = darr.pop(j) if j < len(darr) else None
    if op.outputs.get("Value@GRAD"):
        env[op.outputs["Value@GRAD"][0]] = np.zeros_like(value) if g is None else \
            np.asarray(g).astype(value.dtype, copy=False)
    if op.outputs.get("X@GRAD"):
        env[op.outputs["X@GRAD"][0]] = darr


register("array_insert_grad", ["Index", "Value", "ArrayOut@GRAD"], ["Value@GRAD", "X@GRAD"],
         kernel=_array_insert_grad,
         infer_meta=lambda i, v, darr, **_: (v, darr[1:] if isinstance(darr, list) else darr),
         interpret=_array_insert_grad_run, differentiable=())


# -- tensor-array gradients (training Programs only; never saved) ------------------------------------------
# The gradient of a tensor array is an array of element gradients, None (or past the end) for an element
# with none, i.e. zero. read_from_array's gradient is Paddle's write_to_array of Out@GRAD into a fresh
# array; write_to_array's is write_to_array_grad below (the element's gradient, zeros when absent);
# contributions are summed with tensor_array_sum (Paddle sums arrays with its `sum` op).

def _elements(a):
    return [] if a is None else list(a)


def sum_arrays(arrays):
    """Element-wise sum of tensor arrays of possibly different lengths (absent elements are zeros)."""
    arrays = [_elements(a) for a in arrays]
    n = max((len(a) for a in arrays), default=0)
    out = []
    for k in range(n):
        acc = None
        for a in arrays:
            v = a[k] if k < len(a) else None
            if v is not None:
                acc = np.array(v, copy=True) if acc is None else acc + v
        out.append(acc)
    return out


def _tensor_array_sum(X, **_):
    return sum_arrays(X)


def _array_list_meta(xs, **_):
    if not xs:
        return Meta((-1,), np.dtype("float32"))
    first = xs[0]
    # an array given as a list of element metas, or (one-op eager call) as its stacked elements
    shape = tuple(first[0].shape) if isinstance(first, list) else tuple(first.shape)[1:]
    dtype = first[0].dtype if isinstance(first, list) else first.dtype
    return Meta((-1,) + shape, dtype)


def _tensor_array_sum_run(op, env, run_block):
    # an array nothing wrote yet is empty
    env[op.outputs["Out"][0]] = sum_arrays([env.get(n, []) for n in op.inputs["X"]])


register("tensor_array_sum", ["X[]"], ["Out"], kernel=_tensor_array_sum, infer_meta=_array_list_meta,
         interpret=_tensor_array_sum_run, differentiable=())


def _write_to_array_grad(X, I, OutGrad, **_):
    k = _index(I, "write_to_array_grad")
    g = _elements(OutGrad)
    if k < len(g) and g[k] is not None:
        return np.asarray(g[k]).astype(np.asarray(X).dtype, copy=False)
    return np.zeros_like(np.asarray(X))


register("write_to_array_grad", ["X", "I", "Out@GRAD"], ["X@GRAD"], kernel=_write_to_array_grad,
         infer_meta=lambda x, i, dout, **_: x, differentiable=())


def _array_clear_slot(X, I, **_):
    """A copy of the gradient array ``X`` without element ``I`` (None: zero): the array's gradient from
    before a write at ``I``, which overwrote (and so cut off) the element there."""
    k = _index(I, "tensor_array_clear_slot")
    out = _elements(X)
    if k < len(out):
        out[k] = None
    return out


def _array_clear_slot_run(op, env, run_block):
    env[op.outputs["Out"][0]] = _array_clear_slot(env.get(op.inputs["X"][0], []), env[op.inputs["I"][0]])


def _array_clear_slot_meta(x, i, **_):
    # an array given as element metas (one-op call) or the array variable's own meta (Programs)
    if isinstance(x, list):
        e = _element_meta(x)
        return Meta((-1,) + tuple(e.shape), e.dtype)
    return x


register("tensor_array_clear_slot", ["X", "I"], ["Out"], kernel=_array_clear_slot,
         infer_meta=_array_clear_slot_meta, interpret=_array_clear_slot_run, differentiable=(), internal=True)


def _tensor_array_to_tensor_grad(X, OutGrad, axis=0, use_stack=False, **_):
    xs = _elements(X)
    dout = np.asarray(OutGrad)
    if use_stack:
        ax = axis if axis >= 0 else axis + dout.ndim
        return [np.take(dout, k, axis=ax).astype(np.asarray(x).dtype, copy=False) for k, x in enumerate(xs)]
    ax = axis if axis >= 0 else axis + dout.ndim
    ends = np.cumsum([np.asarray(x).shape[ax] for x in xs])[:-1]
    return [p.astype(np.asarray(x).dtype, copy=False) for p, x in zip(np.split(dout, ends, axis=ax), xs)]


def _tensor_array_to_tensor_grad_meta(x, dout, axis=0, use_stack=False, **_):
    # X@GRAD is an array like X: in a Program its meta is the element meta; a one-op eager call gets
    # the elements stacked
    if isinstance(x, list):
        e = _element_meta(x)
        return Meta((-1,) + tuple(e.shape), e.dtype)
    return x


register("tensor_array_to_tensor_grad", ["X", "Out@GRAD"], ["X@GRAD"],
         {"axis": ("INT", 0), "use_stack": ("BOOLEAN", False)},
         kernel=_tensor_array_to_tensor_grad, infer_meta=_tensor_array_to_tensor_grad_meta, differentiable=())


# -- print ---------------------------------------------------------------------------------------------

_print_counts = weakref.WeakKeyDictionary()   # op -> times printed (first_n); ids are reused


def format_print(arr, name, message, summarize, print_tensor_name, print_tensor_type, print_tensor_shape,
                 print_tensor_layout, print_tensor_lod):
    arr = np.asarray(arr)
    lines = []
    if message:
        lines.append(message)
    if print_tensor_name:
        lines.append(f"Variable: {name}")
    if print_tensor_lod:
        lines.append("  - lod: {}")
    lines.append("  - place: Place(cpu)")
    if print_tensor_shape:
        lines.append(f"  - shape: {list(arr.shape)}")
    if print_tensor_layout:
        lines.append("  - layout: NCHW")
    if print_tensor_type:
        lines.append(f"  - dtype: {arr.dtype.name}")
    flat = arr.reshape(-1)
    if summarize is not None and summarize >= 0:
        flat = flat[:summarize]
    lines.append("  - data: [" + " ".join(str(v) for v in flat.tolist()) + "]")
    return "\n".join(lines)


def _print(In, first_n=-1, message="", summarize=20, print_tensor_name=True, print_tensor_type=True,
           print_tensor_shape=True, print_tensor_layout=True, print_tensor_lod=True, print_phase="BOTH",
           is_forward=True, _name="Tensor", **_):
    if print_phase.upper() in ("BOTH", "FORWARD" if is_forward else "BACKWARD"):
        print(format_print(In, _name, message, summarize, print_tensor_name, print_tensor_type,
                           print_tensor_shape, print_tensor_layout, print_tensor_lod), flush=True)
    return In


def _print_run(op, env, run_block):
    name = op.inputs["In"][0]
    n = _print_counts.get(op, 0)
    first_n = op.attrs.get("first_n", -1)
    value = env[name]
    if first_n < 0 or n < first_n:
        _print_counts[op] = n + 1
        _print(value, _name=name, **op.attrs)
    env[op.outputs["Out"][0]] = value


register("print", ["In"], ["Out"],
         {"first_n": ("INT", -1), "message": ("STRING", ""), "summarize": ("INT", 20),
          "print_tensor_name": ("BOOLEAN", True), "print_tensor_type": ("BOOLEAN", True),
          "print_tensor_shape": ("BOOLEAN", True), "print_tensor_layout": ("BOOLEAN", True),
          "print_tensor_lod": ("BOOLEAN", True), "print_phase": ("STRING", "BOTH"),
          "is_forward": ("BOOLEAN", True)},
         kernel=_print, infer_meta=lambda x, **_: x, interpret=_print_run,
         grad=lambda ctx, dout: [dout])


# -- assert --------------------------------------------------------------------------------------------

def assert_message(cond_name, data, names, summarize):
    msg = f"The condition variable '{cond_name}' of AssertOp must be true, but received false"
    for n, d in zip(names, data):
        d = np.asarray(d).reshape(-1)
        if summarize is not None and summarize >= 0:
            d = d[:summarize]
        msg += f"\n  {n}: [" + " ".join(str(v) for v in d.tolist()) + "]"
    return msg


def _assert(Cond, Data, summarize=-1, _names=None, **_):
    c = np.asarray(Cond)
    if c.size != 1 or c.dtype != np.bool_:
        raise TypeError(f"assert: Cond must be a bool tensor with one element, got {c.dtype}{list(c.shape)}")
    if not bool(c.reshape(-1)[0]):
        names = _names or [f"Data[{i}]" for i in range(len(Data))]
        raise ValueError(assert_message("Cond", Data, names, summarize))
    return ()


def _assert_run(op, env, run_block):
    cond = op.inputs["Cond"][0]
    names = op.inputs.get("Data", [])
    c = np.asarray(env[cond])
    if not bool(c.reshape(-1)[0]):
        raise ValueError(assert_message(cond, [env[n] for n in names], names, op.attrs.get("summarize", -1)))


register("assert", ["Cond", "Data[]"], [], {"summarize": ("LONG", -1)}, kernel=_assert,
         infer_meta=lambda c, d, **_: (), interpret=_assert_run, differentiable=())


# -- py_func -------------------------------------------------------------------------------------------

# Python callables of py_func ops by id (Paddle keeps one process-wide registry too); the metas of their
# outputs are recorded with them because only the caller knows them.
PY_FUNCS = []
PY_FUNC_OUT_METAS = {}
_ids_by_func = {}
_py_funcs_lock = threading.Lock()


def register_py_func(func, out_metas=None):
    """The id of ``func`` in the py_func registry (one id per function object)."""
    # locked: two threads tracing py_funcs at once would otherwise both read len(PY_FUNCS) and
    # share one id, and one of them would call the other's function
    with _py_funcs_lock:
        fid = _ids_by_func.get(id(func))
        if fid is None or PY_FUNCS[fid] is not func:
            fid = len(PY_FUNCS)
            PY_FUNCS.append(func)
            _ids_by_func[id(func)] = fid
        if out_metas is not None:
            PY_FUNC_OUT_METAS[fid] = list(out_metas)
    return fid


def call_py_func(fid, arrays):
    """Call registered function ``fid`` on numpy arrays; always a list of results (None kept)."""
    if not 0 <= fid < len(PY_FUNCS):
        raise ValueError(f"py_func: no Python function registered with id {fid}")
    res = PY_FUNCS[fid](*arrays)
    if res is None:
        return []
    if not isinstance(res, (list, tuple)):
        res = [res]
    return [None if r is None else np.asarray(r) for r in res]


def _py_func(X, forward_callable_id=0, backward_callable_id=-1, backward_skip_vars=(), **_):
    return call_py_func(forward_callable_id, X)


def _py_func_meta(xs, forward_callable_id=0, **_):
    metas = PY_FUNC_OUT_METAS.get(forward_callable_id)
    if metas is None:
        raise ValueError(f"py_func: the outputs of function {forward_callable_id} are not declared")
    return list(metas)


def _py_func_run(op, env, run_block):
    outs = call_py_func(op.attrs["forward_callable_id"], [env[n] for n in op.inputs.get("X", [])])
    names = op.outputs.get("Out", [])
    if len(outs) != len(names):
        raise ValueError(f"py_func: the Python function returned {len(outs)} value(s) but the op declares "
                         f"{len(names)} output(s) {names}")
    for n, v in zip(names, outs):
        var = op.block._find_var_recursive(n)
        if v is not None and var is not None:
            v = v.astype(var.dtype.np, copy=False)
        env[n] = v


def _py_func_grad(ctx, douts):
    from ..framework import state
    from ..tensor import Tensor
    bid = ctx.attr("backward_callable_id")
    xs = list(ctx.inputs[0])
    if bid < 0:
        return [None]
    skip = set(ctx.attr("backward_skip_vars") or [])
    outs = [ctx.output(i) for i in range(len(douts))]
    douts = list(douts)
    for k, d in enumerate(douts):
        if d is None and not state.static:
            douts[k] = Tensor._wrap(np.zeros_like(outs[k]._data))
    args = [v for v in xs + outs if getattr(v, "name", None) not in skip] + douts
    if state.static:
        from .. import unique_name
        block = xs[0].block.program.current_block()
        grads = [block.create_var(name=unique_name.generate(x.name + "@GRAD"), shape=x.shape, dtype=x.dtype,
                                  stop_gradient=False) for x in xs]
        block.append_op("py_func", {"X": args}, {"Out": grads},
                        {"forward_callable_id": bid, "backward_callable_id": -1, "backward_skip_vars": []})
        return [grads]
    from ..dispatch import run_op
    res = run_op("py_func", args, forward_callable_id=bid)
    res = list(res) + [None] * (len(xs) - len(res))
    return [res[:len(xs)]]


register("py_func", ["X[]"], ["Out[]"],
         {"forward_callable_id": ("INT", 0), "backward_callable_id": ("INT", -1),
          "backward_skip_vars": ("STRINGS", [])},
         kernel=_py_func, infer_meta=_py_func_meta, interpret=_py_func_run, grad=_py_func_grad,
         grad_needs_outputs=True)
