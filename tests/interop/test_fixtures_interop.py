"""Real Paddle 3.3.1 files: (1) every fixture loads with our reader, runs in our executor and
reproduces its reference outputs; (2) re-saved with our writer, each still loads in real Paddle
(paddle.jit.load, the inference predictor, static.load_inference_model) with the same outputs.
Also checks our run-time framework.proto against the framework_pb2 Paddle ships."""
import json
import pathlib

import numpy as np
import pytest

from runtime import static
from runtime.formats import proto
from runtime.formats.model_io import load_model, save_model

from .paddle_runner import assert_outputs_match, check_models, run_paddle

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle-3.3.1"
MODELS = sorted(p.name for p in FIXTURES.iterdir() if (p / "model.pdmodel").exists())


def cases(model):
    """[(case name, inputs, reference outputs)] of a fixture folder (ref_in*.npy -> ref_out*.npy)."""
    d = FIXTURES / model
    if (d / "model.ref_in_neg.npy").exists():
        return [(f"{model}{s}", [np.load(d / f"model.ref_in{s}.npy")], [np.load(d / f"model.ref_out{s}.npy")])
                for s in ("", "_neg")]
    ins = [np.load(p) for p in sorted(d.glob("model.ref_in*.npy"))]
    outs = [np.load(p) for p in sorted(d.glob("model.ref_out*.npy"))]
    return [(model, ins, outs)]


def run_ours(loaded, inputs):
    scope = static.Scope()
    scope.vars.update(loaded.params)
    return static.Executor().run(loaded.program, feed=dict(zip(loaded.feed_names, inputs)),
                                 fetch_list=loaded.fetch_names, scope=scope)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("backend", ["compiled", "interpreter"])
def test_fixture_runs_in_our_executor(model, backend):
    m = load_model(FIXTURES / model / "model")
    m.program.verify()
    for name, ins, refs in cases(model):
        scope = static.Scope()
        scope.vars.update(m.params)
        outs = static.Executor(backend=backend).run(m.program, feed=dict(zip(m.feed_names, ins)),
                                                    fetch_list=m.fetch_names, scope=scope)
        assert_outputs_match(outs, refs, f"{name} ({backend})")


@pytest.fixture(scope="module")
def paddle_results(tmp_path_factory):
    work = tmp_path_factory.mktemp("resaved")
    manifest = []
    for model in MODELS:
        m = load_model(FIXTURES / model / "model")
        prefix = work / model / "model"
        save_model(prefix, m.program, m.feed_names, m.fetch_names, m.params, info=m.info or None)
        for name, ins, _ in cases(model):
            manifest.append({"name": name, "prefix": prefix, "inputs": ins, "feed_names": m.feed_names})
    return check_models(manifest, work), work


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("loader", ["jit", "predictor", "static"])
def test_resaved_fixture_loads_in_paddle(model, loader, paddle_results):
    results, _ = paddle_results
    for name, ins, refs in cases(model):
        r = results[name]
        assert f"{loader}_error" not in r, f"{name}: Paddle's {loader} failed:\n{r[f'{loader}_error']}"
        assert_outputs_match(r[loader], refs, f"{name} via Paddle {loader}")


SCHEMA_SCRIPT = """
from paddle.base.proto import framework_pb2
from google.protobuf import descriptor_pb2
fdp = descriptor_pb2.FileDescriptorProto()
framework_pb2.DESCRIPTOR.CopyToProto(fdp)
open("paddle_framework.pb", "wb").write(fdp.SerializeToString())
"""


def _fields(fdp):
    """{message path: {field name: (number, label, type, type_name, default)}} and enums, OpProto left out."""
    out = {}

    def visit(msgs, prefix):
        for m in msgs:
            path = prefix + m.name
            if path.startswith("OpProto"):
                continue
            out[path] = {f.name: (f.number, f.label, f.type, f.type_name, f.default_value) for f in m.field}
            for e in m.enum_type:
                out[path + "." + e.name] = {v.name: v.number for v in e.value}
            visit(m.nested_type, path + ".")
    visit(fdp.message_type, "")
    for e in fdp.enum_type:
        out[e.name] = {v.name: v.number for v in e.value}
    return out


def test_schema_matches_paddles_framework_pb2(tmp_path):
    proc = run_paddle(SCHEMA_SCRIPT, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    from google.protobuf import descriptor_pb2
    theirs = descriptor_pb2.FileDescriptorProto()
    theirs.ParseFromString((tmp_path / "paddle_framework.pb").read_bytes())
    ours = descriptor_pb2.FileDescriptorProto()
    proto.POOL.FindFileByName("paddle/fluid/framework/framework.proto").CopyToProto(ours)
    assert ours.package == theirs.package
    assert json.dumps(_fields(ours), sort_keys=True, indent=1) == json.dumps(_fields(theirs), sort_keys=True, indent=1)
