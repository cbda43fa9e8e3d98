"""Smoke test of the issue-7 benchmark suite: every workload once at a tiny size (no timing assertions).

Our eager and converted columns must match the hand-written numpy floor (the suite's own
check, relative error <= 1e-4). The Paddle and torch workers are exercised only when they
can start (skipped with the reason otherwise).
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "benchmarks")
sys.path.insert(0, BENCH)

from suite import frameworks, numpy_floor, report, spec  # noqa: E402
from suite.driver import DEFAULT_PADDLE_VENV, Suite, find_python  # noqa: E402


def _run(names, **kw):
    suite = Suite(names, rounds=1, min_time=1e-4, tiny=True, memory=False, log=lambda m: None, **kw)
    try:
        return suite.run()
    finally:
        suite.close()


@pytest.fixture(scope="module")
def ours():
    return _run(spec.ORDER, paddle=False, torch=False)


@pytest.mark.parametrize("name", spec.ORDER)
def test_ours_matches_numpy_floor(ours, name):
    cols = ours["workloads"][name]["columns"]
    assert cols["numpy.floor"]["status"] == "ok", cols["numpy.floor"]
    for cid in ("ours.eager", "ours.static"):
        col = cols[cid]
        assert col["status"] == "ok", f"{name} {cid}: {col.get('error') or col}"
        assert col["rel_err"] <= 1e-4
        assert col["median_ns"] > 0 and col["ratio_floor"] > 0
    assert cols["ours.static"]["first_call_s"] > 0
    assert cols["paddle.eager"]["status"] == "absent" and cols["torch.script"]["status"] == "absent"


def test_floor_is_checked_independently():
    """The check is not vacuous: a perturbed weight makes the floor disagree with dy2st."""
    import dy2st
    model, kind, cfg, shapes = spec.resolve("mlp_b64", tiny=True)
    w = spec.make_weights(model, cfg)
    x = spec.make_inputs(shapes)
    cols = frameworks.PaddleAdapter(dy2st, "dy2st").setup("mlp_b64", True, w, x)
    w_bad = {k: v.copy() for k, v in w.items()}
    w_bad["fc2.bias"][0] += 0.5
    ref = numpy_floor.make(model, cfg, w_bad, x).run()
    assert frameworks.compare(cols["eager"].outputs, {"out": ref}) > 1e-3
    assert frameworks.compare(cols["eager"].outputs, {"out": numpy_floor.make(model, cfg, w, x).run()}) <= 1e-4


def test_targets_and_tables_render(ours):
    ours["memory"] = None
    rows = report.evaluate_targets(ours)
    assert {r["workload"] for r in rows} >= set(spec.ORDER)
    text = report.main_table(ours) + report.first_call_table(ours) + report.targets_table(rows)
    for name in spec.ORDER:
        assert name in text
    assert "absent" in text


def _worker_or_skip(fw):
    if fw == "paddle":
        python, how = find_python("paddle", None, "DY2ST_PADDLE_PYTHON", DEFAULT_PADDLE_VENV)
    else:
        python, how = find_python("torch", None, "DY2ST_TORCH_PYTHON")
    if python is None:
        pytest.skip(f"{fw} not available: {how}")
    return python


@pytest.mark.parametrize("fw", ["paddle", "torch"])
def test_worker_matches_numpy_floor(fw):
    python = _worker_or_skip(fw)
    kw = {"paddle": fw == "paddle", "torch": fw == "torch", f"{fw}_python": python}
    res = _run(spec.ORDER, **kw)
    if "absent" in res["processes"][fw]:
        pytest.skip(f"{fw} worker did not start: {res['processes'][fw]['absent'][:300]}")
    second = "static" if fw == "paddle" else "script"
    for name in spec.ORDER:
        cols = res["workloads"][name]["columns"]
        for cid in (f"{fw}.eager", f"{fw}.{second}"):
            assert cols[cid]["status"] == "ok", f"{name} {cid}: {cols[cid].get('error') or cols[cid]}"
            assert cols[cid]["median_ns"] > 0


def test_command_line_writes_json(tmp_path):
    out = tmp_path / "suite.json"
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "run_suite.py"), "--tiny", "--rounds", "1",
                           "--min-time", "0.0001", "--workloads", "mlp_b1,train_mlp", "--no-paddle", "--no-torch",
                           "--json", str(out)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "numpy floor" in proc.stdout and "targets:" in proc.stdout and "peak memory" in proc.stdout
    data = json.loads(out.read_text())
    assert list(data["workloads"]) == ["mlp_b1", "train_mlp"]
    assert data["processes"]["paddle"] == {"absent": "--no-paddle"}
    assert data["memory"]["eager"]["peak_bytes"] > 0
    assert np.isfinite(data["workloads"]["mlp_b1"]["columns"]["ours.static"]["ratio_floor"])


def test_command_line_rejects_unknown_workload():
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "run_suite.py"), "--workloads", "resnet"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 2 and "unknown workload" in proc.stderr
