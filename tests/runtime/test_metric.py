"""paddle.metric.accuracy and paddle.metric.Accuracy vs hand-counted top-k hits."""
import numpy as np
import pytest

import runtime as paddle
from runtime import metric


def t(a):
    return paddle.Tensor(np.asarray(a))


PRED = np.array([[0.1, 0.5, 0.4], [0.6, 0.3, 0.1], [0.2, 0.15, 0.65], [0.3, 0.45, 0.25]], np.float32)
LABEL = np.array([[1], [2], [2], [0]])
# top-1 classes: 1, 0, 2, 1 -> hits rows 0, 2; top-2 sets: {1,2}, {0,1}, {2,0}, {1,0} -> hits rows 0, 2, 3


def test_accuracy_top1_and_top2():
    acc = metric.accuracy(t(PRED), t(LABEL))
    assert acc.shape == [] and acc.dtype == paddle.float32
    assert acc.item() == pytest.approx(0.5)
    assert metric.accuracy(t(PRED), t(LABEL), k=2).item() == pytest.approx(0.75)


def test_accuracy_fills_correct_and_total():
    correct = t(np.zeros([1], np.int32))
    total = t(np.zeros([1], np.int32))
    metric.accuracy(t(PRED), t(LABEL), k=2, correct=correct, total=total)
    assert correct.item() == 3 and total.item() == 4
    assert correct.dtype == paddle.int32


def test_accuracy_label_must_be_integer():
    with pytest.raises(TypeError, match="label must be an integer tensor"):
        metric.accuracy(t(PRED), t(LABEL.astype(np.float32)))


def test_accuracy_metric_accumulates_over_batches():
    m = metric.Accuracy(topk=(1, 2))
    assert m.name() == ["acc_top1", "acc_top2"]
    c = m.compute(t(PRED), t(LABEL))
    assert c.shape == [4, 2] and c.dtype == paddle.float32
    np.testing.assert_array_equal(c.numpy(), [[1, 0], [0, 0], [1, 0], [0, 1]])
    assert m.update(c) == [pytest.approx(0.5), pytest.approx(0.75)]
    # second batch: 2 samples, both right at top-1
    c2 = m.compute(t(PRED[:2]), t(np.array([[1], [0]])))
    m.update(c2.numpy())
    assert m.accumulate() == [pytest.approx(4 / 6), pytest.approx(5 / 6)]
    m.reset()
    assert m.accumulate() == [0.0, 0.0]


def test_accuracy_metric_single_topk_and_one_hot_labels():
    m = metric.Accuracy(name="foo")
    assert m.name() == ["foo"]
    onehot = np.eye(3, dtype=np.float32)[LABEL[:, 0]]
    c = m.compute(t(PRED), t(onehot))
    assert c.shape == [4, 1]
    assert m.update(c) == pytest.approx(0.5)
    assert m.accumulate() == pytest.approx(0.5)
    assert isinstance(m, metric.Metric)
