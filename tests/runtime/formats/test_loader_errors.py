"""Every public loader of a model file, on hostile and corrupt files: ``paddle.jit.load``,
``paddle.static.load_inference_model``, ``load_model`` and the CLI (``dy2st inspect/run/onnx``)
fail with a `ModelFormatError` (or the CLI's one error line) naming the file.

The loaders run in one child process with a time limit and a memory limit, so a regression
(the 17-byte self-referencing .pdiparams.info made all of them loop forever) fails the test
instead of hanging the suite."""
import json
import os
import pathlib
import pickle
import shutil
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "tests" / "fixtures" / "paddle-3.3.1" / "linear_relu"


class _Evil:
    def __reduce__(self):
        return (os.system, ("touch pwned",))


def _deep(n):
    return b"\x80\x02}X\x01\x00\x00\x00w" + b"]" * n + b"a" * (n - 1) + b"s."


def _params_with_dims(dims):
    from runtime.formats.proto import TensorDesc
    desc = TensorDesc(data_type=5, dims=dims).SerializeToString()
    return struct.pack("<IQIi", 0, 0, 0, len(desc)) + desc


# (file kind, bytes, what the message must say)
CASES = {
    "info_self_list": ("pdiparams.info", b"\x80\x02]q\x00h\x00a.", "contains itself"),
    "info_self_dict": ("pdiparams.info", b"\x80\x02}q\x00X\x01\x00\x00\x00wh\x00s.", "contains itself"),
    "info_deep": ("pdiparams.info", _deep(200_000), "nested more than"),
    "info_huge_bytes": ("pdiparams.info", b"\x80\x04\x8e" + struct.pack("<Q", 5 << 30) + b"x.", "bytes left"),
    "info_global": ("pdiparams.info", pickle.dumps({"w": _Evil()}, protocol=2), "refusing to load the global"),
    "info_object_array": ("pdiparams.info", pickle.dumps({"w": np.array([None])}, protocol=2), "global"),
    "params_truncated": ("pdiparams", None, "truncated"),
    "params_lod": ("pdiparams", struct.pack("<IQ", 0, 2 ** 60) + b"\x00" * 8, "lod level"),
    "params_huge_dims": ("pdiparams", None, "stored shape"),
    "model_garbage": ("pdmodel", b"\x0a\xff\xff\xff\xff\x0f" + b"\x00" * 10, "ProgramDesc"),
    "model_empty": ("pdmodel", b"", "no blocks"),
}

CHILD = textwrap.dedent("""
    import contextlib, io, json, os, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    import dy2st as paddle
    from dy2st.cli.main import main
    from runtime.formats.errors import ModelFormatError
    from runtime.formats.model_io import load_model

    def outcome(fn):
        try:
            fn()
        except ModelFormatError as e:
            return {"ok": True, "type": type(e).__name__, "message": str(e)}
        except BaseException as e:
            return {"ok": False, "type": type(e).__name__, "message": str(e)[:500]}
        return {"ok": False, "type": None, "message": "loaded"}

    def cli(*argv):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(list(argv))
        lines = err.getvalue().strip().splitlines()
        return {"ok": code == 1 and len(lines) == 1, "type": "cli", "message": "\\n".join(lines)}

    def static_load(prefix):
        paddle.enable_static()
        try:
            paddle.static.load_inference_model(prefix, paddle.static.Executor())
        finally:
            paddle.disable_static()

    results = {}
    for case, prefix in json.loads(sys.argv[1]).items():
        r = results[case] = {}
        r["load_model"] = outcome(lambda: load_model(prefix))
        r["jit.load"] = outcome(lambda: paddle.jit.load(prefix))
        r["load_inference_model"] = outcome(lambda: static_load(prefix))
        r["inspect"] = cli("inspect", prefix)
        r["run"] = cli("run", prefix, "--input", "x.npy")
        r["onnx"] = cli("onnx", prefix, "-o", prefix + ".onnx")
    print(json.dumps(results))
""")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    prefixes = {}
    for case, (kind, data, _) in CASES.items():
        d = base / case
        shutil.copytree(FIXTURE, d)
        target = d / f"model.{kind}"
        if case == "params_truncated":
            data = target.read_bytes()[:-5]
        elif case == "params_huge_dims":
            data = _params_with_dims([0, 2 ** 62])
        target.write_bytes(data)
        prefixes[case] = str(d / "model")
    np.save(base / "x.npy", np.ones((2, 4), np.float32))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-c", CHILD, json.dumps(prefixes)], capture_output=True, text=True,
                         timeout=240, cwd=str(base), env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert not (base / "pwned").exists()
    return json.loads(res.stdout.strip().splitlines()[-1]), prefixes


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("loader", ["load_model", "jit.load", "load_inference_model", "inspect", "run", "onnx"])
def test_every_loader_fails_cleanly_naming_the_file(outcomes, case, loader):
    results, prefixes = outcomes
    kind, _, match = CASES[case]
    r = results[case][loader]
    assert r["ok"], r
    assert f"{prefixes[case]}.{kind}" in r["message"], r["message"]
    assert match in r["message"], r["message"]
    if loader in ("inspect", "run", "onnx"):
        assert r["message"].startswith(f"dy2st {loader}: error: ") and "bug in dy2st" not in r["message"]


@pytest.mark.parametrize("error", [PermissionError(13, "Permission denied"),
                                   OSError(5, "Input/output error")])
def test_unreadable_file_is_a_model_format_error(tmp_path, monkeypatch, error):
    # Tests run as root here, where chmod 000 does not stop a read: raise the OS error directly.
    from runtime.formats import model_io
    from runtime.formats.errors import ModelFormatError
    prefix = tmp_path / "m"
    for suffix in (".pdmodel", ".pdiparams", ".pdiparams.info"):
        shutil.copy(FIXTURE / ("model" + suffix), str(prefix) + suffix)

    def refuse(path, *args, **kwargs):
        raise error
    monkeypatch.setattr(model_io, "open", refuse, raising=False)
    with pytest.raises(ModelFormatError) as info:
        model_io.load_model(str(prefix))
    assert str(prefix) in str(info.value)
    assert ("permission denied" in str(info.value)) == isinstance(error, PermissionError)
