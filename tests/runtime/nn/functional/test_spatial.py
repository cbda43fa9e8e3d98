"""F.affine_grid / F.grid_sample: identity transforms, known samples, the padding modes, errors, static graphs."""
import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F
from runtime import static

rng = np.random.default_rng(14)
X = rng.standard_normal((2, 3, 4, 5))
IDENTITY = np.array([[[1.0, 0, 0], [0, 1, 0]]] * 2)


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


@pytest.mark.parametrize("align_corners", [True, False])
def test_identity_grid_reproduces_the_input(align_corners):
    grid = F.affine_grid(t(IDENTITY), [2, 3, 4, 5], align_corners=align_corners)
    assert grid.shape == [2, 4, 5, 2]
    for mode in ("bilinear", "nearest"):
        out = F.grid_sample(t(X), grid, mode=mode, align_corners=align_corners).numpy()
        np.testing.assert_allclose(out, X, rtol=1e-12, atol=1e-12)


def test_affine_grid_base_points():
    g = F.affine_grid(t(IDENTITY[:1]), [1, 1, 2, 3]).numpy()[0]
    np.testing.assert_allclose(g[..., 0], [[-1, 0, 1]] * 2)
    np.testing.assert_allclose(g[..., 1], [[-1, -1, -1], [1, 1, 1]])
    g = F.affine_grid(t(IDENTITY[:1]), [1, 1, 2, 3], align_corners=False).numpy()[0]
    np.testing.assert_allclose(g[0, :, 0], [-2 / 3, 0, 2 / 3])
    shift = np.array([[[1.0, 0, 0.5], [0, 1, 0]]])
    np.testing.assert_allclose(F.affine_grid(t(shift), [1, 1, 2, 3]).numpy()[0, 0, :, 0], [-0.5, 0.5, 1.5])
    assert F.affine_grid(t(rng.standard_normal((2, 3, 4))), [2, 1, 3, 4, 5]).shape == [2, 3, 4, 5, 3]


def test_padding_modes_outside_the_image():
    x = np.arange(4.0).reshape(1, 1, 1, 4)          # one row: 0 1 2 3
    grid = np.array([[[[-1.5, 0.0], [1.5, 0.0]]]])   # beyond both ends (align_corners: x = -0.75, 3.75)
    zeros = F.grid_sample(t(x), t(grid), align_corners=True).numpy().ravel()
    border = F.grid_sample(t(x), t(grid), padding_mode="border", align_corners=True).numpy().ravel()
    reflect = F.grid_sample(t(x), t(grid), padding_mode="reflection", align_corners=True).numpy().ravel()
    np.testing.assert_allclose(zeros, [0.0, 3 * 0.25])      # only the in-bounds neighbour counts
    np.testing.assert_allclose(border, [0.0, 3.0])
    np.testing.assert_allclose(reflect, [0.75, 2.25])      # mirrored at the corner pixels


def test_grad_flows_to_input_and_grid():
    xt = t(X, stop_gradient=False)
    theta = t(IDENTITY * 0.9 + 0.05, stop_gradient=False)
    out = F.grid_sample(xt, F.affine_grid(theta, [2, 3, 3, 4], align_corners=False), align_corners=False)
    out.sum().backward()
    assert xt.grad.shape == [2, 3, 4, 5] and np.abs(theta.grad.numpy()).sum() > 0


def test_errors():
    grid = t(rng.uniform(-1, 1, (2, 3, 3, 2)))
    with pytest.raises(ValueError, match="mode"):
        F.grid_sample(t(X), grid, mode="bicubic")
    with pytest.raises(ValueError, match="padding_mode"):
        F.grid_sample(t(X), grid, padding_mode="circular")
    with pytest.raises(ValueError, match="Grid"):
        F.grid_sample(t(X), t(rng.uniform(-1, 1, (2, 3, 3, 3))))
    with pytest.raises(TypeError, match="theta"):
        F.affine_grid(IDENTITY, [2, 3, 4, 5])
    with pytest.raises(ValueError, match="Theta"):
        F.affine_grid(t(IDENTITY), [2, 3, 4, 5, 6])


def test_static_graph_with_shape_tensor():
    eager = F.grid_sample(t(X), F.affine_grid(t(IDENTITY * 0.8), [2, 3, 3, 3]), padding_mode="border").numpy()
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [None, 3, 4, 5], "float64")
            theta = static.data("theta", [None, 2, 3], "float64")
            shape = static.data("shape", [4], "int32")
            grid = F.affine_grid(theta, shape)
            out = F.grid_sample(x, grid, padding_mode="border")
        got, = static.Executor().run(main, feed={"x": X, "theta": IDENTITY * 0.8,
                                                 "shape": np.array([2, 3, 3, 3], np.int32)}, fetch_list=[out])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, eager, rtol=1e-12)
