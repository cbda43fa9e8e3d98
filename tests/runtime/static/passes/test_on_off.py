"""Passes preserve results: the five benchmark models give bit-identical outputs and gradients with
passes off and with every pass on, and the whole dy2st conformance suite plus test_models.py pass
(against eager) with passes off and with every pass on (two subprocess runs, in parallel)."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import dy2st as paddle
from tests.dy2st.test_models import MODELS, _input

ROOT = pathlib.Path(__file__).resolve().parents[4]


def _run_model(cls, shape, monkeypatch, passes):
    monkeypatch.setenv("DY2ST_PASSES", passes)
    paddle.seed(7)
    m = cls()
    x = paddle.to_tensor(_input(shape), stop_gradient=False)
    with paddle.no_grad():
        infer = m(paddle.to_tensor(_input(shape, seed=3))).numpy()
    out = m(x)
    (out * paddle.to_tensor(_input(out.shape, seed=1))).sum().backward()
    grads = {n: p.grad.numpy() for n, p in m.named_parameters()}
    return infer, out.numpy(), x.grad.numpy(), grads


@pytest.mark.parametrize("name", list(MODELS))
def test_models_bit_identical_on_off(name, monkeypatch):
    cls, shape = MODELS[name][:2]
    off = _run_model(cls, shape, monkeypatch, "0")
    on = _run_model(cls, shape, monkeypatch, "all")
    for a, b in zip(on[:3], off[:3]):
        np.testing.assert_array_equal(a, b)
    assert sorted(on[3]) == sorted(off[3])
    for n in off[3]:
        np.testing.assert_array_equal(on[3][n], off[3][n], err_msg=n)


def test_conformance_suite_and_models_pass_with_passes_on_and_off():
    targets = ["tests/dy2st/conformance", "tests/dy2st/test_models.py"]
    procs = {}
    for passes in ("0", "all"):
        env = dict(os.environ, DY2ST_PASSES=passes, DY2ST_VERIFY_PASSES="1")
        procs[passes] = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *targets],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for passes, p in procs.items():
        out, _ = p.communicate(timeout=600)
        assert p.returncode == 0, f"DY2ST_PASSES={passes}:\n{out[-4000:]}"
