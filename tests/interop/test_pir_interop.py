"""Paddle 3's default (PIR ``.json``) format against real PaddlePaddle 3.3.1, both ways, default settings.

* Paddle -> dy2st: a subprocess runs tests/fixtures/make_pir_fixtures.py, writing fresh files for
  every fixture model with ``paddle.jit.save`` (default flags: ``model.json`` + ``model.pdiparams``)
  and the outputs Paddle's own ``jit.load`` computes; ``dy2st``'s jit.load must reproduce them.
* dy2st -> Paddle: we build the same models with ``import dy2st as paddle``, save them with the PIR
  option, and a subprocess with default flags (no ``FLAGS_enable_pir_api=0``) loads them with
  ``paddle.jit.load``, the inference predictor and ``static.load_inference_model``; every output must
  equal ours. Includes the tensor if / while models.
* Vision models (LeNet, MobileNetV2/V3, SqueezeNet, ShuffleNetV2, ResNet-18), both ways.

Paddle runs in subprocesses only (paddle_runner's interpreter choice; skipped without paddle).
"""
import glob
import json
import os
import pathlib
import subprocess
import textwrap

import numpy as np
import pytest

import dy2st as paddle

from . import paddle_runner
from tests.runtime.formats.test_pir_json_write import MODEL_NAMES, as_list, our_models

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAKE_FIXTURES = ROOT / "tests" / "fixtures" / "make_pir_fixtures.py"


def run_paddle_default(args, workdir, timeout=900):
    """Run ``python ARGS`` with real Paddle and its *default* flags (PIR on); skip when there is no paddle."""
    env = {k: v for k, v in os.environ.items() if k != "FLAGS_enable_pir_api"}
    env["GLOG_minloglevel"] = "3"
    tried = []
    for py in paddle_runner.candidates():
        probe = subprocess.run([py, "-c", "import paddle"], capture_output=True, text=True, env=env)
        if probe.returncode != 0:
            tried.append(f"{py}: cannot import paddle")
            continue
        return subprocess.run([py] + [str(a) for a in args], cwd=workdir, env=env, capture_output=True, text=True,
                              timeout=timeout)
    pytest.skip("real PaddlePaddle is not available; tried: " + "; ".join(tried))


def test_paddle_default_files_load_in_dy2st(tmp_path):
    out = tmp_path / "fresh"
    proc = run_paddle_default([MAKE_FIXTURES, out], tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["models"]) == set(MODEL_NAMES)
    for name in MODEL_NAMES:
        d = out / name
        assert (d / "model.json").exists() and not (d / "model.pdiparams.info").exists()
        layer = paddle.jit.load(str(d / "model"))
        for c in range(manifest["models"][name]["cases"]):
            ins = [np.load(p) for p in sorted(glob.glob(str(d / f"case{c}_in*.npy")))]
            want = [np.load(p) for p in sorted(glob.glob(str(d / f"case{c}_out*.npy")))]
            got = as_list(layer(*[paddle.to_tensor(a) for a in ins]))
            assert len(got) == len(want), name
            for g, w in zip(got, want):
                np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-5, err_msg=name)


CHECK = textwrap.dedent("""
    import json, sys, traceback
    import numpy as np
    import paddle
    assert paddle.get_flags("FLAGS_enable_pir_api")["FLAGS_enable_pir_api"], "expected Paddle's default PIR mode"
    manifest = json.load(open("manifest.json"))
    results = {}
    for m in manifest:
        res = results[m["name"]] = {}
        prefix = m["prefix"]
        for c, ins in enumerate(m["cases"]):
            ins = [np.load(p) for p in ins]
            try:
                layer = paddle.jit.load(prefix)
                layer.eval()
                outs = layer(*[paddle.to_tensor(a) for a in ins])
                outs = outs if isinstance(outs, (list, tuple)) else [outs]
                res.setdefault("jit", []).append([o.numpy().tolist() for o in outs])
            except Exception:
                res["jit_error"] = traceback.format_exc()[-3000:]
            try:
                cfg = paddle.inference.Config(prefix + ".json", prefix + ".pdiparams")
                cfg.disable_gpu()
                cfg.disable_glog_info()
                pred = paddle.inference.create_predictor(cfg)
                assert pred.get_input_names() == m["feed_names"], pred.get_input_names()
                for name, a in zip(pred.get_input_names(), ins):
                    h = pred.get_input_handle(name)
                    h.reshape(list(a.shape))
                    h.copy_from_cpu(a)
                pred.run()
                res.setdefault("predictor", []).append(
                    [pred.get_output_handle(n).copy_to_cpu().tolist() for n in pred.get_output_names()])
            except Exception:
                res["predictor_error"] = traceback.format_exc()[-3000:]
            try:
                paddle.enable_static()
                exe = paddle.static.Executor(paddle.CPUPlace())
                with paddle.static.scope_guard(paddle.static.Scope()):
                    prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
                    outs = exe.run(prog, feed=dict(zip(feeds, ins)), fetch_list=fetches)
                res.setdefault("static", []).append([np.asarray(o).tolist() for o in outs])
            except Exception:
                res["static_error"] = traceback.format_exc()[-3000:]
            finally:
                paddle.disable_static()
    json.dump(results, open("results.json", "w"))
""")


