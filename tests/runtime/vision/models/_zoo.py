"""Shared machinery of the vision model tests: one real-Paddle subprocess serves every family.

``CASES`` lists model instances by the constructor call that builds them (the same text runs in
both packages, with ``models`` bound to each one's ``vision.models``). The session fixture
`zoo` (conftest.py) first does our side's preparations (our state_dicts and jit.save files for
the reverse-direction cases), then runs Paddle 3.3.1 once, which

- builds every forward case with a seed, gives biases, norm scales and running statistics
  non-trivial values (fresh BN layers are the identity, which would hide a wrong statistics
  path), saves the state_dict with paddle.save and records its eval outputs;
- loads our state_dicts (reverse cases) and reports its eval outputs, and loads our jit.save
  files with paddle.jit.load and the inference predictor;
- builds every constructor of `STRUCTURE` under paddle.LazyGuard (no initialisation cost) and
  reports its state_dict names and shapes in order and its parameter count.
"""
from __future__ import annotations

import json
import pathlib
import zlib

import numpy as np

import dy2st as paddle
from dy2st.static import InputSpec
from tests.interop.paddle_runner import run_paddle

# name -> (constructor call, input shape, family, flags). Flags: "reverse" (our weights into
# Paddle), "jit" (our jit.save loads in Paddle; implies reverse), "static" (to_static == eager).
CASES = {
    "resnet18": ("models.resnet18(num_classes=10)", [2, 3, 32, 32], "resnet", {"jit", "static"}),
    "resnet18_nohead": ("models.resnet18(num_classes=0, with_pool=False)", [1, 3, 32, 32], "resnet", set()),
    "resnext50_32x4d": ("models.resnext50_32x4d(num_classes=10)", [1, 3, 32, 32], "resnet", set()),
    "vgg11_bn": ("models.vgg11(batch_norm=True, num_classes=0)", [1, 3, 32, 32], "vgg", set()),
    "vgg13": ("models.vgg13(num_classes=0, with_pool=False)", [1, 3, 32, 32], "vgg", {"static"}),
    "mobilenet_v1": ("models.mobilenet_v1(scale=0.25, num_classes=10)", [2, 3, 32, 32], "mobilenetv1",
                     {"reverse", "static"}),
    "mobilenet_v2": ("models.mobilenet_v2(scale=0.5, num_classes=10)", [2, 3, 32, 32], "mobilenetv2",
                     {"static"}),
    "mobilenet_v3_small": ("models.mobilenet_v3_small(scale=0.5, num_classes=10)", [2, 3, 32, 32], "mobilenetv3",
                           {"jit", "static"}),
    "mobilenet_v3_large": ("models.mobilenet_v3_large(scale=0.35, num_classes=10)", [1, 3, 32, 32],
                           "mobilenetv3", set()),
    "alexnet_trunk": ("models.alexnet(num_classes=0)", [1, 3, 64, 64], "alexnet", {"static"}),
    "squeezenet1_0": ("models.squeezenet1_0(num_classes=10)", [1, 3, 64, 64], "squeezenet", {"static"}),
    "squeezenet1_1": ("models.squeezenet1_1(num_classes=10)", [2, 3, 64, 64], "squeezenet", {"reverse"}),
    "shufflenet_v2_x0_25": ("models.shufflenet_v2_x0_25(num_classes=10)", [2, 3, 32, 32], "shufflenetv2",
                            {"static"}),
    "shufflenet_v2_swish": ("models.shufflenet_v2_swish(num_classes=10)", [1, 3, 32, 32], "shufflenetv2", set()),
    "densenet121": ("models.densenet121(num_classes=10)", [2, 3, 32, 32], "densenet", {"jit", "static"}),
    "googlenet": ("models.googlenet(num_classes=10)", [1, 3, 224, 224], "googlenet", {"reverse"}),
    "googlenet_nohead": ("models.googlenet(num_classes=0, with_pool=False)", [1, 3, 64, 64], "googlenet",
                         {"static"}),
    "inception_v3": ("models.inception_v3(num_classes=10)", [1, 3, 75, 75], "inceptionv3", set()),
    "lenet": ("models.LeNet()", [2, 1, 28, 28], "lenet", {"jit", "static"}),
}

