"""Framework-free description of the workloads: sizes, parameter shapes, seeded weights and inputs.

Every framework loads the same numpy weights (Paddle's state_dict names and layouts; torch
transposes Linear weights), so every column can be checked against the numpy floor.
"""
from __future__ import annotations

import numpy as np

# kind: "infer" (eval mode, no_grad) or "train" (forward + backward + SGD step).
# cfg: model config; inputs: name -> shape; "tiny" overrides cfg/inputs for the smoke test.
WORKLOADS = {
    "mlp_b1": dict(model="mlp", kind="infer", title="MLP 784-256-10+softmax, batch 1",
                   cfg=dict(d_in=784, d_hidden=256, d_out=10), inputs={"x": [1, 784]},
                   tiny=dict(cfg=dict(d_in=12, d_hidden=8, d_out=5), inputs={"x": [1, 12]})),
    "mlp_b64": dict(model="mlp", kind="infer", title="MLP 784-256-10+softmax, batch 64",
                    cfg=dict(d_in=784, d_hidden=256, d_out=10), inputs={"x": [64, 784]},
                    tiny=dict(cfg=dict(d_in=12, d_hidden=8, d_out=5), inputs={"x": [3, 12]})),
    "control_flow": dict(model="control_flow", kind="infer", title="control flow (tensor if + while), batch 8",
                         cfg=dict(d_in=16, d_hidden=32, d_out=4), inputs={"x": [8, 16]},
                         tiny=dict(cfg=dict(d_in=4, d_hidden=6, d_out=3), inputs={"x": [2, 4]})),
    "lstm": dict(model="lstm", kind="infer", title="hand-written LSTM, T=32, hidden 128, batch 4",
                 cfg=dict(input_size=32, hidden=128), inputs={"x": [32, 4, 32]},
                 tiny=dict(cfg=dict(input_size=3, hidden=4), inputs={"x": [3, 2, 3]})),
    "lenet": dict(model="lenet", kind="infer", title="LeNet-5, batch 32, 28x28",
                  cfg={}, inputs={"x": [32, 1, 28, 28]},
                  tiny=dict(cfg={}, inputs={"x": [2, 1, 28, 28]})),
    "transformer": dict(model="transformer", kind="infer",
                        title="Transformer encoder block, d_model 64, 4 heads, seq 32, batch 8",
                        cfg=dict(d_model=64, heads=4, d_ff=256), inputs={"x": [8, 32, 64]},
                        tiny=dict(cfg=dict(d_model=8, heads=2, d_ff=16), inputs={"x": [2, 3, 8]})),
    "train_mlp": dict(model="train_mlp", kind="train", title="training step: MLP, batch 64",
                      cfg=dict(d_in=784, d_hidden=256, d_out=10), inputs={"x": [64, 784], "label": [64, 1]},
                      tiny=dict(cfg=dict(d_in=12, d_hidden=8, d_out=5), inputs={"x": [3, 12], "label": [3, 1]})),
    "train_lenet": dict(model="train_lenet", kind="train", title="training step: LeNet-5, batch 32",
                        cfg={}, inputs={"x": [32, 1, 28, 28], "label": [32, 1]},
                        tiny=dict(cfg={}, inputs={"x": [2, 1, 28, 28], "label": [2, 1]})),
}
ORDER = list(WORKLOADS)
LR = 0.01   # SGD learning rate of the training steps
MEMORY_WORKLOAD = dict(model="lenet", cfg={}, inputs={"x": [256, 1, 28, 28]})


def resolve(name, tiny=False):
    """(model, kind, cfg, inputs) of a workload, with the tiny overrides applied if asked."""
    w = WORKLOADS[name]
    cfg, inputs = dict(w["cfg"]), dict(w["inputs"])
    if tiny:
        cfg.update(w["tiny"]["cfg"])
        inputs.update(w["tiny"]["inputs"])
    return w["model"], w["kind"], cfg, inputs


def _linear(name, i, o):
    return {f"{name}.weight": ("linear", [i, o]), f"{name}.bias": ("bias", [o])}


def _lenet(prefix=""):
    p = {f"{prefix}conv1.weight": ("conv", [6, 1, 5, 5]), f"{prefix}conv1.bias": ("bias", [6]),
         f"{prefix}conv2.weight": ("conv", [16, 6, 5, 5]), f"{prefix}conv2.bias": ("bias", [16])}
    for n, i, o in (("fc1", 400, 120), ("fc2", 120, 84), ("fc3", 84, 10)):
        p.update(_linear(prefix + n, i, o))
    return p


def param_shapes(model, cfg):
    """name -> (kind, shape) in Paddle's layout (Linear weight [in, out]); kind picks the init."""
    if model in ("mlp", "train_mlp"):
        pre = "net." if model == "train_mlp" else ""
        return {**_linear(pre + "fc1", cfg["d_in"], cfg["d_hidden"]), **_linear(pre + "fc2", cfg["d_hidden"], cfg["d_out"])}
    if model == "control_flow":
        return {**_linear("fc1", cfg["d_in"], cfg["d_hidden"]), **_linear("fc2", cfg["d_hidden"], cfg["d_out"])}
    if model == "lstm":
        return _linear("gates", cfg["input_size"] + cfg["hidden"], 4 * cfg["hidden"])
    if model == "lenet":
        return _lenet()
    if model == "train_lenet":
        return _lenet("net.")
    if model == "transformer":
        d, ff = cfg["d_model"], cfg["d_ff"]
        p = {}
        for n in "qkvo":
            p.update(_linear(n, d, d))
        for n in ("norm1", "norm2"):
            p[f"{n}.weight"] = ("ln_weight", [d])
            p[f"{n}.bias"] = ("bias", [d])
        p.update(_linear("ff1", d, ff))
        p.update(_linear("ff2", ff, d))
        return p
    raise KeyError(model)


def make_weights(model, cfg, seed=0):
    """Seeded float32 weights: N(0, 1/fan_in) for Linear/conv, small biases, LayerNorm gain near 1."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, (kind, shape) in param_shapes(model, cfg).items():
        if kind == "linear":
            v = rng.standard_normal(shape) / np.sqrt(shape[0])
        elif kind == "conv":
            v = rng.standard_normal(shape) / np.sqrt(np.prod(shape[1:]))
        elif kind == "ln_weight":
            v = 1.0 + 0.1 * rng.standard_normal(shape)
        else:
            v = 0.1 * rng.standard_normal(shape)
        out[name] = v.astype(np.float32)
    return out


def make_inputs(inputs, n_classes=10, seed=1):
    """Seeded inputs: float32 N(0, 1) features, int64 labels in [0, n_classes)."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in inputs.items():
        if name == "label":
            out[name] = rng.integers(0, n_classes, size=shape).astype(np.int64)
        else:
            out[name] = rng.standard_normal(shape).astype(np.float32)
    return out


def n_classes(model, cfg):
    return cfg.get("d_out", 10)
