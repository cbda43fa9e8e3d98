"""``pd_op.spectral_norm`` in PIR ``.json`` files, both ways, against real Paddle 3.3.1 (one subprocess with
Paddle's default flags): a Layer holding ``paddle.nn.SpectralNorm`` saved by Paddle's to_static + jit.save runs
in dy2st with Paddle's numbers, and the same layer saved by dy2st (``legacy_format=False``) runs in Paddle's
jit.load with ours. (The legacy .pdmodel side is in test_saved_files_misc_interop.py.)"""
import json
import textwrap

import numpy as np

from .paddle_runner import assert_outputs_match, run_paddle

X = np.random.default_rng(12).uniform(-1, 1, (6, 4)).astype("float32")

LAYER = textwrap.dedent('''
    def held_spectral_norm(paddle):
        class Held(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                self.sn = paddle.nn.SpectralNorm([6, 4], dim=1, power_iters=3)
                self.w = self.create_parameter([6, 4])

            def forward(self, x):
                return self.sn(x * self.w + 1.0)
        paddle.seed(5)
        net = Held()
        net.eval()
        return net
''')

PADDLE_SIDE = textwrap.dedent('''
    import json, traceback
    import numpy as np
    from paddle.static import InputSpec
    x = np.load("x.npy")
    report = {}
    try:
        net = held_spectral_norm(paddle)
        np.save("paddle_want.npy", net(paddle.to_tensor(x)).numpy())
        paddle.jit.save(paddle.jit.to_static(net, input_spec=[InputSpec([6, 4], "float32", "x")], full_graph=True),
                        "paddle/model")
        report["save"] = "ok"
    except Exception:
        report["save"] = traceback.format_exc()[-2000:]
    try:
        layer = paddle.jit.load("ours/model")
        layer.eval()
        np.save("ours_in_paddle.npy", layer(paddle.to_tensor(x)).numpy())
        report["load"] = "ok"
    except Exception:
        report["load"] = traceback.format_exc()[-2000:]
    json.dump(report, open("report.json", "w"))
''')


def test_spectral_norm_pir_files_both_ways(tmp_path):
    import dy2st as paddle
    from dy2st.static import InputSpec
    import importlib.util
    (tmp_path / "held_sn_layer.py").write_text(LAYER)      # to_static reads the forward's source from a file
    spec = importlib.util.spec_from_file_location("held_sn_layer", tmp_path / "held_sn_layer.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ours = mod.held_spectral_norm(paddle)
    want_ours = ours(paddle.to_tensor(X)).numpy()
    paddle.jit.save(ours, str(tmp_path / "ours" / "model"), input_spec=[InputSpec([6, 4], "float32", "x")],
                    legacy_format=False)
    assert (tmp_path / "ours" / "model.json").exists()
    np.save(tmp_path / "x.npy", X)
    proc = run_paddle(LAYER + PADDLE_SIDE, tmp_path, default_flags=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads((tmp_path / "report.json").read_text())
    assert report == {"save": "ok", "load": "ok"}, report
    assert_outputs_match([np.load(tmp_path / "ours_in_paddle.npy")], [want_ours], "dy2st's PIR file in Paddle",
                         rtol=1e-5, atol=1e-6)
    loaded = paddle.jit.load(str(tmp_path / "paddle" / "model"))
    assert_outputs_match([loaded(paddle.to_tensor(X)).numpy()], [np.load(tmp_path / "paddle_want.npy")],
                         "Paddle's PIR file in dy2st", rtol=1e-5, atol=1e-6)
