"""``paddle.static.nn.static_pylayer``: ``forward_fn(*inputs)`` in the Program, with ``backward_fn`` (when
given) as its gradient.

Without ``backward_fn`` the forward ops are built inline (Paddle then expects no gradient through them).
With it, the pair becomes one ``py_func`` op whose callbacks run ``forward_fn`` and ``backward_fn`` eagerly
(dy2st's functions work in both modes); such a Program runs and trains here but, holding Python callbacks,
cannot be saved as a model file (Paddle writes a ``pylayer`` op with two sub-blocks instead).
"""
from __future__ import annotations

import numpy as np

from runtime import unique_name
from runtime.autograd_pylayer_static import _eager
from runtime.dtype import convert_dtype
from runtime.static.program import Program, Variable, default_main_program, program_guard
from runtime.static.py_func import py_func
from runtime.tensor import Tensor

from .common import static_only

__all__ = ["static_pylayer"]


def _flat(value, what):
    if isinstance(value, Variable):
        return [value], True
    if isinstance(value, (list, tuple)) and all(isinstance(v, Variable) for v in value):
        return list(value), False
    raise TypeError(f"static_pylayer: {what} must return a Variable or a list/tuple of Variables, got "
                    f"{type(value).__name__}")


@static_only
def static_pylayer(forward_fn, inputs, backward_fn=None, name=None):
    """Return ``forward_fn(*inputs)``; ``backward_fn(*output_grads)`` returns the gradients of ``inputs``."""
    if not callable(forward_fn):
        raise TypeError(f"static_pylayer: forward_fn must be callable, got {type(forward_fn).__name__}")
    if not isinstance(inputs, (list, tuple)) or not all(isinstance(v, Variable) for v in inputs):
        raise TypeError("static_pylayer: inputs must be a list of Variables")
    if backward_fn is None:
        return forward_fn(*inputs)
    if not callable(backward_fn):
        raise TypeError(f"static_pylayer: backward_fn must be callable, got {type(backward_fn).__name__}")
    xs = list(inputs)
    scratch = Program()
    with program_guard(scratch, Program()):
        sb = scratch.global_block()
        stand_ins = [sb.create_var(name=x.name, shape=x.shape, dtype=x.dtype, stop_gradient=x.stop_gradient)
                     for x in xs]
        traced, single = _flat(forward_fn(*stand_ins), "forward_fn")
    block = default_main_program().current_block()
    prefix = name or "static_pylayer"
    outs = [block.create_var(name=unique_name.generate(prefix + ".out"), shape=t.shape, dtype=t.dtype)
            for t in traced]
    metas = []

    def forward_callback(*arrays):
        with _eager():
            res, _ = _flat_eager(forward_fn(*[Tensor._wrap(np.asarray(a)) for a in arrays]), "forward_fn")
        metas[:] = [(r._data.shape, r._data.dtype) for r in res]
        return [r._data for r in res]

    def backward_callback(*douts):
        grads = [Tensor._wrap(np.zeros(s, d) if g is None else np.asarray(g).astype(d, copy=False))
                 for g, (s, d) in zip(douts, metas)]
        with _eager():
            res, _ = _flat_eager(backward_fn(*grads), "backward_fn")
        if len(res) != len(xs):
            raise ValueError(f"static_pylayer: backward_fn returned {len(res)} gradients for {len(xs)} inputs; "
                             "return one per input Variable")
        return [r._data.astype(convert_dtype(x.dtype).np, copy=False) for r, x in zip(res, xs)]

    py_func(forward_callback, xs, outs, backward_func=backward_callback, skip_vars_in_backward_input=xs + outs)
    return outs[0] if single else outs


def _flat_eager(value, what):
    if isinstance(value, Tensor):
        return [value], True
    if isinstance(value, (list, tuple)) and all(isinstance(v, Tensor) for v in value):
        return list(value), False
    raise TypeError(f"static_pylayer: {what} must return a Tensor or a list/tuple of Tensors, got "
                    f"{type(value).__name__}")
