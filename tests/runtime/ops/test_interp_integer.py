"""Integer input to the interpolation ops (runtime/ops/interp.py, interpolate.py): values are checked
against real Paddle in tests/interop/test_small_fixes_interop.py; here the parts that need no Paddle."""
import numpy as np
import pytest

import dy2st as paddle

F = paddle.nn.functional


def test_uint8_bilinear_matches_float_then_truncation():
    """x2 upsampling has exact weights (multiples of 1/16), so float math then truncation is exact."""
    x = np.random.default_rng(0).integers(0, 256, (1, 2, 3, 4)).astype("uint8")
    ref = F.interpolate(paddle.to_tensor(x.astype("float64")), scale_factor=2, mode="bilinear").numpy()
    got = F.interpolate(paddle.to_tensor(x), scale_factor=2, mode="bilinear")
    assert got.dtype == paddle.uint8
    np.testing.assert_array_equal(got.numpy(), np.trunc(ref).astype("uint8"))


def test_channel_last_integer_linear_is_refused():
    x = paddle.to_tensor(np.ones((1, 3, 4, 2), "uint8"))
    with pytest.raises(NotImplementedError, match="channel-last"):
        F.interpolate(x, size=[5, 6], mode="bilinear", data_format="NHWC")
    with pytest.raises(NotImplementedError, match="channel-last"):
        F.interpolate(paddle.to_tensor(np.ones((1, 2, 2, 3, 2), "uint8")), size=[3, 3, 3], mode="trilinear",
                      data_format="NDHWC")


@pytest.mark.parametrize("mode,dt", [("bilinear", "int32"), ("bicubic", "uint8"), ("nearest", "int16"),
                                     ("bilinear", "bool")])
def test_dtypes_without_paddle_kernel_raise(mode, dt):
    x = paddle.to_tensor(np.ones((1, 1, 2, 3), dt))
    with pytest.raises(RuntimeError, match="is not registered"):
        F.interpolate(x, size=[4, 6], mode=mode)


def test_static_program_uint8_bilinear():
    """The static executor runs the same kernel: uint8 bilinear is not zeroed there either."""
    x = np.full((1, 1, 2, 2), 200, "uint8")
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            xv = paddle.static.data("x", [1, 1, 2, 2], "uint8")
            y = F.interpolate(xv, size=[3, 3], mode="bilinear")
            exe = paddle.static.Executor(paddle.CPUPlace())
            (res,) = exe.run(main, feed={"x": x}, fetch_list=[y])
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(res, np.full((1, 1, 3, 3), 200, "uint8"))
