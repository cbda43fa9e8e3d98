"""``paddle.Model``: a network with training and inference features — ``prepare``, ``fit``, ``evaluate``,
``predict``, the ``*_batch`` methods, ``save`` / ``load`` and ``summary`` — in dynamic-graph mode.

Batches run eagerly (`dygraph_adapter`); ``save(path, training=False)`` writes Paddle's inference
model through `dy2st.jit.save` (to_static on the network with the ``inputs`` specs).
"""
from __future__ import annotations

import inspect
import os
import warnings

import numpy as np

from runtime.formats.serialization import load as _load
from runtime.framework import in_dynamic_mode, no_grad
from runtime.io import DataLoader, Dataset, DistributedBatchSampler
from runtime.metric import Metric
from runtime.nn.layer.layers import Layer
from runtime.static.input_spec import InputSpec as Input

from .callbacks import EarlyStopping, config_callbacks
from .dygraph_adapter import DynamicGraphAdapter, input_info, to_list
from .model_summary import summary

__all__ = []

_AMP_LEVELS = ("O0", "O1", "O2")
_AMP_KEYS = {"init_loss_scaling", "incr_ratio", "decr_ratio", "incr_every_n_steps", "decr_every_n_nan_or_inf",
             "use_dynamic_loss_scaling", "use_fp16_guard"}


def _forward_arg_names(network):
    return [a for a in inspect.getfullargspec(network.forward).args if a != "self"]


def flatten(nest):
    """A nested batch (lists, tuples, dicts by sorted key) as a flat list of its leaves."""
    if isinstance(nest, (list, tuple)):
        return [leaf for item in nest for leaf in flatten(item)]
    if isinstance(nest, dict):
        return [leaf for key in sorted(nest) for leaf in flatten(nest[key])]
    return [nest]


def prepare_distributed_context(place=None):
    """Set up the communicator of a multi-process (collective) run, as Paddle's hapi does before
    training on several GPUs. A single process (PADDLE_TRAINERS_NUM unset or 1) needs none: returns
    None. dy2st runs in one process on the CPU, so a multi-process environment is an error, and so is
    ``place=None`` (Paddle's default there is a CUDAPlace, which a CPU-only build rejects with ValueError)."""
    from runtime.distributed.parallel import ParallelEnv
    if place is None:
        raise ValueError("prepare_distributed_context: place=None means a CUDAPlace, and this build runs on the "
                         "CPU only; pass place=paddle.CPUPlace()")
    nranks = ParallelEnv().nranks
    if nranks < 2:
        return None
    raise NotImplementedError(f"prepare_distributed_context: this environment asks for {nranks} trainer "
                              "processes; dy2st runs in a single CPU process (unset PADDLE_TRAINERS_NUM)")


