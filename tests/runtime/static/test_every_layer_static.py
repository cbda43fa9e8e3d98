"""Every common nn layer builds a verified static Program that runs, with eager's output shape."""
import numpy as np
import pytest

import runtime as paddle

nn = paddle.nn

LAYERS = {
    "Conv2D": (lambda: nn.Conv2D(3, 4, 3, padding=1), [None, 3, 8, 8]),
    "Conv2DTranspose": (lambda: nn.Conv2DTranspose(3, 4, 3, stride=2), [None, 3, 8, 8]),
    "MaxPool2D": (lambda: nn.MaxPool2D(2), [None, 3, 8, 8]),
    "AvgPool2D": (lambda: nn.AvgPool2D(2), [None, 3, 8, 8]),
    "AdaptiveAvgPool2D": (lambda: nn.AdaptiveAvgPool2D(2), [None, 3, 8, 8]),
    "AdaptiveMaxPool2D": (lambda: nn.AdaptiveMaxPool2D(2), [None, 3, 8, 8]),
    "BatchNorm2D": (lambda: nn.BatchNorm2D(3), [None, 3, 8, 8]),
    "BatchNorm1D": (lambda: nn.BatchNorm1D(3), [None, 3]),
    "LayerNorm": (lambda: nn.LayerNorm(8), [None, 3, 8]),
    "GroupNorm": (lambda: nn.GroupNorm(1, 3), [None, 3, 8, 8]),
    "Dropout": (lambda: nn.Dropout(0.5), [None, 3, 8]),
    "Flatten": (lambda: nn.Flatten(), [None, 3, 8]),
    "Identity": (lambda: nn.Identity(), [None, 3]),
    "ReLU": (lambda: nn.ReLU(), [None, 3]),
    "ReLU6": (lambda: nn.ReLU6(), [None, 3]),
    "LeakyReLU": (lambda: nn.LeakyReLU(), [None, 3]),
    "GELU": (lambda: nn.GELU(), [None, 3]),
    "Sigmoid": (lambda: nn.Sigmoid(), [None, 3]),
    "Tanh": (lambda: nn.Tanh(), [None, 3]),
    "Softmax": (lambda: nn.Softmax(), [None, 3]),
    "Silu": (lambda: nn.Silu(), [None, 3]),
    "Upsample": (lambda: nn.Upsample(scale_factor=2), [None, 3, 4, 4]),
    "Linear": (lambda: nn.Linear(3, 2), [None, 3]),
    "LSTMCell": (lambda: nn.LSTMCell(3, 4), [None, 3]),
    "GRUCell": (lambda: nn.GRUCell(3, 4), [None, 3]),
    "SimpleRNNCell": (lambda: nn.SimpleRNNCell(3, 4), [None, 3]),
}


def _first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_builds_and_runs_statically(name):
    make, shape = LAYERS[name]
    feed = np.random.default_rng(0).random([2 if d is None else d for d in shape]).astype("float32")
    eager_out = _first(make()(paddle.to_tensor(feed)))
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", shape)
            y = _first(make()(x))
        main.verify()
        startup.verify()
        exe = paddle.static.Executor()
        scope = paddle.static.Scope()
        exe.run(startup, scope=scope)
        (out,) = exe.run(main, feed={"x": feed}, fetch_list=[y], scope=scope)
    finally:
        paddle.disable_static()
    assert list(out.shape) == eager_out.shape
    assert np.all(np.isfinite(out))


def test_embedding_and_losses_build_statically():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            ids = paddle.static.data("ids", [None, 4], "int64")
            e = nn.Embedding(10, 5)(ids)
            h = paddle.static.data("h", [None, 6])
            g = paddle.static.data("g", [None, 6])
            lbl = paddle.static.data("lbl", [None, 1], "int64")
            losses = [nn.CrossEntropyLoss()(h, lbl), nn.MSELoss()(h, g), nn.L1Loss()(h, g),
                      nn.BCEWithLogitsLoss()(h, nn.functional.sigmoid(g)),
                      nn.NLLLoss()(nn.functional.log_softmax(h), lbl.squeeze(-1))]
        main.verify()
        exe = paddle.static.Executor()
        scope = paddle.static.Scope()
        exe.run(startup, scope=scope)
        rng = np.random.default_rng(1)
        hv, gv = rng.random((3, 6)).astype("float32"), rng.random((3, 6)).astype("float32")
        lv = np.array([[1], [0], [5]])
        outs = exe.run(main, feed={"ids": np.array([[1, 2, 3, 4]]), "h": hv, "g": gv, "lbl": lv},
                       fetch_list=[e] + losses, scope=scope)
    finally:
        paddle.disable_static()
    assert outs[0].shape == (1, 4, 5)
    expected = [nn.CrossEntropyLoss()(paddle.to_tensor(hv), paddle.to_tensor(lv)),
                nn.MSELoss()(paddle.to_tensor(hv), paddle.to_tensor(gv)),
                nn.L1Loss()(paddle.to_tensor(hv), paddle.to_tensor(gv))]
    for got, want in zip(outs[1:4], expected):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5)
