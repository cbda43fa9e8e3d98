"""``to_static(property=True)`` and methods other than forward in ``jit.save``, as Paddle 3.3.1 writes them.

Paddle calls each property function and, with ``combine_params=True``, stores the values in
``prefix.meta`` (its ``PropertyVals`` protobuf, keyed ``ClassName.method``); every other converted
method goes to ``prefix.<method>.pdmodel`` / ``.pdiparams``, which ``jit.load`` turns into a method of
the loaded layer. Checked byte for byte against the files real Paddle writes for the same class, and
real Paddle reading ours.
"""
from __future__ import annotations

import inspect
import json
import os

import numpy as np
import pytest

import dy2st as paddle
from dy2st.property_meta import PropertyFormatError, parse_properties, serialize_properties
from dy2st.static import InputSpec


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 2)

    @paddle.jit.to_static(input_spec=[InputSpec([None, 4], "float32")])
    def forward(self, x):
        return self.fc(x)

    @paddle.jit.to_static(property=True)
    def fbias(self):
        return 1.5

    @paddle.jit.to_static(property=True)
    def names(self):
        return ["a", "bc"]

    @paddle.jit.to_static(property=True)
    def ints(self):
        return [1, 2, -3]

    @paddle.jit.to_static(property=True)
    def an_int(self):
        return 7

    @paddle.jit.to_static(property=True)
    def floats(self):
        return (0.25, 2.0)

    @paddle.jit.to_static(property=True)
    def text(self):
        return "hello"

    @paddle.jit.to_static(input_spec=[InputSpec([None, 4], "float32")])
    def infer(self, x):
        return self.fc(x) * 2


CLASS_SRC = "\n" + inspect.getsource(Net)     # the same class text runs in real Paddle

X = np.random.RandomState(0).uniform(-1, 1, (3, 4)).astype("float32")


def _save(tmp_path, combine=True):
    paddle.seed(0)
    net = Net()
    paddle.jit.save(net, str(tmp_path / "m"), combine_params=combine)
    return net


def test_property_function_runs_as_it_is():
    net = Net()
    assert net.fbias() == 1.5 and net.names() == ["a", "bc"]
    assert net.fbias.is_property and not net.forward.is_property
    with pytest.raises(RuntimeError, match="Can not call the func when property=True."):
        net.fbias.concrete_program
    with pytest.raises(RuntimeError, match="Can not call the func when property=True."):
        net.fbias.get_concrete_program()


def test_files_and_meta_values(tmp_path):
    net = _save(tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["m.infer.pdiparams", "m.infer.pdmodel", "m.meta", "m.pdiparams",
                                            "m.pdiparams.info", "m.pdmodel"]
    props = parse_properties((tmp_path / "m.meta").read_bytes())
    assert props == {"Net.an_int": 7, "Net.fbias": 1.5, "Net.floats": [0.25, 2.0], "Net.ints": [1, 2, -3],
                     "Net.names": ["a", "bc"], "Net.text": "hello"}
    loaded = paddle.jit.load(str(tmp_path / "m"))
    x = paddle.to_tensor(X)
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(loaded.infer(x).numpy(), net.infer(x).numpy(), rtol=1e-6)
    assert [s.name for s in loaded._input_spec("infer")] == ["x"]
    assert loaded.program("infer") is not loaded.program()
    with pytest.raises(ValueError, match="The method `nope` does not exist in loaded TranslatedLayer."):
        loaded.program("nope")


def test_without_combine_params_no_meta(tmp_path):
    _save(tmp_path, combine=False)
    assert "m.meta" not in os.listdir(tmp_path) and "m.infer.pdmodel" in os.listdir(tmp_path)


def test_input_spec_with_other_static_methods_is_refused_as_paddle(tmp_path):
    with pytest.raises(ValueError, match="If there are static functions other than 'forward' that need to be "
                                         "saved, the input 'input_spec' should be None"):
        paddle.jit.save(Net(), str(tmp_path / "m"), input_spec=[InputSpec([None, 4], "float32")])


def test_unknown_save_config_is_refused_as_paddle(tmp_path):
    with pytest.raises(ValueError, match=r"The additional config \(combine\) of `paddle.jit.save` is not supported."):
        paddle.jit.save(Net(), str(tmp_path / "m"), combine=True)


def test_unsupported_property_value_and_malformed_meta():
    with pytest.raises(ValueError, match="Note support val type: <class 'dict'>"):
        serialize_properties([({"a": 1}, "Net.d")])
    with pytest.raises(ValueError, match="non-empty list"):
        serialize_properties([([], "Net.empty")])
    with pytest.raises(PropertyFormatError, match="runs past the end"):
        parse_properties(b"\n\x40\n\x03abc")
    with pytest.raises(PropertyFormatError, match="truncated varint"):
        parse_properties(b"\n")


def test_same_bytes_as_real_paddle_and_paddle_reads_ours(tmp_path):
    from tests.interop.paddle_runner import run_paddle
    _save(tmp_path)
    ours = (tmp_path / "m.meta").read_bytes()
    np.save(tmp_path / "x.npy", X)
    theirs_dir = tmp_path / "paddle"
    theirs_dir.mkdir()
    script = ("import json, numpy as np\n"
              "from paddle.static import InputSpec\n" + CLASS_SRC +
              "paddle.seed(0)\n"
              "net = Net()\n"
              "paddle.jit.save(net, 'paddle/m', combine_params=True)\n"
              "p = paddle.framework.core.Property()\n"
              "p.parse_from_string(open('m.meta', 'rb').read())\n"
              "ours = paddle.jit.load('m')\n"
              "x = paddle.to_tensor(np.load('x.npy'))\n"
              "print(json.dumps({'files': sorted(__import__('os').listdir('paddle')), 'size': p.size(),\n"
              "                  'fbias': p.get_float('Net.fbias'),\n"
              "                  'infer': ours.infer(x).numpy().tolist(), 'forward': ours(x).numpy().tolist()}))\n")
    proc = run_paddle(script, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert (theirs_dir / "m.meta").read_bytes() == ours
    assert got["files"] == sorted(os.listdir(tmp_path / "paddle")) == \
        ["m.infer.pdiparams", "m.infer.pdmodel", "m.meta", "m.pdiparams", "m.pdiparams.info", "m.pdmodel"]
    assert got["size"] == 6 and got["fbias"] == 1.5
    paddle.seed(0)
    net = Net()
    x = paddle.to_tensor(X)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    np.testing.assert_allclose(np.array(got["infer"]), loaded.infer(x).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.array(got["forward"]), loaded(x).numpy(), rtol=1e-5, atol=1e-6)
    assert net is not None