def test_dy2st_pir_files_load_in_paddle(tmp_path):
    models = our_models()
    manifest, expected = [], {}
    paddle.set_flags({"FLAGS_enable_pir_api": True})
    try:
        for name in MODEL_NAMES:
            layer, specs, cases = models.build(name)
            prefix = tmp_path / name
            paddle.jit.save(layer, str(prefix), input_spec=specs)
            assert prefix.with_suffix(".json").exists() and not (tmp_path / f"{name}.pdmodel").exists()
            entry = {"name": name, "prefix": str(prefix), "feed_names": [s.name for s in specs], "cases": []}
            expected[name] = []
            for c, ins in enumerate(cases):
                paths = []
                for k, a in enumerate(ins):
                    p = tmp_path / f"{name}.case{c}.in{k}.npy"
                    np.save(p, a)
                    paths.append(str(p))
                entry["cases"].append(paths)
                expected[name].append([o.numpy() for o in as_list(layer(*[paddle.to_tensor(a) for a in ins]))])
            manifest.append(entry)
    finally:
        paddle.set_flags({"FLAGS_enable_pir_api": False})
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    (tmp_path / "check.py").write_text(CHECK)
    proc = run_paddle_default([tmp_path / "check.py"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = json.loads((tmp_path / "results.json").read_text())
    failures = []
    for name in MODEL_NAMES:
        res = results[name]
        for loader in ("jit", "predictor", "static"):
            if f"{loader}_error" in res:
                failures.append(f"{name} / {loader}: {res[loader + '_error']}")
                continue
            for c, want in enumerate(expected[name]):
                got = res[loader][c]
                try:
                    paddle_runner.assert_outputs_match(got, want, f"{name} case {c} ({loader})", rtol=1e-5, atol=1e-5)
                except AssertionError as e:
                    failures.append(str(e))
    assert not failures, "\n\n".join(failures)


# -- vision models, both ways ----------------------------------------------------------------------------

VISION = [("lenet", "LeNet()", [1, 28, 28]), ("mobilenet_v2", "mobilenet_v2(scale=0.25)", [3, 32, 32]),
          ("mobilenet_v3", "mobilenet_v3_small(scale=0.5)", [3, 32, 32]), ("squeezenet", "squeezenet1_1()", [3, 64, 64]),
          ("shufflenet", "shufflenet_v2_x0_25()", [3, 32, 32]), ("resnet18", "resnet18()", [3, 32, 32])]

SAVE_VISION = textwrap.dedent("""
    import json, sys
    import numpy as np
    import paddle
    from paddle.static import InputSpec
    from paddle.vision.models import *
    paddle.seed(0)
    for name, ctor, shape in json.load(open("vision.json")):
        m = eval(ctor)          # the constructor expressions of the test's VISION table
        m.eval()
        paddle.jit.save(m, name, input_spec=[InputSpec([None] + shape, "float32", "x")])
        x = np.random.RandomState(0).rand(2, *shape).astype("float32")
        np.save(name + ".in.npy", x)
        loaded = paddle.jit.load(name)
        np.save(name + ".out.npy", loaded(paddle.to_tensor(x)).numpy())
""")


def test_paddle_vision_models_load_in_dy2st(tmp_path):
    (tmp_path / "vision.json").write_text(json.dumps(VISION))
    (tmp_path / "save.py").write_text(SAVE_VISION)
    proc = run_paddle_default([tmp_path / "save.py"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    for name, _, _ in VISION:
        assert (tmp_path / f"{name}.json").exists()
        layer = paddle.jit.load(str(tmp_path / name))
        got = layer(paddle.to_tensor(np.load(tmp_path / f"{name}.in.npy"))).numpy()
        np.testing.assert_allclose(got, np.load(tmp_path / f"{name}.out.npy"), rtol=1e-4, atol=1e-5, err_msg=name)


def test_dy2st_vision_models_load_in_paddle(tmp_path):
    from dy2st.static import InputSpec
    from dy2st.vision import models as M   # noqa: F401  (the constructors the VISION table names)
    paddle.seed(0)
    manifest, expected = [], {}
    for name, ctor, shape in VISION:
        m = eval("M." + ctor)
        m.eval()
        prefix = tmp_path / name
        paddle.jit.save(m, str(prefix), input_spec=[InputSpec([None] + shape, "float32", "x")], legacy_format=False)
        x = np.random.RandomState(1).rand(2, *shape).astype("float32")
        np.save(tmp_path / f"{name}.in.npy", x)
        expected[name] = [[m(paddle.to_tensor(x)).numpy()]]
        manifest.append({"name": name, "prefix": str(prefix), "feed_names": ["x"],
                         "cases": [[str(tmp_path / f"{name}.in.npy")]]})
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    (tmp_path / "check.py").write_text(CHECK)
    proc = run_paddle_default([tmp_path / "check.py"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = json.loads((tmp_path / "results.json").read_text())
    failures = []
    for name, _, _ in VISION:
        for loader in ("jit", "predictor"):
            res = results[name]
            if f"{loader}_error" in res:
                failures.append(f"{name} / {loader}: {res[loader + '_error']}")
                continue
            try:
                paddle_runner.assert_outputs_match(res[loader][0], expected[name][0], f"{name} ({loader})",
                                                   rtol=1e-4, atol=1e-5)
            except AssertionError as e:
                failures.append(str(e))
    assert not failures, "\n\n".join(failures)
