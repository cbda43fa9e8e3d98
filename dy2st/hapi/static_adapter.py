"""paddle.Model's static-graph adapter (legacy Programs): what ``paddle.Model`` runs on when it is
created in static mode, as Paddle's ``StaticGraphAdapter``.

Each mode ('train', 'eval', 'test') gets its own Program, built the first time it is needed: a clone
of the Program that holds the network's parameters (the default main Program when the network was
created), with feed variables for the InputSpecs, the network's forward, the loss and the metrics'
``compute`` (not in 'test'), and the optimizer's ``minimize`` ('train'); 'eval' and 'test' are cloned
again ``for_test``. dy2st's Program builder only takes variables of the Program being built, so while
a mode is built the network's parameters are the clone's (same names, same values in the scope); the
network gets its own back afterwards. Values live in the global scope; the startup Program runs once,
when the network's parameters are not initialized yet.

Not supported (as in Paddle's static adapter): ``update=False`` (gradient accumulation), and here
neither AMP nor more than one process.
"""
from __future__ import annotations

import os

import numpy as np

from runtime.formats.serialization import save as _save
from runtime.static.executor import Executor
from runtime.static.program import default_main_program, default_startup_program, program_guard
from runtime.static.scope import global_scope

from .dygraph_adapter import to_list


def _feed_var(spec):
    """The feed variable of an InputSpec (Paddle's InputSpec._create_feed_layer)."""
    from runtime.static.api import data
    return data(spec.name, list(spec.shape), spec.dtype)


def _to_numpy(x):
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


