"""`run_op`: the single path that produces op results, in every mode.

Eager mode runs the op's numpy kernel now and, when some differentiable input needs a
gradient, records a `GradNode` on the tape. Static mode hands the op to the builder that
`runtime.static` installs, which appends an Operator to the current block and runs only
``infer_meta``. Layers and functional APIs call `run_op` and never ask which mode is on.
"""
from __future__ import annotations

from time import monotonic as _monotonic

import numpy as np

from .framework import state
from .ops import blas_threads as _blas
from .ops.registry import _OPS, lookup
from .tensor import Tensor
from .autograd import GradNode

_wrap = Tensor._wrap


def run_op(op_type: str, *inputs, **attrs):
    """Run (eager) or record (static) the Paddle op ``op_type``.

    ``inputs`` follow the op's input slots in order: a Tensor (or ndarray) per plain slot,
    a list for a duplicable slot, ``None`` for an absent optional slot. ``attrs`` are the
    op's attributes; omitted ones take their defaults. Returns one Tensor when the op has
    one visible output, else a tuple of them.
    """
    opdef = _OPS.get(op_type)
    if opdef is None:
        opdef = lookup(op_type)  # raises UnknownOpError with suggestions
    if len(inputs) < len(opdef.inputs):
        # trailing optional slots left out by the caller are absent (None)
        inputs = inputs + (None,) * (len(opdef.inputs) - len(inputs))
    if state.amp is not None:       # inside paddle.amp.auto_cast: Paddle's per-op cast rules (runtime/amp)
        inputs = state.amp.cast_inputs(opdef, inputs)
    if state.static:
        return state.static_builder(opdef, inputs, attrs)
    if state.op_debug is not None:  # paddle.amp.debugging's tensor checker / op stats (runtime/amp/debugging.py)
        return state.op_debug(opdef, inputs, attrs)
    return run_eager(opdef, inputs, attrs)


def run_eager(opdef, inputs, attrs):
    arrays = []
    record = state.grad_enabled and opdef.grad is not None
    need_grad = False
    diff = opdef.diff_mask
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor):
            arrays.append(x._data)
            if record and not x.stop_gradient and diff[i]:
                need_grad = True
        elif x is None or isinstance(x, np.ndarray):
            arrays.append(x)
        elif isinstance(x, (list, tuple)):
            arr = []
            for t in x:
                if isinstance(t, Tensor):
                    arr.append(t._data)
                    if record and not t.stop_gradient and diff[i]:
                        need_grad = True
                else:
                    arr.append(np.asarray(t))
            arrays.append(arr)
        else:
            arrays.append(np.asarray(x))
    if opdef.blas and _monotonic() >= _blas._next_check:
        _blas.recheck()                     # the BLAS thread policy (runtime/ops/blas_threads.py)
    try:
        out = opdef.kernel(*arrays, **attrs)
    except Exception as e:  # name the op: numpy's own messages rarely say which op failed
        _annotate(e, opdef, arrays, attrs)
        raise

    if opdef.n_visible == 1 and not opdef.list_output:
        if type(out) is not np.ndarray:
            out = np.asarray(out)   # ufuncs turn 0-D results into numpy scalars
        if need_grad and out.dtype.kind in "fc":
            t = _wrap(out, False)
            GradNode(opdef, inputs, attrs, (t,))
        else:
            t = _wrap(out)
        if state.tracer is not None:
            state.tracer(opdef, inputs, attrs, (t,))
        return t

    as_list = opdef.list_output and opdef.n_visible == 1
    outs = (_wrap_out(out),) if as_list else tuple(_wrap_out(o) for o in out)
    if need_grad:
        flat = []
        for o in outs:
            for t in (o if isinstance(o, list) else (o,)):
                if t is not None and t._data.dtype.kind in "fc":
                    t.stop_gradient = False
        GradNode(opdef, inputs, attrs, outs)
    if state.tracer is not None:
        state.tracer(opdef, inputs, attrs, outs)
    return outs[0] if as_list else outs


def _wrap_out(o):
    if o is None:
        return None
    if isinstance(o, (list, tuple)):
        return [_wrap(np.asarray(a)) for a in o]
    return _wrap(o if type(o) is np.ndarray else np.asarray(o))


def _annotate(e, opdef, arrays, attrs):
    def desc(a):
        if a is None:
            return "None"
        if isinstance(a, list):
            return "[" + ", ".join(desc(x) for x in a) + "]"
        return f"{a.dtype}{list(a.shape)}"
    ins = ", ".join(f"{s.name}={desc(a)}" for s, a in zip(opdef.inputs, arrays))
    note = f"(while running op '{opdef.type}' with inputs {ins}" + (f" and attrs {attrs})" if attrs else ")")
    if hasattr(e, "add_note"):
        e.add_note(note)
