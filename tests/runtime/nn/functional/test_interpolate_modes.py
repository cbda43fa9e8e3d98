"""F.interpolate's linear / bicubic / trilinear modes and argument forms, the Upsample layers, and static
graphs (size and scale tensors, dynamic batch) against eager. The per-op numbers are checked in the
op table (cases_interpolate.py) and against real Paddle (tests/interop/test_functional_interop.py)."""
import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F
from runtime import static

rng = np.random.default_rng(8)
X3, X4, X5 = rng.standard_normal((2, 3, 6)), rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((1, 2, 3, 4, 3))


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


def cubic_matrix(n_in, n_out, align_corners):
    """(n_out, n_in) bicubic matrix from Keys' kernel (A = -0.75), neighbours clamped at the border."""
    def w(d):
        d = abs(d)
        return 1.25 * d ** 3 - 2.25 * d ** 2 + 1 if d <= 1 else (-0.75 * d ** 3 + 3.75 * d ** 2 - 6 * d + 3
                                                                   if d < 2 else 0.0)
    A = np.zeros((n_out, n_in))
    for k in range(n_out):
        if align_corners:
            pos = k * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        else:
            pos = (k + 0.5) * n_in / n_out - 0.5
        base = int(np.floor(pos))
        for i in range(base - 1, base + 3):
            A[k, min(max(i, 0), n_in - 1)] += w(pos - i)
    return A


@pytest.mark.parametrize("align_corners", [False, True])
def test_bicubic_is_separable_cubic_convolution(align_corners):
    out = F.interpolate(t(X4), size=[7, 3], mode="bicubic", align_corners=align_corners).numpy()
    ref = np.einsum("oh,nchw,pw->ncop", cubic_matrix(4, 7, align_corners), X4, cubic_matrix(5, 3, align_corners))
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)


def test_bicubic_keeps_constants_and_upsamples_linear_ramps_exactly_inside():
    np.testing.assert_allclose(F.interpolate(t(np.full((1, 1, 3, 3), 2.5)), size=[7, 5], mode="bicubic").numpy(),
                               np.full((1, 1, 7, 5), 2.5), rtol=1e-6)
    ramp = np.tile(np.arange(6.0), (1, 1, 6, 1))
    out = F.interpolate(t(ramp), size=[6, 11], mode="bicubic", align_corners=True).numpy()
    np.testing.assert_allclose(out[0, 0, 0, 2:-2], np.linspace(0, 5, 11)[2:-2], rtol=1e-6, atol=1e-6)


def test_linear_and_trilinear_reduce_to_bilinear_rules():
    # trilinear with the depth unchanged equals bilinear on every depth slice
    tri = F.interpolate(t(X5), size=[3, 6, 5], mode="trilinear", align_corners=True).numpy()
    for d in range(3):
        bil = F.interpolate(t(X5[:, :, d]), size=[6, 5], mode="bilinear", align_corners=True).numpy()
        np.testing.assert_allclose(tri[:, :, d], bil, rtol=1e-6, atol=1e-6)
    # linear on [N, C, W] equals bilinear on [N, C, 1, W]
    lin = F.interpolate(t(X3), size=[9], mode="linear", align_mode=1).numpy()
    bil = F.interpolate(t(X3[:, :, None]), size=[1, 9], mode="bilinear", align_mode=1).numpy()[:, :, 0]
    np.testing.assert_allclose(lin, bil, rtol=1e-6, atol=1e-6)


def test_channel_last_layouts_match_channel_first():
    for x, mode, size, fmt in ((X3, "linear", [8], "NWC"), (X4, "bicubic", [5, 7], "NHWC"),
                               (X5, "trilinear", [2, 5, 4], "NDHWC")):
        first = F.interpolate(t(x), size=size, mode=mode).numpy()
        last = F.interpolate(t(np.moveaxis(x, 1, -1)), size=size, mode=mode, data_format=fmt).numpy()
        np.testing.assert_allclose(np.moveaxis(last, -1, 1), first, rtol=1e-12)


