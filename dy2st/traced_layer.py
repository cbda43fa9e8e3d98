"""TracedLayer (``paddle.jit.TracedLayer``): record the ops one eager run of a Layer executes as a Program.

No control-flow conversion: Python control flow is resolved by the traced run, so the Program only
fits inputs that take the same path (Paddle's "data independent" models). Inputs become data
variables, the Layer's parameters and buffers are bound by name to the eager tensors (the Program
shares them), and any other tensor an op reads (a constant made inside forward) is baked in as an
``assign_value`` / ``fill_constant`` op.

    out, traced = TracedLayer.trace(layer, inputs=[x])
    traced([x])                       # list of numpy arrays, from the traced Program
    traced.save_inference_model("out/model")
"""
from __future__ import annotations

import numpy as np

from runtime.framework import no_grad, state
from runtime.static.builder import bind_eager_tensor, build_op, constant
from runtime.static.program import Program, program_guard
from runtime.tensor import Tensor

from .partial_program import PartialProgram

__all__ = ["TracedLayer"]


def _flatten(obj):
    if isinstance(obj, (list, tuple)):
        return [leaf for o in obj for leaf in _flatten(o)]
    if isinstance(obj, dict):
        return [leaf for k in sorted(obj) for leaf in _flatten(obj[k])]
    return [obj]


class _Recorder:
    """The ``state.tracer`` callback: appends each eager op to ``program``, mapping tensors to Variables."""

    def __init__(self, program, state_tensors):
        self.program = program
        self.vars = {}      # id(eager tensor) -> Variable
        self.keep = []      # the traced tensors, kept alive so their ids stay unique
        self.state_tensors = state_tensors   # id -> parameter / buffer of the layer

    def var_of(self, t):
        v = self.vars.get(id(t))
        if v is not None:
            return v
        if id(t) in self.state_tensors or getattr(t, "persistable", False):
            v = bind_eager_tensor(self.program, t)
        else:
            # a tensor made outside any traced op (to_tensor inside forward, a captured constant)
            prev = state.static
            state.static = True
            try:
                with program_guard(self.program):
                    v = constant(np.array(t._data, copy=True))
            finally:
                state.static = prev
        self.vars[id(t)] = v
        self.keep.append(t)
        return v

    def input(self, x):
        if isinstance(x, Tensor):
            return self.var_of(x)
        if isinstance(x, (list, tuple)):
            return [self.input(t) for t in x]
        return x    # None and numpy arrays: the builder turns arrays into constants

    def __call__(self, opdef, inputs, attrs, outputs):
        prev = state.static
        state.static = True
        try:
            with program_guard(self.program):
                ins = tuple(self.input(x) for x in inputs)
                res = build_op(opdef, ins, attrs)
        finally:
            state.static = prev
        if opdef.list_output or opdef.n_visible == 1:
            res = (res,)
        for eager, var in zip(outputs, res):
            if isinstance(eager, list):
                for e, v in zip(eager, var or []):
                    self._bind(e, v)
            else:
                self._bind(eager, var)

    def _bind(self, t, v):
        if t is None or v is None:
            return
        if v.persistable:
            return      # an op updating a buffer in place (batch_norm's MeanOut is its Mean)
        self.vars[id(t)] = v
        self.keep.append(t)


