"""``paddle.static.py_func``: a numpy function (and optionally its gradient) as an op of the Program."""
from __future__ import annotations

import numpy as np

from ..dispatch import run_op
from ..framework import state
from ..ops.control_flow import register_py_func
from ..tensor import Tensor
from .program import Variable, default_main_program

__all__ = ["py_func"]


def _as_list(v, what):
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        return list(v)
    return [v]


def _name_of(v, what):
    if isinstance(v, str):
        return v
    if isinstance(v, (Variable, Tensor)):
        return v.name
    raise TypeError(f"py_func: {what} must hold Variables or names, got {type(v).__name__}")


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None, **kwargs):
    """Run ``func(*numpy inputs)`` as a ``py_func`` op writing the user-created ``out`` variables.

    ``backward_func(*inputs, *outputs, *output_grads)`` (minus the variables named in
    ``skip_vars_in_backward_input``) returns the input gradients.
    """
    if "skip_var_in_backward_input" in kwargs:   # the fluid-era spelling
        skip_vars_in_backward_input = kwargs.pop("skip_var_in_backward_input")
    if kwargs:
        raise TypeError(f"py_func: unexpected arguments {sorted(kwargs)}")
    if not callable(func):
        raise TypeError(f"py_func: func must be callable, got {type(func).__name__}")
    if backward_func is not None and not callable(backward_func):
        raise TypeError(f"py_func: backward_func must be callable or None, got {type(backward_func).__name__}")
    xs = _as_list(x, "x")
    outs = _as_list(out, "out")
    skip = [_name_of(v, "skip_vars_in_backward_input") for v in _as_list(skip_vars_in_backward_input, "")]
    known = {getattr(v, "name", None) for v in xs + outs}
    for n in skip:
        if n not in known:
            raise ValueError(f"py_func: skip_vars_in_backward_input names '{n}', which is neither an input nor "
                             "an output of this py_func")
    if not state.static:
        for v in xs:
            if not isinstance(v, Tensor):
                raise TypeError(f"py_func: in dynamic mode x must hold Tensors, got {type(v).__name__}")
        fid = register_py_func(func)
        bid = register_py_func(backward_func) if backward_func is not None else -1
        res = run_op("py_func", xs, forward_callable_id=fid, backward_callable_id=bid, backward_skip_vars=skip)
        if outs and len(res) != len(outs):
            raise ValueError(f"py_func: func returned {len(res)} value(s) but out has {len(outs)}")
        for k, o in enumerate(outs):   # cast to the dtypes the caller declared
            if isinstance(o, Tensor) and res[k]._data.dtype != o._data.dtype:
                res[k]._data = res[k]._data.astype(o._data.dtype)
        return res[0] if not isinstance(out, (list, tuple)) and len(res) == 1 else res
    program = default_main_program()
    block = program.current_block()
    for v in xs + outs:
        if not isinstance(v, Variable):
            raise TypeError(f"py_func: x and out must hold Variables of the Program, got {type(v).__name__}")
    fid = register_py_func(func, [v.meta for v in outs])
    program._py_funcs[fid] = func
    bid = -1
    if backward_func is not None:
        bid = register_py_func(backward_func, [v.meta for v in xs])
        program._py_funcs[bid] = backward_func
        if any(not v.stop_gradient for v in xs):
            for o in outs:
                if np.dtype(o.dtype.np).kind in "fc":
                    o.stop_gradient = False
    block.append_op("py_func", {"X": xs}, {"Out": outs},
                    {"forward_callable_id": fid, "backward_callable_id": bid, "backward_skip_vars": skip})
    return out
