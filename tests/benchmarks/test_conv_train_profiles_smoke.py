"""Smoke tests: benchmarks/conv_profile.py's ``--depthwise`` table (on tiny shapes: both paths run and
give rows) and benchmarks/train_step_profile.py (train_mlp, a few steps, in a subprocess because it
fixes the process's malloc thresholds: its phase lines and the page-fault line). No timing assertions."""
import importlib.util
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _module(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "benchmarks", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_depthwise_table(monkeypatch, capsys):
    mod = _module("conv_profile")
    from runtime.ops import conv_depthwise
    real = (conv_depthwise.is_depthwise, conv_depthwise.direct_wanted)
    monkeypatch.setattr(mod, "DEPTHWISE_SHAPES", [(4, 40, 1), (3, 9, 2)])
    mod.main(["--depthwise", "--batch", "2", "--rounds", "1"])
    rows = [ln for ln in capsys.readouterr().out.splitlines() if re.match(r"\| 2 \| \d", ln)]
    assert len(rows) == 2
    assert rows[0].endswith("| direct |") and rows[1].endswith("| im2col |")      # 40x40 vs 5x5 outputs
    assert (conv_depthwise.is_depthwise, conv_depthwise.direct_wanted) == real     # restored


def test_train_step_profile_runs():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "train_step_profile.py"),
                           "--workloads", "train_mlp", "--steps", "3"], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert "malloc thresholds fixed" in out or "glibc malloc defaults" in out
    assert re.search(r"train_mlp \(sgd, 3 steps\): floor [\d.]+ µs; converted step [\d.]+ µs", out), out
    assert re.search(r"faults\s+floor \d+ page faults", out), out