class TracedLayer:
    """A Program recorded from one eager run of a Layer; create it with `TracedLayer.trace`."""

    def __init__(self, program, parameters, feed_names, fetch_names):
        self._program = program
        self._parameters = list(parameters)
        self._feed_names = list(feed_names)
        self._fetch_names = list(fetch_names)
        gb = program.global_block()
        self._runner = PartialProgram(program, [gb.var(n) for n in self._feed_names],
                                      [gb._var_recursive(n) for n in self._fetch_names], training=False)
        self._build_strategy = None
        self._exec_strategy = None

    @staticmethod
    def trace(layer, inputs):
        """Run ``layer(*inputs)`` eagerly, recording its ops; returns ``(outputs, traced_layer)``."""
        from runtime.nn import Layer
        if not isinstance(layer, Layer):
            raise TypeError(f"TracedLayer.trace: layer must be a paddle.nn.Layer, got {type(layer).__name__}")
        if isinstance(inputs, Tensor):
            inputs = [inputs]
        if not isinstance(inputs, (list, tuple)) or not all(isinstance(x, Tensor) for x in inputs):
            raise TypeError("TracedLayer.trace: inputs must be a Tensor or a list/tuple of Tensors, got "
                            f"{type(inputs).__name__}" + ("" if not isinstance(inputs, (list, tuple)) else
                                                         " holding " + ", ".join(type(x).__name__ for x in inputs)))
        program = Program()
        state_tensors = {id(t): t for t in list(layer.parameters()) + list(layer.buffers())}
        rec = _Recorder(program, state_tensors)
        gb = program.global_block()
        feed_names = []
        for i, x in enumerate(inputs):
            name = f"feed_{i}"
            v = gb.create_var(name=name, shape=x.shape, dtype=x.dtype, is_data=True, need_check_feed=True,
                              stop_gradient=x.stop_gradient)
            rec.vars[id(x)] = v
            rec.keep.append(x)
            feed_names.append(name)
        prev = state.tracer

        def tracer(opdef, ins, attrs, outs):
            rec(opdef, ins, attrs, outs)
            if prev is not None:
                prev(opdef, ins, attrs, outs)

        state.tracer = tracer
        try:
            outputs = layer(*inputs)
        finally:
            state.tracer = prev
        fetch_names = []
        for o in _flatten(outputs):
            if not isinstance(o, Tensor):
                raise TypeError(f"TracedLayer.trace: the layer must return Tensors (or lists/tuples of them), "
                                f"got {type(o).__name__}")
            fetch_names.append(rec.var_of(o).name)
        program.verify()
        params = [t for t in program._eager_bindings.values()]
        return outputs, TracedLayer(program, params, feed_names, fetch_names)

    @property
    def program(self):
        return self._program

    def set_strategy(self, build_strategy=None, exec_strategy=None):
        """Accepted for compatibility (the compiled executor has no strategies to set)."""
        self._build_strategy = build_strategy
        self._exec_strategy = exec_strategy

    def __call__(self, inputs):
        if isinstance(inputs, (Tensor, np.ndarray)):
            inputs = [inputs]
        if len(inputs) != len(self._feed_names):
            raise ValueError(f"TracedLayer: expected {len(self._feed_names)} inputs, got {len(inputs)}")
        with no_grad():
            outs = self._runner(list(inputs))
        return [o._data for o in outs]

    def save_inference_model(self, path=None, feed=None, fetch=None, **kwargs):
        """Save the traced Program for inference (``.pdmodel`` / ``.pdiparams``) under prefix ``path``.

        ``feed`` / ``fetch``: indices of the inputs / outputs to keep (all by default)."""
        if path is None:
            path = kwargs.pop("dirname", None)
        if not isinstance(path, str) or not path:
            raise ValueError(f"TracedLayer.save_inference_model: path must be a non-empty string, got {path!r}")
        try:
            from runtime.formats.model_io import save_model
        except ImportError:
            raise NotImplementedError("TracedLayer.save_inference_model needs runtime/formats/model_io.py "
                                      "save_model(prefix, program, feed_names, fetch_vars, params), which does "
                                      "not exist yet") from None

        def pick(items, idx, what):
            if idx is None:
                return list(items)
            if not isinstance(idx, (list, tuple)) or not all(isinstance(i, int) for i in idx):
                raise TypeError(f"TracedLayer.save_inference_model: {what} must be a list of indices, got {idx!r}")
            for i in idx:
                if not 0 <= i < len(items):
                    raise IndexError(f"TracedLayer.save_inference_model: {what} index {i} is out of range "
                                     f"(there are {len(items)})")
            return [items[i] for i in idx]

        feed_names = pick(self._feed_names, feed, "feed")
        fetch_names = pick(self._fetch_names, fetch, "fetch")
        program = self._program.clone(for_test=True)
        gb = program.global_block()
        fetch_vars = [gb._var_recursive(n) for n in fetch_names]
        params = {n: t._data for n, t in program._eager_bindings.items()}
        save_model(path, program, feed_names, fetch_vars, params)