def test_argument_forms():
    ref = F.interpolate(t(X4), size=[6, 7], mode="bicubic").numpy()
    np.testing.assert_array_equal(F.interpolate(input=t(X4), size=[6, 7], mode="bicubic").numpy(), ref)
    np.testing.assert_array_equal(F.interpolate(t(X4), t(np.array([6, 7])), None, "bicubic").numpy(), ref)
    np.testing.assert_array_equal(F.interpolate(t(X4), [t(np.array([6])), 7], None, "bicubic").numpy(), ref)
    # torch's positional order: ..., align_corners, recompute_scale_factor, antialias
    torch_style = F.interpolate(t(X4), None, 1.5, "bicubic", False, True, False).numpy()
    np.testing.assert_array_equal(torch_style, F.interpolate(t(X4), size=[6, 7], mode="bicubic").numpy())
    assert F.upsample(t(X5), scale_factor=[1, 2, 0.5], mode="trilinear").shape == [1, 2, 3, 8, 1]
    assert F.interpolate(t(X3), scale_factor=t(np.array(1.5)), mode="linear").shape == [2, 3, 9]


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="'linear' needs a 3-D"):
        F.interpolate(t(X4), size=[5, 5], mode="linear")
    with pytest.raises(ValueError, match="'trilinear' needs a 5-D"):
        F.interpolate(t(X4), size=[5, 5], mode="trilinear")
    with pytest.raises(ValueError, match="3 entries"):
        F.interpolate(t(X5), size=[5, 5], mode="trilinear")
    with pytest.raises(ValueError, match="antialias"):
        F.interpolate(t(X4), size=[5, 5], antialias=True)
    with pytest.raises(NotImplementedError, match="antialias"):
        F.interpolate(t(X4), size=[5, 5], mode="bicubic", antialias=True)
    with pytest.raises(ValueError, match="explicit size"):
        F.interpolate(t(X4), size=[5, 5], mode="bicubic", recompute_scale_factor=True)
    with pytest.raises(TypeError, match="multiple values"):
        F.interpolate(t(X4), input=t(X4), size=[5, 5])


def test_grads_are_adjoint():
    for x, mode, size in ((X3, "linear", [10]), (X4, "bicubic", [3, 8]), (X5, "trilinear", [4, 2, 5])):
        xt = t(x, stop_gradient=False)
        out = F.interpolate(xt, size=size, mode=mode)
        g = rng.standard_normal(out.shape)
        (out * t(g)).sum().backward()
        v = rng.standard_normal(x.shape)
        rhs = float((F.interpolate(t(v), size=size, mode=mode).numpy() * g).sum())
        assert float((xt.grad.numpy() * v).sum()) == pytest.approx(rhs, rel=1e-5)


def test_upsample_layers():
    up = paddle.nn.Upsample(scale_factor=1.3, mode="bicubic", recompute_scale_factor=True)
    np.testing.assert_array_equal(up(t(X4)).numpy(), F.interpolate(t(X4), size=[5, 6], mode="bicubic").numpy())
    assert paddle.nn.Upsample(size=[4], mode="linear")(t(X3)).shape == [2, 3, 4]
    np.testing.assert_array_equal(paddle.nn.UpsamplingBilinear2D(size=[6, 6])(t(X4)).numpy(),
                                  F.interpolate(t(X4), size=[6, 6], mode="bilinear", align_corners=True).numpy())


def test_static_graph_with_size_tensor_and_dynamic_batch():
    eager = [F.interpolate(t(X4), size=[6, 7], mode="bicubic").numpy(),
             F.interpolate(t(X5), scale_factor=[2.0, 1.0, 0.5], mode="trilinear").numpy(),
             F.interpolate(t(X3), size=[4], mode="linear", align_corners=True).numpy()]
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x4 = static.data("x4", [None, 3, 4, 5], "float64")
            x5 = static.data("x5", [None, 2, 3, 4, 3], "float64")
            x3 = static.data("x3", [None, 3, 6], "float64")
            size = static.data("size", [2], "int64")
            outs = [F.interpolate(x4, size=size, mode="bicubic"),
                    F.interpolate(x5, scale_factor=[2.0, 1.0, 0.5], mode="trilinear"),
                    F.interpolate(x3, size=[4], mode="linear", align_corners=True)]
        assert [op.type for op in main.global_block().ops if op.type.endswith("interp_v2")] == \
            ["bicubic_interp_v2", "trilinear_interp_v2", "linear_interp_v2"]
        assert list(outs[1].shape) == [-1, 2, 6, 4, 1] and list(outs[2].shape) == [-1, 3, 4]
        got = static.Executor().run(main, feed={"x4": X4, "x5": X5, "x3": X3, "size": np.array([6, 7])},
                                    fetch_list=outs)
    finally:
        paddle.disable_static()
    for g, e in zip(got, eager):
        np.testing.assert_allclose(g, e, rtol=1e-12)
