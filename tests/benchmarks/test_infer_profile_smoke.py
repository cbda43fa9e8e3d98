"""Smoke test: benchmarks/infer_profile.py runs end to end on the control-flow model at a tiny call
count, the converted output matches the numpy floor, and --ops names the kernels and inline ufuncs it
timed (no timing assertions)."""
import importlib.util
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _module():
    spec = importlib.util.spec_from_file_location("infer_profile", os.path.join(ROOT, "benchmarks", "infer_profile.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_infer_profile_control_flow(capsys):
    mod = _module()
    mod.main(["--workloads", "control_flow", "--calls", "40", "--ops", "--one-op"])
    out = capsys.readouterr().out
    assert "one-op call:" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("control_flow"))
    for key in ("floor", "call", "fn", "path"):
        assert re.search(rf"{key}\s+-?\d+\.\d", line), line
    assert float(line.rsplit("rel.err", 1)[1]) < 1e-6, line
    # the kernels that still run as calls and the ufuncs the generated code calls inline
    assert "fused_gemm_epilogue" in out and "reduce_mean" in out
    assert "tanh (inline)" in out and "add (inline)" in out
