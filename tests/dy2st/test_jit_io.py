"""jit.save / jit.load / TranslatedLayer: round trips, fine-tuning, bad input, atomicity."""
import os
import pickle

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from runtime.formats.errors import ModelFormatError

from .jit_models import MODELS, build


def _eager(model, inputs):
    with paddle.no_grad():
        out = model(*[paddle.to_tensor(a) for a in inputs])
    return out.numpy()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_save_load_round_trip(name, tmp_path):
    model, specs, inputs = build(name)
    prefix = str(tmp_path / name / "model")
    paddle.jit.save(model, prefix, input_spec=specs)
    assert all(os.path.exists(prefix + ext) for ext in (".pdmodel", ".pdiparams", ".pdiparams.info"))
    if name == "no_params":
        assert os.path.getsize(prefix + ".pdiparams") == 0
    loaded = paddle.jit.load(prefix)
    assert isinstance(loaded, paddle.jit.TranslatedLayer) and not loaded.training
    for args in inputs:
        got = loaded(*[paddle.to_tensor(a) for a in args]).numpy()
        np.testing.assert_allclose(got, _eager(model, args), rtol=1e-5, atol=1e-6)
    # re-saving a loaded model gives the same outputs again
    prefix2 = str(tmp_path / name / "again")
    paddle.jit.save(loaded, prefix2)
    again = paddle.jit.load(prefix2)
    for args in inputs:
        np.testing.assert_allclose(again(*[paddle.to_tensor(a) for a in args]).numpy(), _eager(model, args),
                                   rtol=1e-5, atol=1e-6)


def test_translated_layer_api(tmp_path):
    model, specs, _ = build("bn_eval")
    paddle.jit.save(model, str(tmp_path / "m"), input_spec=specs)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    names = [n for n, _ in loaded.named_parameters()]
    assert names == [f"param_{k}" for k in range(len(names))]
    var_names = sorted(t.name for t in model.state_dict().values())
    assert [p.name for p in loaded.parameters()] == var_names
    assert set(loaded.state_dict()) == set(names)
    prog = loaded.program()
    assert "matmul_v2" in [op.type for op in prog.global_block().ops]
    sd = {k: v.numpy() * 0 for k, v in loaded.state_dict().items()}
    loaded.set_state_dict(sd)
    assert all((p.numpy() == 0).all() for p in loaded.parameters())


def test_fine_tune_loaded_model(tmp_path):
    model, specs, _ = build("mlp")
    paddle.jit.save(model, str(tmp_path / "m"), input_spec=specs)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    loaded.train()
    rng = np.random.RandomState(0)
    x = paddle.to_tensor(rng.randn(32, 16).astype("float32"))
    target = paddle.to_tensor(np.eye(10, dtype="float32")[rng.randint(0, 10, 32)])
    opt = paddle.optimizer.SGD(learning_rate=5.0, parameters=loaded.parameters())
    losses = []
    for _ in range(15):
        loss = ((loaded(x) - target) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    assert losses[-1] < losses[0] * 0.8, losses
    loaded.eval()
    tuned = loaded(x).numpy()
    paddle.jit.save(loaded, str(tmp_path / "tuned"))
    np.testing.assert_allclose(paddle.jit.load(str(tmp_path / "tuned"))(x).numpy(), tuned, rtol=1e-6)


def test_wrong_inputs_name_the_input(tmp_path):
    model, specs, _ = build("two_inputs")
    paddle.jit.save(model, str(tmp_path / "m"), input_spec=specs)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    x, y = paddle.ones([2, 4]), paddle.ones([2, 5])
    with pytest.raises(ValueError, match=r"input 1 \('y'\).*shape \[None, 5\].*got \[2, 6\]"):
        loaded(x, paddle.ones([2, 6]))
    with pytest.raises(ValueError, match=r"input 0 \('x'\).*got \[4\]"):
        loaded(paddle.ones([4]), y)
    with pytest.raises(TypeError, match=r"input 0 \('x'\).*dtype float32, got float64"):
        loaded(paddle.ones([2, 4], "float64"), y)
    with pytest.raises(TypeError, match="takes 2 input"):
        loaded(x)


def test_save_needs_a_spec_or_a_call(tmp_path):
    model, _, _ = build("linear_relu")
    with pytest.raises(ValueError, match="input_spec is required"):
        paddle.jit.save(model, str(tmp_path / "m"))
    model(paddle.ones([2, 8]))   # eager call: no traced program either
    with pytest.raises(ValueError, match="input_spec is required"):
        paddle.jit.save(model, str(tmp_path / "m"))
    with pytest.raises(ValueError, match="file_prefix is empty string"):
        paddle.jit.save(model, str(tmp_path) + "/", input_spec=[InputSpec([None, 8])])


def test_save_to_the_name_of_an_existing_directory_uses_it_as_prefix(tmp_path):
    # as Paddle: path 'out' writes out.pdmodel ... beside the directory 'out'
    model, _, _ = build("linear_relu")
    (tmp_path / "out").mkdir()
    paddle.jit.save(model, str(tmp_path / "out"), input_spec=[InputSpec([None, 8])])
    assert (tmp_path / "out.pdmodel").is_file() and (tmp_path / "out.pdiparams").is_file()


def test_save_after_to_static_call_uses_its_spec(tmp_path):
    model, _, _ = build("linear_relu")
    static = paddle.jit.to_static(model, input_spec=[InputSpec([None, 8], "float32", "x")])
    static(paddle.ones([3, 8]))
    paddle.jit.save(static, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(paddle.ones([7, 8])).numpy(), model(paddle.ones([7, 8])).numpy(), rtol=1e-6)


def test_save_a_function(tmp_path):
    def f(x):
        return paddle.nn.functional.relu(x) * 3.0

    paddle.jit.save(f, str(tmp_path / "f"), input_spec=[InputSpec([None, 2], "float32", "x")])
    loaded = paddle.jit.load(str(tmp_path / "f"))
    x = paddle.to_tensor(np.array([[-1.0, 2.0]], "float32"))
    np.testing.assert_allclose(loaded(x).numpy(), [[0.0, 6.0]])


def test_save_keeps_training_mode_and_writes_eval_program(tmp_path):
    paddle.seed(0)
    model = paddle.nn.Sequential(paddle.nn.Linear(4, 4), paddle.nn.Dropout(0.5))
    model.train()
    paddle.jit.save(model, str(tmp_path / "m"), input_spec=[InputSpec([None, 4], "float32", "x")])
    assert model.training
    loaded = paddle.jit.load(str(tmp_path / "m"))
    x = paddle.ones([3, 4])
    model.eval()
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)


