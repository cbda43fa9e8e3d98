"""``paddle.inference.create_predictor`` and ``Predictor`` (Paddle's ``PaddleInferPredictor``).

A predictor loads the model its `Config` names through `runtime.formats.model_io` (the loader of
``paddle.static.load_inference_model`` and ``paddle.jit.load``: ``.pdmodel`` and Paddle 3's PIR
``.json``, ours or real Paddle's) and runs it on our executor: the program is compiled once per
set of graph passes (``Config.switch_ir_optim`` / ``delete_pass``) and the compiled function is
shared by ``clone()``s, which each have their own inputs and outputs (one predictor per thread, as
in Paddle). Output names are Paddle's: the fetched variables of a ``.pdmodel``, the fetch ops'
names (``fetch_name_0`` ...) of a PIR program.
"""
from __future__ import annotations

import os
import threading

import numpy as np

from .config import AnalysisConfig
from .tensor import PaddleInferTensor

__all__ = ["PaddleInferPredictor", "Predictor", "create_predictor", "PredictorPool"]


def _fail_missing(path, what):
    raise RuntimeError(f"paddle.inference: the {what} file {path} does not exist. Name the model with "
                       "Config(model_file, params_file) (PREFIX.pdmodel or PREFIX.json, and PREFIX.pdiparams) or "
                       "Config(model_dir, prefix)")


def _old_layout(model_dir):
    """The bytes of ``model_dir``'s ``__model__`` and its parameters: ``__params__`` (combined), or one file
    per persistable variable named after it (Paddle's old uncombined layout, concatenated here in the
    order a combined file holds them)."""
    from runtime.formats.pdmodel import parse_program, persistable_specs
    model_path = os.path.join(model_dir, "__model__")
    with open(model_path, "rb") as f:
        model = f.read()
    combined = os.path.join(model_dir, "__params__")
    if os.path.isfile(combined):
        with open(combined, "rb") as f:
            return model, f.read(), model_path, combined
    program = parse_program(model, model_path)[0]
    parts = []
    for name, _, _ in persistable_specs(program):
        p = os.path.join(model_dir, name)
        if not os.path.isfile(p):
            raise RuntimeError(f"paddle.inference: {model_dir} holds __model__ but no parameter file for the "
                               f"persistable variable '{name}' (expected {p}, or one combined file __params__)")
        with open(p, "rb") as f:
            parts.append(f.read())
    return model, b"".join(parts), model_path, model_dir


def _candidates(model_dir):
    try:
        names = sorted(os.listdir(model_dir))
    except OSError:
        return []
    return [n for n in names if n.endswith((".pdmodel", ".json"))]


def load_config_model(config):
    """``(LoadedModel, program path or None)`` of the model ``config`` names."""
    from runtime.formats.model_io import load_model, load_model_from_bytes
    if config._buffers is not None:
        prog, params = config._buffers
        return load_model_from_bytes(prog, params or None), None
    if config._prog_file:
        mp, pp = config._prog_file, config._params_file or None
        if not os.path.isfile(mp):
            _fail_missing(mp, "model")
        if pp is not None and not os.path.isfile(pp):
            _fail_missing(pp, "parameters")
        return load_model(None, model_path=mp, params_path=pp), mp
    d = config._model_dir
    if not d:
        raise RuntimeError("paddle.inference: the Config names no model; use Config(model_file, params_file), "
                           "Config(model_dir, prefix) or config.set_model(...)")
    if os.path.isdir(d):
        if os.path.isfile(os.path.join(d, "__model__")):
            model, params, mp, pp = _old_layout(d)
            return load_model_from_bytes(model, params or None, model_path=mp, params_path=pp), mp
        found = _candidates(d)
        hint = ""
        if found:
            prefix = os.path.splitext(found[0])[0]
            hint = (f"; it holds {', '.join(found)}: use Config({d!r}, {prefix!r}) or "
                    f"Config({os.path.join(d, found[0])!r}, {os.path.join(d, prefix + '.pdiparams')!r})")
        raise RuntimeError(f"paddle.inference: Config(model_dir) reads the old layout model_dir/__model__, and "
                           f"{os.path.join(d, '__model__')} does not exist{hint}")
    # not a directory: a prefix (PREFIX.pdmodel or PREFIX.json beside PREFIX.pdiparams)
    if os.path.isfile(d + ".pdmodel") or os.path.isfile(d + ".json"):
        from runtime.formats.model_io import program_path
        return load_model(d), program_path(d)
    raise RuntimeError(f"paddle.inference: the model directory {d} does not exist (and neither {d}.pdmodel nor "
                       f"{d}.json); name the model with Config(model_file, params_file)")


def pir_output_names(data, path, fetch_count):
    """The fetch ops' names of a PIR program (``data``: the .json bytes), in column order: what Paddle's
    predictor calls the outputs (``fetch_name_<col>`` where the file does not say)."""
    from runtime.formats.pir_json import parse_pir
    fallback = [f"fetch_name_{k}" for k in range(fetch_count)]
    top, _ = parse_pir(data, path)
    fetches = [op for op in top.ops if op.name == "pd_op.fetch"]
    try:
        names = [n for _, n in sorted((op.attrs.get("col", k), op.attrs.get("name")) for k, op in enumerate(fetches))]
    except TypeError:           # columns that do not compare: the reader has refused such a file already
        return fallback
    if len(names) != fetch_count or not all(isinstance(n, str) and n for n in names) or len(set(names)) != len(names):
        return fallback
    return names


