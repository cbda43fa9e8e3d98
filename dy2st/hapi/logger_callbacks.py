"""Callbacks that write training logs elsewhere: Paddle's ``VisualDL`` and ``WandbCallback`` (which need
the ``visualdl`` / ``wandb`` packages, not shipped here), and dy2st's own file loggers ``CSVLogger`` and
``JSONLinesLogger`` (one record per training epoch and per evaluation, no extra package)."""
from __future__ import annotations

import csv
import importlib
import json
import math
import numbers
import os
import warnings

import numpy as np

from .callbacks import Callback

__all__ = []


def _require(module, callback, pip_name):
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"paddle.callbacks.{callback} needs the '{module}' package, which is not installed "
                          f"({e}); install it with `pip install {pip_name}`, or leave the callback out (the "
                          f"file loggers paddle.callbacks.CSVLogger / JSONLinesLogger need no extra "
                          f"package)") from e


def _scalar(value):
    """A logged value as one number: the first of a list, a 1-element array as a float; else None."""
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.item()
    if isinstance(value, (numbers.Number, np.number)) and not isinstance(value, bool):
        return float(value) if isinstance(value, (float, np.floating)) else int(value)
    return None


class _MetricWriter(Callback):
    """Shared by VisualDL and WandbCallback: collects train (per batch) and eval (per epoch) scalars."""

    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        self.train_metrics = self.params["metrics"]
        self._is_fit = True
        self.train_step = 0

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params["steps"]
        self.epoch = epoch

    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self.eval_steps = logs.get("steps", None)
        self.eval_metrics = logs.get("metrics", [])
        self.eval_step = 0
        self.evaled_samples = 0

    def _scalars(self, logs, mode):
        logs = logs or {}
        out = {}
        for k in getattr(self, f"{mode}_metrics"):
            if k in logs and _scalar(logs[k]) is not None:
                out[f"{mode}/{k}"] = _scalar(logs[k])
        return out

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        self._write(self._scalars(logs, "train"), "train", self.train_step)

    def on_eval_end(self, logs=None):
        self._write(self._scalars(logs, "eval"), "eval", getattr(self, "epoch", 0))
        if not hasattr(self, "_is_fit"):
            self._close()

    def on_train_end(self, logs=None):
        self._close()


class VisualDL(_MetricWriter):
    """Writes train scalars (every batch) and eval scalars (every evaluation) to a VisualDL ``log_dir``.
    Needs the ``visualdl`` package: constructing it without raises an ImportError naming it."""

    def __init__(self, log_dir):
        super().__init__()
        self._visualdl = _require("visualdl", "VisualDL", "visualdl")
        self.log_dir = log_dir
        self.epochs = None
        self.steps = None
        self.epoch = 0

    def _write(self, scalars, mode, step):
        if not scalars:
            return
        if not hasattr(self, "writer"):
            self.writer = self._visualdl.LogWriter(self.log_dir)
        for tag, value in scalars.items():
            self.writer.add_scalar(tag=tag, step=step, value=value)

    def _close(self):
        if hasattr(self, "writer"):
            self.writer.close()
            del self.writer


class WandbCallback(_MetricWriter):
    """Logs train and eval scalars to Weights & Biases (``wandb.init(project=..., ...)``). Needs the
    ``wandb`` package: constructing it without raises an ImportError naming it."""

    def __init__(self, project=None, entity=None, name=None, dir=None, mode=None, job_type=None, **kwargs):
        super().__init__()
        self.wandb = _require("wandb", "WandbCallback", "wandb")
        self.wandb_args = {"project": project, "name": name, "entity": entity, "dir": dir, "mode": mode,
                           "job_type": job_type, **kwargs}
        self._run = None
        _ = self.run

    @property
    def run(self):
        if self._run is None:
            if self.wandb.run is not None:
                warnings.warn("There is a wandb run already in progress and newly created instances of "
                              "`WandbCallback` will reuse this run. If this is not desired, call `wandb.finish()` "
                              "before instantiating `WandbCallback`.")
                self._run = self.wandb.run
            else:
                self._run = self.wandb.init(**self.wandb_args)
        return self._run

    def on_train_begin(self, logs=None):
        super().on_train_begin(logs)
        self.run.define_metric("train/step")
        self.run.define_metric("train/*", step_metric="train/step")
        self.run.define_metric("epoch")
        self.run.define_metric("eval/*", step_metric="epoch")

    def _write(self, scalars, mode, step):
        record = {"train/step": step} if mode == "train" else {"epoch": step}
        record.update(scalars)
        self.run.log(record)

    def _close(self):
        if self._run is not None:
            self._run.finish()


class _FileLogger(Callback):
    """One record per training epoch (``mode`` train, the epoch's last logs: loss of the last batch,
    metrics averaged over the epoch) and per evaluation (``mode`` eval)."""

    def __init__(self, filename, append=False):
        super().__init__()
        self.filename = os.fspath(filename)
        self.append = append
        self._epoch = None
        self._started = False

    def _names(self):
        return list((self.params or {}).get("metrics") or [])

    def _record(self, mode, logs):
        logs = logs or {}
        names = self._names() or [k for k in logs if k not in ("step", "batch_size", "steps", "metrics")]
        record = {"mode": mode, "epoch": self._epoch}
        for k in names:
            if k in logs:
                record[k] = _scalar(logs[k])
        return record

    def _open(self):
        if not self._started:
            directory = os.path.dirname(self.filename)
            if directory:
                os.makedirs(directory, exist_ok=True)
            if not self.append and os.path.exists(self.filename):
                os.remove(self.filename)
            self._started = True

    def on_train_begin(self, logs=None):
        self._open()

    def on_eval_begin(self, logs=None):
        self._open()

    def on_epoch_begin(self, epoch=None, logs=None):
        self._epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        self._write(self._record("train", logs))

    def on_eval_end(self, logs=None):
        self._write(self._record("eval", logs))


class CSVLogger(_FileLogger):
    """``CSVLogger(filename, separator=',', append=False)``: a CSV file with a header row ``mode,epoch,loss,
    <metric names>`` and one row per training epoch and per evaluation (``epoch`` is empty for a
    stand-alone ``evaluate``). ``append=True`` keeps an existing file and its header."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__(filename, append)
        self.separator = separator
        self._columns = None

    def _write(self, record):
        if self._columns is None:
            self._columns = ["mode", "epoch", *self._names()] if self._names() else list(record)
            if os.path.exists(self.filename) and os.path.getsize(self.filename) > 0:
                with open(self.filename, newline="") as f:
                    header = next(csv.reader(f, delimiter=self.separator), None)
                if header:
                    self._columns = header
                    write_header = False
                else:
                    write_header = True
            else:
                write_header = True
        else:
            write_header = False
        with open(self.filename, "a", newline="") as f:
            writer = csv.writer(f, delimiter=self.separator)
            if write_header:
                writer.writerow(self._columns)
            writer.writerow(["" if record.get(c) is None else record.get(c) for c in self._columns])


class JSONLinesLogger(_FileLogger):
    """``JSONLinesLogger(filename, append=False)``: one JSON object per line, e.g.
    ``{"mode": "train", "epoch": 0, "loss": 0.53, "acc": 0.81}``; ``epoch`` is null for a stand-alone
    ``evaluate``. Non-finite values are written as null (JSON has no NaN)."""

    def _write(self, record):
        clean = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in record.items()}
        with open(self.filename, "a") as f:
            f.write(json.dumps(clean) + "\n")
