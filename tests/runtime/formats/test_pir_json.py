"""Reading Paddle 3's default model format (PIR ``.json`` + ``.pdiparams``) written by real Paddle 3.3.1.

The fixtures (tests/fixtures/paddle-3.3.1-pir, made by tests/fixtures/make_pir_fixtures.py) hold
the files of an MLP, a CNN with batch norm, a tensor if, a tensor while, an LSTM, a Transformer
encoder layer, a two-input/two-output model, a dynamic-batch reshape, an "op zoo" of small ops, an if nested in a while and a tensor array
filled in a while,
with inputs and the outputs
real Paddle computed from those files. Every loader (jit.load, load_inference_model, load_model,
the CLI, ONNX export) must reproduce them; a loaded model fine-tunes like a loaded .pdmodel.
"""
import glob
import json
import os
import pathlib
import shutil

import numpy as np
import pytest

import dy2st as paddle
from runtime.formats.errors import ModelFormatError
from runtime.formats.model_io import load_model, program_path

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "paddle-3.3.1-pir"
MODELS = sorted(p.name for p in FIXTURES.iterdir() if (p / "model.json").exists())


def cases(model):
    d = FIXTURES / model
    out, c = [], 0
    while (d / f"case{c}_in0.npy").exists():
        ins = [np.load(p) for p in sorted(glob.glob(str(d / f"case{c}_in*.npy")))]
        outs = [np.load(p) for p in sorted(glob.glob(str(d / f"case{c}_out*.npy")))]
        out.append((ins, outs))
        c += 1
    return out


def as_list(o):
    return list(o) if isinstance(o, (list, tuple)) else [o]


def test_fixture_set_is_complete():
    assert set(MODELS) == {"mlp", "cnn_bn", "tensor_if", "tensor_while", "lstm", "transformer", "two_io",
                           "dynamic_batch", "op_zoo", "nested_control", "tensor_array"}
    for m in MODELS:
        assert not (FIXTURES / m / "model.pdmodel").exists() and not (FIXTURES / m / "model.pdiparams.info").exists()
        assert json.loads((FIXTURES / m / "model.json").read_text())["base_code"]["magic"] == "pir"
        assert cases(m)
    total = sum(p.stat().st_size for p in FIXTURES.rglob("*") if p.is_file())
    assert total < 2 * 1024 * 1024


@pytest.mark.parametrize("model", MODELS)
def test_jit_load_matches_paddle(model):
    layer = paddle.jit.load(str(FIXTURES / model / "model"))
    for ins, want in cases(model):
        got = as_list(layer(*[paddle.to_tensor(a) for a in ins]))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == list(w.shape)
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-5)


def test_both_branches_and_batch_sizes_are_covered():
    (a, ya), (b, yb) = cases("tensor_if")
    # the two cases take different branches: y*2 (then) vs y-1 (else) of the same linear layer
    assert not np.allclose(ya[0], yb[0])
    sizes = {ins[0].shape[0] for ins, _ in cases("dynamic_batch")}
    assert len(sizes) == 2


@pytest.mark.parametrize("model", ["mlp", "tensor_while", "two_io"])
def test_load_inference_model(model, tmp_path):
    paddle.enable_static()
    try:
        exe = paddle.static.Executor(paddle.CPUPlace())
        with paddle.static.scope_guard(paddle.static.Scope()):
            prog, feeds, fetches = paddle.static.load_inference_model(str(FIXTURES / model / "model"), exe)
            for ins, want in cases(model):
                got = exe.run(prog, feed=dict(zip(feeds, ins)), fetch_list=fetches)
                for g, w in zip(got, want):
                    np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    finally:
        paddle.disable_static()


def test_parameters_bind_by_sorted_name():
    """The .pdiparams of a PIR save has no .info: tensors are the persistable parameters sorted by name."""
    loaded = load_model(str(FIXTURES / "cnn_bn" / "model"))
    assert list(loaded.params) == sorted(loaded.params)
    # the fixture set the batch norm's running mean / variance (buffers w_1 / w_2, not trainable)
    mean = [v for k, v in loaded.params.items() if k.endswith(".w_1") and "batch_norm" in k][0]
    np.testing.assert_allclose(mean, [0.1, -0.2])
    gb = loaded.program.global_block()
    trainable = {n for n in loaded.params if getattr(gb.vars[n], "trainable", False)}
    assert {n for n in loaded.params if "batch_norm" in n and n.endswith((".w_1", ".w_2"))}.isdisjoint(trainable)
    assert any(n.startswith("conv2d") for n in trainable)


