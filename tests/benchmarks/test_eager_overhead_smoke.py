"""Smoke test: the eager-overhead benchmark runs end to end at a tiny repeat count (no timing assertions)."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "benchmarks", "eager_overhead.py")


def test_eager_overhead_runs_and_writes_json(tmp_path):
    out = tmp_path / "res.json"
    proc = subprocess.run([sys.executable, SCRIPT, "--repeats", "2", "--min-time", "0.0005", "--json", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for case in ("add", "mlp", "mlp_tape"):
        assert case in proc.stdout
    data = json.loads(out.read_text())
    assert data["benchmark"] == "eager_overhead"
    assert set(data["results"]) == {"add", "mlp", "mlp_tape"}
    for res in data["results"].values():
        assert res["numpy_ns"] > 0 and res["eager_ns"] > 0 and res["ratio"] > 0
    assert data["results"]["add"]["target"] == 5.0 and data["results"]["mlp"]["target"] == 1.5


def test_eager_overhead_rejects_unknown_case():
    proc = subprocess.run([sys.executable, SCRIPT, "--cases", "conv"], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert proc.returncode == 2 and "unknown case" in proc.stderr