# every public constructor with its default arguments, plus the class spellings
STRUCTURE = {
    "resnet": ["resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d", "resnext50_64x4d",
               "resnext101_32x4d", "resnext101_64x4d", "resnext152_32x4d", "resnext152_64x4d", "wide_resnet50_2",
               "wide_resnet101_2", "resnet50(num_classes=0, with_pool=False)"],
    "vgg": [f"vgg{d}(batch_norm={bn})" for d in (11, 13, 16, 19) for bn in (False, True)]
           + ["vgg16(num_classes=0)"],
    "mobilenetv1": ["mobilenet_v1", "mobilenet_v1(scale=0.5)", "MobileNetV1(scale=0.75, num_classes=7)"],
    "mobilenetv2": ["mobilenet_v2", "mobilenet_v2(scale=0.35)", "mobilenet_v2(scale=1.4)",
                    "MobileNetV2(num_classes=5)"],
    "mobilenetv3": ["mobilenet_v3_small", "mobilenet_v3_large", "mobilenet_v3_small(scale=0.75)",
                    "mobilenet_v3_large(scale=1.25)", "MobileNetV3Small(num_classes=0)"],
    "alexnet": ["alexnet", "AlexNet(num_classes=3)"],
    "squeezenet": ["squeezenet1_0", "squeezenet1_1", "SqueezeNet('1.1', num_classes=4)"],
    "shufflenetv2": ["shufflenet_v2_x0_25", "shufflenet_v2_x0_33", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
                     "shufflenet_v2_x1_5", "shufflenet_v2_x2_0", "shufflenet_v2_swish"],
    "densenet": ["densenet121", "densenet161", "densenet169", "densenet201", "densenet264",
                 "DenseNet(layers=121, bn_size=2, dropout=0.1, num_classes=3)"],
    "googlenet": ["googlenet", "GoogLeNet(num_classes=0)"],
    "inceptionv3": ["inception_v3", "InceptionV3(num_classes=0, with_pool=False)"],
    "lenet": ["LeNet", "LeNet(num_classes=0)"],
}


def structure_expr(text):
    return "models." + (text if "(" in text else text + "()")


def seed_of(name):
    return zlib.crc32(name.encode()) % (2 ** 31)


def case_input(name):
    shape = CASES[name][1]
    return np.random.default_rng(seed_of(name)).standard_normal(shape).astype("float32")


def perturb(state, seed):
    """{name: ndarray} -> new values: running variance in [0.5, 1.5], running mean and every
    other 1-D tensor (biases, norm scale/shift) moved by up to 0.2. The same rule runs in the
    Paddle script (PADDLE_SCRIPT) for Paddle-built models."""
    rng = np.random.default_rng(seed)
    out = {}
    for k, v in state.items():
        if k.endswith("_variance"):
            out[k] = rng.uniform(0.5, 1.5, v.shape).astype(v.dtype)
        elif k.endswith("_mean"):
            out[k] = rng.uniform(-0.2, 0.2, v.shape).astype(v.dtype)
        elif v.ndim == 1:
            out[k] = (v + rng.uniform(-0.2, 0.2, v.shape)).astype(v.dtype)
        else:
            out[k] = v
    return out


def build(expr):
    return eval(expr, {"models": paddle.vision.models, "paddle": paddle})   # noqa: S307 (test-owned text)


def outputs(model, x):
    with paddle.no_grad():
        out = model(paddle.to_tensor(x))
    return [o.numpy() for o in (out if isinstance(out, (tuple, list)) else [out])]


def scale_rel(got, want):
    """max |got - want| / max |want|: the error relative to the output's scale."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    return float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-12))


def our_reverse_model(name):
    """Our model for a reverse case with perturbed weights, in eval mode."""
    paddle.seed(seed_of(name) + 1)
    model = build(CASES[name][0])
    state = {k: v.numpy() for k, v in model.state_dict().items()}
    model.set_state_dict(perturb(state, seed_of(name) + 1))
    model.eval()
    return model


def spec_of(name):
    shape = list(CASES[name][1])
    return [InputSpec([None] + shape[1:], "float32", "x")]


PADDLE_SCRIPT = r"""
import json
import traceback
import numpy as np
from paddle.vision import models

spec = json.load(open("spec.json"))
report = {"forward": {}, "reverse": {}, "jit": {}, "structure": {}}


