"""paddle.callbacks: the order of hooks, EarlyStopping, ModelCheckpoint, LRScheduler, ReduceLROnPlateau,
the CSV / JSON-lines loggers, and VisualDL / WandbCallback with and without their packages."""
import csv
import json
import sys
import types

import numpy as np
import pytest

import dy2st as paddle

RS = np.random.RandomState(1)
X = RS.rand(24, 4).astype("float32")
Y = (X[:, :1] > 0.5).astype("int64")


def dataset(n=24):
    return paddle.io.TensorDataset([paddle.to_tensor(X[:n]), paddle.to_tensor(Y[:n])])


def model_for(lr=0.1, metrics=None, opt=None):
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 2))
    model = paddle.Model(net)
    model.prepare(opt(net) if opt else paddle.optimizer.SGD(learning_rate=lr, parameters=net.parameters()),
                  paddle.nn.CrossEntropyLoss(), metrics)
    return model


class Recorder(paddle.callbacks.Callback):
    """Every hook appends its name (and step / epoch)."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __getattribute__(self, name):
        if name.startswith("on_"):
            calls = object.__getattribute__(self, "calls")
            return lambda *args: calls.append((name, *[a for a in args if isinstance(a, int)]))
        return object.__getattribute__(self, name)


def test_hook_order_of_fit_evaluate_predict():
    model = model_for()
    rec = Recorder()
    model.fit(dataset(), dataset(12), batch_size=12, epochs=2, eval_freq=2, verbose=0, callbacks=rec)
    epoch = lambda e: [("on_epoch_begin", e), ("on_train_batch_begin", 0), ("on_train_batch_end", 0),  # noqa: E731
                       ("on_train_batch_begin", 1), ("on_train_batch_end", 1), ("on_epoch_end", e)]
    evaluation = [("on_eval_begin",), ("on_eval_batch_begin", 0), ("on_eval_batch_end", 0), ("on_eval_end",)]
    # eval_freq=2: evaluation after epochs 0, 2, 4, ...
    assert rec.calls == [("on_train_begin",), *epoch(0), *evaluation, *epoch(1), ("on_train_end",)]
    assert rec.params == {"batch_size": None, "epochs": 2, "steps": 2, "verbose": 0, "metrics": ["loss"]}
    assert rec.model is model
    rec.calls.clear()
    model.evaluate(dataset(12), batch_size=12, verbose=0, callbacks=[rec])
    assert rec.calls == evaluation
    rec.calls.clear()
    model.predict(dataset(12), batch_size=6, verbose=0, callbacks=[rec])
    assert rec.calls == [("on_predict_begin",), ("on_predict_batch_begin", 0), ("on_predict_batch_end", 0),
                         ("on_predict_batch_begin", 1), ("on_predict_batch_end", 1), ("on_predict_end",)]


def test_logs_given_to_hooks():
    logs_seen = {}

    class Keep(paddle.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            logs_seen["train"] = dict(logs)

        def on_eval_begin(self, logs=None):
            logs_seen["eval_begin"] = dict(logs)

        def on_eval_end(self, logs=None):
            logs_seen["eval_end"] = dict(logs)

    model = model_for(metrics=paddle.metric.Accuracy())
    model.fit(dataset(), dataset(), batch_size=8, epochs=1, verbose=0, callbacks=[Keep()])
    train = logs_seen["train"]
    assert set(train) == {"loss", "acc", "step", "batch_size"} and train["step"] == 2 and train["batch_size"] == 8
    assert isinstance(train["loss"], list) and isinstance(train["loss"][0], float)
    assert logs_seen["eval_begin"] == {"steps": 3, "metrics": ["loss", "acc"]}
    assert set(logs_seen["eval_end"]) == {"loss", "acc", "step", "batch_size"}


def test_default_callbacks_are_added_once():
    from dy2st.hapi.callbacks import config_callbacks
    mine = paddle.callbacks.ProgBarLogger(log_freq=3, verbose=1)
    cbks = config_callbacks([mine], verbose=2, save_dir="x", save_freq=4)
    kinds = [type(c).__name__ for c in cbks]
    assert kinds == ["ProgBarLogger", "ModelCheckpoint", "LRScheduler"] and cbks.callbacks[0] is mine
    assert cbks.callbacks[1].save_dir == "x" and cbks.callbacks[1].save_freq == 4
    assert [type(c).__name__ for c in config_callbacks(verbose=0)] == ["ModelCheckpoint", "LRScheduler"]
    with pytest.raises(TypeError, match="must be paddle.callbacks.Callback instances"):
        config_callbacks([print])


def test_early_stopping_stops_and_saves_best(tmp_path, capsys):
    model = model_for(lr=0.0)     # nothing changes: the first evaluation is the best, then no improvement
    stop = paddle.callbacks.EarlyStopping(monitor="loss", patience=2, verbose=1)
    rec = Recorder()
    model.fit(dataset(), dataset(), batch_size=12, epochs=10, verbose=0, save_dir=str(tmp_path), save_freq=100,
              callbacks=[stop, rec])
    assert sum(1 for c in rec.calls if c[0] == "on_epoch_begin") == 3
    assert stop.wait_epoch == 2 and model.stop_training
    assert (tmp_path / "best_model.pdparams").exists() and (tmp_path / "final.pdparams").exists()
    out = capsys.readouterr().out
    assert "Epoch 3: Early stopping." in out and "Best checkpoint has been saved at" in out


def test_early_stopping_modes_and_baseline():
    acc = paddle.callbacks.EarlyStopping(monitor="acc")
    assert acc.monitor_op is np.greater
    low = paddle.callbacks.EarlyStopping(monitor="loss", mode="min", min_delta=0.1)
    assert low.monitor_op is np.less and low.min_delta == -0.1
    with pytest.warns(UserWarning, match="mode sideways is unknown"):
        paddle.callbacks.EarlyStopping(mode="sideways")

    class Fake:
        stop_training = False

        def save(self, path):
            raise AssertionError("no save_dir: never saves")

    es = paddle.callbacks.EarlyStopping(monitor="acc", patience=1, baseline=0.9, verbose=0)
    es.set_model(Fake())
    es.on_train_begin()
    es.on_eval_end({"acc": 0.8})           # below the baseline: counts as no improvement
    assert es.model.stop_training and es.best_value == 0.9
    with pytest.warns(UserWarning, match="Monitor of EarlyStopping should be loss or metric name"):
        es.on_eval_end({"loss": [1.0]})


def test_early_stopping_without_eval_data_warns():
    with pytest.warns(UserWarning, match="EarlyStopping needs validation data"):
        model_for().fit(dataset(), batch_size=24, epochs=1, verbose=0,
                        callbacks=[paddle.callbacks.EarlyStopping()])


def test_model_checkpoint_every_save_freq_epochs(tmp_path, capsys):
    model_for().fit(dataset(), batch_size=12, epochs=5, verbose=0, save_dir=str(tmp_path), save_freq=2)
    names = sorted(p.name for p in tmp_path.iterdir())
    # plain SGD has no state: no .pdopt files
    assert names == ["0.pdparams", "2.pdparams", "4.pdparams", "final.pdparams"]
    assert f"save checkpoint at {tmp_path}/final" in capsys.readouterr().out


def test_lr_scheduler_by_step_and_by_epoch():
    def opt(net):
        return paddle.optimizer.SGD(learning_rate=paddle.optimizer.lr.StepDecay(1.0, step_size=1, gamma=0.5),
                                    parameters=net.parameters())

    model = model_for(opt=opt)
    model.fit(dataset(), batch_size=8, epochs=2, verbose=0)                      # default: every batch
    assert model._optimizer.get_lr() == pytest.approx(0.5 ** 6)
    model = model_for(opt=opt)
    model.fit(dataset(), batch_size=8, epochs=2, verbose=0,
              callbacks=[paddle.callbacks.LRScheduler(by_step=False, by_epoch=True)])
    assert model._optimizer.get_lr() == pytest.approx(0.5 ** 2)
    with pytest.raises(ValueError, match="mutually exclusive"):
        paddle.callbacks.LRScheduler(by_step=True, by_epoch=True)


def test_reduce_lr_on_plateau(capsys):
    model = model_for(lr=0.2)
    # min_delta=10: after the first evaluation no loss counts as an improvement
    cb = paddle.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=2, cooldown=1, min_lr=0.03,
                                            min_delta=10.0)
    model.fit(dataset(), dataset(), batch_size=24, epochs=8, verbose=0, callbacks=[cb])
    # evaluation 1 is the best; 2, 3 -> 0.1; 4 leaves the cooldown and waits; 5 -> 0.05; 7 -> 0.025 -> min_lr
    assert model._optimizer.get_lr() == pytest.approx(0.03)
    out = capsys.readouterr().out
    assert "Epoch 3: ReduceLROnPlateau reducing learning rate to 0.1." in out
    assert "Epoch 5: ReduceLROnPlateau reducing learning rate to 0.05." in out
    assert "Epoch 7: ReduceLROnPlateau reducing learning rate to 0.03." in out
    with pytest.raises(ValueError, match="factor >= 1.0"):
        paddle.callbacks.ReduceLROnPlateau(factor=1.0)


def test_reduce_lr_on_plateau_respects_min_lr_and_needs_a_float_rate():
    class Opt:
        _learning_rate = 0.04

        def get_lr(self):
            return self._learning_rate

    class Fake:
        _optimizer = Opt()

    cb = paddle.callbacks.ReduceLROnPlateau(patience=1, factor=0.5, min_lr=0.03, verbose=0)
    cb.set_model(Fake())
    cb.on_train_begin()
    for loss in (1.0, 1.0, 1.0, 1.0):
        cb.on_eval_end({"loss": [loss]})
    assert Fake._optimizer._learning_rate == 0.03
    Fake._optimizer._learning_rate = paddle.optimizer.lr.StepDecay(0.1, 1)
    with pytest.warns(UserWarning, match="Expected learning_rate be float"):
        cb.on_eval_end({"loss": [1.0]})


def test_csv_and_json_lines_loggers(tmp_path):
    csv_path, jsonl_path = tmp_path / "logs" / "train.csv", tmp_path / "train.jsonl"
    model = model_for(metrics=paddle.metric.Accuracy())
    model.fit(dataset(), dataset(), batch_size=12, epochs=2, verbose=0,
              callbacks=[paddle.callbacks.CSVLogger(str(csv_path)), paddle.callbacks.JSONLinesLogger(jsonl_path)])
    rows = list(csv.reader(open(csv_path)))
    assert rows[0] == ["mode", "epoch", "loss", "acc"]
    assert [r[:2] for r in rows[1:]] == [["train", "0"], ["eval", "0"], ["train", "1"], ["eval", "1"]]
    records = [json.loads(line) for line in open(jsonl_path)]
    assert [(r["mode"], r["epoch"]) for r in records] == [("train", 0), ("eval", 0), ("train", 1), ("eval", 1)]
    for row, rec in zip(rows[1:], records):
        assert float(row[2]) == pytest.approx(rec["loss"]) and float(row[3]) == pytest.approx(rec["acc"])
    result = model.evaluate(dataset(), batch_size=24, verbose=0, callbacks=[paddle.callbacks.JSONLinesLogger(
        jsonl_path, append=True)])
    last = json.loads(open(jsonl_path).read().splitlines()[-1])
    assert last == {"mode": "eval", "epoch": None, "loss": pytest.approx(result["loss"][0]),
                    "acc": pytest.approx(result["acc"])}
    # a new logger without append starts a new file
    model.evaluate(dataset(), batch_size=24, verbose=0, callbacks=[paddle.callbacks.CSVLogger(str(csv_path))])
    assert len(list(csv.reader(open(csv_path)))) == 2


def test_visualdl_and_wandb_name_their_packages(monkeypatch):
    monkeypatch.setitem(sys.modules, "visualdl", None)    # None in sys.modules: import fails
    monkeypatch.setitem(sys.modules, "wandb", None)
    with pytest.raises(ImportError, match="needs the 'visualdl' package.*pip install visualdl"):
        paddle.callbacks.VisualDL("logs")
    with pytest.raises(ImportError, match="needs the 'wandb' package.*pip install wandb"):
        paddle.callbacks.WandbCallback(project="p")


def test_visualdl_writes_scalars_through_its_log_writer(monkeypatch):
    written = []

    class LogWriter:
        def __init__(self, logdir):
            self.logdir = logdir

        def add_scalar(self, tag, step, value):
            written.append((tag, step, value))

        def close(self):
            written.append("closed")

    monkeypatch.setitem(sys.modules, "visualdl", types.SimpleNamespace(LogWriter=LogWriter))
    model = model_for(metrics=paddle.metric.Accuracy())
    model.fit(dataset(), dataset(), batch_size=12, epochs=1, verbose=0, callbacks=[paddle.callbacks.VisualDL("d")])
    tags = [w[:2] for w in written if w != "closed"]
    assert tags == [("train/loss", 1), ("train/acc", 1), ("train/loss", 2), ("train/acc", 2),
                    ("eval/loss", 0), ("eval/acc", 0)]
    assert written[-1] == "closed"


def test_wandb_logs_through_its_run(monkeypatch):
    logged = []

    class Run:
        def define_metric(self, *args, **kwargs):
            pass

        def log(self, record):
            logged.append(record)

        def finish(self):
            logged.append("finished")

    fake = types.SimpleNamespace(run=None, init=lambda **kw: Run())
    monkeypatch.setitem(sys.modules, "wandb", fake)
    model = model_for()
    model.fit(dataset(), dataset(), batch_size=24, epochs=1, verbose=0,
              callbacks=[paddle.callbacks.WandbCallback(project="p")])
    assert [sorted(r) if r != "finished" else r for r in logged] == [["train/loss", "train/step"],
                                                                    ["epoch", "eval/loss"], "finished"]
