"""Bilinear and Dirac initializers against numpy references of Paddle's definitions, eagerly and in a static
startup program. Paddle's values: tests/interop/test_module_surface_interop.py."""
import numpy as np
import pytest

import dy2st as paddle

I = paddle.nn.initializer


def _bilinear_reference(shape):
    size = shape[3]
    f = np.ceil(size / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    w = np.zeros(int(np.prod(shape)), np.float32)
    for i in range(w.size):
        x, y = i % size, (i / size) % size
        w[i] = (1 - abs(x / f - c)) * (1 - abs(y / f - c))
    return w.reshape(shape)


@pytest.mark.parametrize("shape, dtype", [([2, 3, 4, 4], "float32"), ([1, 1, 5, 5], "float64")])
def test_bilinear(shape, dtype):
    p = paddle.create_parameter(shape, dtype, default_initializer=I.Bilinear())
    assert str(p.dtype) == f"paddle.{dtype}"
    np.testing.assert_array_equal(p.numpy(), _bilinear_reference(shape).astype(dtype))
    for bad, err in (([2, 3, 4], ValueError), ([1, 1, 3, 4], ValueError)):
        with pytest.raises(err):
            paddle.create_parameter(bad, "float32", default_initializer=I.Bilinear())


def test_dirac_and_groups():
    w = paddle.create_parameter([4, 2, 3, 3], "float32", default_initializer=I.Dirac()).numpy()
    want = np.zeros((4, 2, 3, 3), np.float32)
    want[0, 0, 1, 1] = want[1, 1, 1, 1] = 1
    np.testing.assert_array_equal(w, want)
    w = paddle.create_parameter([6, 2, 3], "float64", default_initializer=I.Dirac(groups=3)).numpy()
    want = np.zeros((6, 2, 3))
    for g in range(3):
        for j in range(2):
            want[g * 2 + j, j, 1] = 1
    np.testing.assert_array_equal(w, want)
    # a Dirac conv is the identity on its channels
    conv = paddle.nn.Conv2D(3, 3, 3, padding=1, weight_attr=paddle.ParamAttr(initializer=I.Dirac()), bias_attr=False)
    x = paddle.rand([1, 3, 5, 5])
    np.testing.assert_allclose(conv(x).numpy(), x.numpy(), rtol=1e-6)
    with pytest.raises(AssertionError, match="3/4/5 dimensions"):
        paddle.create_parameter([2, 3], "float32", default_initializer=I.Dirac())
    with pytest.raises(AssertionError, match="divisible by groups"):
        paddle.create_parameter([5, 2, 3], "float32", default_initializer=I.Dirac(groups=2))
    with pytest.raises(AssertionError, match="positive integer"):
        I.Dirac(groups=0)


def test_in_a_static_startup_program():
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            w = paddle.static.create_parameter([1, 1, 4, 4], "float32", default_initializer=I.Bilinear())
            d = paddle.static.create_parameter([2, 2, 1], "float32", default_initializer=I.Dirac())
        with paddle.static.scope_guard(paddle.static.Scope()):
            exe = paddle.static.Executor()
            exe.run(start)
            got_w, got_d = exe.run(main, fetch_list=[w, d])
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(got_w, _bilinear_reference([1, 1, 4, 4]))
    np.testing.assert_array_equal(got_d[:, :, 0], np.eye(2))
