"""Programs read from real Paddle 3.3.1 files (tests/fixtures) export to ONNX and reproduce the
reference outputs Paddle recorded (the path of `dy2st onnx PREFIX` on real Paddle files)."""
import glob
import os

import numpy as np
import pytest

from .helpers import assert_close, needs_ort

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "fixtures", "paddle-3.3.1")
NAMES = sorted(d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d))) if os.path.isdir(ROOT) else []

pytestmark = needs_ort


def _load(prefix):
    try:
        from runtime.formats.model_io import load_model
    except ImportError as e:   # pragma: no cover - the reader lives in runtime.formats
        pytest.skip(f"no .pdmodel reader available ({e})")
    return load_model(prefix)


def _pairs(d):
    ins = sorted(glob.glob(os.path.join(d, "model.ref_in*.npy")))
    outs = sorted(glob.glob(os.path.join(d, "model.ref_out*.npy")))
    if any(p.endswith("_neg.npy") for p in ins):   # one input, one output per case
        return [([i], [o]) for i, o in zip(ins, outs)]
    return [(ins, outs)]


@pytest.mark.skipif(not NAMES, reason="the real Paddle fixtures (tests/fixtures/paddle-3.3.1) are missing")
@pytest.mark.parametrize("name", NAMES)
def test_real_paddle_model_exports(name):
    import onnx
    import onnxruntime as ort
    from runtime.onnx import export_program
    d = os.path.join(ROOT, name)
    lm = _load(os.path.join(d, "model"))
    model = export_program(lm.program, lm.feed_names, lm.fetch_names, params=lm.params)
    onnx.checker.check_model(model, full_check=True)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for ins, outs in _pairs(d):
        got = sess.run(None, {n: np.load(p) for n, p in zip(lm.feed_names, ins)})
        for g, p in zip(got, outs):
            assert_close(g, np.load(p), what=f"{name}: {os.path.basename(p)}")
