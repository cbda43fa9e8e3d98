"""Models for the inference tests: real Paddle's fixture files and small models this package saves."""
from __future__ import annotations

import glob
import pathlib

import numpy as np

import dy2st as paddle
from dy2st.static import InputSpec

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures"
LEGACY = FIXTURES / "paddle-3.3.1"
PIR = FIXTURES / "paddle-3.3.1-pir"

# name -> (prefix, [input arrays], [reference outputs]) for real Paddle's files
LEGACY_REFS = {
    "linear_relu": (["model.ref_in.npy"], ["model.ref_out.npy"]),
    "zoo": (["model.ref_in.npy"], ["model.ref_out0.npy", "model.ref_out1.npy"]),
    "two_inputs_bn": (["model.ref_in0.npy", "model.ref_in1.npy"], ["model.ref_out.npy"]),
    "control_flow": (["model.ref_in.npy"], ["model.ref_out.npy"]),
    "assign_value_concat": (["model.ref_in.npy"], ["model.ref_out.npy"]),
}


def paddle_fixtures():
    """[(name, prefix, inputs, reference outputs)] for every real-Paddle fixture (legacy and PIR)."""
    out = []
    for name, (ins, outs) in LEGACY_REFS.items():
        d = LEGACY / name
        out.append((name, str(d / "model"), [np.load(d / p) for p in ins], [np.load(d / p) for p in outs]))
    for d in sorted(p for p in PIR.iterdir() if p.is_dir()):
        ins = [np.load(p) for p in sorted(glob.glob(str(d / "case0_in*.npy")))]
        outs = [np.load(p) for p in sorted(glob.glob(str(d / "case0_out*.npy")))]
        out.append(("pir_" + d.name, str(d / "model"), ins, outs))
    return out


class TwoHeads(paddle.nn.Layer):
    """Two inputs, two outputs: ``(relu(fc(x)) + y, softmax(fc2(relu(fc(x)))))``."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)
        self.fc2 = paddle.nn.Linear(3, 2)

    def forward(self, x, y):
        h = paddle.nn.functional.relu(self.fc(x))
        return h + y, paddle.nn.functional.softmax(self.fc2(h))


def two_heads_numpy(net, x, y):
    """The reference outputs of `TwoHeads`, computed with numpy from its parameters."""
    w, b = net.fc.weight.numpy(), net.fc.bias.numpy()
    w2, b2 = net.fc2.weight.numpy(), net.fc2.bias.numpy()
    h = np.maximum(x @ w + b, 0)
    z = h @ w2 + b2
    e = np.exp(z - z.max(-1, keepdims=True))
    return [h + y, e / e.sum(-1, keepdims=True)]


def save_two_heads(prefix, pir=False):
    """Save a seeded `TwoHeads` with jit.save (``pir``: Paddle 3's .json format); returns the layer."""
    paddle.seed(7)
    net = TwoHeads()
    net.eval()
    specs = [InputSpec([None, 4], "float32", "x"), InputSpec([None, 3], "float32", "y")]
    if pir:
        paddle.set_flags({"FLAGS_enable_pir_api": True})
    try:
        paddle.jit.save(net, str(prefix), input_spec=specs)
    finally:
        if pir:
            paddle.set_flags({"FLAGS_enable_pir_api": False})
    return net


def two_heads_inputs(batch=2):
    rng = np.random.default_rng(11)
    return [rng.standard_normal((batch, 4)).astype("float32"), rng.standard_normal((batch, 3)).astype("float32")]
