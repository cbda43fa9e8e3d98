"""`TranslatedLayer`: a model loaded by ``paddle.jit.load``, runnable and fine-tunable.

The model may come from a ``.pdmodel`` or from Paddle 3's PIR ``.json`` (`runtime.formats.pir_json`
translates it to the same kind of Program), so everything below works the same for both.

It owns the loaded inference Program and one eager `Parameter` per persistable variable
(registered as ``param_0, param_1, ...`` in variable-name order, as Paddle's TranslatedLayer
does; each keeps the variable's name). Calls run the Program through a `PartialProgram`, so
in ``train()`` mode gradients flow into those Parameters and an eager optimizer fine-tunes
them; ``eval()`` (the state after loading) runs inference. No user Python runs.
"""
from __future__ import annotations

import numpy as np

from runtime.nn.layer.layers import Layer
from runtime.static.program import Parameter as StaticParameter
from runtime.tensor import Parameter, Tensor

_TEST_ATTR_OPS = ("dropout", "batch_norm", "sync_batch_norm", "instance_norm", "while")


class TranslatedLayer(Layer):
    def __init__(self, loaded, path=None, shared=None):
        super().__init__()
        self._methods = {}
        self._path = path
        self._infer_program = loaded.program
        self._feed_names = list(loaded.feed_names)
        self._fetch_names = list(loaded.fetch_names)
        gb = self._infer_program.global_block()
        self._feed_vars = [gb._find_var_recursive(n) for n in self._feed_names]
        self._fetch_vars = [gb._find_var_recursive(n) for n in self._fetch_names]
        for name, v in zip(self._feed_names, self._feed_vars):
            if v is None:
                from runtime.formats.errors import ModelFormatError
                from runtime.formats.model_io import program_path
                raise ModelFormatError(f"the model's input '{name}' is not declared in its program",
                                       program_path(path) if path is not None else None)
        self._tensors = {}
        for k, name in enumerate(sorted(loaded.params)):
            var = gb.vars.get(name)
            trainable = isinstance(var, StaticParameter) and var.trainable
            if shared is not None and name in shared:
                self._tensors[name] = shared[name]      # a method's program: the forward's Parameter
                continue
            arr = np.array(loaded.params[name], copy=True)
            if trainable:
                t = Parameter(arr, name=name, trainable=True)
                self.add_parameter(f"param_{k}", t)
            else:
                t = Parameter(arr, name=name, trainable=False)
                t.stop_gradient = True
                self.add_parameter(f"param_{k}", t)
            self._tensors[name] = t
        self._programs = {}
        self.training = False
        for sub in self.sublayers():
            sub.training = False

    # -- programs ---------------------------------------------------------------------------------
    def program(self, method_name="forward"):
        """The loaded (inference) Program of ``method_name`` (``forward``, or a method jit.save wrote to
        ``prefix.<method>.pdmodel``)."""
        return self._method(method_name)._infer_program

    def _method(self, method_name):
        if method_name == "forward":
            return self
        layer = self._methods.get(method_name) if isinstance(method_name, str) else None
        if layer is None:
            raise ValueError(f"The method `{method_name}` does not exist in loaded TranslatedLayer.")
        return layer

    def _input_spec(self, method_name="forward"):
        """InputSpecs (shape, dtype, name) of the inputs of ``method_name``'s program, as Paddle's."""
        from runtime.static.input_spec import InputSpec
        layer = self._method(method_name)
        return [InputSpec(list(v.shape), v.dtype, v.name) for v in layer._feed_vars]

    def _output_spec(self, method_name="forward"):
        """InputSpecs describing the outputs of ``method_name``'s program, as Paddle's."""
        from runtime.static.input_spec import InputSpec
        layer = self._method(method_name)
        return [InputSpec(list(v.shape), v.dtype, v.name) for v in layer._fetch_vars]

    def _add_method(self, name, loaded):
        """A method jit.save wrote beside the forward (``prefix.<name>.pdmodel``): a TranslatedLayer of its
        own whose parameters are this layer's wherever the names agree (one Parameter per variable)."""
        sub = TranslatedLayer(loaded, None, shared=self._tensors)
        self._methods[name] = sub

        def method(*inputs):
            sub.training = self.training
            return sub(*inputs)
        method.__name__ = name
        self.__dict__[name] = method

    def _program_for(self, training):
        p = self._programs.get(training)
        if p is None:
            p = self._infer_program.clone(for_test=False)
            if training:
                for blk in p.blocks:
                    for op in blk.ops:
                        if op.type in _TEST_ATTR_OPS and "is_test" in op.attrs:
                            op.attrs["is_test"] = False
            for name, t in self._tensors.items():
                p._eager_bindings[name] = t
            from .partial_program import PartialProgram
            gb = p.global_block()
            runner = PartialProgram(p, [gb._find_var_recursive(n) for n in self._feed_names],
                                    [gb._find_var_recursive(n) for n in self._fetch_names], training=training)
            p = self._programs[training] = (p, runner)
        return p

    # -- calling ----------------------------------------------------------------------------------
    def forward(self, *inputs):
        if len(inputs) != len(self._feed_vars):
            raise TypeError(f"the loaded model takes {len(self._feed_vars)} input(s) "
                            f"({', '.join(self._feed_names)}), got {len(inputs)}")
        arrays = []
        for k, (x, v) in enumerate(zip(inputs, self._feed_vars)):
            arrays.append(self._check_input(k, x, v))
        _, runner = self._program_for(self.training)
        outs = runner(arrays)
        return outs[0] if len(outs) == 1 else list(outs)

    def _check_input(self, k, x, v):
        if isinstance(x, Tensor):
            arr = x._data
        elif isinstance(x, np.ndarray):
            arr = x
        else:
            raise TypeError(f"input {k} ('{v.name}') of the loaded model must be a Tensor or ndarray, got "
                            f"{type(x).__name__}")
        expected = list(v.shape)
        if arr.dtype != v.dtype.np:
            raise TypeError(f"input {k} ('{v.name}') of the loaded model must have dtype {v.dtype.name}, got "
                            f"{arr.dtype}; cast it with x.astype('{v.dtype.name}')")
        if arr.ndim != len(expected) or any(d >= 0 and d != s for d, s in zip(expected, arr.shape)):
            shown = [None if d < 0 else d for d in expected]
            raise ValueError(f"input {k} ('{v.name}') of the loaded model must have shape {shown} (None: any "
                             f"size), got {list(arr.shape)}")
        return x

    # -- saving again -----------------------------------------------------------------------------
    def _export(self):
        """(program, feed names, fetch names, params) for jit.save of a loaded model."""
        values = {name: t._data for name, t in self._tensors.items()}
        return self._infer_program, self._feed_names, self._fetch_names, values
