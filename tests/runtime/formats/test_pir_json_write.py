"""Writing Paddle 3's PIR format: ``paddle.jit.save`` with ``FLAGS_enable_pir_api`` / ``legacy_format=False``,
``save_inference_model(legacy_format=False)``, ``dy2st export --format pir``; our reader gets the same
outputs back, the set is saved crash-safely, and the two formats never coexist at one prefix after a
save. (Real Paddle loading these files: tests/interop/test_pir_interop.py.)
"""
import os
import pathlib
import types

import numpy as np
import pytest

import dy2st as paddle
from runtime.formats import pir_write
from runtime.formats.model_io import load_model, model_paths, pir_model_path, save_model
from runtime.utils import file_set

FIXTURE_MODELS = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "pir_fixture_models.py"
MODEL_NAMES = ["mlp", "cnn_bn", "tensor_if", "tensor_while", "lstm", "transformer", "two_io", "dynamic_batch",
               "op_zoo", "nested_control", "tensor_array"]


def our_models():
    """The fixture models' source (written for real Paddle) run with ``import dy2st as paddle``."""
    src = FIXTURE_MODELS.read_text()
    for a, b in (("import paddle.nn.functional as F", "import dy2st.nn.functional as F"),
                 ("import paddle.nn as nn", "import dy2st.nn as nn"),
                 ("from paddle.static import", "from dy2st.static import"), ("import paddle\n", "import dy2st as paddle\n")):
        assert a in src
        src = src.replace(a, b)
    mod = types.ModuleType("dy2st_pir_fixture_models")
    mod.__file__ = str(FIXTURE_MODELS)
    exec(compile(src, str(FIXTURE_MODELS), "exec"), mod.__dict__)
    return mod


def as_list(o):
    return list(o) if isinstance(o, (list, tuple)) else [o]


@pytest.fixture
def pir_flag():
    paddle.set_flags({"FLAGS_enable_pir_api": True})
    yield
    paddle.set_flags({"FLAGS_enable_pir_api": False})


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_save_pir_and_load_back(name, tmp_path, pir_flag):
    layer, specs, cases = our_models().build(name)
    prefix = str(tmp_path / name)
    paddle.jit.save(layer, prefix, input_spec=specs)
    assert sorted(os.listdir(tmp_path)) == [f"{name}.json", f"{name}.pdiparams"]
    loaded = paddle.jit.load(prefix)
    for ins in cases:
        want = as_list(layer(*[paddle.to_tensor(a) for a in ins]))
        got = as_list(loaded(*[paddle.to_tensor(a) for a in ins]))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def test_default_and_explicit_options(tmp_path):
    layer, specs, _ = our_models().build("mlp")
    assert paddle.get_flags("FLAGS_enable_pir_api") == {"FLAGS_enable_pir_api": False}
    paddle.jit.save(layer, str(tmp_path / "a"), input_spec=specs)
    assert sorted(os.listdir(tmp_path)) == ["a.pdiparams", "a.pdiparams.info", "a.pdmodel"]
    paddle.jit.save(layer, str(tmp_path / "b"), input_spec=specs, legacy_format=False)
    assert (tmp_path / "b.json").exists() and not (tmp_path / "b.pdmodel").exists()
    with pytest.raises(TypeError):
        paddle.jit.save(layer, str(tmp_path / "c"), input_spec=specs, legacy_format="no")
    with pytest.raises(ValueError):
        paddle.set_flags({"FLAGS_no_such_flag": 1})


def test_switching_format_replaces_the_other_program(tmp_path, pir_flag):
    layer, specs, cases = our_models().build("tensor_if")
    prefix = str(tmp_path / "m")
    paddle.jit.save(layer, prefix, input_spec=specs, legacy_format=True)
    assert os.path.exists(prefix + ".pdmodel") and os.path.exists(prefix + ".pdiparams.info")
    paddle.jit.save(layer, prefix, input_spec=specs)
    assert sorted(os.listdir(tmp_path)) == ["m.json", "m.pdiparams"]
    paddle.jit.save(layer, prefix, input_spec=specs, legacy_format=True)
    assert sorted(os.listdir(tmp_path)) == ["m.pdiparams", "m.pdiparams.info", "m.pdmodel"]