class _Model:
    """What the clones of one predictor share: the program, its parameters and the compiled functions."""

    def __init__(self, config):
        loaded, path = load_config_model(config)
        self.program = loaded.program
        self.params = dict(loaded.params)
        self.feed_names = list(loaded.feed_names)
        self.fetch_names = list(loaded.fetch_names)
        from runtime.formats.pir_json import is_pir_json
        if config._buffers is not None:
            program_bytes = config._buffers[0] if is_pir_json(config._buffers[0]) else None
        elif path is not None and path.endswith(".json"):
            with open(path, "rb") as f:
                program_bytes = f.read()
        else:
            program_bytes = None
        if program_bytes is not None:      # a PIR program: the outputs are named by its fetch ops
            self.output_names = pir_output_names(program_bytes, path or "<model bytes>", len(self.fetch_names))
        else:
            self.output_names = list(self.fetch_names)
        gb = self.program.global_block()
        self.input_vars = {n: gb._find_var_recursive(n) for n in self.feed_names}
        self.output_vars = {o: gb._find_var_recursive(f) for o, f in zip(self.output_names, self.fetch_names)}
        self.passes = config._passes()
        self._compiled = None
        self._lock = threading.Lock()

    def compiled(self):
        if self._compiled is None:
            with self._lock:
                if self._compiled is None:
                    if os.environ.get("DY2ST_EXECUTOR") == "interpreter":
                        from runtime.static.interpreter import InterpretedProgram
                        self._compiled = InterpretedProgram(self.program, self.feed_names, self.fetch_names)
                    else:
                        from runtime.static.codegen import CompileError, compile_program
                        try:
                            self._compiled = compile_program(self.program, self.feed_names, self.fetch_names,
                                                             passes=self.passes)
                        except CompileError as e:
                            raise RuntimeError(str(e)) from None
        return self._compiled


