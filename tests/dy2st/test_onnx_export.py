"""paddle.onnx.export on converted Layers: checker passes, onnxruntime matches our outputs."""
import numpy as np
import pytest

import dy2st as paddle

from .jit_models import MODELS, build

onnx = pytest.importorskip("onnx", reason="onnx is not installed")


def _ort():
    try:
        import onnxruntime
    except ImportError:
        reason = "onnxruntime is not installed (pip install -e '.[test]')"
        print(f"SKIPPED: {reason}")
        pytest.skip(reason)
    return onnxruntime


@pytest.mark.parametrize("name", sorted(MODELS))
def test_export_matches_onnxruntime(name, tmp_path):
    ort = _ort()
    model, specs, inputs = build(name)
    proto = paddle.onnx.export(model, str(tmp_path / name), input_spec=specs)
    path = str(tmp_path / (name + ".onnx"))
    onnx.checker.check_model(onnx.load(path), full_check=True)
    assert proto.graph.input[0].name == specs[0].name
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for args in inputs:
        feeds = {i.name: a for i, a in zip(sess.get_inputs(), args)}
        got = sess.run(None, feeds)[0]
        with paddle.no_grad():
            ref = model(*[paddle.to_tensor(a) for a in args]).numpy()
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5 * float(np.abs(ref).max()) + 1e-7)


def test_dynamic_batch_dim_stays_symbolic(tmp_path):
    ort = _ort()
    model, specs, _ = build("mlp")
    paddle.onnx.export(model, str(tmp_path / "m.onnx"), input_spec=specs)
    m = onnx.load(str(tmp_path / "m.onnx"))
    dim0 = m.graph.input[0].type.tensor_type.shape.dim[0]
    assert dim0.dim_param and not dim0.dim_value
    sess = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    for b in (1, 7):
        x = np.random.RandomState(b).randn(b, 16).astype("float32")
        np.testing.assert_allclose(sess.run(None, {"x": x})[0], model(paddle.to_tensor(x)).numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_unsupported_op_names_op_and_line(tmp_path):
    from runtime.onnx.lowering import UnsupportedOpError

    class Noisy(paddle.nn.Layer):
        def forward(self, x):
            return x + paddle.rand([3])

    with pytest.raises(UnsupportedOpError, match=r"uniform_random.*test_onnx_export.py:\d+"):
        paddle.onnx.export(Noisy(), str(tmp_path / "n"), input_spec=[paddle.static.InputSpec([3], "float32", "x")])


def test_paddle_onnx_is_dy2st_onnx_whatever_was_imported_first():
    """Regression: with runtime.onnx imported before dy2st, ``paddle.onnx`` was runtime's package
    (``paddle.onnx.export`` a module, not the function)."""
    import subprocess
    import sys
    code = ("import runtime.onnx, runtime.onnx.export\nimport dy2st as paddle\n"
            "assert callable(paddle.onnx.export), paddle.onnx\nassert paddle.onnx.__name__ == 'dy2st.onnx'\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
