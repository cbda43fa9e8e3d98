"""F.max_unpool1d/2d/3d and the MaxUnPool layers: the maxima go back where max pooling found them,
everything else is zero; output sizes, errors and a static graph."""
import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F
from runtime import static

rng = np.random.default_rng(33)


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


def _kept_maxima(x, up, k):
    """Each k-window of ``up`` holds exactly the window's max of ``x`` at its argmax, zeros elsewhere."""
    N, C, H, W = x.shape
    for i in range(H // k):
        for j in range(W // k):
            win, uwin = x[:, :, i * k:(i + 1) * k, j * k:(j + 1) * k], up[:, :, i * k:(i + 1) * k, j * k:(j + 1) * k]
            np.testing.assert_array_equal(uwin.max(axis=(2, 3)), win.max(axis=(2, 3)))
            assert np.all((uwin == 0) | (uwin == win))
            assert np.all((uwin != 0).sum(axis=(2, 3)) == 1)


def test_unpool2d_puts_maxima_back():
    x = rng.standard_normal((2, 3, 6, 8)) + 10
    out, mask = F.max_pool2d(t(x), 2, return_mask=True)
    up = F.max_unpool2d(out, mask, 2).numpy()
    assert up.shape == x.shape
    _kept_maxima(x, up, 2)
    np.testing.assert_array_equal(paddle.nn.MaxUnPool2D(2)(out, mask).numpy(), up)
    assert F.max_unpool2d(out, mask, 2, output_size=[7, 9]).shape == [2, 3, 7, 9]


def test_unpool1d_and_3d():
    x = rng.standard_normal((1, 2, 8)) + 10
    out, mask = F.max_pool1d(t(x), 2, return_mask=True)
    up = F.max_unpool1d(out, mask, 2).numpy()
    assert up.shape == x.shape and np.all((up == 0) | (up == x)) and np.all((up != 0).reshape(1, 2, 4, 2).sum(-1) == 1)
    x5 = rng.standard_normal((1, 2, 4, 4, 6)) + 10
    out, mask = F.max_pool3d(t(x5), 2, return_mask=True)
    up = paddle.nn.MaxUnpool3d(2)(out, mask).numpy()
    assert up.shape == x5.shape and np.all((up == 0) | (up == x5)) and (up != 0).sum() == out.numpy().size


def test_grad_gathers_from_the_indices():
    x = rng.standard_normal((1, 1, 4, 4))
    out, mask = F.max_pool2d(t(x), 2, return_mask=True)
    v = t(out.numpy(), stop_gradient=False)
    g = rng.standard_normal((1, 1, 4, 4))
    (F.max_unpool2d(v, mask, 2) * t(g)).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy().reshape(-1), g.reshape(-1)[mask.numpy().reshape(-1)])


def test_errors():
    out, mask = F.max_pool2d(t(rng.standard_normal((1, 1, 4, 4))), 2, return_mask=True)
    with pytest.raises(ValueError, match="output_size"):
        F.max_unpool2d(out, mask, 2, output_size=[9, 9])
    with pytest.raises(ValueError, match="NCHW"):
        F.max_unpool2d(out, mask, 2, data_format="NHWC")
    with pytest.raises(ValueError, match="out of range"):
        F.max_unpool2d(out, t(np.full((1, 1, 2, 2), 40, np.int32)), 2)
    with pytest.raises(ValueError, match="4-D"):
        F.max_unpool2d(out[0], mask[0], 2)


def test_static_graph_matches_eager():
    x = rng.standard_normal((2, 3, 6, 6))
    out, mask = F.max_pool2d(t(x), 2, return_mask=True)
    eager = F.max_unpool2d(out, mask, 2).numpy()
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xs = static.data("x", [None, 3, 6, 6], "float64")
            o, m = F.max_pool2d(xs, 2, return_mask=True)
            up = F.max_unpool2d(o, m, 2, output_size=[6, 6])
        got, = static.Executor().run(main, feed={"x": x}, fetch_list=[up])
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(got, eager)