def perturb(state, seed):
    # the same rule as _zoo.perturb (kept in step with it)
    rng = np.random.default_rng(seed)
    for k, v in state.items():
        a = v.numpy()
        if k.endswith("_variance"):
            v.set_value(rng.uniform(0.5, 1.5, a.shape).astype(a.dtype))
        elif k.endswith("_mean"):
            v.set_value(rng.uniform(-0.2, 0.2, a.shape).astype(a.dtype))
        elif a.ndim == 1:
            v.set_value((a + rng.uniform(-0.2, 0.2, a.shape)).astype(a.dtype))


def outs(o):
    return [t.numpy() for t in (o if isinstance(o, (tuple, list)) else [o])]


def keys(m):
    return [[k, list(v.shape)] for k, v in m.state_dict().items()]


for c in spec["forward"]:
    paddle.seed(c["seed"])
    m = eval(c["expr"])
    perturb(m.state_dict(), c["seed"])
    m.eval()
    paddle.save(m.state_dict(), c["name"] + ".pdparams")
    with paddle.no_grad():
        o = outs(m(paddle.to_tensor(np.load(c["name"] + ".x.npy"))))
    np.savez(c["name"] + ".paddle_out.npz", *o)
    report["forward"][c["name"]] = keys(m)

for c in spec["reverse"]:
    m = eval(c["expr"])
    missing, unexpected = m.set_state_dict(paddle.load(c["name"] + ".ours.pdparams"))
    m.eval()
    with paddle.no_grad():
        o = outs(m(paddle.to_tensor(np.load(c["name"] + ".x.npy"))))
    np.savez(c["name"] + ".paddle_rev.npz", *o)
    report["reverse"][c["name"]] = {"missing": list(missing), "unexpected": list(unexpected)}

for c in spec["jit"]:
    # a file Paddle refuses is this case's failure (recorded), not the whole run's
    x = np.load(c["name"] + ".x.npy")
    try:
        layer = paddle.jit.load(c["prefix"])
        layer.eval()
        np.savez(c["name"] + ".paddle_jit.npz", *outs(layer(paddle.to_tensor(x))))
    except Exception:
        report["jit"][c["name"] + ".paddle_jit"] = traceback.format_exc()[-3000:]
    try:
        config = paddle.inference.Config(c["prefix"] + ".pdmodel", c["prefix"] + ".pdiparams")
        config.disable_gpu()
        config.disable_glog_info()
        pred = paddle.inference.create_predictor(config)
        pred.get_input_handle(pred.get_input_names()[0]).copy_from_cpu(x)
        pred.run()
        np.savez(c["name"] + ".paddle_pred.npz", *[pred.get_output_handle(n).copy_to_cpu()
                                                   for n in pred.get_output_names()])
    except Exception:
        report["jit"][c["name"] + ".paddle_pred"] = traceback.format_exc()[-3000:]

for expr in spec["structure"]:
    with paddle.LazyGuard():
        m = eval(expr)
    params = m.parameters()
    report["structure"][expr] = {"keys": keys(m), "n_params": int(sum(int(np.prod(p.shape)) for p in params)),
                                 "n_tensors": len(params)}

