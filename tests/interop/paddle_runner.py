"""Run code in real PaddlePaddle 3.3.1, in a subprocess (malformed models can abort the process).

The interpreter is the first of: this one (CI installs paddlepaddle beside dy2st), the one named
by DY2ST_PADDLE_PYTHON, /work/venv-paddle/bin/python. One that cannot ``import paddle`` is skipped
(the check is part of the first real run, so it costs nothing extra). With none, the calling test
is skipped with the reason, which pytest's ``-ra`` prints in the summary.

``check_models(manifest, workdir)`` runs many models through paddle.jit.load, the inference
predictor and static.load_inference_model in one process and returns their outputs.
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

NO_PADDLE = 97   # exit status of the prelude when `import paddle` fails
DEFAULT_VENV = "/work/venv-paddle/bin/python"

PRELUDE = textwrap.dedent("""
    import os, sys
    os.environ["FLAGS_enable_pir_api"] = "0"   # before import: legacy ProgramDesc loaders (FORMATS §1)
    try:
        import paddle
    except ImportError as e:
        print("cannot import paddle:", e, file=sys.stderr)
        sys.exit(97)
""")

_chosen = []   # the interpreter that worked, once found


def candidates():
    out = [sys.executable]
    env = os.environ.get("DY2ST_PADDLE_PYTHON")
    if env:
        out.append(env)
    if os.path.exists(DEFAULT_VENV):
        out.append(DEFAULT_VENV)
    seen = []
    for c in out:
        if c not in seen:
            seen.append(c)
    return seen


def run_paddle(code: str, workdir, timeout=600, default_flags=False) -> subprocess.CompletedProcess:
    """Run ``code`` (after the prelude) in a Python that has paddle; skip the test if there is none.

    The prelude selects the legacy format (``FLAGS_enable_pir_api=0``); ``default_flags=True`` runs with
    Paddle 3's defaults instead (PIR programs: ``jit.save`` writes ``.json``)."""
    workdir = pathlib.Path(workdir)
    script = workdir / ("paddle_script_pir.py" if default_flags else "paddle_script.py")
    prelude = PRELUDE.replace('os.environ["FLAGS_enable_pir_api"] = "0"', 'os.environ.pop("FLAGS_enable_pir_api", None)') \
        if default_flags else PRELUDE
    script.write_text(prelude + "\n" + code)
    env = dict(os.environ, FLAGS_enable_pir_api="0", GLOG_minloglevel="3")
    if default_flags:
        env.pop("FLAGS_enable_pir_api")
    tried = []
    for py in (_chosen or candidates()):
        try:
            proc = subprocess.run([py, str(script)], cwd=workdir, env=env, capture_output=True, text=True,
                                  timeout=timeout)
        except OSError as e:   # no such interpreter
            tried.append(f"{py}: {e}")
            continue
        if proc.returncode == NO_PADDLE:
            tried.append(f"{py}: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else 'no paddle'}")
            continue
        _chosen[:] = [py]
        return proc
    pytest.skip("real PaddlePaddle is not available, interop with it is not tested (install paddlepaddle==3.3.1 "
                "or set DY2ST_PADDLE_PYTHON to a Python that has it); tried: " + "; ".join(tried))


CHECK_MODELS = textwrap.dedent("""
    import json, traceback
    import numpy as np
    manifest = json.load(open("manifest.json"))
    results = {}

    def as_list(o):
        return list(o) if isinstance(o, (list, tuple)) else [o]

    for m in manifest:
        ins = [np.load(p) for p in m["inputs"]]
        res = results[m["name"]] = {}
        if "jit" in m["loaders"]:
            try:
                layer = paddle.jit.load(m["prefix"])
                layer.eval()
                outs = as_list(layer(*[paddle.to_tensor(a) for a in ins]))
                res["jit"] = [o.numpy().tolist() for o in outs]
                res["jit_dtype"] = [str(o.numpy().dtype) for o in outs]
            except Exception:
                res["jit_error"] = traceback.format_exc()[-3000:]
        if "predictor" in m["loaders"]:
            try:
                cfg = paddle.inference.Config(m["prefix"] + ".pdmodel", m["prefix"] + ".pdiparams")
                cfg.disable_gpu()
                cfg.disable_glog_info()
                pred = paddle.inference.create_predictor(cfg)
                for name, a in zip(m["feed_names"], ins):
                    h = pred.get_input_handle(name)
                    h.reshape(list(a.shape))
                    h.copy_from_cpu(a)
                pred.run()
                names = pred.get_output_names()
                res["predictor"] = [pred.get_output_handle(n).copy_to_cpu().tolist() for n in names]
                res["predictor_names"] = list(names)
            except Exception:
                res["predictor_error"] = traceback.format_exc()[-3000:]
        if "static" in m["loaders"]:
            try:
                paddle.enable_static()
                exe = paddle.static.Executor(paddle.CPUPlace())
                with paddle.static.scope_guard(paddle.static.Scope()):
                    prog, feeds, fetches = paddle.static.load_inference_model(m["prefix"], exe)
                    outs = exe.run(prog, feed=dict(zip(feeds, ins)), fetch_list=fetches)
                res["static"] = [np.asarray(o).tolist() for o in outs]
                res["static_feeds"] = list(feeds)
            except Exception:
                res["static_error"] = traceback.format_exc()[-3000:]
            finally:
                paddle.disable_static()
    json.dump(results, open("results.json", "w"))
""")


