"""``paddle.callbacks``: the hooks ``Model.fit/evaluate/predict`` call, and Paddle's built-in callbacks.

``Callback`` (every hook a no-op), ``CallbackList`` (what the Model drives), ``config_callbacks`` (adds
the default ProgBarLogger / ModelCheckpoint / LRScheduler as Paddle does), ``ProgBarLogger``,
``ModelCheckpoint``, ``LRScheduler``, ``EarlyStopping``, ``ReduceLROnPlateau``. Callbacks that write
to other tools or files (VisualDL, wandb, CSV / JSON lines) are in `logger_callbacks`.
"""
from __future__ import annotations

import numbers
import os
import time
import warnings

import numpy as np

from runtime.optimizer.lr import LRScheduler as _LRSchedulerBase

from .progressbar import ProgressBar

__all__ = []

_MODES = ("train", "eval", "predict")


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None, log_freq=2, verbose=2,
                     save_freq=1, save_dir=None, metrics=None, mode="train"):
    """The CallbackList for one fit/evaluate/predict call: the user's callbacks plus a ProgBarLogger
    (first, when ``verbose``), a ModelCheckpoint and an LRScheduler unless the user gave their own."""
    given = callbacks or []
    cbks = list(given if isinstance(given, (list, tuple)) else [given])
    for c in cbks:
        if not isinstance(c, Callback):
            raise TypeError(f"callbacks must be paddle.callbacks.Callback instances, got {type(c).__name__}")
    if verbose and not any(isinstance(c, ProgBarLogger) for c in cbks):
        cbks.insert(0, ProgBarLogger(log_freq, verbose=verbose))
    if not any(isinstance(c, ModelCheckpoint) for c in cbks):
        cbks.append(ModelCheckpoint(save_freq, save_dir))
    for c in cbks:
        if isinstance(c, EarlyStopping):
            c.save_dir = save_dir
    if not any(isinstance(c, LRScheduler) for c in cbks):
        cbks.append(LRScheduler())
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    cbk_list.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps, "verbose": verbose,
                         "metrics": (metrics or []) if mode != "test" else []})
    return cbk_list


