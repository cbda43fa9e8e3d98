"""paddle.save / paddle.load: Paddle's pickle layout, round trips, errors, and interop with real Paddle."""
import io
import json
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from runtime.errors import UnsafePickleError
from runtime.formats.serialization import load, save
from runtime.optimizer import Adam
from runtime.optimizer.lr import StepDecay
from runtime.tensor import Parameter, Tensor

NAME_TABLE = "StructuredToParameterName@@"


def layer_state():
    return {"weight": Parameter(np.arange(6, dtype=np.float32).reshape(3, 2), name="linear_0.w_0"),
            "bias": Parameter(np.zeros(2, dtype=np.float32), name="linear_0.b_0")}


def raw(path):
    with open(path, "rb") as f:
        return pickle.load(f)      # our own file: plain pickle is fine here


def test_state_dict_layout_and_round_trip(tmp_path):
    path = str(tmp_path / "m.pdparams")
    sd = layer_state()
    save(sd, path)
    data = raw(path)
    assert data[NAME_TABLE] == {"weight": "linear_0.w_0", "bias": "linear_0.b_0"}
    assert type(data["weight"]) is np.ndarray and data["weight"].dtype == np.float32
    loaded = load(path)
    assert list(loaded) == ["weight", "bias"]
    assert isinstance(loaded["weight"], Tensor) and loaded["weight"].stop_gradient
    np.testing.assert_array_equal(loaded["weight"].numpy(), sd["weight"].numpy())
    as_np = load(path, return_numpy=True)
    assert type(as_np["bias"]) is np.ndarray
    assert load(path, keep_name_table=True)[NAME_TABLE]["bias"] == "linear_0.b_0"


def test_empty_state_dict(tmp_path):
    path = str(tmp_path / "e.pd")
    save({}, path)
    assert raw(path) == {NAME_TABLE: {}}
    assert load(path) == {}


def test_optimizer_state_dict_with_scheduler(tmp_path):
    p = Parameter(np.ones(3, dtype=np.float32), name="save_opt.w_0")
    opt = Adam(StepDecay(0.1, 2), parameters=[p])
    p.grad = Tensor(np.ones(3, dtype=np.float32))
    opt.step()
    path = str(tmp_path / "o.pdopt")
    save(opt.state_dict(), path)
    data = raw(path)
    assert data["LR_Scheduler"] == {"last_epoch": 0, "last_lr": 0.1}
    assert set(data[NAME_TABLE]) == set(data) - {NAME_TABLE, "LR_Scheduler"}
    loaded = load(path)
    assert loaded["LR_Scheduler"] == {"last_epoch": 0, "last_lr": 0.1}
    assert all(isinstance(v, Tensor) for k, v in loaded.items() if k != "LR_Scheduler")


def test_nested_objects_store_name_array_tuples(tmp_path):
    path = str(tmp_path / "n.pd")
    obj = {"a": Tensor(np.ones(2, dtype=np.float32), name="t_a"), "b": [Tensor(np.zeros(1, dtype=np.int64)), 3, "s"],
           "c": {"d": 1.5}, "arr": np.arange(3)}
    save(obj, path)
    data = raw(path)
    assert NAME_TABLE not in data
    assert data["a"][0] == "t_a" and type(data["a"][1]) is np.ndarray
    assert data["c"] == {"d": 1.5}
    loaded = load(path)
    assert isinstance(loaded["a"], Tensor) and loaded["a"].name == "t_a"
    assert isinstance(loaded["b"][0], Tensor) and loaded["b"][0].numpy().dtype == np.int64
    assert loaded["b"][1:] == [3, "s"]
    assert type(loaded["arr"]) is np.ndarray   # saved as an array, stays one (Paddle's rule)


def test_arrays_without_tensors_come_back_as_tensors(tmp_path):
    path = str(tmp_path / "np.pd")
    save({"a": np.ones(2), "b": {"c": [np.zeros(1)]}}, path)
    loaded = load(path)
    assert isinstance(loaded["a"], Tensor) and isinstance(loaded["b"]["c"][0], Tensor)
    assert type(load(path, return_numpy=True)["a"]) is np.ndarray