def test_lstm_dropout_state_is_not_a_parameter():
    loaded = load_model(str(FIXTURES / "lstm" / "model"))
    assert not any("dropout_state" in n for n in loaded.params)


@pytest.mark.parametrize("model", ["mlp", "cnn_bn", "transformer"])
def test_fine_tune(model):
    layer = paddle.jit.load(str(FIXTURES / model / "model"))
    layer.train()
    ins, want = cases(model)[0]
    x = [paddle.to_tensor(a) for a in ins]
    target = paddle.to_tensor(want[0] * 0.5)
    opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=layer.parameters())
    losses = []
    for _ in range(5):
        loss = ((as_list(layer(*x))[0] - target) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]


def test_onnx_export_matches(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    from dy2st.cli.main import main
    for model in ("cnn_bn", "tensor_if", "lstm"):
        out = tmp_path / f"{model}.onnx"
        assert main(["onnx", str(FIXTURES / model / "model"), "-o", str(out)]) == 0
        sess = ort.InferenceSession(str(out))
        for ins, want in cases(model):
            got = sess.run(None, {i.name: a for i, a in zip(sess.get_inputs(), ins)})
            np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)


def test_cli_inspect_and_run(tmp_path, capsys):
    from dy2st.cli.main import main
    d = FIXTURES / "two_io"
    assert main(["inspect", str(d / "model.json")]) == 0
    assert "model.json" in capsys.readouterr().out
    assert main(["inspect", str(d)]) == 0            # a directory holding one PIR model
    capsys.readouterr()
    args = ["run", str(d / "model"), "-o", str(tmp_path)]
    for k in range(2):
        args += ["-i", f"{'xy'[k]}={d / f'case0_in{k}.npy'}"]
    assert main(args) == 0
    outs = sorted(tmp_path.glob("*.npy"))
    assert len(outs) == 2


def _copy(model, tmp_path):
    d = tmp_path / model
    shutil.copytree(FIXTURES / model, d)
    return d


def test_unknown_op_names_op_and_file(tmp_path):
    d = _copy("mlp", tmp_path)
    text = (d / "model.json").read_text().replace('"1.relu"', '"1.frobnicate"')
    (d / "model.json").write_text(text)
    with pytest.raises(ModelFormatError) as e:
        paddle.jit.load(str(d / "model"))
    assert "pd_op.frobnicate" in str(e.value) and str(d / "model.json") in str(e.value)


def test_wrong_parameter_file_is_a_clear_error(tmp_path):
    d = _copy("mlp", tmp_path)
    shutil.copy(FIXTURES / "cnn_bn" / "model.pdiparams", d / "model.pdiparams")
    with pytest.raises(ModelFormatError) as e:
        load_model(str(d / "model"))
    assert "model.pdiparams" in str(e.value)


def test_newer_program_wins_when_both_formats_exist(tmp_path):
    d = _copy("mlp", tmp_path)
    prefix = str(d / "model")
    layer = paddle.jit.load(prefix)
    paddle.jit.save(layer, str(tmp_path / "legacy"))           # a .pdmodel of a different model
    other = _copy("tensor_if", tmp_path)
    shutil.copy(other / "model.json", d / "model.pdmodel.json")   # unrelated file: ignored
    shutil.copy(tmp_path / "legacy.pdmodel", d / "model.pdmodel")
    os.utime(d / "model.pdmodel", ns=(1, 1))
    assert program_path(prefix).endswith(".json")
    x = cases("mlp")[0][0][0]
    np.testing.assert_allclose(paddle.jit.load(prefix)(paddle.to_tensor(x)).numpy(), cases("mlp")[0][1][0],
                               rtol=1e-5, atol=1e-6)
    os.utime(d / "model.json", ns=(0, 0))
    assert program_path(prefix).endswith(".pdmodel")


def test_missing_files_name_both_formats(tmp_path):
    with pytest.raises(ModelFormatError) as e:
        load_model(str(tmp_path / "nothing"))
    assert "file not found" in str(e.value) and ".json" in str(e.value)
    d = _copy("mlp", tmp_path)
    os.remove(d / "model.pdiparams")
    with pytest.raises(ModelFormatError) as e:
        load_model(str(d / "model"))
    assert "model.pdiparams" in str(e.value)


def test_in_memory_bytes_are_recognized():
    from runtime.formats.model_io import load_model_from_bytes
    d = FIXTURES / "mlp"
    loaded = load_model_from_bytes((d / "model.json").read_bytes(), (d / "model.pdiparams").read_bytes())
    assert loaded.feed_names == ["x"] and len(loaded.fetch_names) == 1
