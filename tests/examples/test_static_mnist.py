"""The static MNIST example (py_func ReLU) and the shape of the programs it builds."""
import os
import subprocess
import sys

import numpy as np
import pytest

import runtime as paddle
from runtime import static
import runtime.static.layers_bridge  # noqa: F401  (parameter creator/initializer hooks)
from runtime.static.fc import fc, accuracy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "examples", "static_mnist_pyfunc.py")


def _features_ready():
    nn = getattr(static, "nn", None)
    return hasattr(static, "py_func") and nn is not None and hasattr(nn, "fc") and hasattr(static, "accuracy")


@pytest.mark.skipif(not _features_ready(), reason="paddle.static.py_func / static.nn.fc / static.accuracy "
                                                  "are not exported yet")
def test_static_mnist_example_trains():
    proc = subprocess.run([sys.executable, SCRIPT, "--print-program"], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "test accuracy" in out
    assert "py_func" in out and "sgd" in out


@pytest.fixture
def static_mode():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


def test_program_printing_shows_data_params_grads_and_sgd(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        image = static.data(name="image", shape=[None, 64], dtype="float32")
        label = static.data(name="label", shape=[None, 1], dtype="int64")
        h = paddle.nn.functional.relu(fc(image, size=16))
        pred = fc(h, size=10, activation="softmax")
        loss = paddle.mean(paddle.nn.functional.cross_entropy(pred, label, use_softmax=False))
        acc = accuracy(input=pred, label=label)
        opt_ops, params_grads = paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)
    main.verify()
    startup.verify()
    text, stext = str(main), str(startup)
    assert "var image : LOD_TENSOR.shape(-1, 64).dtype(float32)" in text
    w0 = [p for p, _ in params_grads if p.name.endswith(".w_0")][0].name
    prefix = w0.split(".")[0]
    n = int(prefix.split("_")[1])
    names = [f"fc_{n}.w_0", f"fc_{n}.b_0", f"fc_{n + 1}.w_0", f"fc_{n + 1}.b_0"]
    for name in names:
        assert f"persist trainable param {name} :" in text
        assert f"{name}@GRAD" in text
        assert f"{{Out=[{name}" in stext          # the initializer writes the parameter in startup
    assert text.count("= sgd(") == 4 and len(opt_ops) == 4 and all(op.type == "sgd" for op in opt_ops)
    assert "= mul(" in text and "= accuracy(" in text and "= top_k_v2(" in text
    assert "uniform_random" in stext and "fill_constant" in stext
    # sgd updates the parameter in place
    for op in opt_ops:
        assert op.output("ParamOut") == op.input("Param")
    # the test clone keeps only the forward
    test_text = str(main.clone(for_test=True))
    assert "sgd(" not in test_text and "@GRAD" not in test_text

    exe = static.Executor(static.CPUPlace())
    exe.run(startup)
    rng = np.random.default_rng(0)
    x = rng.random((8, 64), dtype=np.float32)
    y = rng.integers(0, 10, (8, 1)).astype(np.int64)
    l0, a0 = exe.run(main, feed={"image": x, "label": y}, fetch_list=[loss, acc])
    l1, _ = exe.run(main, feed={"image": x, "label": y}, fetch_list=[loss, acc])
    assert np.isfinite(l0) and l1 < l0 and 0.0 <= a0 <= 1.0