def test_single_tensor(tmp_path):
    path = str(tmp_path / "t.pd")
    save(Tensor(np.eye(2, dtype=np.float32), name="eye"), path)
    t = load(path)
    assert isinstance(t, Tensor) and t.name == "eye"
    np.testing.assert_array_equal(t.numpy(), np.eye(2))


@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_protocols(tmp_path, protocol):
    path = str(tmp_path / f"p{protocol}.pd")
    save(layer_state(), path, protocol=protocol)
    assert open(path, "rb").read(2) == bytes([0x80, protocol])
    np.testing.assert_array_equal(load(path)["weight"].numpy(), layer_state()["weight"].numpy())


def test_bad_protocol_and_configs(tmp_path):
    with pytest.raises(ValueError, match="protocol must be 2, 3 or 4"):
        save({}, str(tmp_path / "x"), protocol=5)
    with pytest.raises(ValueError, match="unsupported config"):
        save({}, str(tmp_path / "x"), bogus=True)
    save({}, str(tmp_path / "x"))
    with pytest.raises(ValueError, match="unsupported config"):
        load(str(tmp_path / "x"), bogus=True)


def test_file_objects():
    buf = io.BytesIO()
    save(layer_state(), buf)
    buf.seek(0)
    assert set(load(buf)) == {"weight", "bias"}


def test_creates_directories_and_leaves_no_temp_files(tmp_path):
    path = tmp_path / "a" / "b" / "m.pdparams"
    save(layer_state(), str(path))
    assert path.exists()
    assert os.listdir(path.parent) == ["m.pdparams"]


def test_failed_save_keeps_the_old_file(tmp_path):
    path = str(tmp_path / "keep.pd")
    save({"a": 1}, path)
    with pytest.raises(TypeError, match="cannot save .* of type"):
        save({"a": object()}, path)
    assert raw(path) == {"a": 1}
    assert os.listdir(tmp_path) == ["keep.pd"]


def test_path_errors(tmp_path):
    missing = str(tmp_path / "nope.pdparams")
    with pytest.raises(ValueError, match="nope.pdparams.*does not exist"):
        load(missing)
    with pytest.raises(ValueError, match="is a directory"):
        load(str(tmp_path))
    with pytest.raises(ValueError, match="names a directory"):
        save({}, str(tmp_path) + os.sep)


def test_corrupted_and_truncated_files_name_the_path(tmp_path):
    bad = tmp_path / "bad.pdparams"
    bad.write_bytes(b"\x80\x04garbage")
    with pytest.raises(ValueError, match="bad.pdparams"):
        load(str(bad))
    good = tmp_path / "cut.pdparams"
    save(layer_state(), str(good))
    good.write_bytes(good.read_bytes()[:40])
    with pytest.raises(ValueError, match="cut.pdparams"):
        load(str(good))


def test_malicious_file_is_refused_with_path(tmp_path):
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))
    path = tmp_path / "evil.pdparams"
    path.write_bytes(pickle.dumps({"w": Evil()}))
    with pytest.raises(UnsafePickleError, match="evil.pdparams.*system"):
        load(str(path))
    assert not marker.exists()


# -- hostile and corrupt files: one error type, naming the file -----------------------------------------

SELF_LIST = b"\x80\x02]q\x00h\x00a."
DEEP = b"\x80\x02" + b"]" * 200_000 + b"a" * 199_999 + b"."
HUGE_BYTES = b"\x80\x04\x8e" + (5 << 30).to_bytes(8, "little") + b"x" * 10 + b"."
# numpy's _reconstruct(ndarray, (2**29,), dtype('f8')) with no data: a 4 GB uninitialised array before
UNBACKED = (b"\x80\x02cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nJ\x00\x00\x00\x20\x85cnumpy\ndtype\n"
            b"X\x02\x00\x00\x00f8\x89\x88\x87R\x87R.")