class PaddleInferPredictor:
    """``paddle.inference.create_predictor(config)``: feed inputs through their handles, ``run()``, read
    the outputs through theirs (or ``run([paddle.Tensor, ...])`` -> ``[paddle.Tensor, ...]``)."""

    def __init__(self, model):
        if not isinstance(model, _Model):
            raise TypeError("a Predictor is made by paddle.inference.create_predictor(config)")
        self._model = model
        self._inputs, self._outputs, self._shapes, self._lods = {}, {}, {}, {}
        self._input_hooks, self._output_hooks = [], []

    # -- names and handles ------------------------------------------------------------------------

    def get_input_names(self):
        return list(self._model.feed_names)

    def get_output_names(self):
        return list(self._model.output_names)

    def get_input_handle(self, name):
        var = self._model.input_vars.get(name)
        if var is None:
            raise RuntimeError(f"get_input_handle(): the model has no input named {name!r}; its inputs are "
                               f"{self.get_input_names()}")
        return PaddleInferTensor(self, name, var, True)

    def get_output_handle(self, name):
        var = self._model.output_vars.get(name)
        if var is None:
            raise RuntimeError(f"get_output_handle(): the model has no output named {name!r}; its outputs are "
                               f"{self.get_output_names()}")
        return PaddleInferTensor(self, name, var, False)

    def _set_input(self, name, array):
        self._inputs[name] = array
        self._shapes[name] = list(array.shape)

    # -- running ------------------------------------------------------------------------------------

    def run(self, inputs=None):
        """``run()``: the inputs given through the handles; ``run(list of paddle.Tensor)``: those inputs, in
        ``get_input_names()`` order, and the outputs returned as a list of paddle.Tensor."""
        if inputs is None:
            feed = self._gather_feed()
            self._run(feed)
            return None
        from runtime.tensor import Tensor as EagerTensor
        if not isinstance(inputs, (list, tuple)) or not all(isinstance(t, EagerTensor) for t in inputs):
            got = type(inputs).__name__ if not isinstance(inputs, (list, tuple)) else \
                [type(t).__name__ for t in inputs]
            raise TypeError(f"run(): inputs must be a list of paddle.Tensor (one per input: "
                            f"{self.get_input_names()}), got {got}; wrap numpy arrays with paddle.to_tensor, or "
                            "feed them with get_input_handle(name).copy_from_cpu(array) and call run()")
        names = self.get_input_names()
        if len(inputs) != len(names):
            raise ValueError(f"run(): the model takes {len(names)} input(s) {names}, got {len(inputs)} tensor(s)")
        feed = {n: np.asarray(t._data) for n, t in zip(names, inputs)}
        for n, a in feed.items():
            self._check_input(n, a)
        outs = self._run(feed)
        return [EagerTensor._wrap(np.array(o, copy=True)) for o in outs]

    def _gather_feed(self):
        feed = {}
        for name in self._model.feed_names:
            a = self._inputs.get(name)
            if a is None:
                raise RuntimeError(f"run(): input '{name}' has no data; give it data with "
                                   f"predictor.get_input_handle('{name}').copy_from_cpu(array) before run()")
            self._check_input(name, a)
            feed[name] = a
        return feed

    def _check_input(self, name, a):
        var = self._model.input_vars[name]
        want = np.dtype(var.dtype.np)
        if a.dtype != want:
            raise ValueError(f"run(): input '{name}' holds {a.dtype} data, but the model declares it {want}; "
                             f"convert the array before copy_from_cpu (array.astype('{want}'))")
        shape = list(var.shape)
        if len(a.shape) != len(shape) or any(d >= 0 and d != s for d, s in zip(shape, a.shape)):
            raise ValueError(f"run(): input '{name}' has shape {list(a.shape)}, but the model declares "
                             f"{shape} (-1: any size)")

    def _run(self, feed):
        if self._input_hooks or self._output_hooks:
            outs = self._run_with_hooks(feed)
        else:
            c = self._model.compiled()
            try:
                outs = c.fn(feed, dict(self._model.params), self._model.program._eager_bindings)
            except Exception as e:
                site = c.site_of(e.__traceback__) if hasattr(c, "site_of") else None
                if site is not None and site[0] == "op":
                    from runtime.static.interpreter import annotate
                    annotate(e, site[1])
                raise
        self._outputs = dict(zip(self._model.output_names, outs))
        return outs

    def _run_with_hooks(self, feed):
        """Run op by op (the reference interpreter) and call the hooks with each op's inputs / outputs."""
        from runtime.static.interpreter import annotate, run_op
        from runtime.tensor import Tensor as EagerTensor
        env = dict(self._model.params)
        env.update(feed)
        for op in self._model.program.global_block().ops:
            for hook in self._input_hooks:
                for n in op.input_arg_names:
                    if n in env and isinstance(env[n], np.ndarray):
                        hook(op.type, n, EagerTensor._wrap(env[n]))
            try:
                run_op(op, env)
            except Exception as e:
                annotate(e, op)
                raise
            for hook in self._output_hooks:
                for n in op.output_arg_names:
                    if n in env and isinstance(env[n], np.ndarray):
                        hook(op.type, n, EagerTensor._wrap(env[n]))
        return [env[n] for n in self._model.fetch_names]

    def register_input_hook(self, hook):
        """``hook(op_type, var_name, tensor)`` before each op, for each of its inputs (the run then goes op by
        op through the reference interpreter)."""
        if not callable(hook):
            raise TypeError(f"register_input_hook(): expected a callable, got {type(hook).__name__}")
        self._input_hooks.append(hook)

    def register_output_hook(self, hook):
        """``hook(op_type, var_name, tensor)`` after each op, for each of its outputs."""
        if not callable(hook):
            raise TypeError(f"register_output_hook(): expected a callable, got {type(hook).__name__}")
        self._output_hooks.append(hook)

    # -- the rest -----------------------------------------------------------------------------------

    def clone(self, stream=None):
        """A predictor on the same model and parameters (shared, not copied) with its own inputs and
        outputs: one per thread."""
        return PaddleInferPredictor(self._model)

    def clear_intermediate_tensor(self):
        """Nothing to free: the compiled program releases every intermediate value after its last use."""
        return None

    def try_shrink_memory(self):
        """The bytes of memory released (0: the compiled program keeps no buffers between runs)."""
        return 0

    def __repr__(self):
        return (f"<paddle.inference.Predictor inputs={self.get_input_names()} "
                f"outputs={self.get_output_names()}>")


Predictor = PaddleInferPredictor


def create_predictor(config):
    """A `Predictor` for the model ``config`` names (a config serves one predictor, as in Paddle: use
    ``predictor.clone()`` or ``Config(config)`` for more)."""
    if not isinstance(config, AnalysisConfig):
        raise TypeError(f"create_predictor(): expected a paddle.inference.Config, got {type(config).__name__}")
    if config._used:
        raise ValueError("Note: Each config can only be used for one predictor. (make another with "
                         "paddle.inference.Config(config), or use predictor.clone())")
    model = _Model(config)
    model.compiled()        # as Paddle optimises at creation: a program that cannot compile fails here
    predictor = PaddleInferPredictor(model)
    config._used = True
    return predictor


class PredictorPool:
    """``PredictorPool(config, size)``: ``size`` predictors on one model; ``retrieve(idx)`` returns one."""

    def __init__(self, config, size=1):
        if not isinstance(size, int) or size < 1:
            raise ValueError(f"PredictorPool: size must be a positive int, got {size!r}")
        first = create_predictor(config)
        self._predictors = [first] + [first.clone() for _ in range(size - 1)]

    def retrieve(self, idx):
        if not 0 <= idx < len(self._predictors):
            raise IndexError(f"PredictorPool.retrieve({idx}): the pool holds {len(self._predictors)} predictors")
        return self._predictors[idx]
