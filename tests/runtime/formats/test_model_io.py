"""save_model / load_model: the trio written atomically, and every mismatch between the files
raising a ModelFormatError that names the file."""
import os
import pathlib
import pickle
import shutil

import numpy as np
import pytest

import runtime
from runtime import static
from runtime.formats import model_io
from runtime.formats.model_io import ModelFormatError, load_model, load_model_from_bytes, save_model
from runtime.formats.pdiparams import tensor_to_bytes
from runtime.static.program import Parameter

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "paddle-3.3.1"


@pytest.fixture
def static_mode():
    runtime.enable_static()
    try:
        yield
    finally:
        runtime.disable_static()


@pytest.fixture
def fixture_copy(tmp_path):
    def copy(name):
        d = tmp_path / name
        shutil.copytree(FIXTURES / name, d)
        return d / "model"
    return copy


def linear(static_mode_unused=None):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        y = static.nn.fc(x, 2, activation="relu")
    scope = static.Scope()
    static.Executor().run(startup, scope=scope)
    params = {p.name: scope.vars[p.name] for p in main.all_parameters()}
    return main, x, y, params


def test_save_and_load(static_mode, tmp_path):
    main, x, y, params = linear()
    prefix = tmp_path / "sub" / "m"
    save_model(prefix, main, [x.name], [y], params)
    assert sorted(os.listdir(tmp_path / "sub")) == ["m.pdiparams", "m.pdiparams.info", "m.pdmodel"]
    m = load_model(prefix)
    assert m.feed_names == ["x"] and m.fetch_names == [y.name]
    assert sorted(m.params) == sorted(params)
    for k in params:
        np.testing.assert_array_equal(m.params[k], params[k])
    assert {k: set(v) for k, v in m.info.items()} == {k: {"stop_gradient", "structured_name", "trainable"}
                                                      for k in params}
    assert all(isinstance(v, Parameter) for v in m.program.all_parameters()) and len(m.program.all_parameters()) == 2
    xv = np.random.default_rng(0).random((4, 3)).astype(np.float32)
    scope = static.Scope()
    scope.vars.update(params)
    exe = static.Executor()
    np.testing.assert_array_equal(exe.run(m.program, feed={"x": xv}, fetch_list=m.fetch_names, scope=scope)[0],
                                  exe.run(main, feed={"x": xv}, fetch_list=[y], scope=scope)[0])


def test_parameterless_model_writes_an_empty_params_file(static_mode, tmp_path):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        y = x * 2.0 + 1.0
    save_model(tmp_path / "m", main, ["x"], [y], {})
    assert (tmp_path / "m.pdiparams").read_bytes() == b""
    assert pickle.loads((tmp_path / "m.pdiparams.info").read_bytes()) == {}
    assert load_model(tmp_path / "m").params == {}
    os.remove(tmp_path / "m.pdiparams")   # also accepted, as by jit.load
    assert load_model(tmp_path / "m").params == {}


def test_write_info_false_removes_a_stale_info(static_mode, tmp_path):
    main, x, y, params = linear()
    save_model(tmp_path / "m", main, ["x"], [y], params)
    save_model(tmp_path / "m", main, ["x"], [y], params, write_info=False)
    assert not (tmp_path / "m.pdiparams.info").exists()


def test_interrupted_save_keeps_the_old_model(static_mode, tmp_path, monkeypatch):
    main, x, y, params = linear()
    save_model(tmp_path / "m", main, ["x"], [y], params)
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}

    def boom(*a, **k):
        raise KeyboardInterrupt("power cut")
    monkeypatch.setattr(model_io.os, "replace", boom)
    params2 = {k: v + 1 for k, v in params.items()}
    with pytest.raises(KeyboardInterrupt):
        save_model(tmp_path / "m", main, ["x"], [y], params2)
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before   # temporaries removed, files intact


