"""PyLayer inside a Program being built (to_static): the layer becomes one ``py_func`` op.

Paddle stages a PyLayer as a ``pylayer`` op holding both functions; here the op is our ``py_func``
(`runtime.static.py_func`): at run time it calls the layer's ``forward`` on eager tensors and keeps the
``ctx`` for the ``backward`` callback, so a converted function gives eager's values and the custom
gradients. The output shapes and dtypes come from tracing ``forward`` once on a scratch Program. The op is
tagged with the layer's name: such a Program cannot be saved (the callbacks are Python functions), and
`refuse_save` says so naming the PyLayer.
"""
from __future__ import annotations

import contextlib

import numpy as np

from .framework import state


# py_func callback id -> the PyLayer it runs (py_func ids are process-wide and never reused)
_PYLAYER_CALLBACKS: dict = {}


class PyLayerSaveError(RuntimeError):
    """A Program holding a PyLayer (a Python callback op) cannot be written to a model file."""


@contextlib.contextmanager
def _eager():
    prev = (state.static, state.grad_enabled)
    state.static, state.grad_enabled = False, False
    try:
        yield
    finally:
        state.static, state.grad_enabled = prev


def _split(args, kwargs, is_tensor):
    """Flatten tensor arguments (lists of them too) and a function rebuilding the arguments from replacements."""
    flat, slots = [], []
    for a in list(args) + list(kwargs.values()):
        if is_tensor(a):
            slots.append(("t", len(flat)))
            flat.append(a)
        elif isinstance(a, (list, tuple)) and any(is_tensor(t) for t in a):
            idx = []
            for t in a:
                if is_tensor(t):
                    idx.append(len(flat))
                    flat.append(t)
                else:
                    idx.append(None)
            slots.append(("l", idx, type(a)))
        else:
            slots.append(("v", a))
    keys = list(kwargs)
    n_args = len(args)

    def rebuild(values):
        built = []
        for s, a in zip(slots, list(args) + list(kwargs.values())):
            if s[0] == "t":
                built.append(values[s[1]])
            elif s[0] == "l":
                built.append(s[2](values[i] if i is not None else orig for i, orig in zip(s[1], a)))
            else:
                built.append(s[1])
        return built[:n_args], dict(zip(keys, built[n_args:]))

    def groups(values):
        """The backward's input positions over ``values`` (one per tensor or list-of-tensors argument)."""
        out = []
        for s in slots:
            if s[0] == "t":
                out.append(("tensor", values[s[1]]))
            elif s[0] == "l":
                out.append(("list", [values[i] if i is not None else None for i in s[1]]))
        return out
    return flat, rebuild, groups


def apply_static(cls, args, kwargs):
    from . import unique_name
    from .static.builder import as_variable
    from .static.program import Program, Variable, default_main_program, program_guard
    from .static.py_func import py_func
    from .tensor import Tensor

    block = default_main_program().current_block()
    flat, rebuild, groups = _split(args, kwargs, lambda a: isinstance(a, (Variable, Tensor)))
    xs = [as_variable(block, t) for t in flat]

    # shapes and dtypes of the outputs: trace forward once on a scratch Program
    scratch = Program()
    with program_guard(scratch, Program()):
        sb = scratch.global_block()
        stand_ins = [sb.create_var(name=x.name, shape=x.shape, dtype=x.dtype, stop_gradient=x.stop_gradient)
                     for x in xs]
        a, kw = rebuild(stand_ins)
        traced = cls.forward(cls._backward_function(), *a, **kw)
    single = not isinstance(traced, (tuple, list))
    traced_list = [traced] if single else list(traced)
    tensor_pos = [k for k, o in enumerate(traced_list) if isinstance(o, Variable)]
    if not tensor_pos:
        raise ValueError(f"{cls.__name__} : At least one output of `PyLayer.forward` is a `Tensor`. (forward "
                         f"returned {type(traced).__name__})")
    outs = [block.create_var(name=unique_name.generate(f"pylayer_{cls.__name__}.out"), shape=traced_list[k].shape,
                             dtype=traced_list[k].dtype) for k in tensor_pos]

    held = {}

    def forward_callback(*arrays):
        with _eager():
            ins = [Tensor._wrap(np.asarray(v), x.stop_gradient) for v, x in zip(arrays, xs)]
            a, kw = rebuild(ins)
            ctx = cls._backward_function()
            res = cls.forward(ctx, *a, **kw)
        res_list = [res] if not isinstance(res, (tuple, list)) else list(res)
        held["ctx"], held["inputs"] = ctx, ins
        held["metas"] = [(res_list[k]._data.shape, res_list[k]._data.dtype) for k in tensor_pos]
        return [res_list[k]._data for k in tensor_pos]

    def backward_callback(*douts):
        from .autograd_pylayer import _PyLayerOp
        ctx = held["ctx"]
        grads_in = []
        for d, (shape, dtype) in zip(douts, held["metas"]):
            if d is None:
                grads_in.append(Tensor._wrap(np.zeros(shape, dtype)) if ctx.materialize_grads else None)
            else:
                grads_in.append(Tensor._wrap(np.asarray(d).astype(dtype, copy=False)))
        kinds = groups(held["inputs"])
        with _eager():
            result = cls.backward(ctx, *grads_in)
        op = _PyLayerOp(cls, ctx, len(kinds), [], kinds)
        checked = op._check_grads(result)
        flat_grads = []
        for g, (kind, _) in zip(checked, kinds):
            flat_grads.extend([x for x, t in zip(g, _) if t is not None] if kind == "list" else [g])
        return [np.zeros(t._data.shape, t._data.dtype) if g is None else g._data.astype(t._data.dtype, copy=False)
                for g, t in zip(flat_grads, held["inputs"])]

    py_func(forward_callback, xs, outs, backward_func=backward_callback, skip_vars_in_backward_input=xs + outs)
    _PYLAYER_CALLBACKS[block.ops[-1].attrs["forward_callable_id"]] = cls.__name__
    for var, k in zip(outs, tensor_pos):
        traced_list[k] = var
    return traced_list[0] if single else type(traced)(traced_list) if isinstance(traced, tuple) else traced_list


def refuse_save(program, what="jit.save"):
    """Raise `PyLayerSaveError` naming the PyLayer when ``program`` stages one."""
    for block in program.blocks:
        for op in block.ops:
            name = _PYLAYER_CALLBACKS.get(op.attrs.get("forward_callable_id")) if op.type == "py_func" else None
            if name is not None:
                raise PyLayerSaveError(
                    f"{what}: the program calls the PyLayer '{name}' (staged as a Python callback op, py_func), "
                    "which a model file cannot carry: its forward and backward are Python functions of this "
                    "process. Save a model whose forward uses only Paddle ops (replace the PyLayer by the ops of "
                    "its forward for export), or save the parameters with paddle.save(layer.state_dict(), path)")