# _codecs.encode with BUILD {"__defaults__": ...}: changed an allow-listed helper for the whole process
DEFAULTS = (b"\x80\x02c_codecs\nencode\nN}X\x0c\x00\x00\x00__defaults__X\x05\x00\x00\x00rot13X\x06\x00\x00\x00"
            b"strict\x86s\x86b.")
# complex(2**2000): OverflowError escaped the loader's wrapper
OVERFLOW = b"\x80\x02c__builtin__\ncomplex\n\x8a\xfb" + (2 ** 2000).to_bytes(251, "little") + b"\x85R."


@pytest.mark.parametrize("data,match", [(SELF_LIST, "contains itself"), (DEEP, "nested more than"),
                                        (HUGE_BYTES, "bytes left"), (UNBACKED, "placeholder"),
                                        (DEFAULTS, "refusing BUILD"), (OVERFLOW, "not a number"),
                                        (pickle.dumps(np.array([1, None], dtype=object)), "object")])
def test_hostile_files_raise_model_format_error_naming_the_file(tmp_path, data, match):
    from runtime.formats.errors import ModelFormatError
    path = tmp_path / "hostile.pdparams"
    path.write_bytes(data)
    with pytest.raises(ModelFormatError, match=match) as e:
        load(str(path))
    assert str(e.value).startswith(str(path) + ": ")
    with open(path, "rb") as f:       # a file object: the error names it too
        with pytest.raises(ModelFormatError, match="hostile.pdparams"):
            load(f)


def test_one_base_class_catches_every_load_failure(tmp_path):
    from runtime.formats.errors import ModelFormatError
    assert issubclass(UnsafePickleError, ModelFormatError) and issubclass(ModelFormatError, ValueError)
    (tmp_path / "locked.pdparams").write_bytes(b"")
    for p in (tmp_path / "nope.pdparams", tmp_path, tmp_path / "locked.pdparams"):
        with pytest.raises(ModelFormatError, match=str(p)):
            load(str(p))


def test_arrays_a_tensor_cannot_hold_need_return_numpy(tmp_path):
    path = tmp_path / "s.pd"
    with open(path, "wb") as f:
        pickle.dump({"names": np.array(["a", "bc"]), "be": np.arange(3, dtype=">f4")}, f, protocol=2)
    from runtime.formats.errors import ModelFormatError
    with pytest.raises(ModelFormatError, match="s.pd: .*dtype <U2, which a Tensor cannot hold.*return_numpy=True"):
        load(str(path))
    got = load(str(path), return_numpy=True)
    assert got["names"].tolist() == ["a", "bc"] and got["be"].tolist() == [0.0, 1.0, 2.0]
    with open(path, "wb") as f:     # protocol 5 keeps the byte order (numpy's own state swaps it)
        pickle.dump({"be": np.arange(3, dtype=">f4")}, f, protocol=5)
    assert load(str(path), return_numpy=True)["be"].dtype == np.dtype(">f4")
    t = load(str(path))["be"]     # big-endian data comes back as a native float32 Tensor
    assert isinstance(t, Tensor) and t.numpy().dtype == np.float32 and t.numpy().tolist() == [0.0, 1.0, 2.0]


def test_the_defaults_of_allowed_helpers_stay_unchanged(tmp_path):
    import codecs
    path = tmp_path / "d.pdparams"
    path.write_bytes(DEFAULTS)
    with pytest.raises(UnsafePickleError):
        load(str(path))
    path.write_bytes(pickle.dumps(b"bytes", protocol=2))     # _codecs.encode(text, 'latin1') still works
    assert load(str(path)) == b"bytes" and codecs.encode("x", "latin1") == b"x"


# -- interop with real PaddlePaddle (skipped when it is not importable) -------------------------------