def test_load_errors_are_model_format_errors(tmp_path):
    with pytest.raises(ModelFormatError, match="not found"):
        paddle.jit.load(str(tmp_path / "missing"))
    model, specs, _ = build("linear_relu")
    prefix = str(tmp_path / "m")
    paddle.jit.save(model, prefix, input_spec=specs)
    data = open(prefix + ".pdiparams", "rb").read()
    open(prefix + ".pdiparams", "wb").write(data[:-3])
    with pytest.raises(ModelFormatError, match="pdiparams"):
        paddle.jit.load(prefix)


def test_malicious_info_pickle_runs_nothing(tmp_path):
    model, specs, _ = build("linear_relu")
    prefix = str(tmp_path / "m")
    paddle.jit.save(model, prefix, input_spec=specs)
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    with open(prefix + ".pdiparams.info", "wb") as f:
        pickle.dump({"x": Evil()}, f)
    with pytest.raises(Exception) as ei:
        paddle.jit.load(prefix)
    assert isinstance(ei.value, (ModelFormatError,)) or "pickle" in str(ei.value).lower()
    assert not marker.exists()


def test_interrupted_save_keeps_the_old_model(tmp_path, monkeypatch):
    model, specs, inputs = build("linear_relu")
    prefix = str(tmp_path / "m")
    paddle.jit.save(model, prefix, input_spec=specs)
    before = {ext: open(prefix + ext, "rb").read() for ext in (".pdmodel", ".pdiparams", ".pdiparams.info")}
    import runtime.formats.model_io as mio

    def boom(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr(mio.os, "replace", boom)
    other, _, _ = build("linear_relu", seed=5)
    with pytest.raises(OSError, match="disk full"):
        paddle.jit.save(other, prefix, input_spec=specs)
    after = {ext: open(prefix + ext, "rb").read() for ext in before}
    assert after == before
    assert sorted(os.listdir(tmp_path)) == ["m.pdiparams", "m.pdiparams.info", "m.pdmodel"]


FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "paddle-3.3.1")


@pytest.mark.parametrize("name", sorted(os.listdir(FIXTURES)))
def test_jit_load_reads_real_paddle_files(name, tmp_path):
    d = os.path.join(FIXTURES, name)
    loaded = paddle.jit.load(os.path.join(d, "model"))
    for tag in ("", "_neg"):
        ins = sorted(f for f in os.listdir(d) if f.startswith("model.ref_in") and f.endswith(tag + ".npy")
                     and (tag or "neg" not in f))
        outs = sorted(f for f in os.listdir(d) if f.startswith("model.ref_out") and f.endswith(tag + ".npy")
                      and (tag or "neg" not in f))
        if not ins:
            continue
        got = loaded(*[np.load(os.path.join(d, f)) for f in ins])
        got = got if isinstance(got, list) else [got]
        for g, f in zip(got, outs):
            np.testing.assert_allclose(g.numpy(), np.load(os.path.join(d, f)), rtol=1e-5, atol=1e-6)
    # and re-saving with our writer gives files we read back identically
    paddle.jit.save(loaded, str(tmp_path / "again"))
    assert paddle.jit.load(str(tmp_path / "again")).program().global_block().ops
