"""paddle.metric: the top-k ``accuracy`` function (the accuracy op) and the ``Accuracy`` metric."""
from __future__ import annotations

import abc

import numpy as np

from .dispatch import run_op
from .dtype import convert_dtype
from .tensor import Tensor

__all__ = ["Metric", "Accuracy", "accuracy"]


def _label_column(label):
    """Labels as [N, 1]: [N] ids are reshaped; [N, C] one-hot/probability rows become their argmax."""
    shape = list(label.shape)
    if len(shape) == 1:
        return run_op("reshape2", label, None, None, shape=[-1, 1])
    if len(shape) == 2 and shape[-1] != 1:
        return run_op("arg_max", label, axis=-1, keepdims=True, flatten=False, dtype=3)
    return label


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Fraction of rows of ``input`` ([N, C] scores) whose top-``k`` classes contain ``label``
    ([N, 1] int64). ``correct``/``total`` tensors, when given, receive the counts."""
    if convert_dtype(label.dtype).np.kind not in "iu":
        raise TypeError(f"accuracy: label must be an integer tensor, got {label.dtype}")
    values, indices = run_op("top_k_v2", input, None, k=int(k), axis=-1, largest=True, sorted=True)
    acc, n_correct, n_total = run_op("accuracy", values, indices, _label_column(label))
    for dst, src in ((correct, n_correct), (total, n_total)):
        if isinstance(dst, Tensor):
            dst._data = src._data.astype(dst._data.dtype, copy=False).reshape(src._data.shape)
    return acc


class Metric(abc.ABC):
    """Base class of metrics: ``reset``, ``update``, ``accumulate``, ``name``, and an optional
    ``compute`` that turns a batch of outputs into what ``update`` takes."""

    def __init__(self):
        pass

    @abc.abstractmethod
    def reset(self):
        """Clear the accumulated state."""

    @abc.abstractmethod
    def update(self, *args):
        """Accumulate the statistics of one batch."""

    @abc.abstractmethod
    def accumulate(self):
        """The metric over everything accumulated since the last reset."""

    @abc.abstractmethod
    def name(self):
        """The metric's name(s)."""

    def compute(self, *args):
        return args


class Accuracy(Metric):
    """Top-k classification accuracy accumulated over batches.

    ``compute(pred, label)`` gives a [N, maxk] float32 tensor: 1 where the i-th best class
    equals the label. ``update(correct)`` adds a batch and returns its accuracy (a list when
    several ``topk`` are tracked); ``accumulate()`` returns the running accuracy.
    """

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        super().__init__()
        self.topk = tuple(topk)
        self.maxk = max(self.topk)
        self._init_name(name)
        self.reset()

    def _init_name(self, name):
        name = name or "acc"
        if self.maxk != 1 or len(self.topk) > 1:
            self._name = [f"{name}_top{k}" for k in self.topk]
        else:
            self._name = [name]

    def compute(self, pred, label, *args):
        _, indices = run_op("top_k_v2", pred, None, k=int(self.maxk), axis=-1, largest=True, sorted=True)
        label = _label_column(label)
        if convert_dtype(label.dtype) != convert_dtype(indices.dtype):
            label = run_op("cast", label, in_dtype=convert_dtype(label.dtype).proto,
                           out_dtype=convert_dtype(indices.dtype).proto)
        hit = run_op("equal", indices, label)
        return run_op("cast", hit, in_dtype=0, out_dtype=5)

    def update(self, correct, *args):
        if isinstance(correct, Tensor):
            correct = correct.numpy()
        correct = np.asarray(correct)
        num_samples = int(np.prod(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            num_corrects = correct[..., :k].sum()
            accs.append(float(num_corrects) / num_samples if num_samples else 0.0)
            self.total[i] += num_corrects
            self.count[i] += num_samples
        accs = [np.float64(a) for a in accs]
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [np.float64(float(t) / c) if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self):
        return self._name
