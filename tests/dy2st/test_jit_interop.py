"""Models saved by our jit.save load in real PaddlePaddle 3.3.1 (paddle.jit.load and
paddle.inference) and give our outputs (<= 1e-5 relative). Real Paddle runs in a subprocess;
the test is skipped, with the reason in pytest's summary, when it cannot be imported (paddle_runner)."""
import json
import os

import numpy as np

import dy2st as paddle

from tests.interop.paddle_runner import run_paddle

from .jit_models import MODELS, build


PADDLE_SCRIPT = r"""
import json, os, sys
os.environ["FLAGS_enable_pir_api"] = "0"
import numpy as np
import paddle
from paddle import inference


def rel(out, ref):
    if out.shape != ref.shape:
        return float("inf")
    # relative to the output's scale (element-wise relative error is meaningless near zero)
    return float(np.max(np.abs(out - ref)) / max(float(np.max(np.abs(ref))), 1e-12))


def check(root, name, n_cases):
    prefix = os.path.join(root, name, "model")
    layer = paddle.jit.load(prefix)
    layer.eval()
    config = inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    config.disable_gpu()
    predictor = inference.create_predictor(config)
    worst = 0.0
    for k in range(n_cases):
        n_in = len(predictor.get_input_names())
        args = [np.load(os.path.join(root, name, f"in{k}_{j}.npy")) for j in range(n_in)]
        ref = np.load(os.path.join(root, name, f"out{k}.npy"))
        got = layer(*[paddle.to_tensor(a) for a in args])
        got = got[0] if isinstance(got, (list, tuple)) else got
        for h, a in zip(predictor.get_input_names(), args):
            predictor.get_input_handle(h).copy_from_cpu(a)
        predictor.run()
        pred = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
        worst = max(worst, rel(got.numpy(), ref), rel(pred, ref))
    return worst


root = os.getcwd()
cases = json.load(open(os.path.join(root, "cases.json")))
report = {}
for name, n_cases in cases.items():
    try:
        report[name] = check(root, name, n_cases)
    except Exception as e:
        report[name] = repr(e)[:300]
print(json.dumps(report))
"""


def test_our_saved_models_load_in_real_paddle(tmp_path):
    cases = {}
    for name in sorted(MODELS):
        model, specs, inputs = build(name)
        paddle.jit.save(model, str(tmp_path / name / "model"), input_spec=specs)
        for k, args in enumerate(inputs):
            for j, a in enumerate(args):
                np.save(tmp_path / name / f"in{k}_{j}.npy", a)
            with paddle.no_grad():
                out = model(*[paddle.to_tensor(a) for a in args])
            np.save(tmp_path / name / f"out{k}.npy", out.numpy())
        cases[name] = len(inputs)
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    res = run_paddle(PADDLE_SCRIPT, tmp_path)
    assert res.returncode == 0, res.stderr[-4000:]
    report = json.loads(res.stdout.strip().splitlines()[-1])
    assert set(report) == set(MODELS)
    bad = {k: v for k, v in report.items() if isinstance(v, str) or not v <= 1e-5}
    assert not bad, f"outputs differ from ours (max relative error): {bad}"