def check_models(manifest, workdir):
    """``manifest``: [{name, prefix, inputs: [ndarray], feed_names, loaders}] -> {name: {loader: [outputs]}}.

    Paddle runs every model of the manifest in one process; a loader's exception is recorded
    as ``<loader>_error``."""
    workdir = pathlib.Path(workdir)
    entries = []
    for m in manifest:
        paths = []
        for k, a in enumerate(m["inputs"]):
            p = workdir / f"{m['name']}.in{k}.npy"
            np.save(p, a)
            paths.append(str(p))
        entries.append({"name": m["name"], "prefix": str(m["prefix"]), "inputs": paths,
                        "feed_names": list(m["feed_names"]),
                        "loaders": list(m.get("loaders", ("jit", "predictor", "static")))})
    (workdir / "manifest.json").write_text(json.dumps(entries))
    proc = run_paddle(CHECK_MODELS, workdir)
    if proc.returncode != 0 or not (workdir / "results.json").exists():
        raise AssertionError(f"the Paddle subprocess failed (status {proc.returncode}):\n{proc.stderr[-5000:]}")
    return json.loads((workdir / "results.json").read_text())


def assert_outputs_match(got, want, what, rtol=1e-5, atol=1e-6):
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        w = np.asarray(w)
        g = np.asarray(g, dtype=w.dtype)
        assert g.shape == w.shape, f"{what}: output {k} has shape {g.shape}, expected {w.shape}"
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{what}: output {k}")


def differential(code, paddle_main, workdir, label, default_flags=False):
    """Run ``code`` + ``paddle_main`` under real Paddle (it saves ``paddle_out.npz`` and ``dtypes.json``)
    and ``code``'s ``compute(dy2st)`` here: (ours, theirs, Paddle's dtype names). ``default_flags=True``
    runs Paddle with its own defaults (PIR static mode, as Paddle's own API tests run)."""
    proc = run_paddle(code + paddle_main, workdir, default_flags=default_flags)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = dict(np.load(workdir / "paddle_out.npz", allow_pickle=False))
    dtypes = json.loads((workdir / "dtypes.json").read_text())
    import dy2st
    ns = {}
    exec(compile(code, f"<{label} interop code>", "exec"), ns)
    return ns["compute"](dy2st), theirs, dtypes


def differences(ours, theirs, dtypes, tolerant=None, double_tol=1e-9):
    """Lines describing each result of ``ours`` that differs from Paddle's in shape, dtype or value
    (``err.*`` keys hold error texts: the exception type must match)."""
    tolerant = tolerant or {}
    bad = []
    for k in sorted(theirs):
        a, b = np.asarray(ours[k]), theirs[k]
        if k.startswith("err."):
            if str(b).split(",")[0] not in str(a).split(","):
                bad.append(f"{k}: raised {str(a).split(',')[0]}, Paddle raises {str(b).split(',')[0]}")
            continue
        if a.shape != b.shape:
            bad.append(f"{k}: shape {a.shape} vs Paddle {b.shape}")
            continue
        if str(a.dtype) != dtypes[k]:
            bad.append(f"{k}: dtype {a.dtype} vs Paddle {dtypes[k]}")
            continue
        if b.dtype.kind in "fc":
            tol = tolerant.get(k, 1e-4 if b.dtype in (np.float32, np.complex64) else double_tol)
            if not np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True):
                bad.append(f"{k}: values differ, max |diff| {np.max(np.abs(a - b))}")
        elif not np.array_equal(a, b):
            bad.append(f"{k}: {a.tolist()} vs Paddle {b.tolist()}")
    return bad


def paddle_runs_our_program(build, feeds, workdir, what, loaders=("static", "predictor"), rtol=1e-9, atol=1e-10):
    """Build ``build(*data_vars)`` as a static Program fed by ``feeds`` (name -> array, in argument order),
    run it with our executor, save it with ``save_inference_model`` and check that real Paddle's
    ``loaders`` load it and compute our outputs. Returns our outputs."""
    import runtime
    from runtime import static
    names = list(feeds)
    runtime.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            data = [static.data(n, list(np.shape(feeds[n])), str(np.asarray(feeds[n]).dtype)) for n in names]
            outs = build(*data)
        exe = static.Executor()
        ours = exe.run(main, feed=dict(feeds), fetch_list=outs)
        prefix = pathlib.Path(workdir) / "model"
        static.save_inference_model(str(prefix), data, outs, exe, program=main)
    finally:
        runtime.disable_static()
    got = check_models([{"name": "m", "prefix": prefix, "inputs": [feeds[n] for n in names], "feed_names": names,
                         "loaders": tuple(loaders)}], workdir)["m"]
    for loader in loaders:
        assert f"{loader}_error" not in got, got.get(f"{loader}_error")
        assert_outputs_match(got[loader], ours, f"{what} via Paddle's {loader}", rtol=rtol, atol=atol)
    return ours
