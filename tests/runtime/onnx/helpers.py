"""Shared helpers of the ONNX export tests: static-mode fixture, executor run, export, onnxruntime parity."""
from __future__ import annotations

import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.onnx import export_program

try:
    import onnx
except ImportError:   # pragma: no cover - onnx is a dependency
    onnx = None
try:
    import onnxruntime as ort
except ImportError:   # pragma: no cover - depends on the machine
    ort = None

needs_ort = pytest.mark.skipif(ort is None or onnx is None,
                               reason="onnxruntime is not installed (pip install onnxruntime, or the test "
                                      "extra): ONNX parity with onnxruntime is not checked")


@pytest.fixture
def static_mode():
    """Static mode for the test; eager mode is always restored."""
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


class Built:
    """A Program pair built by ``build(fn)``, its initialized scope, and the fetch variables."""

    def __init__(self, main, startup, scope, fetch, feed_names):
        self.main, self.startup, self.scope, self.fetch, self.feed_names = main, startup, scope, fetch, feed_names

    def run(self, feed):
        exe = static.Executor()
        return exe.run(self.main, feed=feed, fetch_list=list(self.fetch), scope=self.scope)

    def export(self, opset=17, path=None):
        return export_program(self.main, self.feed_names, list(self.fetch), path, opset_version=opset,
                              params=self.scope.vars)


def build(fn, feed_names=None):
    """Run ``fn()`` (which makes static.data inputs and returns the fetch var(s)) under a fresh
    program_guard; run the startup program into a fresh scope."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        out = fn()
    fetch = list(out) if isinstance(out, (list, tuple)) else [out]
    main.verify()
    scope = static.Scope()
    static.Executor().run(startup, scope=scope)
    if feed_names is None:
        feed_names = [n for n, v in main.global_block().vars.items() if v.is_data]
    return Built(main, startup, scope, fetch, feed_names)


def assert_close(got, ref, rtol=1e-5, what=""):
    """``got`` equals ``ref`` to ``rtol`` relative to ``ref``'s magnitude (elementwise, with a floor of
    rtol * max|ref| for values near zero)."""
    ref = np.asarray(ref)
    got = np.asarray(got)
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != {ref.shape}"
    if ref.dtype.kind in "biu":
        np.testing.assert_array_equal(got, ref, err_msg=what)
        return
    assert got.dtype == ref.dtype, f"{what}: dtype {got.dtype} != {ref.dtype}"
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol * max(scale, 1e-6), err_msg=what)


def parity(b: Built, feeds, opset=17, rtol=1e-5):
    """Export ``b`` once, check the model, and compare onnxruntime with our executor on every feed."""
    model = b.export(opset)
    onnx.checker.check_model(model, full_check=True)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for feed in feeds:
        ref = b.run(feed)
        got = sess.run(None, feed)
        assert len(got) == len(ref)
        for i, (g, r) in enumerate(zip(got, ref)):
            assert_close(g, r, rtol, what=f"output {i} ({b.fetch[i].name}) for feed shapes "
                                          f"{ {k: np.shape(v) for k, v in feed.items()} }")
    return model
