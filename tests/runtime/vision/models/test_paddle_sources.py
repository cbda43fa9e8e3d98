"""Real Paddle's own model source files (site-packages/paddle/vision/models/*.py) run unchanged
on our package: every module path they import exists here (paddle.base.param_attr,
paddle.utils.download, paddle.vision.ops, ...), and the networks they define, built from our
layers, have our state_dict layout and give our models' outputs on the same weights.

A subprocess binds ``paddle`` to dy2st (an import hook maps ``paddle.X`` to ``dy2st.X``) and
execs each file as a submodule of ``paddle.vision.models``, so its relative imports resolve to
our modules; real Paddle is never imported there, only its files are read.
"""
import importlib.util
import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

from ._zoo import CASES

ROOT = pathlib.Path(__file__).resolve().parents[4]
# one small case per family (cheap to build twice)
FAMILY_CASES = ["resnet18", "vgg11_bn", "mobilenet_v1", "mobilenet_v2", "mobilenet_v3_small", "alexnet_trunk",
                "squeezenet1_1", "shufflenet_v2_x0_25", "densenet121", "googlenet_nohead", "inception_v3", "lenet"]

SCRIPT = textwrap.dedent(r'''
    import importlib, importlib.abc, importlib.util, json, pathlib, sys, traceback, types
    import numpy as np
    sys.path.insert(0, ROOT)
    import dy2st

    class PaddleIsDy2st(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        """paddle.X -> the module dy2st.X (the same object, so classes are shared)."""
        def find_spec(self, fullname, path, target=None):
            if fullname == "paddle" or fullname.startswith("paddle."):
                return importlib.util.spec_from_loader(fullname, self)
        def create_module(self, spec):
            return importlib.import_module("dy2st" + spec.name[len("paddle"):])
        def exec_module(self, module):
            pass

    sys.meta_path.insert(0, PaddleIsDy2st())
    import paddle
    report = {"files": {}, "cases": {}}
    theirs = types.SimpleNamespace()
    for f in sorted(pathlib.Path(SRC).glob("*.py")):
        if f.name == "__init__.py":
            continue
        name = "paddle.vision.models._paddle_" + f.stem
        mod = types.ModuleType(name)
        mod.__package__, mod.__file__ = "paddle.vision.models", str(f)
        sys.modules[name] = mod
        try:
            exec(compile(f.read_text(), str(f), "exec"), mod.__dict__)
            report["files"][f.name] = "ok"
            vars(theirs).update({k: v for k, v in vars(mod).items() if not k.startswith("_")})
        except Exception:
            report["files"][f.name] = traceback.format_exc()[-2000:]

    for case, (expr, shape) in CASES.items():
        try:
            ours = eval(expr, {"models": paddle.vision.models})
            other = eval(expr, {"models": theirs})
            assert type(other).__module__.startswith("paddle.vision.models._paddle_"), type(other).__module__
            keys = [[k, list(v.shape)] for k, v in ours.state_dict().items()]
            other_keys = [[k, list(v.shape)] for k, v in other.state_dict().items()]
            other.set_state_dict(ours.state_dict())
            ours.eval(); other.eval()
            x = paddle.to_tensor(np.random.default_rng(0).standard_normal(shape).astype("float32"))
            a, b = ours(x), other(x)
            a = a if isinstance(a, (tuple, list)) else [a]
            b = b if isinstance(b, (tuple, list)) else [b]
            diff = max(float(np.max(np.abs(p.numpy() - q.numpy()))) for p, q in zip(a, b))
            report["cases"][case] = {"same_keys": keys == other_keys, "n_out": [len(a), len(b)], "diff": diff}
        except Exception:
            report["cases"][case] = {"error": traceback.format_exc()[-2000:]}
    print(json.dumps(report))
''')


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    spec = importlib.util.find_spec("paddle")   # locates the files without importing paddle
    if spec is None or spec.origin is None:
        pytest.skip("real PaddlePaddle is not installed: its model source files are not available")
    src = pathlib.Path(spec.origin).parent / "vision" / "models"
    cases = {name: [CASES[name][0], CASES[name][1]] for name in FAMILY_CASES}
    code = f"ROOT = {str(ROOT)!r}\nSRC = {str(src)!r}\nCASES = {cases!r}\n" + SCRIPT
    path = tmp_path_factory.mktemp("paddle_sources") / "run.py"
    path.write_text(code)
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-5000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_every_model_file_imports(report):
    failed = {k: v for k, v in report["files"].items() if v != "ok"}
    assert len(report["files"]) >= 12 and not failed, failed


@pytest.mark.parametrize("name", FAMILY_CASES)
def test_paddle_source_model_equals_ours(report, name):
    res = report["cases"][name]
    assert "error" not in res, res.get("error")
    assert res["same_keys"], f"{name}: Paddle's source builds a different state_dict layout"
    assert res["n_out"][0] == res["n_out"][1]
    # the same layers and kernels, in the same order: equal up to float reassociation at most
    assert res["diff"] <= 1e-5, res


def test_module_paths_are_the_implementation_modules():
    # one module object per path: a second copy would have its own classes (isinstance fails)
    import dy2st
    import dy2st.base.data_feeder
    import dy2st.base.param_attr
    import dy2st.framework
    import dy2st.tensor.manipulation
    import dy2st.utils.download
    import dy2st.vision.models.resnet
    import dy2st.vision.ops
    import runtime.vision.models.resnet
    assert dy2st.vision.models.resnet is runtime.vision.models.resnet
    assert dy2st.vision.models.ResNet is runtime.vision.models.resnet.ResNet
    assert dy2st.vision.ops.ConvNormActivation is sys.modules["runtime.vision.ops"].ConvNormActivation
    assert dy2st.utils.download is sys.modules["runtime.utils.download"]
    assert dy2st.base.param_attr.ParamAttr is dy2st.framework.ParamAttr is dy2st.ParamAttr
    assert dy2st.tensor.manipulation.reshape is dy2st.tensor.reshape is dy2st.reshape
    assert dy2st.tensor.Tensor is dy2st.Tensor
    assert callable(dy2st.vision.models.alexnet) and callable(dy2st.vision.resnet50)   # functions, as in Paddle


def test_data_feeder_helpers():
    import numpy as np

    import dy2st as paddle
    from dy2st.base.data_feeder import check_dtype, check_type, check_variable_and_dtype, convert_dtype
    assert [convert_dtype(d) for d in (paddle.float32, "int64", np.float64, np.dtype("bool"))] == \
        ["float32", "int64", "float64", "bool"]
    x = paddle.to_tensor(np.zeros(2, "float32"))
    check_variable_and_dtype(x, "x", ["float32", "float64"], "op")
    with pytest.raises(TypeError, match="data type of 'x' in op"):
        check_dtype(x.dtype, "x", ["int32"], "op")
    with pytest.raises(TypeError, match="type of 'y' in op"):
        check_type([1], "y", (int, float), "op")
