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


# -- Precision, Recall, Auc: hand-counted, then against real Paddle 3.3.1 ---------------------------------

def test_precision_and_recall_by_hand():
    preds = np.array([0.9, 0.5, 0.2, 0.7, 0.5, 0.1], np.float32)
    labels = np.array([1, 0, 1, 1, 1, 0])
    p, r = metric.Precision(), metric.Recall()
    assert (p.name(), r.name()) == ("precision", "recall")
    p.update(preds, labels)
    r.update(t(preds.reshape(-1, 1)), t(labels.reshape(-1, 1)))
    # Precision rounds half up (0.5 -> positive): predicted positive 0.9, 0.5, 0.7, 0.5 -> tp 3, fp 1
    assert (p.tp, p.fp, p.accumulate()) == (3, 1, 0.75)
    # Recall rounds half to even (0.5 -> negative): positives 0.9, 0.2, 0.7, 0.5 -> tp 2, fn 2
    assert (r.tp, r.fn, r.accumulate()) == (2, 2, 0.5)
    p.reset()
    r.reset()
    assert p.accumulate() == 0.0 and r.accumulate() == 0.0


def test_auc_by_hand():
    m = metric.Auc(num_thresholds=4)
    assert m.name() == "auc"
    preds = np.array([[0.1, 0.9], [0.6, 0.4], [0.3, 0.7], [0.8, 0.2]], np.float32)
    m.update(preds, np.array([[1], [0], [0], [1]]))
    # positive scores 0.9, 0.2; negative 0.4, 0.7: pairs ranked right: (0.9 > 0.4), (0.9 > 0.7) -> 2 of 4
    assert m.accumulate() == pytest.approx(0.5)
    m.reset()
    m.update(t(preds), t(np.array([1, 1, 1, 1])))
    assert m.accumulate() == 0.0           # no negatives: undefined, 0 as Paddle


def test_metric_update_errors():
    with pytest.raises(ValueError, match="The 'preds' must be a numpy ndarray or Tensor"):
        metric.Precision().update([0.5], np.array([1]))
    with pytest.raises(ValueError, match="The 'labels' must be a numpy ndarray or Tensor"):
        metric.Recall().update(np.array([0.5]), [1])
    with pytest.raises(ValueError, match="one prediction and one label per sample"):
        metric.Precision().update(np.zeros([3, 2]), np.zeros([3]))
    with pytest.raises(ValueError, match=r"preds must be \[N, 2\]"):
        metric.Auc().update(np.zeros([3]), np.zeros([3]))
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
        metric.Auc().update(np.array([[0.0, 1.5]]), np.array([1]))


DIFFERENTIAL = '''
import json
import numpy as np
import paddle

rs = np.random.RandomState(5)
out = {}
batches = [(rs.rand(n).astype(dt), rs.randint(0, 2, n)) for n, dt in ((50, "float32"), (31, "float64"), (7, "float32"))]
edge = (np.array([0.5, 0.5, 1.5, 2.5, 0.49999997, 0.0, 1.0], "float32"), np.array([1, 0, 1, 1, 1, 0, 1]))
for name, cls in (("precision", paddle.metric.Precision), ("recall", paddle.metric.Recall)):
    m = cls()
    history = []
    for preds, labels in batches + [edge]:
        m.update(preds.reshape(-1, 1), paddle.to_tensor(labels.reshape(-1, 1)))
        history.append(m.accumulate())
    out[name] = history + [m.name()]
for thresholds in (4095, 200, 3):
    m = paddle.metric.Auc(num_thresholds=thresholds, name="roc")
    history = []
    for preds, labels in batches:
        p1 = np.stack([1 - preds, preds], axis=1)
        m.update(paddle.to_tensor(p1), labels.reshape(-1, 1))
        history.append(m.accumulate())
    m.update(np.array([[0.0, 1.0], [1.0, 0.0]], "float32"), np.array([0, 1]))
    history.append(m.accumulate())
    out["auc%d" % thresholds] = history + [m.name()]
print(json.dumps(out))
'''


def test_precision_recall_auc_match_paddle(tmp_path):
    import json

    import dy2st
    from tests.interop.paddle_runner import run_paddle
    proc = run_paddle(DIFFERENTIAL, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    buf = __import__("io").StringIO()
    import contextlib
    with contextlib.redirect_stdout(buf):
        exec(compile(DIFFERENTIAL.replace("import paddle\n", ""), "<metric differential>", "exec"), {"paddle": dy2st})
    ours = json.loads(buf.getvalue().strip().splitlines()[-1])
    assert ours.keys() == theirs.keys()
    for key in theirs:
        assert ours[key][-1] == theirs[key][-1]
        np.testing.assert_allclose(ours[key][:-1], theirs[key][:-1], rtol=1e-12, err_msg=key)