class StaticGraphAdapter:
    def __init__(self, model):
        self.model = model
        self._orig_prog = default_main_program()
        self._startup_prog = default_startup_program()
        self._progs = {}
        self._input_vars = {}
        self._label_vars = {}
        self._endpoints = {}
        self._executor = None
        self._amp_level = "O0"
        self._amp_configs = {}
        self._amp_custom_lists = {}
        self._input_info = None

    @property
    def mode(self):
        return self.model.mode

    @mode.setter
    def mode(self, value):
        self.model.mode = value

    # -- one batch -----------------------------------------------------------------------------------
    def train_batch(self, inputs, labels=None, update=True):
        if update is not True:
            raise AssertionError("Does not support `update == False` in static graph mode by now.")
        self.mode = "train"
        return self._run(inputs, labels)

    def eval_batch(self, inputs, labels=None):
        self.mode = "eval"
        return self._run(inputs, labels)

    def predict_batch(self, inputs):
        self.mode = "test"
        return self._run(inputs, None)

    def parameters(self, *args, **kwargs):
        return self.model.network.parameters(*args, **kwargs)

    def _run(self, inputs, labels=None):
        mode = self.mode
        self._make_program(mode)
        self._initialize()
        inputs = to_list(inputs)
        if len(inputs) != len(self._input_vars[mode]):
            raise AssertionError("number of inputs does not match number of arguments of `forward` method")
        feed = {v.name: _to_numpy(x) for v, x in zip(self._input_vars[mode], inputs) if x is not None}
        if labels is not None:
            for v, x in zip(self._label_vars[mode], to_list(labels)):
                feed[v.name] = _to_numpy(x)
        ends = self._endpoints[mode]
        if mode == "test":
            fetch = list(ends["output"])
        else:
            fetch = list(ends["loss"]) + [v for group in ends["metric"] for v in group]
        rets = self._executor.run(self._progs[mode], feed=feed, fetch_list=[v.name for v in fetch])
        rets = [np.array(r) for r in rets]
        if mode == "test":
            return rets
        num_loss = len(ends["loss"])
        metrics, at = [], num_loss
        for metric, group in zip(self.model._metrics, ends["metric"]):
            metrics.append(metric.update(*rets[at:at + len(group)]))
            at += len(group)
        if num_loss and metrics:
            return rets[:num_loss], metrics
        return rets[:num_loss] if num_loss else metrics

    # -- Programs ------------------------------------------------------------------------------------
    def _swap_parameters(self, prog):
        """Point the network's parameters (and buffers) at ``prog``'s variables of the same names;
        returns what to restore."""
        gb = prog.global_block()
        saved = []
        for layer in [self.model.network] + list(self.model.network.sublayers()):
            for table in (layer._parameters, getattr(layer, "_buffers", {})):
                for key, var in list(table.items()):
                    if var is not None and getattr(var, "name", None) in gb.vars:
                        saved.append((table, key, var))
                        table[key] = gb.vars[var.name]
        return saved

    def _make_program(self, mode):
        if mode in self._progs:
            return
        model = self.model
        prog = self._orig_prog.clone()
        saved = self._swap_parameters(prog)
        optimizer = model._optimizer if mode == "train" else None
        old_params = getattr(optimizer, "_parameter_list", None)
        try:
            losses, metrics = [], []
            with program_guard(prog, self._startup_prog):
                inputs = [_feed_var(spec) for spec in to_list(model._inputs)]
                labels = [_feed_var(spec) for spec in to_list(model._labels or [])]
                outputs = to_list(model.network.forward(*inputs))
                if mode != "test" and model._loss:
                    losses = to_list(model._loss(*(outputs + labels)))
                if mode != "test":
                    metrics = [to_list(m.compute(*(outputs + labels))) for m in model._metrics]
                if optimizer is not None and losses:
                    from runtime.api.math import add_n
                    loss = add_n(losses) if len(losses) > 1 else losses[0]
                    if old_params is not None:
                        optimizer._parameter_list = [prog.global_block().vars.get(p.name, p) for p in old_params]
                    optimizer.minimize(loss)
        finally:
            for table, key, var in saved:
                table[key] = var
            if old_params is not None:
                optimizer._parameter_list = old_params
        if mode != "train":
            test_prog = prog.clone(for_test=True)
            gb = test_prog.global_block()
            def relink(vs):
                return [gb.vars.get(v.name, v) for v in vs]
            outputs, losses = relink(outputs), relink(losses)
            metrics = [relink(g) for g in metrics]
            inputs, labels = relink(inputs), relink(labels)
            prog = test_prog
        self._input_vars[mode] = inputs
        self._label_vars[mode] = labels
        self._progs[mode] = prog
        self._endpoints[mode] = {"output": outputs, "loss": losses, "metric": metrics}

    def _initialize(self):
        """Run the startup Program's ops for this Model's variables that are not in the scope yet (Paddle
        prunes it to the uninitialized variables too), so values already there are kept."""
        if self._executor is None:
            self._executor = Executor()
        scope = global_scope()
        used = {n for prog in self._progs.values() for n in prog.global_block().vars}
        used.update(p.name for p in self.model.network.parameters())
        # only what this Model's Programs use: other networks' pending initializers would draw first
        missing = {v.name for v in self._startup_prog.list_vars() if v.name in used and v.name not in scope}
        if not missing:
            return
        prog = self._startup_prog.clone()
        block = prog.global_block()
        for i in reversed(range(len(block.ops))):
            if not set(block.ops[i].output_arg_names) & missing:
                block._remove_op(i)
        self._executor.run(prog)

    def prepare(self):
        if self._amp_level != "O0":
            raise NotImplementedError("paddle.Model: mixed precision (amp_configs) in static-graph mode is not "
                                      "implemented in dy2st; create the Model in dynamic mode for AMP training")
        self._progs, self._input_vars, self._label_vars, self._endpoints = {}, {}, {}, {}

    # -- files ---------------------------------------------------------------------------------------
    def _state_of(self, items):
        scope = global_scope()
        self._initialize()
        return {k: np.array(scope[v.name]) for k, v in items if v is not None and v.name in scope}

    def save(self, path):
        if os.path.basename(path) == "":
            raise AssertionError("path should be of 'dirname/filename' format")
        dirname = os.path.dirname(path)
        if dirname and not os.path.exists(dirname):
            os.makedirs(dirname)
        _save(self._state_of(self.model.network.state_dict().items()), path + ".pdparams")
        optimizer = self.model._optimizer
        if optimizer is not None:
            state = optimizer.state_dict()
            if state:
                _save({k: (_to_numpy(v) if hasattr(v, "numpy") else v) for k, v in state.items()}, path + ".pdopt")

    def load(self, param_state_pairs, optim_state):
        self._initialize()
        scope = global_scope()
        for param, state in param_state_pairs:
            scope[param.name] = np.asarray(_to_numpy(state), dtype=np.asarray(scope[param.name]).dtype) \
                if param.name in scope else _to_numpy(state)
        if self.model._optimizer and optim_state:
            self.model._optimizer.set_state_dict(optim_state)

    def save_inference_model(self, path):
        """Paddle's static path of ``Model.save(path, training=False)``: the 'test' Program's feeds and
        outputs through paddle.static.save_inference_model."""
        from runtime.static import save_inference_model
        if os.path.basename(path) == "":
            raise ValueError("The input path MUST be format of dirname/file_prefix [dirname\\file_prefix in "
                             f"Windows system], but received file_prefix is empty string: {path!r}.")
        self._make_program("test")
        self._initialize()
        save_inference_model(path, self._input_vars["test"], self._endpoints["test"]["output"], self._executor,
                             program=self._progs["test"])
