"""examples/hapi_digits.py: paddle.Model trains the digits classifier past 95 %, the inference files it
saves reload with jit.load and predict what Model.predict does, and a failed target exits non-zero."""
import re

from tests.examples.test_examples import run


def test_hapi_digits_trains_saves_and_reloads(tmp_path):
    proc, out = run("hapi_digits.py", "--out", str(tmp_path))
    assert proc.returncode == 0, out
    assert "Total params: 9,610" in out                      # Model.summary
    assert len(re.findall(r"^Epoch \d+/10$", out, re.M)) == 10
    assert len(re.findall(r"^step 45/45 - loss: [\d.]+ - acc: [\d.]+ - ", out, re.M)) == 10
    acc = float(re.search(r"test accuracy: ([\d.]+)", out).group(1))
    assert acc >= 0.95
    diff = float(re.search(r"max \|difference\| to Model.predict ([\d.e+-]+), same classes: True", out).group(1))
    assert diff <= 1e-4
    assert f"checkpoint reloaded: test accuracy {acc:.4f}" in out
    for name in ("digits.pdmodel", "digits.pdiparams", "checkpoint.pdparams", "checkpoint.pdopt"):
        assert (tmp_path / name).exists(), name


def test_hapi_digits_fails_below_target(tmp_path):
    proc, out = run("hapi_digits.py", "--epochs", "1", "--lr", "1e-5", "--out", str(tmp_path))
    assert proc.returncode == 1, out
    assert "FAILED: test accuracy" in out
