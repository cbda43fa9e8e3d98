"""One batch of training, evaluation or prediction for `paddle.Model` in dynamic-graph mode, and the
checkpoint files (``.pdparams`` / ``.pdopt``) — Paddle's ``DynamicGraphAdapter``."""
from __future__ import annotations

import numpy as np

from runtime.api.creation import to_tensor
from runtime.amp import GradScaler, auto_cast, decorate
from runtime.api.math import add_n
from runtime.formats.serialization import save as _save
from runtime.framework import no_grad
from runtime.static.input_spec import InputSpec
from runtime.tensor import Tensor

__all__ = []


def to_list(value):
    """``None`` stays None, a list/tuple becomes a list, anything else a one-item list."""
    if value is None:
        return value
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def to_numpy(value):
    """A Tensor's (or array's) values as a numpy array."""
    if isinstance(value, Tensor):
        return value.numpy()
    return np.asarray(value)


def _as_tensor(x):
    return x if isinstance(x, Tensor) else to_tensor(x)


def input_info(inputs):
    """``(shapes, dtypes)`` of the given batch inputs (an InputSpec, a list or a dict of them or of
    tensors), or None."""
    if isinstance(inputs, InputSpec):
        return [list(inputs.shape)], [inputs.dtype]
    if isinstance(inputs, dict):
        inputs = list(inputs.values())
    if isinstance(inputs, (list, tuple)):
        return [list(x.shape) for x in inputs], [x.dtype for x in inputs]
    return None


class DynamicGraphAdapter:
    """Runs the network of ``model`` eagerly: forward, loss, backward, optimizer step, metrics."""

    def __init__(self, model):
        self.model = model
        self._input_info = None
        self._amp_level = "O0"
        self._amp_configs = {}
        self._amp_custom_lists = {}
        self._use_fp16_guard = True
        self._merge_count = {"eval_total": 0, "test_total": 0, "eval_batch": 0, "test_batch": 0}

    @property
    def mode(self):
        return self.model.mode

    @mode.setter
    def mode(self, value):
        self.model.mode = value

    def _forward(self, inputs):
        inputs = to_list(inputs)
        self._input_info = input_info(inputs)
        return self.model.network(*[_as_tensor(x) for x in inputs])

    def _losses(self, outputs, labels, api):
        if self.model._loss is None:
            raise RuntimeError(f"Model.{api}: no loss function; call model.prepare(optimizer, loss=...) first")
        return to_list(self.model._loss(*(to_list(outputs) + labels)))

    def _update_metrics(self, outputs, labels):
        results = []
        for metric in self.model._metrics:
            states = metric.compute(*(to_list(outputs) + labels))
            results.append(metric.update(*[to_numpy(s) for s in to_list(states)]))
        return results

    def train_batch(self, inputs, labels=None, update=True):
        if not self.model._optimizer:
            raise RuntimeError("model not ready, please call `model.prepare()` first (Model.train_batch needs an "
                               "optimizer)")
        self.model.network.train()
        self.mode = "train"
        labels = [_as_tensor(label) for label in to_list(labels) or []]
        use_amp = self._amp_level != "O0"
        if use_amp and self.model._scaler is None:       # built once, as Paddle's adapter does
            self.model._scaler = GradScaler(**self._amp_configs)
        with auto_cast(enable=use_amp, **self._amp_custom_lists, level=self._amp_level):
            outputs = self._forward(inputs)
        losses = self._losses(outputs, labels, "train_batch")
        final_loss = add_n(losses) if len(losses) > 1 else losses[0]
        if use_amp:
            scaled = self.model._scaler.scale(final_loss)
            scaled.backward()
            if update:
                self.model._scaler.minimize(self.model._optimizer, scaled)
                self.model.network.clear_gradients()
        else:
            final_loss.backward()
            if update:
                self.model._optimizer.minimize(final_loss)
                self.model.network.clear_gradients()
        metrics = self._update_metrics(outputs, labels)
        loss_values = [to_numpy(loss) for loss in losses]
        return (loss_values, metrics) if metrics else loss_values

    @no_grad()
    def eval_batch(self, inputs, labels=None):
        self.model.network.eval()
        self.mode = "eval"
        labels = [_as_tensor(label) for label in to_list(labels) or []]
        outputs = self._forward(inputs)
        losses = self._losses(outputs, labels, "eval_batch") if self.model._loss else None
        metrics = self._update_metrics(outputs, labels)
        if losses is not None:
            loss_values = [to_numpy(loss) for loss in losses]
            return (loss_values, metrics) if metrics else loss_values
        return metrics

    @no_grad()
    def predict_batch(self, inputs):
        self.model.network.eval()
        self.mode = "test"
        outputs = self._forward(inputs)
        return [to_numpy(o) for o in to_list(outputs)]

    def parameters(self, *args, **kwargs):
        return self.model.network.parameters(*args, **kwargs)

    def save(self, path):
        _save(self.model.network.state_dict(), path + ".pdparams")
        optimizer = self.model._optimizer
        if optimizer is not None:
            state = optimizer.state_dict()
            if state:
                _save(state, path + ".pdopt")

    def load(self, param_state_pairs, optim_state):
        for param, state in param_state_pairs:
            param.set_value(state)
        if self.model._optimizer and optim_state:
            self.model._optimizer.set_state_dict(optim_state)

    def prepare(self):
        """O2 training casts the network to float16 (with float32 master weights in the optimizer) through
        ``paddle.amp.decorate``; a new ``prepare`` starts a new GradScaler."""
        model = self.model
        if self._amp_level == "O2" and model.mode == "train":
            model.network, model._optimizer = decorate(models=model.network, optimizers=model._optimizer,
                                                       level="O2")
        if self._amp_level != "O0":
            model._scaler = None
