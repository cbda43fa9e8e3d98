"""nn.functional behaviour Paddle's unit tests rely on: normalize's aliases (input/dim/eps), ``out=`` and
axis error, ``name=`` on l1_loss's output, the ``paddle.nn.loss`` module, diag's static-mode checks.
References are numpy."""
import importlib

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F


def _np_normalize(a, p, axis, eps):
    return a / np.maximum(np.sum(np.abs(a) ** p, axis=axis, keepdims=True) ** (1.0 / p), eps)


def test_normalize_aliases_out_and_axis_error():
    a = np.random.default_rng(2).standard_normal((2, 3, 4)).astype("float32")
    x = paddle.to_tensor(a)
    ref = _np_normalize(a, 3, 2, 1e-6)
    np.testing.assert_allclose(F.normalize(input=x, p=3, dim=2, eps=1e-6).numpy(), ref, rtol=1e-5)
    out = paddle.zeros_like(x)
    F.normalize(x, 3, 2, 1e-6, out=out)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5)
    with pytest.raises(TypeError, match="both 'x' and its alias 'input'"):
        F.normalize(x, input=x)
    with pytest.raises(ValueError, match=r"Attr\(axis\) value should be in range \[-R, R-1\]"):
        F.normalize(paddle.ones([2]))
    np.testing.assert_allclose(F.normalize(paddle.to_tensor([3.0, 4.0]), axis=0).numpy(), [0.6, 0.8], rtol=1e-6)


def test_l1_loss_output_takes_the_name_in_a_static_program():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [2, 3], "float32")
            y = paddle.static.data("y", [2, 3], "float32")
            out = F.l1_loss(x, y, name="aaa")
            assert out.name.startswith("aaa.tmp_")
            a, b = np.ones([2, 3], "float32"), np.zeros([2, 3], "float32")
            (res,) = paddle.static.Executor().run(main, feed={"x": a, "y": b}, fetch_list=[out])
        np.testing.assert_allclose(res, 1.0)
    finally:
        paddle.disable_static()


def test_nn_loss_module_holds_every_loss_layer():
    nn_loss = importlib.import_module("dy2st.nn.loss")
    assert nn_loss.MSELoss is paddle.nn.MSELoss and nn_loss.CTCLoss is paddle.nn.CTCLoss
    assert "TripletMarginLoss" in nn_loss.__all__
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(nn_loss.L1Loss(reduction="sum")(paddle.to_tensor(a), paddle.to_tensor(a / 2)).numpy(),
                               np.abs(a / 2).sum())


def test_diag_checks_while_building():
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            x = paddle.static.data("x", [3, 3], "float32")
            with pytest.raises(TypeError, match="diag_v2"):
                paddle.diag([1, 2, 3])
            with pytest.raises(TypeError, match="'offset' in diag_v2"):
                paddle.diag(x, offset=2.5)
            with pytest.raises(TypeError, match="'padding_value' in diag_v2"):
                paddle.diag(x, padding_value=[9])
            with pytest.raises(ValueError):
                paddle.diag(paddle.static.data("x3", [3, 3, 3], "float32"))
    finally:
        paddle.disable_static()


def test_softmax_aliases_and_checks():
    a = np.random.default_rng(4).standard_normal((2, 5)).astype("float32")
    e = np.exp(a - a.max(0, keepdims=True))
    np.testing.assert_allclose(F.softmax(input=paddle.to_tensor(a), dim=0).numpy(), e / e.sum(0, keepdims=True),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="must be Tensor"):     # Paddle's eager binding error
        F.softmax(a)
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            i32 = paddle.static.data("i", [2, 3], "int32")
            for fn in (F.softmax, F.softmax_):
                with pytest.raises(TypeError, match="'x' in softmax"):
                    fn(i32)
                with pytest.raises(TypeError, match="must be Tensor"):
                    fn(1)
    finally:
        paddle.disable_static()