class CallbackList:
    """Calls one hook on every callback in order: ``on_begin('train')`` calls ``on_train_begin`` ..."""

    def __init__(self, callbacks=None):
        if callbacks is None:
            raise ValueError("CallbackList needs a list of callbacks")
        self.callbacks = list(callbacks)
        self.params = {}
        self.model = None

    def append(self, callback):
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params):
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)

    @staticmethod
    def _check_mode(mode):
        if mode not in _MODES:
            raise ValueError(f"mode should be train, eval or predict, got {mode!r}")

    def on_begin(self, mode, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch=None, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_end", step, logs)


class Callback:
    """Base class of callbacks: override the hooks you need. ``self.model`` is the `paddle.Model`,
    ``self.params`` holds ``batch_size``, ``epochs``, ``steps``, ``verbose`` and ``metrics`` names.

    ``logs`` of the batch hooks hold ``loss`` and each metric (the metric averaged over the epoch so
    far), ``step`` and ``batch_size``; ``on_eval_begin``/``on_predict_begin`` get ``steps`` (and
    ``metrics``)."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None):
        """Called once before training."""

    def on_train_end(self, logs=None):
        """Called once after training."""

    def on_eval_begin(self, logs=None):
        """Called before an evaluation pass."""

    def on_eval_end(self, logs=None):
        """Called after an evaluation pass with its loss and metrics."""

    def on_predict_begin(self, logs=None):
        """Called before prediction."""

    def on_predict_end(self, logs=None):
        """Called after prediction."""

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of each training epoch (0-based)."""

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of each training epoch with the epoch's last logs."""

    def on_train_batch_begin(self, step, logs=None):
        """Called before each training batch."""

    def on_train_batch_end(self, step, logs=None):
        """Called after each training batch."""

    def on_eval_batch_begin(self, step, logs=None):
        """Called before each evaluation batch."""

    def on_eval_batch_end(self, step, logs=None):
        """Called after each evaluation batch."""

    def on_predict_batch_begin(self, step, logs=None):
        """Called before each prediction batch."""

    def on_predict_batch_end(self, step, logs=None):
        """Called after each prediction batch."""


def _new_timer():
    return {"data_time": 0.0, "batch_time": 0.0, "count": 0, "samples": 0, "batch_start_time": time.time()}


class ProgBarLogger(Callback):
    """Prints progress: ``verbose=1`` a live bar per epoch, ``2`` a line every ``log_freq`` steps and at
    the end of each epoch, ``3`` the same plus reader/batch cost and samples per second, ``0`` nothing."""

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        self.epochs = None
        self.steps = None
        self.progbar = None
        self.verbose = verbose
        self.log_freq = log_freq

    def _is_print(self):
        return bool(self.verbose)

    # -- shared by the three modes (train, eval, test: Paddle's attribute prefixes) --------------------
    def _updates(self, logs, mode):
        logs = logs or {}
        values = [(k, logs[k]) for k in getattr(self, f"{mode}_metrics") if k in logs]
        timer = getattr(self, f"_{mode}_timer", None)
        if self.verbose == 3 and timer is not None:
            count = timer["count"] or 1.0
            samples = timer["samples"] or 1.0
            spent = timer["data_time"] + timer["batch_time"]
            values.append(("avg_reader_cost", "%.5f sec" % (timer["data_time"] / count)))
            values.append(("avg_batch_cost", "%.5f sec" % (timer["batch_time"] / count)))
            values.append(("ips", "%.5f samples/sec" % (samples / spent if spent else 0.0)))
            timer.update(count=0, samples=0, data_time=0.0, batch_time=0.0)
        getattr(self, f"{mode}_progbar").update(getattr(self, f"{mode}_step"), values)

    def _batch_begin(self, mode):
        timer = getattr(self, f"_{mode}_timer")
        timer["batch_data_end_time"] = time.time()
        timer["data_time"] += timer["batch_data_end_time"] - timer["batch_start_time"]

    def _batch_end(self, mode, logs, total_steps):
        logs = logs or {}
        step = getattr(self, f"{mode}_step") + 1
        setattr(self, f"{mode}_step", step)
        timer = getattr(self, f"_{mode}_timer")
        timer["batch_time"] += time.time() - timer.get("batch_data_end_time", timer["batch_start_time"])
        timer["count"] += 1
        timer["samples"] += logs.get("batch_size", 1)
        if self._is_print() and step % self.log_freq == 0 and (total_steps is None or step < total_steps):
            self._updates(logs, mode)
        timer["batch_start_time"] = time.time()

    def _begin(self, mode, logs, title):
        logs = logs or {}
        setattr(self, f"{mode}_steps", logs.get("steps", None))
        setattr(self, f"{mode}_metrics", logs.get("metrics", []))
        setattr(self, f"{mode}_step", 0)
        setattr(self, f"_{mode}_timer", _new_timer())
        setattr(self, f"{mode}_progbar", ProgressBar(num=logs.get("steps", None), verbose=self.verbose))
        if self._is_print():
            print(title)
        getattr(self, f"_{mode}_timer")["batch_start_time"] = time.time()

    # -- train ----------------------------------------------------------------------------------
    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        if not self.epochs:
            raise ValueError("ProgBarLogger: fit() needs epochs >= 1")
        self.train_metrics = self.params["metrics"]
        if not self.train_metrics:
            raise ValueError("ProgBarLogger: nothing to log, call Model.prepare() with a loss or metrics before "
                             "fit(), or pass verbose=0")
        self._train_timer = _new_timer()
        if self._is_print():
            print("The loss value printed in the log is the current step, and the metric is the average value of "
                  "previous steps.")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params["steps"]
        self.epoch = epoch
        self.train_step = 0
        if self.epochs and self._is_print():
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self.train_progbar = ProgressBar(num=self.steps, verbose=self.verbose)
        self._train_timer["batch_start_time"] = time.time()

    def on_train_batch_begin(self, step, logs=None):
        self._batch_begin("train")

    def on_train_batch_end(self, step, logs=None):
        self._batch_end("train", logs, self.steps)

    def on_epoch_end(self, epoch, logs=None):
        if self._is_print() and self.steps is not None:
            self._updates(logs, "train")

    # -- eval -----------------------------------------------------------------------------------
    def on_eval_begin(self, logs=None):
        self._begin("eval", logs, "Eval begin...")
        self.evaled_samples = 0

    def on_eval_batch_begin(self, step, logs=None):
        self._batch_begin("eval")

    def on_eval_batch_end(self, step, logs=None):
        self.evaled_samples += (logs or {}).get("batch_size", 1)
        self._batch_end("eval", logs, self.eval_steps)

    def on_eval_end(self, logs=None):
        if self._is_print() and self.eval_steps is not None:
            self._updates(logs, "eval")
            print(f"Eval samples: {self.evaled_samples}")

    # -- predict (Paddle's "test" attributes) ---------------------------------------------------
    def on_predict_begin(self, logs=None):
        self._begin("test", logs, "Predict begin...")
        self.tested_samples = 0

    def on_predict_batch_begin(self, step, logs=None):
        self._batch_begin("test")

    def on_predict_batch_end(self, step, logs=None):
        self.tested_samples += (logs or {}).get("batch_size", 1)
        self._batch_end("test", logs, self.test_steps)

    def on_predict_end(self, logs=None):
        if self._is_print():
            if self.test_step % self.log_freq != 0 or self.verbose == 1:
                self._updates(logs, "test")
            print(f"Predict samples: {self.tested_samples}")


class ModelCheckpoint(Callback):
    """Saves ``save_dir/{epoch}`` (.pdparams, .pdopt) every ``save_freq`` epochs and ``save_dir/final``
    after training; does nothing without ``save_dir``."""

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq = save_freq
        self.save_dir = save_dir

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def _is_save(self):
        return bool(self.model and self.save_dir)

    def on_epoch_end(self, epoch, logs=None):
        if self._is_save() and self.epoch % self.save_freq == 0:
            path = f"{self.save_dir}/{epoch}"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)

    def on_train_end(self, logs=None):
        if self._is_save():
            path = f"{self.save_dir}/final"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler after every batch (``by_step``, the default) or
    after every epoch (``by_epoch``)."""

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("by_step option is mutually exclusive with by_epoch")
        self.by_step = by_step
        self.by_epoch = by_epoch

    def _step_scheduler(self):
        opt = getattr(self.model, "_optimizer", None)
        scheduler = getattr(opt, "_learning_rate", None) if opt else None
        if isinstance(scheduler, _LRSchedulerBase):
            scheduler.step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step_scheduler()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step_scheduler()


def _monitored_value(logs, monitor):
    """The number logged under ``monitor`` (the first one when a list), or None."""
    current = logs[monitor]
    if isinstance(current, (list, tuple)):
        return current[0]
    if isinstance(current, numbers.Number):
        return current
    return None


class EarlyStopping(Callback):
    """Stops training when ``monitor`` (evaluated after each eval pass) has not improved by more than
    ``min_delta`` for ``patience`` evaluations; saves ``save_dir/best_model`` on each improvement when
    ``save_best_model`` and fit has a ``save_dir``. ``mode`` 'auto' maximises names containing 'acc'."""

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0, baseline=None,
                 save_best_model=True):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.wait_epoch = 0
        self.best_weights = None
        self.stopped_epoch = 0
        self.save_best_model = save_best_model
        self.save_dir = None
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode {mode} is unknown, fallback to auto mode.")
            mode = "auto"
        maximise = mode == "max" or (mode == "auto" and "acc" in self.monitor)
        self.monitor_op = np.greater if maximise else np.less
        if not maximise:
            self.min_delta = -self.min_delta

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op == np.less else -np.inf
            self.best_weights = None

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of EarlyStopping should be loss or metric name.")
            return
        current = _monitored_value(logs, self.monitor)
        if current is None:
            return
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and self.save_dir is not None:
                self.model.save(os.path.join(self.save_dir, "best_model"))
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and self.save_dir is not None:
                    best = os.path.abspath(os.path.join(self.save_dir, "best_model"))
                    print(f"Best checkpoint has been saved at {best}")
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies a float learning rate by ``factor`` when ``monitor`` has not improved by ``min_delta``
    for ``patience`` evaluations, then waits ``cooldown`` evaluations; never below ``min_lr``.

    The reduced rate is used from the next step on. (In Paddle 3.3.1's dynamic mode the optimizer keeps
    the float rate it read at its first step, so there only ``get_lr()`` shows the change.)"""

    def __init__(self, monitor="loss", factor=0.1, patience=10, verbose=1, mode="auto", min_delta=1e-4, cooldown=0,
                 min_lr=0):
        super().__init__()
        self.monitor = monitor
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0
        self.best = 0
        self.mode = mode
        self.monitor_op = None
        self.epoch = 0
        self._reset()

    def _reset(self):
        if self.mode not in ("auto", "min", "max"):
            warnings.warn(f"Learning rate reduction mode {self.mode} is unknown, fallback to auto mode.")
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of ReduceLROnPlateau should be loss or metric name.")
            return
        try:
            lr = self.model._optimizer._learning_rate
        except Exception as e:   # no model, no optimizer
            warnings.warn(f"There are something wrong when get learning_rate from optimizer: {e}.")
            return
        if not isinstance(lr, float):
            warnings.warn(f"Expected learning_rate be float, bug got {type(lr)}.")
            return
        current = _monitored_value(logs, self.monitor)
        if current is None:
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = self.model._optimizer.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    self.model._optimizer._learning_rate = new_lr
                    if self.verbose > 0:
                        print(f"\nEpoch {self.epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
        self.epoch += 1