def test_save_checks_the_params(static_mode, tmp_path):
    main, x, y, params = linear()
    name = sorted(params)[0]
    with pytest.raises(ValueError, match="no value for the persistable variable"):
        save_model(tmp_path / "m", main, ["x"], [y], {})
    bad = dict(params, **{name: params[name].astype(np.float64)})
    with pytest.raises(ValueError, match=f"'{name}' has dtype float64"):
        save_model(tmp_path / "m", main, ["x"], [y], bad)
    bad = dict(params, **{name: np.zeros((7, 7), np.float32)})
    with pytest.raises(ValueError, match=f"'{name}' has shape"):
        save_model(tmp_path / "m", main, ["x"], [y], bad)
    assert not list(tmp_path.iterdir())


# -- loading bad trios ---------------------------------------------------------------------------------

def _expect(prefix, suffix, match):
    with pytest.raises(ModelFormatError, match=match) as e:
        load_model(prefix)
    assert str(e.value).startswith(str(prefix) + suffix + ": ")


def test_params_file_shorter_or_longer(fixture_copy):
    prefix = fixture_copy("linear_relu")
    p = pathlib.Path(str(prefix) + ".pdiparams")
    data = p.read_bytes()
    p.write_bytes(data[:-4])
    _expect(prefix, ".pdiparams", "truncated")
    p.write_bytes(data + tensor_to_bytes(np.ones(2, np.float32)))
    _expect(prefix, ".pdiparams", "trailing bytes")
    p.unlink()
    _expect(prefix, ".pdiparams", "file not found")


def test_params_dtype_mismatch(fixture_copy):
    prefix = fixture_copy("linear_relu")
    p = pathlib.Path(str(prefix) + ".pdiparams")
    p.write_bytes(tensor_to_bytes(np.zeros(3, np.float64)) + p.read_bytes()[36:])
    _expect(prefix, ".pdiparams", "parameter 'linear_0.b_0': stored data type FP64 does not match")


def test_wrong_magic_and_bad_protobuf(fixture_copy):
    prefix = fixture_copy("linear_relu")
    p = pathlib.Path(str(prefix) + ".pdiparams")
    p.write_bytes(b"\x07" + p.read_bytes()[1:])
    _expect(prefix, ".pdiparams", "unsupported DenseTensor version")
    m = pathlib.Path(str(prefix) + ".pdmodel")
    m.write_bytes(b"PK\x03\x04" + m.read_bytes())
    _expect(prefix, ".pdmodel", "not a valid ProgramDesc")
    m.unlink()
    _expect(prefix, ".pdmodel", "file not found")


def test_info_problems(fixture_copy):
    prefix = fixture_copy("linear_relu")
    i = pathlib.Path(str(prefix) + ".pdiparams.info")
    i.write_bytes(pickle.dumps({"linear_0.w_0": {"stop_gradient": False}}, protocol=2))
    _expect(prefix, ".pdiparams.info", "'linear_0.b_0'.*not complete")
    i.write_bytes(b"\x80\x02cos\nsystem\nq\x00.")
    _expect(prefix, ".pdiparams.info", "refusing to load the global 'os.system'")
    i.unlink()   # the info file is optional
    m = load_model(prefix)
    assert m.info == {} and not m.program.all_parameters()


def test_buffers_stay_plain_persistable_vars(fixture_copy):
    m = load_model(fixture_copy("two_inputs_bn"))
    gb = m.program.global_block()
    # BatchNorm statistics are parameters with trainable=False in Paddle 3.3.1's info
    assert isinstance(gb.vars["batch_norm1d_0.w_1"], Parameter) and not gb.vars["batch_norm1d_0.w_1"].trainable
    assert gb.vars["batch_norm1d_0.w_1"].stop_gradient
    assert gb.vars["batch_norm1d_0.w_0"].trainable


def test_unexpected_exceptions_become_model_format_errors(monkeypatch):
    def broken(*a, **k):
        raise IndexError("internal")
    monkeypatch.setattr(model_io, "parse_program", broken)
    with pytest.raises(ModelFormatError, match="cannot read the model .IndexError: internal") as e:
        load_model_from_bytes(b"", model_path="x.pdmodel")
    assert isinstance(e.value.__cause__, IndexError)
    monkeypatch.setattr(model_io, "_CATCH_ALL", False)
    with pytest.raises(IndexError):
        load_model_from_bytes(b"")
