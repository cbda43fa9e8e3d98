"""paddle.metric: the top-k ``accuracy`` function (the accuracy op) and the ``Accuracy``, ``Precision``,
``Recall`` and ``Auc`` metrics (binary classification statistics accumulated in numpy, as Paddle)."""
from __future__ import annotations

import abc

import numpy as np

from .dispatch import run_op
from .dtype import convert_dtype
from .tensor import Tensor

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]


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
        if len(label.shape) > 2 and label.shape[-1] != 1:    # [N, d0, ..., C] one-hot: its argmax, like Paddle
            label = run_op("arg_max", label, axis=-1, keepdims=True, flatten=False, dtype=3)
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


def _as_numpy(value, what):
    """``value`` (a Tensor or numpy data) as an ndarray; anything else is refused as Paddle does."""
    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value)
    raise ValueError(f"The '{what}' must be a numpy ndarray or Tensor.")


def _per_sample(preds, labels, metric):
    """Predictions and labels as two [N] vectors: one value per sample, N = ``labels.shape[0]``."""
    n = labels.shape[0]
    if preds.shape[:1] != (n,) or preds.size != n or labels.size != n:
        raise ValueError(f"{metric}.update: expected one prediction and one label per sample ([N] or [N, 1]), got "
                         f"preds of shape {list(preds.shape)} and labels of shape {list(labels.shape)}")
    return preds.reshape(n), labels.reshape(n)


class Precision(Metric):
    """Binary precision tp / (tp + fp). ``update(preds, labels)`` takes [N] or [N, 1] probabilities
    (rounded half up: >= 0.5 is positive) and 0/1 labels."""

    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fp = 0
        self._name = name

    def update(self, preds, labels):
        preds = _as_numpy(preds, "preds")
        labels = _as_numpy(labels, "labels")
        preds, labels = _per_sample(preds, labels, "Precision")
        predicted_pos = np.floor(preds + 0.5).astype("int32") == 1
        self.tp += int(np.count_nonzero(predicted_pos & (labels == 1)))
        self.fp += int(np.count_nonzero(predicted_pos & (labels != 1)))

    def reset(self):
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        predicted = self.tp + self.fp
        return float(self.tp) / predicted if predicted != 0 else 0.0

    def name(self):
        return self._name


class Recall(Metric):
    """Binary recall tp / (tp + fn). ``update(preds, labels)`` takes [N] or [N, 1] probabilities
    (rounded half to even, as numpy's ``rint``: exactly 0.5 is negative) and 0/1 labels."""

    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fn = 0
        self._name = name

    def update(self, preds, labels):
        preds = _as_numpy(preds, "preds")
        labels = _as_numpy(labels, "labels")
        preds, labels = _per_sample(preds, labels, "Recall")
        actual_pos = labels == 1
        hit = np.rint(preds).astype("int32") == 1
        self.tp += int(np.count_nonzero(actual_pos & hit))
        self.fn += int(np.count_nonzero(actual_pos & ~hit))

    def accumulate(self):
        actual = self.tp + self.fn
        return float(self.tp) / actual if actual != 0 else 0.0

    def reset(self):
        self.tp = 0
        self.fn = 0

    def name(self):
        return self._name


class Auc(Metric):
    """Area under the ROC curve, from histograms of the positive-class score over ``num_thresholds + 1``
    buckets. ``update(preds, labels)``: ``preds`` [N, 2] class probabilities (column 1 is the positive
    class), ``labels`` [N] or [N, 1], non-zero meaning positive."""

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._curve = curve
        self._num_thresholds = num_thresholds
        self._name = name
        self.reset()

    def update(self, preds, labels):
        labels = _as_numpy(labels, "labels")
        preds = _as_numpy(preds, "preds")
        n = len(labels)
        if preds.ndim != 2 or preds.shape[0] < n or preds.shape[1] < 2:
            raise ValueError(f"Auc.update: preds must be [N, 2] class probabilities (column 1: positive class) for "
                             f"{n} labels, got shape {list(preds.shape)}")
        # int() of each score * num_thresholds, i.e. truncation toward zero, in the scores' own dtype
        buckets = np.trunc(preds[:n, 1] * self._num_thresholds).astype(np.int64)
        if n and buckets.max() > self._num_thresholds:
            raise ValueError(f"Auc.update: scores must be probabilities in [0, 1], got {preds[:n, 1].max()}")
        if labels.size != n:
            raise ValueError(f"Auc.update: expected one label per sample ([N] or [N, 1]), got labels of shape "
                             f"{list(labels.shape)}")
        positive = labels.reshape(n).astype(bool)
        np.add.at(self._stat_pos, buckets[positive], 1.0)
        np.add.at(self._stat_neg, buckets[~positive], 1.0)

    @staticmethod
    def trapezoid_area(x1, x2, y1, y2):
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def accumulate(self):
        # walk the thresholds from the highest bucket down: cumulative true/false positives
        tot_pos = np.cumsum(self._stat_pos[::-1])
        tot_neg = np.cumsum(self._stat_neg[::-1])
        prev_pos = np.concatenate([[0.0], tot_pos[:-1]])
        prev_neg = np.concatenate([[0.0], tot_neg[:-1]])
        auc = float(np.sum(np.abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0))
        pos, neg = float(tot_pos[-1]), float(tot_neg[-1])
        return auc / pos / neg if pos > 0.0 and neg > 0.0 else 0.0

    def reset(self):
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self):
        return self._name