class Model:
    """``Model(network, inputs=None, labels=None)``: ``inputs`` / ``labels`` are InputSpecs (one or a
    list; ``labels`` also a dict keyed by forward's argument names, as Paddle). Each batch of data is split
    into ``len(inputs)`` network inputs and the labels; without ``inputs`` that count is forward's number of
    arguments and the specs are taken from the first batch (then ``save(training=False)`` fixes their batch
    size, with a warning)."""

    def __init__(self, network, inputs=None, labels=None):
        if not in_dynamic_mode() and not isinstance(inputs, (list, tuple, dict, Input)):
            raise TypeError("'inputs' must be list or tuple or dict, and couldn't be None.")   # Paddle's check
        if not isinstance(network, Layer):
            raise TypeError(f"paddle.Model: network must be a paddle.nn.Layer, got {type(network).__name__}")
        self.mode = "train"
        self.network = network
        self._inputs = None
        self._labels = None
        self._loss = None
        self._loss_weights = None
        self._optimizer = None
        self._scaler = None          # the GradScaler of AMP training (built on the first train batch)
        self._metrics = []
        self._input_info = None
        self._is_shape_inferred = False
        self._test_dataloader = None
        self._place = None
        self._accumulate = 1
        self.stop_training = False
        self.num_iters = None
        if inputs:
            self._input_info = input_info(inputs)
        self._inputs = self._verify_spec(inputs, is_input=True)
        self._labels = self._verify_spec(labels)
        if in_dynamic_mode():
            self._adapter = DynamicGraphAdapter(self)
        else:
            from .static_adapter import StaticGraphAdapter
            self._adapter = StaticGraphAdapter(self)

    # -- one batch -----------------------------------------------------------------------------------
    def _after_batch(self):
        if self._input_info is None:
            self._update_inputs()

    def train_batch(self, inputs, labels=None, update=True):
        """Train on one batch: returns ``[loss arrays]``, or ``([loss arrays], [metric results])`` with
        metrics. ``update=False`` only accumulates gradients."""
        out = self._adapter.train_batch(inputs, labels, update)
        self._after_batch()
        return out

    @no_grad()
    def eval_batch(self, inputs, labels=None):
        """Evaluate one batch: the losses (and metric results), or only the metrics without a loss."""
        out = self._adapter.eval_batch(inputs, labels)
        self._after_batch()
        return out

    @no_grad()
    def predict_batch(self, inputs):
        """The network's outputs for one batch, as a list of numpy arrays."""
        out = self._adapter.predict_batch(inputs)
        self._after_batch()
        return out

    # -- files ---------------------------------------------------------------------------------------
    def save(self, path, training=True):
        """``training=True``: ``path.pdparams`` (network state) and ``path.pdopt`` (optimizer state), for
        resuming; ``training=False``: the inference model ``path.pdmodel`` / ``.pdiparams`` through jit.save."""
        if not training:
            self._save_inference_model(path)
        else:
            self._adapter.save(path)

    def _save_inference_model(self, path):
        if hasattr(self._adapter, "save_inference_model"):     # the static-graph adapter
            return self._adapter.save_inference_model(path)
        from ..jit_io import save as jit_save   # the compiler: imported when first needed
        if self._input_info is None:
            raise RuntimeError("Saving inference model needs 'inputs' or running before saving. Please specify "
                               "'inputs' in Model initialization or input training data and perform a training "
                               "for shape derivation.")
        if self._is_shape_inferred:
            warnings.warn("'inputs' was not specified when Model initialization, so the input shape to be saved "
                          "will be the shape derived from the user's actual inputs. The input shape to be saved is "
                          f"{self._input_info[0]}. For saving correct input shapes, please provide 'inputs' for "
                          "Model initialization.", stacklevel=3)
        jit_save(self.network, path, input_spec=self._inputs)

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Load ``path.pdparams`` into the network (and ``path.pdopt`` into the optimizer unless
        ``reset_optimizer``). ``skip_mismatch`` skips missing or wrongly-shaped entries with a warning."""
        base, ext = os.path.splitext(path)
        if ext not in ("", ".pdparams", ".pdopt", ".pdmodel"):
            raise ValueError(f"Model.load: unknown postfix {ext!r} of {path!r}; pass the path prefix (e.g. "
                             "'checkpoints/final') or a .pdparams / .pdopt file")
        path = base
        if not os.path.exists(path + ".pdparams"):
            raise AssertionError(f"Failed to load parameters, please check path: {path}.pdparams does not exist")
        param_state = _load(path + ".pdparams")
        if not param_state:
            raise AssertionError(f"Failed to load parameters, please check path: {path}.pdparams holds no state")
        matched = []
        for key, param in self.network.state_dict().items():
            state = param_state.get(key, None)
            if state is None:
                err = f"{key} is not found in the providing file."
            elif list(np.shape(state)) != list(param.shape):
                err = f"{key} receives a shape {list(np.shape(state))}, but the expected shape is {list(param.shape)}."
            else:
                matched.append((param, state))
                continue
            if not skip_mismatch:
                raise ValueError(err)
            warnings.warn(f"Skip loading for {key}. {err}", stacklevel=2)
            reset_optimizer = True
        optim_state = None
        if not reset_optimizer and os.path.exists(path + ".pdopt"):
            optim_state = _load(path + ".pdopt")
        return self._adapter.load(matched, optim_state)

    def parameters(self, *args, **kwargs):
        """The network's parameters."""
        return self._adapter.parameters()

    # -- configuration -------------------------------------------------------------------------------
    def _prepare_amp(self, amp_configs):
        """Paddle's checks of ``amp_configs``; the level, the custom op lists and the GradScaler arguments
        go to the adapter, which trains under ``paddle.amp.auto_cast`` with a ``GradScaler`` (O1) or
        on an ``amp.decorate``-d network (O2) as Paddle's dynamic-graph adapter does on a GPU."""
        adapter = self._adapter
        adapter._amp_custom_lists, adapter._amp_configs = {}, {}
        if not amp_configs:
            adapter._amp_level = "O0"
            return
        if isinstance(amp_configs, str):
            if amp_configs not in _AMP_LEVELS:
                raise ValueError("The level of amp_configs should be 'O0', 'O1' or 'O2'.")
            adapter._amp_level = amp_configs
            self._check_pure_fp16_configs()
            return
        level = amp_configs.get("level", "O1")
        if level not in _AMP_LEVELS:
            raise ValueError("amp_configs['level'] should be 'O0', 'O1' or 'O2'.")
        adapter._amp_level = level
        keys = set(amp_configs) - {"level"}
        if not keys or level == "O0":
            return
        if "use_pure_fp16" in keys:
            raise ValueError("'use_pure_fp16' is an invalid parameter, the level of mixed precision training "
                             "only depends on 'O1' or 'O2'.")
        self._check_pure_fp16_configs()
        for name in ("custom_white_list", "custom_black_list", "custom_black_varnames"):
            if name in keys:
                adapter._amp_custom_lists[name] = amp_configs[name]
                keys.discard(name)
        unknown = keys - _AMP_KEYS
        if unknown:
            raise ValueError("Except for 'level', the keys of 'amp_configs' must be accepted by mixed "
                             f"precision APIs, but {tuple(unknown)} could not be recognized.")
        if "use_fp16_guard" in keys:
            raise ValueError("'use_fp16_guard' is supported in static graph mode only.")
        for key in keys:
            adapter._amp_configs[key] = amp_configs[key]

    def _check_pure_fp16_configs(self):
        # Paddle: pure float16 (O2) training clips gradients only by norm or global norm
        from runtime.nn.clip import ClipGradByGlobalNorm, ClipGradByNorm
        clip = getattr(self._optimizer, "_grad_clip", None)
        if self._adapter._amp_level == "O2" and clip is not None \
                and not isinstance(clip, (ClipGradByGlobalNorm, ClipGradByNorm)):
            raise AssertionError("Only ClipGradByNorm and ClipGradByGlobalNorm are supported in amp training "
                                 "with level=O2 currently.")

    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Set the optimizer, the loss (a Layer or any callable ``loss(*outputs, *labels)``) and metrics."""
        self._optimizer = optimizer
        if loss is not None and not isinstance(loss, Layer) and not callable(loss):
            raise TypeError("'loss' must be sub classes of `paddle.nn.Layer` or any callable function.")
        self._loss = loss
        metrics = to_list(metrics) or []
        for metric in metrics:
            if not isinstance(metric, Metric):
                raise TypeError(f"{metric.__class__.__name__} is not sub class of Metric (paddle.metric.Metric)")
        self._metrics = metrics
        self._prepare_amp(amp_configs)
        self._adapter.prepare()

    # -- loops ---------------------------------------------------------------------------------------
    def _loader(self, data, batch_size, shuffle=False, drop_last=False, num_workers=0):
        if isinstance(data, Dataset):
            sampler = DistributedBatchSampler(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)
            return DataLoader(data, batch_sampler=sampler, places=self._place, num_workers=num_workers,
                              return_list=True)
        return data

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1, log_freq=10, save_dir=None,
            save_freq=1, verbose=2, drop_last=False, shuffle=True, num_workers=0, callbacks=None,
            accumulate_grad_batches=1, num_iters=None):
        """Train for ``epochs`` over ``train_data`` (a Dataset or a DataLoader), evaluating on ``eval_data``
        every ``eval_freq`` epochs; ``batch_size`` may be ``[train, eval]``."""
        if train_data is None:
            raise ValueError("Model.fit: train_data must be given!")
        if isinstance(batch_size, (tuple, list)) and all(isinstance(x, int) for x in batch_size):
            if len(batch_size) != 2:
                raise ValueError("batch_size length error, expected train_batch_size and eval_batch_size.")
            train_batch_size, eval_batch_size = batch_size
        elif isinstance(batch_size, int):
            train_batch_size = eval_batch_size = batch_size
        else:
            raise TypeError(f"Model.fit: batch_size must be an int or [train, eval] ints, got {batch_size!r}")
        train_loader = self._loader(train_data, train_batch_size, shuffle, drop_last, num_workers)
        eval_loader = None if eval_data is None else self._loader(eval_data, eval_batch_size, num_workers=num_workers)
        do_eval = eval_loader is not None
        self._test_dataloader = eval_loader
        self._accumulate = accumulate_grad_batches
        # Paddle never resets this flag; a second fit() after EarlyStopping would stop after one epoch
        self.stop_training = False

        steps = self._len_data_loader(train_loader)
        self.num_iters = num_iters
        if num_iters is not None and isinstance(num_iters, int) and isinstance(steps, int):
            if num_iters <= 0:
                raise ValueError("num_iters must be greater than 0!")
            epochs = num_iters // steps + 1
            steps = min(num_iters, steps)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps, log_freq=log_freq,
                                save_freq=save_freq, save_dir=save_dir, verbose=verbose, metrics=self._metrics_name())
        if any(isinstance(c, EarlyStopping) for c in cbks) and not do_eval:
            warnings.warn("EarlyStopping needs validation data.", stacklevel=2)

        logs = {}
        cbks.on_begin("train")
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train")
            cbks.on_epoch_end(epoch, logs)
            if do_eval and epoch % eval_freq == 0:
                cbks.on_begin("eval", {"steps": self._len_data_loader(eval_loader), "metrics": self._metrics_name()})
                eval_logs = self._run_one_epoch(eval_loader, cbks, "eval")
                cbks.on_end("eval", eval_logs)
            if self.stop_training:
                break
        cbks.on_end("train", logs)
        self._test_dataloader = None

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0, callbacks=None,
                 num_iters=None):
        """Loss and metrics over ``eval_data``: ``{'loss': [value], '<metric>': value, ...}``."""
        eval_loader = self._loader(eval_data, batch_size, num_workers=num_workers)
        self._test_dataloader = eval_loader
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        eval_steps = self._len_data_loader(eval_loader)
        self.num_iters = num_iters
        if num_iters is not None and isinstance(num_iters, int) and isinstance(eval_steps, int):
            if num_iters <= 0:
                raise ValueError("num_iters must be greater than 0!")
            eval_steps = min(num_iters, eval_steps)
            self.num_iters = eval_steps
        cbks.on_begin("eval", {"steps": eval_steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(eval_loader, cbks, "eval")
        cbks.on_end("eval", logs)
        self._test_dataloader = None
        return {k: logs[k] for k in self._metrics_name()}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1, callbacks=None):
        """The network's outputs over ``test_data``: one list per output, holding a numpy array per batch
        (``stack_outputs=True``: one array per output, batches stacked)."""
        test_loader = self._loader(test_data, batch_size, num_workers=num_workers)
        self._test_dataloader = test_loader
        cbks = config_callbacks(callbacks, model=self, verbose=verbose)
        cbks.on_begin("predict", {"steps": self._len_data_loader(test_loader)})
        logs, outputs = self._run_one_epoch(test_loader, cbks, "predict")
        outputs = list(zip(*outputs))
        if stack_outputs:
            outputs = [np.vstack(outs) for outs in outputs]
        self._test_dataloader = None
        cbks.on_end("predict", logs)
        return outputs

    def _run_one_epoch(self, data_loader, callbacks, mode):
        logs, outputs = {}, []
        n_batches = self._len_data_loader(data_loader)
        for step, data in enumerate(data_loader):
            data = flatten(data)
            batch_size = data[0].shape()[0] if callable(data[0].shape) else data[0].shape[0]
            callbacks.on_batch_begin(mode, step, logs)
            if mode == "predict":
                outputs.append(self.predict_batch(data[:len(self._inputs)]))
            else:
                n_in = len(self._inputs)
                if mode == "train":
                    update = (step + 1) % self._accumulate == 0 or step + 1 == n_batches
                    outs = self.train_batch(data[:n_in], data[n_in:], update)
                else:
                    outs = self.eval_batch(data[:n_in], data[n_in:])
                if self._metrics and self._loss:
                    values = [[float(v) for v in outs[0]]]
                elif self._loss:
                    values = [[float(v) for v in outs]]
                else:
                    values = []
                for metric in self._metrics:
                    values.extend(to_list(metric.accumulate()))
                names = self._metrics_name()
                if len(names) != len(values):
                    raise RuntimeError(f"Model: the metrics give {len(values)} values for the {len(names)} names "
                                       f"{names}; a metric's name() must name each value its accumulate() returns")
                logs.update(zip(names, values))
            logs["step"] = step
            logs["batch_size"] = batch_size
            callbacks.on_batch_end(mode, step, logs)
            if self.num_iters is not None:
                self.num_iters -= 1
                if self.num_iters <= 0:
                    self.stop_training = True
                    self.num_iters = None
                    break
        self._reset_metrics()
        if mode == "predict":
            return logs, outputs
        return logs

    # -- helpers -------------------------------------------------------------------------------------
    def summary(self, input_size=None, dtype=None):
        """`paddle.summary` of the network for ``input_size`` (default: the Model's input specs)."""
        if input_size is None and self._inputs is None:
            raise ValueError("'input_size' or 'self._input' must be set")
        return summary(self.network, input_size if input_size is not None else self._inputs, dtypes=dtype)

    def _verify_spec(self, specs, shapes=None, dtypes=None, is_input=False):
        if specs is None:
            if is_input:
                names = _forward_arg_names(self.network)
                if shapes is not None and dtypes is not None:
                    out = [Input(name=n, dtype=dtypes[i], shape=shapes[i]) for i, n in enumerate(names)]
                else:
                    out = [Input(name=n, shape=[None]) for n in names]
            else:
                out = []
        elif isinstance(specs, dict):
            if is_input:
                raise TypeError("Model: 'inputs' as a dict is keyed by forward's argument names; "
                                "give 'labels' as a list of InputSpec")
            out = [specs[n] for n in _forward_arg_names(self.network)]
        else:
            out = to_list(specs)
        for i, spec in enumerate(out):
            if not isinstance(spec, Input):
                raise TypeError(f"Model: inputs/labels must be paddle.static.InputSpec, got {type(spec).__name__} "
                                f"at index {i}")
            if spec.name is None:
                raise ValueError(f"Requires Input[{i}].name != None, but receive `None` with {spec}.")
        return out

    def _reset_metrics(self):
        for metric in self._metrics:
            metric.reset()

    def _metrics_name(self):
        names = ["loss"] if self._loss else []
        for m in self._metrics:
            names.extend(to_list(m.name()))
        return names

    @staticmethod
    def _len_data_loader(data_loader):
        try:
            return len(data_loader)
        except Exception:
            return None

    def _update_inputs(self):
        self._input_info = self._adapter._input_info
        if self._input_info is not None and len(self._input_info) == 2:
            self._inputs = self._verify_spec(None, self._input_info[0], self._input_info[1], True)
            self._is_shape_inferred = True