json.dump(report, open("report.json", "w"))
"""


class Zoo:
    """The results of the one Paddle run; see the module docstring."""

    def __init__(self, root: pathlib.Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        spec = {"forward": [], "reverse": [], "jit": [], "structure": []}
        self.ours = {}       # reverse cases: our eager outputs
        for name, (expr, _, _, flags) in CASES.items():
            np.save(root / f"{name}.x.npy", case_input(name))
            spec["forward"].append({"name": name, "expr": expr, "seed": seed_of(name)})
            if flags & {"reverse", "jit"}:
                model = our_reverse_model(name)
                paddle.save(model.state_dict(), str(root / f"{name}.ours.pdparams"))
                self.ours[name] = outputs(model, case_input(name))
                spec["reverse"].append({"name": name, "expr": expr})
                if "jit" in flags:
                    prefix = str(root / name / "inference")
                    paddle.jit.save(model, prefix, input_spec=spec_of(name))
                    spec["jit"].append({"name": name, "prefix": prefix})
        spec["structure"] = [structure_expr(t) for family in STRUCTURE.values() for t in family]
        (root / "spec.json").write_text(json.dumps(spec))
        proc = run_paddle(PADDLE_SCRIPT, root)
        if proc.returncode != 0 or not (root / "report.json").exists():
            raise AssertionError(f"the Paddle subprocess failed (status {proc.returncode}):\n{proc.stderr[-6000:]}")
        self.report = json.loads((root / "report.json").read_text())

    def npz(self, name, kind):
        with np.load(self.root / f"{name}.{kind}.npz") as z:
            return [z[f"arr_{k}"] for k in range(len(z.files))]

    def paddle_state(self, name):
        return paddle.load(str(self.root / f"{name}.pdparams"))


# -- the checks each family's test file runs ------------------------------------------------------

TOL = 1e-5   # relative to the output's scale


def check_forward(zoo, name):
    """Paddle's weights load into ours by name (nothing missing or left over, same key order and
    shapes) and give Paddle's eval outputs."""
    expr = CASES[name][0]
    model = build(expr)
    assert [[k, list(v.shape)] for k, v in model.state_dict().items()] == zoo.report["forward"][name]
    missing, unexpected = model.set_state_dict(zoo.paddle_state(name))
    assert not missing and not unexpected, (missing, unexpected)
    model.eval()
    got, want = outputs(model, case_input(name)), zoo.npz(name, "paddle_out")
    assert len(got) == len(want)
    errs = [scale_rel(g, w) for g, w in zip(got, want)]
    assert max(errs) <= TOL, f"{name}: outputs differ from Paddle's by {errs} of their scale"
    return model


def check_reverse(zoo, name):
    """Our state_dict (saved by our paddle.save) loads into Paddle's model and gives our outputs."""
    rep = zoo.report["reverse"][name]
    assert not rep["missing"] and not rep["unexpected"], rep
    errs = [scale_rel(g, w) for g, w in zip(zoo.npz(name, "paddle_rev"), zoo.ours[name])]
    assert len(errs) == len(zoo.ours[name]) and max(errs) <= TOL, errs


def check_jit(zoo, name):
    """Our jit.save files load in Paddle's jit.load and inference predictor with our outputs."""
    for kind in ("paddle_jit", "paddle_pred"):
        error = zoo.report["jit"].get(f"{name}.{kind}")
        assert error is None, f"Paddle ({kind}) failed on our jit.save files:\n{error}"
        errs = [scale_rel(g, w) for g, w in zip(zoo.npz(name, kind), zoo.ours[name])]
        assert len(errs) == len(zoo.ours[name]) and max(errs) <= TOL, (kind, errs)


def check_static(zoo, name):
    """to_static of the model (with Paddle's weights) gives the eager outputs."""
    model = build(CASES[name][0])
    model.set_state_dict(zoo.paddle_state(name))
    model.eval()
    x = case_input(name)
    eager = outputs(model, x)
    static = paddle.jit.to_static(model, input_spec=spec_of(name))
    got = outputs(static, x)
    errs = [scale_rel(g, w) for g, w in zip(got, eager)]
    assert len(got) == len(eager) and max(errs) <= TOL, errs


class _ZeroGenerator:
    """Stands in for the global numpy Generator while only shapes matter: initialising the
    ~1.5e9 parameters of every full-size constructor with random numbers would take minutes."""

    def random(self, size=None, dtype=np.float64):
        return np.zeros(size, dtype)

    def standard_normal(self, size=None, dtype=np.float64):
        return np.zeros(size, dtype)

    def normal(self, loc=0.0, scale=1.0, size=None):
        return np.zeros(size) + loc


def check_structure(zoo, text):
    """A constructor's state_dict names, order and shapes, and its parameter count, equal Paddle's."""
    from runtime import random as rnd
    expr = structure_expr(text)
    saved = rnd._gen[0]
    rnd._gen[0] = _ZeroGenerator()
    try:
        model = build(expr)
    finally:
        rnd._gen[0] = saved
    want = zoo.report["structure"][expr]
    got_keys = [[k, list(v.shape)] for k, v in model.state_dict().items()]
    assert got_keys == want["keys"]
    params = model.parameters()
    assert len(params) == want["n_tensors"]
    assert sum(int(np.prod(p.shape)) for p in params) == want["n_params"]