def test_resave_a_loaded_paddle_model(tmp_path, pir_flag):
    fixtures = FIXTURE_MODELS.parent / "paddle-3.3.1-pir" / "tensor_while"
    layer = paddle.jit.load(str(fixtures / "model"))
    paddle.jit.save(layer, str(tmp_path / "again"))
    x = np.load(fixtures / "case0_in0.npy")
    np.testing.assert_allclose(paddle.jit.load(str(tmp_path / "again"))(paddle.to_tensor(x)).numpy(),
                               np.load(fixtures / "case0_out0.npy"), rtol=1e-5, atol=1e-6)


def test_save_inference_model_pir(tmp_path):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 3], "float32")
            y = paddle.nn.functional.relu(paddle.static.nn.fc(x, 2))
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        xv = np.random.RandomState(0).randn(4, 3).astype("float32")
        want = exe.run(main, feed={"x": xv}, fetch_list=[y])[0]
        prefix = str(tmp_path / "inf")
        paddle.static.save_inference_model(prefix, [x], [y], exe, program=main, legacy_format=False)
        assert sorted(os.listdir(tmp_path)) == ["inf.json", "inf.pdiparams"]
        with paddle.static.scope_guard(paddle.static.Scope()):
            prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
            got = exe.run(prog, feed={feeds[0]: xv}, fetch_list=fetches)[0]
        np.testing.assert_allclose(got, want, rtol=1e-6)
    finally:
        paddle.disable_static()


def test_op_without_lowering_fails_before_touching_files(tmp_path, monkeypatch, pir_flag):
    layer, specs, _ = our_models().build("mlp")
    prefix = str(tmp_path / "m")
    paddle.jit.save(layer, prefix, input_spec=specs, legacy_format=True)
    before = {p: open(p, "rb").read() for p in model_paths(prefix)}
    monkeypatch.delitem(pir_write.WRITABLE_OPS, "relu")
    with pytest.raises(ValueError, match="relu"):
        paddle.jit.save(layer, prefix, input_spec=specs)
    assert {p: open(p, "rb").read() for p in model_paths(prefix)} == before
    assert not os.path.exists(pir_model_path(prefix))


def _saved(name):
    layer, specs, cases = our_models().build(name)
    from dy2st.jit_io import inference_program
    program, feeds, fetches, values, _ = inference_program(layer, specs)
    return program, feeds, fetches, values


@pytest.mark.parametrize("when", ["before_commit", "after_commit"])
def test_pir_save_is_crash_safe(tmp_path, monkeypatch, when):
    """A save killed before its commit leaves the old (legacy) model; after it, loads see the new PIR one."""
    prefix = str(tmp_path / "m")
    old = _saved("mlp")
    save_model(prefix, *old)
    new = _saved("two_io")
    real_replace = os.replace
    calls = []

    def failing_replace(src, dst):
        calls.append(dst)
        commit = dst.endswith(file_set.JOURNAL_SUFFIX)
        if (when == "before_commit" and commit) or (when == "after_commit" and not commit):
            raise OSError("simulated crash")
        return real_replace(src, dst)
    monkeypatch.setattr(file_set.os, "replace", failing_replace)
    with pytest.raises(OSError):
        save_model(prefix, *new, format="pir")
    monkeypatch.setattr(file_set.os, "replace", real_replace)
    loaded = load_model(prefix)
    if when == "before_commit":
        assert loaded.feed_names == old[1]
        assert not os.path.exists(pir_model_path(prefix))
    else:
        assert loaded.feed_names == new[1]
        assert sorted(n for n in os.listdir(tmp_path) if not n.startswith(".")) == ["m.json", "m.pdiparams"]


def test_cli_export_pir(tmp_path, capsys):
    from dy2st.cli.main import main
    script = tmp_path / "net.py"
    script.write_text("import dy2st as paddle\n\n"
                      "class Net(paddle.nn.Layer):\n"
                      "    def __init__(self):\n"
                      "        super().__init__()\n"
                      "        self.fc = paddle.nn.Linear(3, 2)\n\n"
                      "    def forward(self, x):\n"
                      "        return paddle.nn.functional.sigmoid(self.fc(x))\n")
    out = tmp_path / "out" / "net"
    assert main(["export", f"{script}:Net", "-i", "x:float32[None,3]", "-o", str(out), "--format", "pir"]) == 0
    assert "net.json" in capsys.readouterr().out
    assert sorted(os.listdir(out.parent)) == ["net.json", "net.pdiparams"]
    layer = paddle.jit.load(str(out))
    assert layer(paddle.ones([2, 3])).shape == [2, 2]