def _paddle_python():
    exe = os.environ.get("DY2ST_PADDLE_PYTHON", sys.executable)
    try:
        ok = subprocess.run([exe, "-c", "import paddle"], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    if not ok:
        reason = f"real paddle is not importable by {exe}"
        print(f"skipping: {reason}")
        pytest.skip(reason)
    return exe


def _run_paddle(code, tmp_path):
    exe = _paddle_python()
    env = dict(os.environ, PYTHONPATH="", GLOG_minloglevel="3")
    res = subprocess.run([exe, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300,
                         cwd=str(tmp_path), env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_files_written_by_real_paddle_load(tmp_path):
    info = _run_paddle("""
        import json, numpy as np, paddle
        paddle.seed(1)
        lin = paddle.nn.Linear(3, 2)
        paddle.save(lin.state_dict(), "lin.pdparams")
        w0 = lin.weight.numpy().tolist()
        opt = paddle.optimizer.Adam(parameters=lin.parameters(), learning_rate=paddle.optimizer.lr.StepDecay(0.1, 2))
        lin(paddle.ones([4, 3])).sum().backward(); opt.step()
        paddle.save(opt.state_dict(), "opt.pdopt")
        paddle.save({"t": paddle.to_tensor([1, 2], dtype="int32"), "l": [paddle.ones([2]), 3]}, "nested.pd", protocol=2)
        print(json.dumps({"w": w0, "opt": {k: (v.numpy().tolist() if hasattr(v, "numpy") else v)
                          for k, v in opt.state_dict().items()}}))
    """, tmp_path)
    sd = load(str(tmp_path / "lin.pdparams"))
    assert set(sd) == {"weight", "bias"}
    np.testing.assert_allclose(sd["weight"].numpy(), info["w"])
    opt_sd = load(str(tmp_path / "opt.pdopt"))
    assert set(opt_sd) == set(info["opt"])
    assert opt_sd["LR_Scheduler"] == info["opt"]["LR_Scheduler"]
    for k, v in info["opt"].items():
        if k != "LR_Scheduler":
            np.testing.assert_allclose(opt_sd[k].numpy(), v)
    nested = load(str(tmp_path / "nested.pd"))
    assert nested["t"].numpy().dtype == np.int32 and nested["t"].numpy().tolist() == [1, 2]
    assert isinstance(nested["l"][0], Tensor) and nested["l"][1] == 3

    # and our Adam resumes from real Paddle's optimizer state
    p = Parameter(np.zeros((3, 2), dtype=np.float32), name="linear_0.w_0")
    ours = Adam(StepDecay(0.1, 2), parameters=[p])
    ours.set_state_dict(opt_sd)
    p.grad = Tensor(np.ones((3, 2), dtype=np.float32))
    ours.step()
    key = [k for k in ours.state_dict() if k.startswith("linear_0.w_0_beta1_pow_acc")][0]
    np.testing.assert_allclose(ours.state_dict()[key].numpy(), np.array(info["opt"][key]) * 0.9, rtol=1e-6)


def test_files_written_by_us_load_in_real_paddle(tmp_path):
    save(layer_state(), str(tmp_path / "ours.pdparams"))
    save({"a": Tensor(np.ones(2, dtype=np.float32), name="aa"), "b": [3, "s"]}, str(tmp_path / "ours.pd"), protocol=2)
    info = _run_paddle("""
        import json, paddle
        sd = paddle.load("ours.pdparams")
        lin = paddle.nn.Linear(3, 2)
        lin.set_state_dict(sd)
        n = paddle.load("ours.pd")
        print(json.dumps({"w": lin.weight.numpy().tolist(), "keys": sorted(sd), "a": n["a"].numpy().tolist(),
                          "b": n["b"], "dtype": str(sd["weight"].dtype)}))
    """, tmp_path)
    assert info["keys"] == ["bias", "weight"]
    np.testing.assert_array_equal(info["w"], layer_state()["weight"].numpy())
    assert info["a"] == [1.0, 1.0] and info["b"] == [3, "s"] and info["dtype"] == "paddle.float32"
